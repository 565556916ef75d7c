"""The README's Python example (the front page's): the official openai SDK against a scripted model, in-process."""
import cuecard


def test_the_sdk_retries_a_rate_limit(cuecard_mock):  # a fresh mock, checked when the test ends
    cuecard_mock.then_fails("rate_limited", retry_after=0.001).then_responds("Hello!")
    client = cuecard.openai_client(cuecard_mock)  # the real SDK, answered by cuecard's wire encoders
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])
    assert reply.choices[0].message.content == "Hello!"
    cuecard.assert_that(cuecard_mock).received_requests(2).last_request().has_model("gpt-4o")
