"""Recording in-process: the SDK helpers given a `Recording` forward what it lacks to an upstream (here a local
cuecard server standing in for the provider), record each exchange, and replay the file without the upstream:
the same answers, chunk for chunk, and misses that name what differs."""
import asyncio
import json

import pytest

import cuecard

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

KEY = "sk-live-abcdefghijklmnop0123456789"


def upstream_mock() -> cuecard.MockModel:
    mock = cuecard.MockModel()
    mock.then_responds("It is sunny in Paris.")
    mock.then_streams("Sunny", " and", " warm", ".")
    mock.then_calls_tool("get_weather", {"city": "Paris"})
    mock.then_responds("Bonjour from Claude.")
    return mock


def ask(client, text, **options):
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}], **options)


def test_record_once_then_replay_without_the_upstream(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "recordings" / "weather.yaml"
    with cuecard.Server(upstream_mock(), instant=True) as upstream:
        recording = cuecard.Recording(path, "once", upstream=upstream.base_url)
        assert (recording.records, recording.replays) == (True, False)
        client = cuecard.openai_client(recording, api_key=KEY, max_retries=0)
        live_text = ask(client, "Weather in Paris?").choices[0].message.content
        live_chunks = [c.choices[0].delta.content for c in ask(client, "Stream it", stream=True) if c.choices]
        live_tool = ask(client, "Use the tool").choices[0].message.tool_calls[0]
        claude = cuecard.anthropic_client(recording, api_key=KEY, max_retries=0)
        live_claude = claude.messages.create(model="claude-test", max_tokens=64,
                                             messages=[{"role": "user", "content": "Hello?"}]).content[0].text
        assert recording.recorded == 4 and recording.failures == []
        assert upstream.mock.request_count() == 4
    text = path.read_text()
    assert KEY not in text and "Weather in Paris?" in text
    # The upstream is gone: everything is answered from the file, the stream in the same chunks.
    replay = cuecard.Recording(path)
    assert (replay.mode, replay.records, replay.replays) == ("none", False, True)
    client = cuecard.openai_client(replay)
    assert ask(client, "Weather in Paris?").choices[0].message.content == live_text == "It is sunny in Paris."
    assert [c.choices[0].delta.content for c in ask(client, "Stream it", stream=True) if c.choices] == live_chunks
    tool = ask(client, "Use the tool").choices[0].message.tool_calls[0]
    assert (tool.function.name, json.loads(tool.function.arguments)) == ("get_weather", {"city": "Paris"})
    assert tool.id == live_tool.id
    claude = cuecard.anthropic_client(replay)
    assert claude.messages.create(model="claude-test", max_tokens=64,
                                  messages=[{"role": "user", "content": "Hello?"}]).content[0].text == live_claude
    cuecard.assert_that(replay.mock).script_fully_used()


def test_a_secret_split_over_stream_chunks_is_not_reassembled_from_the_file(tmp_path, monkeypatch):
    """Issue #59 S1: a `redact` text and the client's own key, streamed a few characters a chunk, are cut from what a
    reader of the file joins; the replayed stream still parses, into the redacted answer."""
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "secret.yaml"
    mock = cuecard.MockModel()
    mock.then_responds(f"the password is CorpSecret-XYZ-123 and your key is {KEY} ok")
    with cuecard.Server(mock, instant=True) as upstream:
        recording = cuecard.Recording(path, "once", upstream=upstream.base_url, redact=["CorpSecret-XYZ-123"])
        client = cuecard.openai_client(recording, api_key=KEY, max_retries=0)
        live = "".join(c.choices[0].delta.content or "" for c in ask(client, "Tell me", stream=True) if c.choices)
        assert recording.recorded == 1 and recording.failures == []
    assert "CorpSecret-XYZ-123" in live and KEY in live
    text = path.read_text()
    client = cuecard.openai_client(cuecard.Recording(path))
    replayed = "".join(c.choices[0].delta.content or "" for c in ask(client, "Tell me", stream=True) if c.choices)
    assert replayed == "the password is [REDACTED] and your key is [REDACTED] ok"
    assert "CorpSecret" not in text and KEY not in text


def test_a_miss_names_the_nearest_recording_and_what_differs(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "weather.json"
    with cuecard.Server(upstream_mock(), instant=True) as upstream:
        ask(cuecard.openai_client(cuecard.Recording(path, "all", upstream=upstream.base_url), api_key=KEY),
            "Weather in Paris?")
    client = cuecard.openai_client(cuecard.Recording(path), max_retries=0)
    with pytest.raises(openai.APIStatusError) as raised:
        ask(client, "Weather in Lyon?")
    message = str(raised.value)
    assert raised.value.status_code == 422
    assert raised.value.code == "no_recording", raised.value.body
    assert '"Weather in Paris?" != "Weather in Lyon?"' in message, message


def test_mode_new_replays_what_it_has_and_appends_what_it_lacks(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "weather.yaml"
    upstream_model = cuecard.MockModel().then_responds("Paris: sunny.").then_responds("Lyon: rain.")
    with cuecard.Server(upstream_model, instant=True) as upstream:
        ask(cuecard.openai_client(cuecard.Recording(path, "once", upstream=upstream.base_url), api_key=KEY),
            "Weather in Paris?")
        appending = cuecard.Recording(path, "new", upstream=upstream.base_url)
        client = cuecard.openai_client(appending, api_key=KEY)
        assert ask(client, "Weather in Paris?").choices[0].message.content == "Paris: sunny."
        assert ask(client, "Weather in Lyon?").choices[0].message.content == "Lyon: rain."
        assert (appending.recorded, upstream.mock.request_count()) == (1, 2)
    replay = cuecard.openai_client(cuecard.Recording(path))
    assert ask(replay, "Weather in Lyon?").choices[0].message.content == "Lyon: rain."
    assert ask(replay, "Weather in Paris?").choices[0].message.content == "Paris: sunny."


def test_async_clients_record_and_replay(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "async.yaml"

    async def run(recording):
        client = cuecard.openai_client(recording, async_=True, api_key=KEY, max_retries=0)
        stream = await client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "Stream it"}], stream=True)
        return [c.choices[0].delta.content async for c in stream if c.choices and c.choices[0].delta.content]

    mock = cuecard.MockModel().then_streams("One", " two", " three")
    with cuecard.Server(mock, instant=True) as upstream:
        live = asyncio.run(run(cuecard.Recording(path, "once", upstream=upstream.base_url)))
    assert asyncio.run(run(cuecard.Recording(path))) == live == ["One", " two", " three"]


def test_bad_modes_missing_files_and_ci_are_refused_with_typed_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(cuecard.NotFoundError) as missing:
        cuecard.Recording(tmp_path / "absent.yaml")
    assert "record it with mode once" in str(missing.value) and isinstance(missing.value, FileNotFoundError)
    with pytest.raises(cuecard.InvalidArgumentError) as mode:
        cuecard.Recording(tmp_path / "r.yaml", "sometimes")
    assert "sometimes" in str(mode.value)
    with pytest.raises(cuecard.InvalidArgumentError) as upstream:
        cuecard.Recording(tmp_path / "r.yaml", "once", upstream="ftp://nowhere")
    assert "not an http:// or https:// URL" in str(upstream.value)
    with pytest.raises(cuecard.InvalidArgumentError, match="allow_in_ci: invalid type: string"):
        cuecard.Recording(tmp_path / "r.yaml", "once", allow_in_ci="yes")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(cuecard.InvalidArgumentError) as ci:
        cuecard.Recording(tmp_path / "r.yaml", "once")
    assert "allow_in_ci=True" in str(ci.value)
    assert cuecard.Recording(tmp_path / "r.yaml", "once", allow_in_ci=True).records


def test_the_pytest_fixture_records_per_test_files_then_replays_them_and_fails_on_unused(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("CUECARD_RECORD", raising=False)
    mock = cuecard.MockModel().then_responds("Recorded answer.").then_repeats()
    upstream = cuecard.Server(mock, instant=True)
    try:
        pytester.makepyfile(test_weather=f"""
            import cuecard, pytest

            @pytest.mark.cuecard(upstream="{upstream.base_url}")
            def test_asks(cuecard_recording):
                client = cuecard.openai_client(cuecard_recording, api_key="{KEY}")
                reply = client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": "Hi"}}])
                assert reply.choices[0].message.content == "Recorded answer."

            @pytest.mark.parametrize("n", [1])
            @pytest.mark.cuecard(upstream="{upstream.base_url}")
            def test_asks_twice(cuecard_recording, n):
                client = cuecard.openai_client(cuecard_recording, api_key="{KEY}")
                for text in ["one", "two"]:
                    client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": text}}])
        """)
        # Replay only (the default) with no files: each test errors naming its missing recording.
        result = pytester.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(errors=2)
        result.stdout.fnmatch_lines(["*recordings/test_weather/test_asks.yaml*record it with mode once*"])
        # Recorded once, one file per test (the parameter id kept).
        pytester.runpytest("-p", "no:cacheprovider", "--cuecard-record=once").assert_outcomes(passed=2)
        files = sorted(p.name for p in (pytester.path / "recordings" / "test_weather").iterdir())
        assert files == ["test_asks.yaml", "test_asks_twice[1].yaml"]
        served = mock.request_count()
        pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
        assert mock.request_count() == served  # the replay never went to the upstream
        # A test that no longer makes a recorded call fails at teardown, showing the unused exchange.
        pytester.makepyfile(test_weather=f"""
            import cuecard, pytest

            @pytest.mark.parametrize("n", [1])
            @pytest.mark.cuecard(upstream="{upstream.base_url}")
            def test_asks_twice(cuecard_recording, n):
                client = cuecard.openai_client(cuecard_recording)
                client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": "one"}}])
        """)
        result = pytester.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(passed=1, errors=1)
        result.stdout.fnmatch_lines(["*script_fully_used() failed*", "*two*"])
    finally:
        upstream.stop()


def test_a_tool_loop_records_one_route_per_exchange_and_its_continuation_replays(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "tool-loop.yaml"

    def run(client):
        messages = [{"role": "user", "content": "Weather in Paris?"}]
        first = client.chat.completions.create(model="gpt-4o", messages=messages, tools=[{
            "type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}])
        call = first.choices[0].message.tool_calls[0]
        messages += [first.choices[0].message.model_dump(exclude_none=True),
                     {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "clear"}'}]
        second = client.chat.completions.create(model="gpt-4o", messages=messages)
        return call.function.name, second.choices[0].message.content

    mock = cuecard.MockModel().then_calls_tool("get_weather", {"city": "Paris"}).then_responds("Clear skies.")
    with cuecard.Server(mock, instant=True) as upstream:
        live = run(cuecard.openai_client(cuecard.Recording(path, "once", upstream=upstream.base_url), api_key=KEY))
    replay = cuecard.Recording(path)
    assert run(cuecard.openai_client(replay)) == live == ("get_weather", "Clear skies.")
    assert [e["route"] for e in replay.mock.entries()] == [0, 1]
    cuecard.assert_that(replay.mock).script_fully_used()


def test_drift_finds_nothing_in_a_fresh_recording_and_a_renamed_field_in_an_edited_one(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "weather.yaml"
    with cuecard.Server(upstream_mock(), instant=True) as upstream:
        recording = cuecard.Recording(path, "once", upstream=upstream.base_url)
        client = cuecard.openai_client(recording, api_key=KEY, max_retries=0)
        ask(client, "Weather in Paris?")
        list(ask(client, "Stream it", stream=True))
    report = cuecard.drift(path)
    assert report["drifted"] is False and report["not_compared"] == []
    assert [(e["endpoint"], e["stream"], e["differences"]) for e in report["exchanges"]] == [
        ("chat_completions", False, []), ("chat_completions", True, [])]
    path.write_text(path.read_text().replace("finish_reason", "finish_reasons"))
    report = cuecard.drift(path)
    assert report["drifted"] is True
    assert {"what": "field", "at": "choices[].finish_reasons", "recorded": "string", "cuecard": "-"} in \
        report["exchanges"][0]["differences"]
    with pytest.raises(cuecard.CuecardError, match="absent.yaml"):
        cuecard.drift(tmp_path / "absent.yaml")


def test_a_recording_replayed_past_its_max_age_warns_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    path = tmp_path / "weather.yaml"
    with cuecard.Server(upstream_mock(), instant=True) as upstream:
        recording = cuecard.Recording(path, "once", upstream=upstream.base_url)
        ask(cuecard.openai_client(recording, api_key=KEY, max_retries=0), "Weather in Paris?")
    text = path.read_text()
    assert "recorded_on:" in text
    path.write_text(text.replace("recorded_on:", "max_age_days: 7\n  recorded_on: 2025-01-15\n  old_day:", 1)
                    .replace("  old_day:", "  #", 1))
    with pytest.warns(cuecard.RecordingWarning, match=r"weather\.yaml was recorded on 2025-01-15, \d+ days ago, more than its max_age_days of 7"):
        replay = cuecard.Recording(path)
    assert ask(cuecard.openai_client(replay), "Weather in Paris?").choices[0].message.content == "It is sunny in Paris."
