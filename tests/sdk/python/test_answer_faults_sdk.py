"""Faults inside the answer (`answer_faults`, issue #54) as the official `openai` and `anthropic` SDKs surface them:
each kind drawn at rate 1 so every answer has it, and the SDK's own objects show what an agent must survive."""
import json

import anthropic
import openai
import pytest

from conftest import scenario

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
CALL = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}


def faulted(kind: str, step) -> dict:
    return {**scenario(step, step), "answer_faults": {"rates": {kind: 1.0}}}


def chat(cuecard, **extra):
    sdk = openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
    return sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Weather?"}], **extra)


def test_invalid_arguments_do_not_parse(cuecard):
    cuecard.load(faulted("invalid_arguments", CALL))
    call = chat(cuecard, tools=TOOLS).choices[0].message.tool_calls[0]
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.function.arguments)
    assert cuecard.entries()[0]["answer_fault"] == "invalid_arguments"


def test_a_schema_violation_parses_but_lacks_the_required_field(cuecard):
    cuecard.load(faulted("schema_violation", CALL))
    call = chat(cuecard, tools=TOOLS).choices[0].message.tool_calls[0]
    assert "city" not in json.loads(call.function.arguments)


def test_an_unknown_tool_and_a_duplicated_id(cuecard):
    cuecard.load({**scenario(CALL, CALL), "answer_faults": {"rates": {"unknown_tool": 0.5, "duplicate_call_id": 0.5}}})
    calls = [chat(cuecard, tools=TOOLS).choices[0].message.tool_calls for _ in range(2)]
    kinds = [e["answer_fault"] for e in cuecard.entries()]
    for made, kind in zip(calls, kinds):
        if kind == "unknown_tool":
            assert made[0].function.name not in {t["function"]["name"] for t in TOOLS}
        else:
            assert len(made) == 2 and made[0].id == made[1].id


def test_a_length_stop_mid_tool_call_and_a_refusal(cuecard):
    cuecard.load(faulted("length_in_tool_call", CALL))
    choice = chat(cuecard, tools=TOOLS).choices[0]
    assert choice.finish_reason == "length"
    with pytest.raises(json.JSONDecodeError):
        json.loads(choice.message.tool_calls[0].function.arguments)
    cuecard.load(faulted("refusal", "The weather is sunny."))
    message = chat(cuecard).choices[0].message
    assert message.refusal and message.content is None


def test_anthropic_sees_max_tokens_and_an_answer_with_only_thinking(cuecard):
    sdk = anthropic.Anthropic(base_url=cuecard.anthropic_url, api_key="test-key", max_retries=0)
    cuecard.load(faulted("truncated_output", '{"city": "Paris", "forecast": "sunny"}'))
    cut = sdk.messages.create(model="claude-sonnet-4-5", max_tokens=100, messages=[{"role": "user", "content": "JSON?"}])
    assert cut.stop_reason == "max_tokens"
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.content[0].text)
    cuecard.load(faulted("reasoning_only", "The weather is sunny."))
    thought = sdk.messages.create(model="claude-sonnet-4-5", max_tokens=100,
                                  thinking={"type": "enabled", "budget_tokens": 1024},
                                  messages=[{"role": "user", "content": "Weather?"}])
    assert [block.type for block in thought.content] == ["thinking"]


def test_structured_output_that_breaks_the_schema_fails_the_sdks_parse(cuecard):
    import pydantic

    class Weather(pydantic.BaseModel):
        city: str
        forecast: str

    sdk = openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
    cuecard.load(faulted("output_schema_violation", '{"city": "Paris", "forecast": "sunny"}'))
    with pytest.raises(pydantic.ValidationError, match="city"):
        sdk.chat.completions.parse(model="gpt-4o", messages=[{"role": "user", "content": "Weather?"}],
                                   response_format=Weather)
    assert cuecard.entries()[0]["answer_fault"] == "output_schema_violation"


def test_a_content_filter_stop_an_empty_answer_and_an_empty_tool_name(cuecard):
    cuecard.load(faulted("content_filter", "The weather in Paris is sunny and warm."))
    choice = chat(cuecard).choices[0]
    assert choice.finish_reason == "content_filter" and choice.message.content == "The weather in Pari"
    cuecard.load(faulted("empty_answer", "The weather is sunny."))
    message = chat(cuecard).choices[0].message
    assert not message.content and not message.tool_calls
    cuecard.load(faulted("empty_tool_name", CALL))
    assert chat(cuecard, tools=TOOLS).choices[0].message.tool_calls[0].function.name == ""


