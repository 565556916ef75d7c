"""The official Python SDKs, unmodified, reading streams that `cuecard serve` delivers cut at seeded byte
positions (inside UTF-8 sequences, `data:` lines and `\\r\\n` pairs), with keep-alives, JSON whitespace, every line
end and (every other round) `data:` lines broken in several: 200 seeded deliveries per protocol parse to the same
final message as the whole delivery (`delivery` setting, docs/concepts/delivery.md). openai (Chat Completions, Responses),
anthropic, google-genai (Gemini SSE, `\\n` only), ollama (NDJSON) and boto3 (Bedrock's binary event stream, cut
at bytes)."""
import anthropic
import boto3
import botocore.config
import ollama
import openai
import pytest
from google import genai
from google.genai import types

ROUNDS = 200

STEP = {
    "thinking": "Zuerst das Wetter prüfen — 東京 too.",
    "text": "Grüße aus Köln — 東京 🌧️ \"quoted\"\nnew line.",
    "tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Köln", "units": ["c", "f"]}},
        {"name": "get_time", "arguments": {"zone": "Asia/東京"}},
    ],
}
NAMES = ("get_weather", "get_time")
TOOLS_CHAT = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
              for n in ("get_weather", "get_time")]
TOOLS_RESPONSES = [{"type": "function", "name": n, "parameters": {"type": "object"}, "strict": False}
                   for n in ("get_weather", "get_time")]
TOOLS_ANTHROPIC = [{"name": n, "input_schema": {"type": "object"}} for n in ("get_weather", "get_time")]


def delivered(cuecard, delivery=None, rounds=1):
    """Loads a scenario whose one route answers STEP `rounds` times (each request draws its own cuts)."""
    document = {"cuecard": 1, "seed": 2026, "routes": [{"steps": [STEP] * rounds}]}
    if delivery is not None:
        document["delivery"] = delivery
    cuecard.load(document)


def delivery_for(round_number):
    return {"max_chunk_bytes": 1 + round_number % 24, "keepalives": True, "whitespace": True,
            "line_ending": ["lf", "crlf", "cr"][round_number % 3],
            "variations": ["multiline_data"] if round_number % 2 else []}


def chat_result(cuecard):
    client = openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
    with client.chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "hi"}],
                                        tools=TOOLS_CHAT, stream_options={"include_usage": True}) as stream:
        final = stream.get_final_completion()
    choice = final.choices[0]
    calls = [(c.function.name, c.function.arguments) for c in choice.message.tool_calls]
    return choice.message.content, calls, choice.finish_reason, final.usage.completion_tokens


def responses_result(cuecard):
    client = openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
    with client.responses.stream(model="gpt-4o", input="hi", tools=TOOLS_RESPONSES) as stream:
        final = stream.get_final_response()
    items = []
    for item in final.output:
        if item.type == "message":
            items.append(("message", "".join(part.text for part in item.content)))
        elif item.type == "function_call":
            items.append(("function_call", item.name, item.arguments))
        else:
            items.append((item.type,))
    return items, final.status, final.usage.output_tokens


def anthropic_result(cuecard):
    client = anthropic.Anthropic(base_url=cuecard.anthropic_url, api_key="test-key", max_retries=0)
    with client.messages.stream(model="claude-test-model", max_tokens=4096, tools=TOOLS_ANTHROPIC,
                                thinking={"type": "enabled", "budget_tokens": 1024},
                                messages=[{"role": "user", "content": "hi"}]) as stream:
        final = stream.get_final_message()
    blocks = []
    for block in final.content:
        if block.type == "thinking":
            blocks.append(("thinking", block.thinking, block.signature))
        elif block.type == "text":
            blocks.append(("text", block.text))
        else:
            blocks.append((block.type, block.name, block.input))
    return blocks, final.stop_reason, final.usage.output_tokens


def gemini_result(cuecard):
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=cuecard.base))
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    parts, finish = [], None
    for chunk in client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi", config=config):
        candidate = chunk.candidates[0]
        for part in candidate.content.parts if candidate.content and candidate.content.parts else []:
            if part.function_call:
                parts.append(("call", part.function_call.name, part.function_call.args))
            else:
                parts.append(("thought" if part.thought else "text", part.text))
        finish = candidate.finish_reason or finish
    client.close()
    # Text arrives in pieces; the pieces joined (per kind, in order) are what a client keeps.
    joined = []
    for kind, *rest in parts:
        if joined and kind in ("thought", "text") and joined[-1][0] == kind:
            joined[-1] = (kind, joined[-1][1] + rest[0])
        else:
            joined.append((kind, *rest))
    return joined, str(finish)


def ollama_result(cuecard):
    thinking, content, calls, done = "", "", [], None
    for chunk in ollama.Client(host=cuecard.base).chat(model="qwen3", messages=[{"role": "user", "content": "hi"}],
                                                       stream=True, think=True):
        thinking += chunk.message.thinking or ""
        content += chunk.message.content or ""
        calls += [(c.function.name, dict(c.function.arguments)) for c in chunk.message.tool_calls or []]
        done = chunk.done_reason or done
    return thinking, content, calls, done


