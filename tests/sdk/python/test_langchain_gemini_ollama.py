"""LangChain's `ChatGoogleGenerativeAI` and `ChatOllama`, unmodified, against `cuecard serve`: invoke, stream, a
bound tool's call and the tool message sent back, and an error surfacing (LangChain turns Google's retries on, so the
test asks for one attempt)."""
import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_ollama import ChatOllama

from conftest import scenario


@tool
def get_weather(city: str) -> str:
    """The weather of a city."""
    return f"sunny in {city}"


def gemini(cuecard) -> ChatGoogleGenerativeAI:
    return ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="test-key", base_url=cuecard.base,
                                  max_retries=1)


def chat_ollama(cuecard) -> ChatOllama:
    return ChatOllama(model="qwen3", base_url=cuecard.base)


@pytest.mark.parametrize("make", [gemini, chat_ollama], ids=["gemini", "ollama"])
def test_invoke_and_stream(cuecard, make):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 3, "output_tokens": 4}},
                          {"text": "Hello, world!"}))
    model = make(cuecard)
    answer = model.invoke("Say hello")
    assert answer.content == "Hello, world!"
    assert (answer.usage_metadata["input_tokens"], answer.usage_metadata["output_tokens"]) == (3, 4)
    pieces = [chunk.content for chunk in model.stream("Say hello") if chunk.content]
    assert "".join(pieces) == "Hello, world!"
    assert len(pieces) == 4, pieces


@pytest.mark.parametrize("make", [gemini, chat_ollama], ids=["gemini", "ollama"])
def test_a_tool_call_and_the_tool_message_sent_back(cuecard, make):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                          {"text": "It is sunny in Paris."}))
    model = make(cuecard).bind_tools([get_weather])
    messages = [HumanMessage("Weather in Paris?")]
    first = model.invoke(messages)
    [call] = first.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"})
    messages += [first, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    assert model.invoke(messages).content == "It is sunny in Paris."
    second = cuecard.entries()[1]["request"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    assert second["messages"][2]["content"][0]["text"].find("sunny in Paris") >= 0


@pytest.mark.parametrize("make", [gemini, chat_ollama], ids=["gemini", "ollama"])
def test_a_scripted_failure_surfaces(cuecard, make):
    cuecard.load(scenario({"fail": {"kind": "bad_request", "message": "bad things"}}))
    with pytest.raises(Exception, match="bad things"):
        make(cuecard).invoke("x")
    assert len(cuecard.entries()) == 1
