"""The book's guide "Cut a stream mid-way": code that streams an answer must keep what arrived and report the cut,
for each of the three ways a stream breaks on the wire. CI runs it."""
import openai
import pytest

import cuecard


# ANCHOR: code
# The code under test: stream an answer; on a broken stream, return what arrived and say it is incomplete.
def stream_answer(client, question: str) -> tuple[str, bool]:
    pieces = []
    try:
        stream = client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": question}], stream=True)
        finished = False
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
            if chunk.choices and chunk.choices[0].finish_reason:
                finished = True
        return "".join(pieces), finished
    except openai.APIError:  # an error event mid-stream, or the connection cut (APIConnectionError)
        return "".join(pieces), False
# ANCHOR_END: code


# ANCHOR: test
@pytest.mark.parametrize("cut", ["error_event", "connection_cut", "clean_end"])
def test_a_cut_stream_keeps_the_text_that_arrived(cut):
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [
        {"text": "The first half of the answer", "fail_after": {"kind": "overloaded"}, "fail_after_as": cut},
    ]}]})
    client = cuecard.openai_client(mock, max_retries=0)

    text, finished = stream_answer(client, "Tell me everything.")

    assert text == "The first half of the answer"  # every token before the cut arrived
    assert finished is False                         # and the code knows the answer is incomplete
    [entry] = mock.entries()
    assert entry["outcome"] == "failed_after_tokens"


def test_a_whole_stream_is_finished():
    client = cuecard.openai_client(cuecard.MockModel.that_responds("All of it."))
    assert stream_answer(client, "Tell me everything.") == ("All of it.", True)
# ANCHOR_END: test