# The other protocols' official SDKs: each fault as google-genai, ollama and boto3 (Bedrock Converse) hand it over.
GEMINI_TOOL = {"function_declarations": [{"name": "get_weather", "parameters": {
    "type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}}]}


def test_google_genai_surfaces_each_fault_in_its_candidate(cuecard):
    from google import genai
    from google.genai import types

    sdk = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=cuecard.base))
    config = types.GenerateContentConfig(tools=[GEMINI_TOOL])

    def ask(kind, step, **extra):
        cuecard.load(faulted(kind, step))
        return sdk.models.generate_content(model="gemini-2.5-flash", contents="Weather?", **extra).candidates[0]

    unknown = ask("unknown_tool", CALL, config=config)
    assert unknown.content.parts[0].function_call.name == "get_weather_unavailable"
    # Arguments that are not JSON reach the SDK as the object Gemini's wire must carry: the raw text under `_raw`.
    raw = ask("invalid_arguments", CALL, config=config).content.parts[0].function_call.args
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw["_raw"])
    assert ask("length_in_tool_call", CALL, config=config).finish_reason == types.FinishReason.MAX_TOKENS
    assert ask("content_filter", "The weather in Paris is sunny.").finish_reason == types.FinishReason.SAFETY
    # Only thoughts: a client that asked for them gets thought parts and no text; one that did not, no parts at all.
    thinking = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    thought = ask("reasoning_only", "The weather is sunny.", config=thinking).content.parts
    assert [(part.thought, part.text) for part in thought] == [(True, "The weather is sunny.")]
    assert not (ask("reasoning_only", "The weather is sunny.").content.parts or [])
    cuecard.load(faulted("truncated_output", '{"city": "Paris", "forecast": "sunny"}'))
    chunks = list(sdk.models.generate_content_stream(model="gemini-2.5-flash", contents="JSON?"))
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    with pytest.raises(json.JSONDecodeError):
        json.loads("".join(c.text or "" for c in chunks))


def test_ollama_surfaces_each_fault_in_its_message(cuecard):
    import ollama

    sdk = ollama.Client(host=cuecard.base)
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]

    def chat(kind, step, **extra):
        cuecard.load(faulted(kind, step))
        return sdk.chat(model="qwen3", messages=[{"role": "user", "content": "Weather?"}], **extra)

    assert chat("empty_tool_name", CALL, tools=tools).message.tool_calls[0].function.name == ""
    duplicated = chat("duplicate_call_id", CALL, tools=tools).message.tool_calls
    assert len(duplicated) == 2 and duplicated[0].function == duplicated[1].function
    violation = chat("schema_violation", CALL, tools=tools).message.tool_calls[0].function.arguments
    assert "city" not in violation
    cut = chat("truncated_output", '{"city": "Paris", "forecast": "sunny"}')
    assert cut.done_reason == "length"
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.message.content)
    assert chat("empty_answer", "The weather is sunny.").message.content == ""


def test_boto3_converse_surfaces_each_fault_in_its_stop_reason_and_blocks(cuecard):
    import boto3
    import botocore.config

    sdk = boto3.client("bedrock-runtime", endpoint_url=cuecard.base, region_name="us-east-1",
                       aws_access_key_id="test", aws_secret_access_key="test",
                       config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 1}))
    tool_config = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}}]}

    def converse(kind, step, **extra):
        cuecard.load(faulted(kind, step))
        return sdk.converse(modelId="anthropic.claude-3-5-haiku-20241022-v1:0",
                            messages=[{"role": "user", "content": [{"text": "Weather?"}]}], **extra)

    unknown = converse("unknown_tool", CALL, toolConfig=tool_config)
    assert unknown["stopReason"] == "tool_use"
    assert unknown["output"]["message"]["content"][0]["toolUse"]["name"] == "get_weather_unavailable"
    cut = converse("length_in_tool_call", CALL, toolConfig=tool_config)
    assert cut["stopReason"] == "max_tokens"
    filtered = converse("content_filter", "The weather in Paris is sunny.")
    assert filtered["stopReason"] == "content_filtered"
    cuecard.load(faulted("invalid_arguments", CALL))
    stream = sdk.converse_stream(modelId="anthropic.claude-3-5-haiku-20241022-v1:0",
                                 messages=[{"role": "user", "content": [{"text": "Weather?"}]}], toolConfig=tool_config)
    pieces = [e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in stream["stream"]
              if "toolUse" in e.get("contentBlockDelta", {}).get("delta", {})]
    with pytest.raises(json.JSONDecodeError):
        json.loads("".join(pieces))
