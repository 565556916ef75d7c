"""Per-call cost of the Python binding (run: python python/bench/bench_calls.py after installing the wheel)."""
import timeit

import cuecard
from figure import figure

REQUEST = {"model": "gpt-4o", "messages": [{"role": "user", "content": "What is the weather in Paris today?"}]}


def per_call_us(fn, number=20000):
    fn()
    return timeit.timeit(fn, number=number) / number * 1e6


def report(name, label, us):
    print(f"{label:<36}{us:8.2f} us/call")
    figure(f"python/{name}", us, "us")


def main():
    mock = cuecard.MockModel.that_responds("The weather in Paris is sunny, 22 degrees.").then_repeats()
    report("chat-dict", "MockModel.chat (dict in, dict out):", per_call_us(lambda: mock.chat(REQUEST)))
    report("chat-text", "MockModel.chat (user text in):", per_call_us(lambda: mock.chat("What is the weather?")))
    bounded = cuecard.MockModel.that_responds("The weather in Paris is sunny, 22 degrees.").then_repeats()
    bounded.set_journal_limit(16)
    report("chat-journal-16", "MockModel.chat, journal limit 16:", per_call_us(lambda: bounded.chat(REQUEST)))
    report("stream-13", "MockModel.stream (13 events):", per_call_us(lambda: mock.stream(REQUEST)))
    report("tokenize-25", "tokenize (25 chars):", per_call_us(lambda: cuecard.tokenize("Hello, world! Order 12345")))
    try:
        from itertools import cycle

        from langchain_core.language_models import GenericFakeChatModel
        from langchain_core.messages import AIMessage

        from cuecard.langchain import CuecardChatModel
    except ImportError:
        return
    import statistics

    adapter = CuecardChatModel(mock=cuecard.MockModel.that_responds("The weather is sunny.").then_repeats())
    adapter.mock.set_journal_limit(16)
    fake = GenericFakeChatModel(messages=cycle([AIMessage("The weather is sunny.")]))
    # Interleaved rounds: this machine's speed drifts more than the difference being measured. Noise only ever
    # adds time, so the minimum over rounds is the stable figure; the median is shown beside it.
    ours, theirs = [], []
    for _ in range(41):
        ours.append(per_call_us(lambda: adapter.invoke("Weather?"), 500))
        theirs.append(per_call_us(lambda: fake.invoke("Weather?"), 500))
    for label, pick in (("min", min), ("median", statistics.median)):
        a, f = pick(ours), pick(theirs)
        print(f"CuecardChatModel.invoke ({label} of 41): {a:8.2f} us/call, GenericFakeChatModel {f:8.2f} us/call,"
              f" ratio {a / f:.2f}")
    figure("python/langchain-invoke", min(ours), "us")
    figure("python/langchain-invoke/over-floor", min(ours) / min(theirs), "x")


if __name__ == "__main__":
    main()
