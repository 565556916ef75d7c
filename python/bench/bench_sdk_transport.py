"""The official SDKs in-process: through the cuecard transport, beside the same SDK over an httpx MockTransport
that answers with the very bytes cuecard answered (body and headers, captured from one of its replies): the
floor of the SDK itself. Both sides run in alternating rounds and the fastest round of each is kept (noise only
ever adds time). Run after installing the wheel and openai (and anthropic, when installed):

    python python/bench/bench_sdk_transport.py [--quick] | python3 bench/figures.py
"""
import json
import sys
import timeit

import cuecard
from figure import figure

QUICK = "--quick" in sys.argv
ROUNDS = 5 if QUICK else 21
MESSAGES = [{"role": "user", "content": "Weather?"}]


def per_call_us(fn, number):
    return timeit.timeit(fn, number=number) / number * 1e6


def interleaved(ours, floor, number):
    """The fastest round of each, rounds alternating."""
    ours(), floor()
    a, b = [], []
    for _ in range(ROUNDS):
        a.append(per_call_us(ours, number))
        b.append(per_call_us(floor, number))
    return min(a), min(b)


def canned_client(sdk, client_class, base_url, http_module, mock, path, request):
    """`client_class` over a MockTransport answering every request with cuecard's reply to `request`."""
    status, headers, body = replay_of(mock, path, request)
    transport = http_module.MockTransport(lambda _: http_module.Response(status, headers=headers, content=body))
    return client_class(base_url=base_url, api_key="x", http_client=sdk.DefaultHttpxClient(transport=transport))


def replay_of(mock, path, request):
    """The status, headers and body cuecard's wire layer answers `request` with (a whole, non-streamed reply)."""
    reply = mock.handle_http("POST", path, [("content-type", "application/json")], json.dumps(request).encode())
    assert reply["kind"] == "full", reply
    return reply["status"], reply["headers"], reply["body"].encode()


def compare(name, label, ours, floor, number):
    ours_us, floor_us = interleaved(ours, floor, number)
    print(f"{label} through the cuecard transport: {ours_us:8.1f} us/call; over a canned MockTransport "
          f"{floor_us:8.1f} us/call ({ours_us / floor_us:.2f}x)")
    figure(f"{name}", ours_us, "us")
    figure(f"{name}/floor", floor_us, "us")
    figure(f"{name}/over-floor", ours_us / floor_us, "x")


def main():
    import openai

    number = 200 if QUICK else 1000
    mock = cuecard.MockModel.that_responds("The weather is sunny.").then_repeats()
    mock.set_journal_limit(16)
    http = cuecard.transport._http_module_of(openai.DefaultHttpxClient)
    request = {"model": "gpt-4o", "messages": MESSAGES}
    through = cuecard.openai_client(mock)
    bare = canned_client(openai, openai.OpenAI, "http://bare.invalid/v1", http, mock, "/v1/chat/completions", request)
    create = lambda client: lambda: client.chat.completions.create(**request)  # noqa: E731
    compare(f"python/openai-{openai.__version__.split('.')[0]}-create", f"openai {openai.__version__}",
            create(through), create(bare), number)
    try:
        import anthropic
    except ImportError:
        print("anthropic is not installed: its row is left out")
        return
    request = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": MESSAGES}
    http = cuecard.transport._http_module_of(anthropic.DefaultHttpxClient)
    through = cuecard.anthropic_client(mock)
    bare = canned_client(anthropic, anthropic.Anthropic, "http://bare.invalid", http, mock, "/v1/messages", request)
    messages = lambda client: lambda: client.messages.create(**request)  # noqa: E731
    compare(f"python/anthropic-{anthropic.__version__.split('.')[0]}-create", f"anthropic {anthropic.__version__}",
            messages(through), messages(bare), number)


if __name__ == "__main__":
    main()
