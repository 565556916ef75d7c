"""The book's guide "Record real traffic once, replay it": a test records its calls through the SDK helpers once,
then replays them from the file with no provider at all. Here the "provider" is a local cuecard server; in your
suite it is the real API (the default upstream). CI runs it."""
import openai
import pytest

import cuecard


# ANCHOR: code
# The code under test: one question to the model.
def weather_report(client, city: str) -> str:
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": f"Weather in {city}?"}])
    return reply.choices[0].message.content
# ANCHOR_END: code


# ANCHOR: test
def test_record_once_then_replay(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)  # recording is refused under CI unless allowed
    path = tmp_path / "recordings" / "test_weather.yaml"
    provider = cuecard.MockModel.that_responds("Sunny, 22 degrees.")  # stands in for the real API
    with cuecard.Server(provider) as upstream:
        # Mode "once": the file is missing, so the call goes to the upstream and the exchange is written.
        recording = cuecard.Recording(path, "once", upstream=upstream.base_url)
        live = weather_report(cuecard.openai_client(recording, api_key="sk-live-0123456789abcdefghij"), "Paris")
        assert recording.recorded == 1
    assert "sk-live" not in path.read_text()  # keys are never written

    # Mode "none" (the default, and what CI runs): answered from the file, no provider at all.
    replay = cuecard.Recording(path)
    assert weather_report(cuecard.openai_client(replay), "Paris") == live == "Sunny, 22 degrees."
    cuecard.assert_that(replay.mock).script_fully_used()

    # A request the recording does not hold fails, naming the nearest recording and what differs.
    with pytest.raises(openai.UnprocessableEntityError) as miss:  # the SDK's own error for a 422
        weather_report(cuecard.openai_client(replay, max_retries=0), "Lyon")
    assert '"Weather in Paris?" != "Weather in Lyon?"' in str(miss.value)
# ANCHOR_END: test
