"""The openai SDK in-process: through the cuecard transport, beside the same SDK over a bare httpx2.MockTransport
that returns a fixed body (the floor of the SDK itself). Run after installing the wheel and openai."""
import json
import timeit

import httpx2
import openai

import cuecard

BODY = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "gpt-4o",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "The weather is sunny.", "refusal": None},
                 "logprobs": None, "finish_reason": "stop"}],
}).encode()
MESSAGES = [{"role": "user", "content": "Weather?"}]


def per_call_us(fn, number=2000):
    fn()
    return timeit.timeit(fn, number=number) / number * 1e6


def main():
    mock = cuecard.MockModel.that_responds("The weather is sunny.").then_repeats().set_journal_limit(16)
    through_cuecard = cuecard.openai_client(mock)
    bare = openai.OpenAI(base_url="http://bare.invalid/v1", api_key="x", http_client=openai.DefaultHttpxClient(
        transport=httpx2.MockTransport(lambda request: httpx2.Response(
            200, headers={"content-type": "application/json"}, content=BODY))))
    cuecard_us = per_call_us(lambda: through_cuecard.chat.completions.create(model="gpt-4o", messages=MESSAGES))
    bare_us = per_call_us(lambda: bare.chat.completions.create(model="gpt-4o", messages=MESSAGES))
    print(f"openai SDK through the cuecard transport: {cuecard_us:8.1f} us/call")
    print(f"openai SDK over a bare MockTransport:     {bare_us:8.1f} us/call  (cuecard / bare = {cuecard_us / bare_us:.2f})")
    stream_mock = cuecard.MockModel.that_responds(" ".join(["word"] * 200)).then_repeats().set_journal_limit(16)
    streaming = cuecard.openai_client(stream_mock)

    def stream_once():
        for _ in streaming.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True):
            pass

    us = per_call_us(stream_once, 200)
    # The same SSE bytes served by a bare MockTransport: the SDK's own decoding cost.
    reply = stream_mock._core.handle_http("POST", "/v1/chat/completions", [], json.dumps(
        {"model": "gpt-4o", "messages": MESSAGES, "stream": True}).encode())
    sse = b"".join(frame for _, frame in reply[4])
    bare_stream = openai.OpenAI(base_url="http://bare.invalid/v1", api_key="x", http_client=openai.DefaultHttpxClient(
        transport=httpx2.MockTransport(lambda request: httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse))))

    def bare_stream_once():
        for _ in bare_stream.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True):
            pass

    bare_us = per_call_us(bare_stream_once, 200)
    print(f"openai SDK streaming 200 tokens via cuecard:  {us:8.1f} us/stream = {200 / us * 1e6:,.0f} tokens/s")
    print(f"the same SSE bytes over a bare MockTransport: {bare_us:8.1f} us/stream = {200 / bare_us * 1e6:,.0f} tokens/s")


if __name__ == "__main__":
    main()
