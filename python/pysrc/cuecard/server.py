"""The loopback server from Python: `with cuecard.Server(mock) as server:` gives the base URLs for the official
OpenAI and Anthropic clients."""
from __future__ import annotations

from . import _cuecard
from .mock import MockModel


class Server:
    def __init__(self, mock: MockModel, *, instant: bool = False, port: int = 0):
        self._server = _cuecard.Server(mock._core, instant=instant, port=port)
        self.mock = mock

    @property
    def base_url(self) -> str:
        return self._server.base_url

    @property
    def openai_base_url(self) -> str:
        """For `openai.OpenAI(base_url=...)` (ends in `/v1`)."""
        return self._server.openai_base_url

    @property
    def anthropic_base_url(self) -> str:
        """For `anthropic.Anthropic(base_url=...)`."""
        return self._server.anthropic_base_url

    def stop(self) -> None:
        """Stops the server; calling it again does nothing."""
        self._server.stop()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
