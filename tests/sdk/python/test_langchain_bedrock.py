"""LangChain's `ChatBedrockConverse`, unmodified, against `cuecard serve`: invoke, stream, a bound tool's call and
the tool message sent back (boto3 underneath, with one attempt)."""
import boto3
import botocore.config
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from conftest import scenario


@tool
def get_weather(city: str) -> str:
    """The weather of a city."""
    return f"sunny in {city}"


def model(cuecard) -> ChatBedrockConverse:
    client = boto3.client("bedrock-runtime", endpoint_url=cuecard.base, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test",
                          config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 1}))
    return ChatBedrockConverse(model="anthropic.claude-3-5-haiku-20241022-v1:0", client=client, region_name="us-east-1")


def test_invoke_and_stream(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 3, "output_tokens": 4}},
                          {"text": "Hello, world!"}))
    answer = model(cuecard).invoke("Say hello")
    assert answer.content == "Hello, world!"
    assert (answer.usage_metadata["input_tokens"], answer.usage_metadata["output_tokens"]) == (3, 4)
    pieces = [chunk.text for chunk in model(cuecard).stream("Say hello") if chunk.text]
    assert pieces == ["Hello", ",", " world", "!"]
    assert [e["request"]["metadata"]["endpoint"] for e in cuecard.entries()] == ["bedrock_converse"] * 2


def test_a_tool_call_and_the_tool_message_sent_back(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                          {"text": "It is sunny in Paris."}))
    bound = model(cuecard).bind_tools([get_weather])
    messages = [HumanMessage("Weather in Paris?")]
    first = bound.invoke(messages)
    [call] = first.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris"})
    messages += [first, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    assert bound.invoke(messages).content == "It is sunny in Paris."
    second = cuecard.entries()[1]["request"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    assert second["messages"][2]["tool_call_id"] == call["id"]
