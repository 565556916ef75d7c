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
