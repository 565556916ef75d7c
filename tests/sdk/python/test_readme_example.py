"""The book's example: the official openai SDK, unmodified, against `cuecard serve` (CI runs it with pytest)."""
import json
import subprocess
import sys
import urllib.request

import openai


def test_openai_sdk_against_cuecard_serve(tmp_path):
    scenario = {"cuecard": 1, "routes": [{"steps": [
        {"fail": {"kind": "rate_limited", "retry_after_ms": 1}},
        {"text": "Hello from cuecard!"},
    ]}]}
    (tmp_path / "scenario.json").write_text(json.dumps(scenario))
    # `python -m cuecard` is the `cuecard` command that `pip install ./python` installs.
    server = subprocess.Popen([sys.executable, "-m", "cuecard", "serve", "--port", "0",
                               "--scenario", str(tmp_path / "scenario.json")], stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().split()[-1]  # "OpenAI base URL:    http://127.0.0.1:PORT/v1"
        client = openai.OpenAI(base_url=base_url, api_key="test")
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])
        assert reply.choices[0].message.content == "Hello from cuecard!"  # after the SDK retried the 429 itself
        with urllib.request.urlopen(base_url.removesuffix("/v1") + "/_cuecard/journal") as response:
            journal = json.load(response)
        assert [entry["outcome"] for entry in journal["entries"]] == ["failed", "answered"]
    finally:
        server.terminate()
        server.wait()
