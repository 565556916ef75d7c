"""Runs the real `cuecard serve` binary once per session and gives each test a fresh script through the admin
endpoints (`PUT /_cuecard/scenario`), the way a test in any language can drive a server it did not start."""
import json
import os
import pathlib
import subprocess
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _binary() -> str:
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return os.environ.get("CUECARD_BIN", str(target / "debug" / "cuecard"))


class CuecardServer:
    def __init__(self, process: subprocess.Popen, openai_url: str, anthropic_url: str):
        self.process = process
        self.openai_url = openai_url
        self.anthropic_url = anthropic_url
        self.base = anthropic_url

    def _call(self, method: str, path: str, body: bytes | None = None) -> dict:
        request = urllib.request.Request(self.base + path, data=body, method=method,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def load(self, scenario: dict) -> None:
        """Replaces the script and forgets every request."""
        result = self._call("PUT", "/_cuecard/scenario", json.dumps(scenario).encode())
        assert result["ok"], result

    def journal(self) -> dict:
        return self._call("GET", "/_cuecard/journal")

    def entries(self) -> list:
        return self.journal()["entries"]


def _serve(*options: str):
    process = subprocess.Popen([_binary(), "serve", "--port", "0", "--instant", *options], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    openai_url = process.stdout.readline().split()[-1]
    anthropic_url = process.stdout.readline().split()[-1]
    return CuecardServer(process, openai_url, anthropic_url)


@pytest.fixture(scope="session")
def server():
    served = _serve()
    yield served
    served.process.terminate()
    served.process.wait(timeout=10)


@pytest.fixture(scope="session")
def tls_server(tmp_path_factory):
    """A server that also serves https:// and wss:// (`--tls`), with its test CA's PEM in `served.ca`."""
    ca = tmp_path_factory.mktemp("tls") / "ca.pem"
    served = _serve("--tls", str(ca))
    served.ca = str(ca)
    yield served
    served.process.terminate()
    served.process.wait(timeout=10)


@pytest.fixture
def cuecard(server):
    """The server with an empty script; each test loads its own."""
    server.load({"cuecard": 1, "routes": [{"steps": [{"text": "unused"}]}]})
    return server


def scenario(*steps, **options) -> dict:
    return {"cuecard": 1, "routes": [{"steps": list(steps)}], **options}