def bedrock_result(cuecard):
    client = boto3.client("bedrock-runtime", endpoint_url=cuecard.base, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test",
                          config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 1}))
    reply = client.converse_stream(modelId="anthropic.claude-3-5-haiku-20241022-v1:0",
                                   messages=[{"role": "user", "content": [{"text": "hi"}]}])
    blocks, stop = {}, None
    for event in reply["stream"]:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            blocks[start["contentBlockIndex"]] = ["tool", start["start"]["toolUse"]["name"], ""]
        elif "contentBlockDelta" in event:
            at, delta = event["contentBlockDelta"]["contentBlockIndex"], event["contentBlockDelta"]["delta"]
            if "text" in delta:
                blocks.setdefault(at, ["text", ""])[1] += delta["text"]
            elif "reasoningContent" in delta:
                blocks.setdefault(at, ["reasoning", ""])[1] += delta["reasoningContent"].get("text", "")
            elif "toolUse" in delta:
                blocks[at][2] += delta["toolUse"]["input"]
        elif "messageStop" in event:
            stop = event["messageStop"]["stopReason"]
    return [tuple(blocks[i]) for i in sorted(blocks)], stop


@pytest.mark.parametrize("read", [chat_result, responses_result, anthropic_result, gemini_result, ollama_result,
                                  bedrock_result])
def test_200_seeded_deliveries_parse_to_the_whole_deliverys_result(cuecard, read):
    delivered(cuecard)
    expected = read(cuecard)
    assert "Köln" in repr(expected) and "東京" in repr(expected)
    seeds = set()
    for round_number in range(ROUNDS):
        delivered(cuecard, {"seed": round_number, **delivery_for(round_number)})
        assert read(cuecard) == expected, f"delivery seed {round_number}"
        [entry] = cuecard.entries()
        seeds.add(entry["delivery_seed"])
    assert len(seeds) == ROUNDS


def test_one_scenario_cuts_each_request_anew_and_journals_its_seed(cuecard):
    delivered(cuecard, {"seed": 9, "max_chunk_bytes": 5, "keepalives": True}, rounds=3)
    results = [chat_result(cuecard) for _ in range(3)]
    assert results[0] == results[1] == results[2]
    seeds = [entry["delivery_seed"] for entry in cuecard.entries()]
    assert len(set(seeds)) == 3


def test_the_raw_bytes_carry_the_cuts_and_the_seed_header(cuecard):
    import httpx
    delivered(cuecard, {"seed": 4, "max_chunk_bytes": 3, "keepalives": True, "line_ending": "crlf"})
    body = {"model": "claude-test-model", "max_tokens": 100, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream("POST", cuecard.anthropic_url + "/v1/messages", json=body) as response:
        seed = response.headers["x-cuecard-delivery-seed"]
        raw = b"".join(response.iter_raw())
    assert int(seed) == cuecard.entries()[0]["delivery_seed"]
    text = raw.decode()
    assert "\r\n\r\n" in text and "\n\n" not in text.replace("\r\n", "")
    assert "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n" in text


def test_interleaved_tool_calls_are_whole_in_raw_iteration_but_end_early_in_the_stream_helper(cuecard):
    """The opt-in `interleave_tool_calls` variation, as docs/concepts/delivery.md describes it for openai-python: raw
    iteration accumulates both calls; the `.stream()` helper emits `arguments.done` at the first change of index
    (with the arguments as they were then), and for strict tools parses them there and raises."""
    step = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Köln"}},
                           {"name": "get_time", "arguments": {"zone": "Asia/Tokyo"}}]}
    cuecard.load({"cuecard": 1, "routes": [{"steps": [step] * 3}],
                  "delivery": {"split": "none", "variations": ["interleave_tool_calls"]}})
    client = openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)
    messages = [{"role": "user", "content": "hi"}]
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]
    arguments = {}
    for chunk in client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools, stream=True):
        for call in chunk.choices[0].delta.tool_calls or [] if chunk.choices else []:
            arguments[call.index] = arguments.get(call.index, "") + (call.function.arguments or "")
    assert arguments == {0: '{"city":"Köln"}', 1: '{"zone":"Asia/Tokyo"}'}
    with client.chat.completions.stream(model="gpt-4o", messages=messages, tools=tools) as stream:
        done = [(event.name, event.arguments) for event in stream if event.type == "tool_calls.function.arguments.done"]
    assert done == [("get_weather", '{"'), ("get_time", '{"')], done
    strict = [{"type": "function", "function": {"name": n, "strict": True, "parameters": {
        "type": "object", "properties": {}, "additionalProperties": False}}} for n in NAMES]
    with pytest.raises(ValueError):  # json.JSONDecodeError, from the helper's premature parse
        with client.chat.completions.stream(model="gpt-4o", messages=messages, tools=strict) as stream:
            for _ in stream:
                pass
