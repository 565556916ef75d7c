"""One `cuecard serve` for a whole pytest run, each test on its own `/t/{id}/` prefix (its own copy of the scenario,
cursors and journal): the `cuecard_shared` fixture. Under pytest-xdist the controller starts the server once and
hands its URL to every worker; `--cuecard-url URL` (or `CUECARD_URL`) uses a server started elsewhere (a
docker-compose service, a CI job's).

Used by `pytest_plugin`; nothing here is needed to use cuecard in process."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any, Optional

_STARTED: dict = {}


def start_server() -> str:
    """Starts `python -m cuecard serve` on a free port (once per process) and returns its base URL."""
    if "url" not in _STARTED:
        process = subprocess.Popen([sys.executable, "-m", "cuecard", "serve", "--port", "0", "--instant"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = process.stdout.readline()  # "OpenAI base URL:    http://127.0.0.1:PORT/v1"
        if not first:
            raise RuntimeError(f"cuecard serve did not start: {process.stderr.read()}")
        _STARTED.update(process=process, url=first.split()[-1].removesuffix("/v1"))
    return _STARTED["url"]


def stop_server() -> None:
    process = _STARTED.pop("process", None)
    _STARTED.pop("url", None)
    if process is not None:
        process.terminate()
        process.wait(timeout=10)


def test_id(nodeid: str) -> str:
    """A test's id on the shared server: a digest of its pytest node id (any characters), stable across runs."""
    return "t" + hashlib.sha256(nodeid.encode()).hexdigest()[:24]


class SharedTest:
    """One test's part of the shared server: its base URLs, its scenario, its journal."""

    def __init__(self, server_url: str, test: str):
        self.server_url, self.id = server_url, test
        #: The test's base URL; SDKs take it with their usual suffix (`openai_url` adds `/v1`).
        self.base_url = f"{server_url}/t/{test}"
        self.openai_url = self.base_url + "/v1"
        self.anthropic_url = self.base_url
        #: Whether `load` gave it a scenario of its own.
        self.loaded = False

    def _admin(self, method: str, path: str, body: Optional[bytes] = None) -> Any:
        request = urllib.request.Request(f"{self.server_url}/_cuecard/t/{self.id}{path}", data=body, method=method,
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"cuecard: {method} {path}: {error.read().decode(errors='replace')}") from None

    def load(self, scenario: Any) -> None:
        """Gives this test its own scenario (a dict, or JSON/YAML text); its journal starts empty."""
        body = scenario.encode() if isinstance(scenario, str) else json.dumps(scenario).encode()
        self._admin("PUT", "/scenario", body)
        self.loaded = True

    def journal(self) -> dict:
        """This test's journal document (`count`, `counts`, `entries`, `unused_steps`, and `mcp` with MCP servers)."""
        return self._admin("GET", "/journal")

    def entries(self) -> list:
        return self.journal()["entries"]

    def check(self, *checks: dict) -> None:
        """Runs checks as data against this test's journal on the server (`{"check": "script_fully_used"}`, as
        `cuecard.verify` names them); the first that does not hold raises `AssertionError` with core's message."""
        body = json.dumps(list(checks)).encode()
        result = self._admin("POST", "/checks", body)
        if not result["ok"]:
            raise AssertionError(result["failure"]["message"])

    def drop(self) -> None:
        self._admin("DELETE", "")
