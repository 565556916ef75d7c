"""The LangChain adapter through LangChain's own interfaces: invoke, stream, ainvoke, astream, bind_tools,
with_structured_output. Skipped where langchain-core is not installed; CI installs it."""
import asyncio

import pytest

import cuecard

pytest.importorskip("langchain_core")
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from cuecard.langchain import CuecardChatModel  # noqa: E402


def test_invoke_and_stream_word_like_chunks():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "usage": "estimate", "routes": [{"steps": [
        {"text": "Hello, world!"}, {"text": "Order 12345"}]}]}, instant=True)
    model = CuecardChatModel(mock=mock)
    reply = model.invoke([SystemMessage("Be brief."), HumanMessage("Say hello")])
    assert reply.content == "Hello, world!"
    assert reply.usage_metadata == {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9}
    assert reply.response_metadata["finish_reason"] == "stop"
    chunks = [chunk.content for chunk in model.stream("Order?") if chunk.content]
    assert chunks == ["Order", " ", "123", "45"]
    assert mock.requests()[0]["messages"][0]["role"] == "system"


def test_async_forms():
    mock = cuecard.MockModel.that_responds("one").then_responds("two three")
    model = CuecardChatModel(mock=mock)

    async def main():
        first = await model.ainvoke("a")
        streamed = [chunk.content async for chunk in model.astream("b") if chunk.content]
        return first.content, streamed

    assert asyncio.run(main()) == ("one", ["two", " three"])


def test_bind_tools_streamed_tool_calls_and_tool_results():
    def get_weather(city: str) -> str:
        """Get the weather for a city."""
        return "sunny"

    mock = cuecard.MockModel.that_calls_tool("get_weather", {"city": "Paris"}).then_responds("It is sunny.")
    model = CuecardChatModel(mock=mock).bind_tools([get_weather])
    merged = None
    for chunk in model.stream("Weather in Paris?"):
        merged = chunk if merged is None else merged + chunk
    assert merged.tool_calls == [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}]
    answer = model.invoke([HumanMessage("Weather in Paris?"), merged, ToolMessage("sunny", tool_call_id="call_1")])
    assert answer.content == "It is sunny."
    first, second = mock.requests()
    assert first["tools"][0]["name"] == "get_weather"
    assert second["messages"][1]["tool_calls"][0]["name"] == "get_weather"
    assert second["messages"][2] == {"role": "tool", "content": [{"type": "text", "text": "sunny"}], "tool_call_id": "call_1"}


def test_with_structured_output_parses_the_scripted_tool_call():
    class Invoice(BaseModel):
        total: float
        currency: str

    mock = cuecard.MockModel.that_calls_tool("Invoice", {"total": 42.5, "currency": "EUR"})
    structured = CuecardChatModel(mock=mock).with_structured_output(Invoice)
    assert structured.invoke("Analyze the invoice") == Invoice(total=42.5, currency="EUR")


def test_a_scripted_failure_reaches_langchain_callers():
    model = CuecardChatModel(mock=cuecard.MockModel.that_fails("rate_limited"))
    with pytest.raises(cuecard.ProviderError) as raised:
        model.invoke("hi")
    assert raised.value.status == 429


def test_a_text_answer_is_the_message_langchain_itself_would_build():
    from langchain_core.messages import AIMessage

    from cuecard.langchain import _message

    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "usage": "estimate", "routes": [{"steps": [
        {"thinking": "Hm.", "text": "Fine."}, {"tokens": []}]}]})
    for _ in range(2):
        response = mock.chat("How are you?")
        fast = _message(response)
        meta = {"finish_reason": response["finish_reason"], "model_name": response["model"], "id": response["id"]}
        thinking = {"additional_kwargs": fast.additional_kwargs} if response["message"].get("thinking") else {}
        built = AIMessage(content=response["message"].get("text") or "", response_metadata=meta, id=response["id"],
                          usage_metadata=fast.usage_metadata, **thinking)
        assert fast == built and fast.model_dump() == built.model_dump()
        assert fast.model_fields_set == built.model_fields_set and fast.__pydantic_extra__ == built.__pydantic_extra__
    one, two = _message(response), _message(response)
    one.additional_kwargs["x"] = 1
    one.tool_calls.append({"name": "f", "args": {}, "id": "1", "type": "tool_call"})
    assert two.additional_kwargs == {} and two.tool_calls == [], "copies share no mutable field"


def test_the_pinned_pydantic_takes_the_shortcut_and_it_builds_what_pydantic_validates():
    from langchain_core.messages import AIMessage

    from cuecard import langchain

    assert langchain._text_message is langchain._text_message_built
    fields = {"content": "Fine.", "response_metadata": {"finish_reason": "stop"}, "id": "chatcmpl-9"}
    built, validated = langchain._text_message_built(dict(fields)), langchain._text_message_validated(dict(fields))
    assert built == validated and built.model_dump() == validated.model_dump()
    assert built.model_fields_set == validated.model_fields_set == {"content", "response_metadata", "id"}
