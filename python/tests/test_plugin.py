"""The pytest plugin, run with pytester: fixtures, the end-of-test script check, the scenario marker."""


def test_an_unused_step_fails_the_test_at_teardown(pytester):
    pytester.makepyfile("""
        def test_calls_once(cuecard_mock):
            cuecard_mock.then_responds("one").then_responds("two")
            assert cuecard_mock.chat("hi")["message"]["text"] == "one"
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*script_fully_used() failed*", "*route 0 (default) step 1: text \"two\"*"])


def test_an_unexpected_request_fails_the_test_showing_what_the_user_said(pytester):
    pytester.makepyfile("""
        import cuecard, pytest

        def test_calls_twice(cuecard_mock):
            cuecard_mock.then_responds("one")
            cuecard_mock.chat("first question")
            with pytest.raises(cuecard.ScriptExhaustedError):
                cuecard_mock.chat("a second, unexpected question")
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        "*actual:   1 unexpected request*",
        '*#1 (model "cuecard-mock") exhausted: last user message "a second, unexpected question"*',
    ])


def test_strict_false_opts_out(pytester):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.cuecard(strict=False)
        def test_calls_once(cuecard_mock):
            cuecard_mock.then_responds("one").then_responds("two")
            cuecard_mock.chat("hi")
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_marker_loads_a_scenario_next_to_the_test_file(pytester):
    pytester.makefile(".json", greeting='{"cuecard": 1, "routes": [{"steps": [{"text": "Hello from a file"}]}]}')
    pytester.makepyfile("""
        import pytest

        @pytest.mark.cuecard(scenario="greeting.json")
        def test_greets(cuecard_mock):
            assert cuecard_mock.chat("hi")["message"]["text"] == "Hello from a file"
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_cuecard_server_serves_the_mock(pytester):
    pytester.makepyfile("""
        import json, urllib.request

        def test_over_http(cuecard_server, cuecard_mock):
            cuecard_mock.then_responds("Served.")
            body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
            request = urllib.request.Request(cuecard_server.openai_base_url + "/chat/completions", data=body,
                                             headers={"content-type": "application/json"})
            reply = json.load(urllib.request.urlopen(request))
            assert reply["choices"][0]["message"]["content"] == "Served."
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_sdk_fixtures_are_wired_to_the_mock(pytester):
    pytester.makepyfile("""
        def test_openai(cuecard_openai, cuecard_mock):
            cuecard_mock.then_responds("From the mock.")
            reply = cuecard_openai.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
            assert reply.choices[0].message.content == "From the mock."

        def test_anthropic(cuecard_anthropic, cuecard_mock):
            cuecard_mock.then_responds("Also from the mock.")
            reply = cuecard_anthropic.messages.create(model="claude-test", max_tokens=10,
                                                      messages=[{"role": "user", "content": "hi"}])
            assert reply.content[0].text == "Also from the mock."
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_cuecard_shared_checks_each_test_on_the_server_at_its_end(pytester):
    # One `python -m cuecard serve` for the run; each test its own /t/{id}/, checked by core at teardown.
    pytester.makepyfile("""
        import json, urllib.request, pytest

        def chat(test, text):
            body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": text}]}).encode()
            request = urllib.request.Request(test.openai_url + "/chat/completions", data=body,
                                             headers={"content-type": "application/json"})
            return json.load(urllib.request.urlopen(request))["choices"][0]["message"]["content"]

        SCENARIO = {"cuecard": 1, "routes": [{"steps": [{"text": "one"}, {"text": "two"}]}]}

        def test_leaves_a_step_unused(cuecard_shared):
            cuecard_shared.load(SCENARIO)
            assert chat(cuecard_shared, "hi") == "one"

        def test_uses_both(cuecard_shared):
            cuecard_shared.load(SCENARIO)
            assert [chat(cuecard_shared, "a"), chat(cuecard_shared, "b")] == ["one", "two"]
            cuecard_shared.check({"check": "received_requests", "times": 2})
            with pytest.raises(AssertionError, match="received_requests"):
                cuecard_shared.check({"check": "received_requests", "times": 3})

        @pytest.mark.cuecard(strict=False)
        def test_lenient(cuecard_shared):
            cuecard_shared.load(SCENARIO)
            chat(cuecard_shared, "hi")

        def test_loads_nothing_and_sends_nothing(cuecard_shared):
            assert cuecard_shared.journal()["count"] == 0
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_leaves_a_step_unused*", "*script_fully_used() failed*"])
