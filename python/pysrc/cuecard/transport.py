"""In-process transports: the official SDKs talk to a `MockModel` through their own HTTP client, without a
socket, answered by the same wire encoders as the server (so streaming, errors and the SDK's own retries behave
as on the wire).

`openai` >= 3 and `anthropic` >= 2 are built on `httpx2`, older releases on `httpx`; a transport is made for
whichever module the SDK uses. Sync and async clients are both supported.

    client = cuecard.openai_client(mock)          # openai.OpenAI wired to the mock
    client = cuecard.anthropic_client(mock)       # anthropic.Anthropic wired to the mock
    client = cuecard.gemini_client(mock)          # google.genai.Client wired to the mock
    client = cuecard.ollama_client(mock)          # ollama.Client wired to the mock
    client = cuecard.bedrock_client(mock)         # boto3's bedrock-runtime client wired to the mock
    transport = cuecard.transport_for(httpx2, mock)   # any httpx2.Client(transport=...)

Each takes a `Recording` in place of the mock: the recording is replayed, and in a record mode what it lacks is
forwarded to the real API with the SDK's own HTTP module and recorded (see `cuecard.recording`).
"""
from __future__ import annotations

import asyncio
import base64
import time
from types import ModuleType
from typing import Any

from .mock import MockModel
from .recording import Recording, arelay, relay

_CACHE: dict[tuple[int, bool], type] = {}


def _frame_bytes(reply: dict) -> list[tuple[int, bytes]]:
    """A streamed reply's frames as (delay in ms, bytes): text, or for a binary stream (AWS event-stream messages,
    `"base64": true`) each frame's base64 decoded."""
    decode = base64.b64decode if reply.get("base64") else str.encode
    return [(frame["delay_ms"], decode(frame["data"])) for frame in reply["frames"]]
BASE_URL = "http://cuecard.invalid"


def _classes(http: ModuleType) -> tuple[type, type]:
    """The sync and async transport classes for an httpx-like module (httpx or httpx2)."""
    key = id(http)
    if (key, True) in _CACHE:
        return _CACHE[(key, True)], _CACHE[(key, False)]

    def cut() -> Exception:
        return http.RemoteProtocolError("peer closed connection without sending complete message body (cuecard)")

    class _Frames:
        """What a streamed reply sends: frames with their delays (none in instant mode: core sent none), an optional
        stall first, maybe a cut at the end."""

        def __init__(self, reply):
            self._frames = _frame_bytes(reply)
            self._stall_ms, self._cut = reply["stall_ms"], reply["end"] == "cut"
            # Frames cut on purpose (the `delivery` setting) reach the SDK one read each.
            self._separate = reply.get("separate_writes", False)

        def _waits(self) -> bool:
            return bool(self._stall_ms or any(delay for delay, _ in self._frames))

        def _one_chunk(self) -> bool:
            return not self._waits() and not self._separate

        @staticmethod
        def _seconds(delay_ms: int) -> float:
            return delay_ms / 1000

        def _whole(self) -> bytes:
            # Nothing to wait for: one chunk, so the SDK's reader does the least work.
            return b"".join(data for _, data in self._frames)

        def _end(self) -> None:
            if self._cut:
                raise cut()

    class FrameStream(_Frames, http.SyncByteStream):
        def __iter__(self):
            if self._one_chunk():
                yield self._whole()
                self._end()
                return
            time.sleep(self._seconds(self._stall_ms))
            for delay_ms, data in self._frames:
                time.sleep(self._seconds(delay_ms))
                yield data
            self._end()

    class AsyncFrameStream(_Frames, http.AsyncByteStream):
        async def __aiter__(self):
            if self._one_chunk():
                yield self._whole()
                self._end()
                return
            await asyncio.sleep(self._seconds(self._stall_ms))
            for delay_ms, data in self._frames:
                await asyncio.sleep(self._seconds(delay_ms))
                yield data
            self._end()

    def parts(request: Any) -> tuple[str, list[tuple[str, str]]]:
        path = request.url.raw_path.decode("ascii")
        return path, [(name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers.raw]

    def answer(mock: MockModel | Recording, request: Any, body: bytes, instant: bool | None) -> dict | None:
        """The reply (without delays when instant), or None when a recording forwards the request."""
        path, headers = parts(request)
        return mock.handle_http(request.method, path, headers, body, instant=instant)

    def outgoing(recording: Recording, request: Any, body: bytes, started: float) -> tuple[Any, Any]:
        """The request to the upstream, and a function making the exchange its reply is recorded into."""
        path, headers = parts(request)
        url, sent = recording.forward(request.method, path, headers)

        def exchange(upstream: Any):
            reply_headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in upstream.headers.raw]
            return recording.recorder(request.method, path, headers, body, upstream.status_code, reply_headers,
                                      started)

        return http.Request(request.method, url, headers=sent, content=body), exchange

    class RelayStream(http.SyncByteStream):
        """A forwarded reply's body: each upstream chunk passed on as it arrives, and recorded."""

        def __init__(self, exchange, upstream):
            self._exchange, self._upstream = exchange, upstream

        def __iter__(self):
            return relay(self._exchange, self._upstream.stream)

        def close(self):
            self._upstream.close()

    class AsyncRelayStream(http.AsyncByteStream):
        def __init__(self, exchange, upstream):
            self._exchange, self._upstream = exchange, upstream

        def __aiter__(self):
            return arelay(self._exchange, self._upstream.stream)

        async def aclose(self):
            await self._upstream.aclose()

    def response(request, reply, streaming_class):
        if reply["kind"] == "abort":
            raise http.RemoteProtocolError("Server disconnected without sending a response (cuecard: connection reset)")
        if reply["kind"] == "full":
            return http.Response(reply["status"], headers=reply["headers"], content=reply["body"].encode(),
                                 request=request)
        return http.Response(reply["status"], headers=reply["headers"], stream=streaming_class(reply),
                             request=request)

    class CuecardTransport(http.BaseTransport):
        """A sync transport answering from a MockModel, or from a Recording (forwarding what it records). `instant`
        skips every scripted delay; by default (None) the mock's own setting decides, at each request."""

        def __init__(self, mock: MockModel | Recording, *, instant: bool | None = None):
            self.mock, self.instant = mock, instant
            self._upstream = None

        def handle_request(self, request):
            body = request.read()
            reply = answer(self.mock, request, body, self.instant)
            if reply is None:
                return self._forward(request, body)
            if reply["kind"] != "stream" and reply["delay_ms"]:
                time.sleep(reply["delay_ms"] / 1000)
            return response(request, reply, FrameStream)

        def _forward(self, request, body):
            if self._upstream is None:
                self._upstream = http.HTTPTransport()
            sent, exchange = outgoing(self.mock, request, body, time.monotonic())
            upstream = self._upstream.handle_request(sent)
            return http.Response(upstream.status_code, headers=upstream.headers,
                                 stream=RelayStream(exchange(upstream), upstream), request=request)

        def close(self):
            if self._upstream is not None:
                self._upstream.close()

    class AsyncCuecardTransport(http.AsyncBaseTransport):
        """An async transport answering from a MockModel; delays are awaited, never blocking the loop. `instant` as
        for the sync transport."""

        def __init__(self, mock: MockModel | Recording, *, instant: bool | None = None):
            self.mock, self.instant = mock, instant
            self._upstream = None

        async def handle_async_request(self, request):
            body = await request.aread()
            reply = answer(self.mock, request, body, self.instant)
            if reply is None:
                return await self._forward(request, body)
            if reply["kind"] != "stream" and reply["delay_ms"]:
                await asyncio.sleep(reply["delay_ms"] / 1000)
            return response(request, reply, AsyncFrameStream)

        async def _forward(self, request, body):
            if self._upstream is None:
                self._upstream = http.AsyncHTTPTransport()
            sent, exchange = outgoing(self.mock, request, body, time.monotonic())
            upstream = await self._upstream.handle_async_request(sent)
            return http.Response(upstream.status_code, headers=upstream.headers,
                                 stream=AsyncRelayStream(exchange(upstream), upstream), request=request)

        async def aclose(self):
            if self._upstream is not None:
                await self._upstream.aclose()

    _CACHE[(key, True)], _CACHE[(key, False)] = CuecardTransport, AsyncCuecardTransport
    return CuecardTransport, AsyncCuecardTransport


def transport_for(http: ModuleType, mock: MockModel | Recording, *, instant: bool | None = None):
    """A sync transport for the httpx-like module `http` (`httpx` or `httpx2`), answered by a mock or a recording.
    `instant` skips every scripted delay; by default the mock's own setting decides (as Node's `createFetch`)."""
    return _classes(http)[0](mock, instant=instant)


def async_transport_for(http: ModuleType, mock: MockModel | Recording, *, instant: bool | None = None):
    """An async transport for the httpx-like module `http`."""
    return _classes(http)[1](mock, instant=instant)


def _http_module_of(client_class: type) -> ModuleType:
    import importlib

    for base in client_class.__mro__:
        root = base.__module__.split(".")[0]
        if root in ("httpx2", "httpx"):
            return importlib.import_module(root)
    raise TypeError(f"{client_class!r} is not built on httpx or httpx2")


def _sdk_client(sdk: ModuleType, sync_name: str, async_name: str, base_url: str, mock: MockModel | Recording,
                instant: bool, async_: bool, options: dict[str, Any]):
    """An SDK client whose HTTP client (the SDK's own default class, so its settings are kept) uses a transport."""
    http_class = sdk.DefaultAsyncHttpxClient if async_ else sdk.DefaultHttpxClient
    http = _http_module_of(http_class)
    transport = (async_transport_for if async_ else transport_for)(http, mock, instant=instant)
    client_class = getattr(sdk, async_name if async_ else sync_name)
    if not (isinstance(mock, Recording) and mock.records):  # recording sends the SDK's own key (its environment)
        options.setdefault("api_key", "test-key")
    return client_class(base_url=base_url, http_client=http_class(transport=transport), **options)


def openai_client(mock: MockModel | Recording, *, instant: bool = True, async_: bool = False, **options: Any):
    """An `openai.OpenAI` (or `AsyncOpenAI`) client answered in-process by `mock`."""
    import openai

    return _sdk_client(openai, "OpenAI", "AsyncOpenAI", BASE_URL + "/v1", mock, instant, async_, options)


def anthropic_client(mock: MockModel | Recording, *, instant: bool = True, async_: bool = False, **options: Any):
    """An `anthropic.Anthropic` (or `AsyncAnthropic`) client answered in-process by `mock`."""
    import anthropic

    return _sdk_client(anthropic, "Anthropic", "AsyncAnthropic", BASE_URL, mock, instant, async_, options)


def gemini_client(mock: MockModel | Recording, *, instant: bool = True, **options: Any):
    """A `google.genai.Client` answered in-process by `mock`, its `.aio` side too (one Client serves both, so there is
    no `async_` here): both HTTP clients are wired. google-genai is built on `httpx2` (3.x) or `httpx` (older
    releases); whichever its `HttpOptions` takes is used."""
    from google import genai
    from google.genai import types

    http = _genai_http_module()
    http_options = types.HttpOptions(
        base_url=BASE_URL,
        httpx_client=http.Client(transport=transport_for(http, mock, instant=instant)),
        httpx_async_client=http.AsyncClient(transport=async_transport_for(http, mock, instant=instant)),
    )
    if not (isinstance(mock, Recording) and mock.records):
        options.setdefault("api_key", "test-key")
    return genai.Client(http_options=http_options, **options)


def _genai_http_module() -> ModuleType:
    """The httpx-like module google-genai sends with: httpx2 from 3.x on (`_DEFAULT_HTTP_CLIENT_BACKEND`), else httpx."""
    import importlib

    from google.genai import _api_client

    backend = getattr(_api_client, "_DEFAULT_HTTP_CLIENT_BACKEND", "httpx")
    return importlib.import_module("httpx2" if backend == "httpx2" else "httpx")


def ollama_client(mock: MockModel | Recording, *, instant: bool = True, async_: bool = False, **options: Any):
    """An `ollama.Client` (or `AsyncClient`) answered in-process by `mock`; ollama is built on `httpx`."""
    import httpx
    import ollama

    if async_:
        return ollama.AsyncClient(host=BASE_URL, transport=async_transport_for(httpx, mock, instant=instant), **options)
    return ollama.Client(host=BASE_URL, transport=transport_for(httpx, mock, instant=instant), **options)


class _BotocoreBody:
    """A reply's body as botocore reads an urllib3 response: `stream()` (event streams), `read()` (InvokeModel's
    body), `close()`. A cut stream ends with urllib3's `ProtocolError`, as a truncated body does on a socket."""

    def __init__(self, reply: dict):
        if reply["kind"] == "full":
            # The reply's delay is waited before the response is made (`send`), not again here.
            self._pieces = [(0, reply["body"].encode())]
            self._stall_ms, self._cut = 0, False
        else:
            self._pieces = _frame_bytes(reply)
            self._stall_ms, self._cut = reply["stall_ms"], reply["end"] == "cut"
        self._started = False

    def stream(self, amt: int = 1024, decode_content: Any = None):
        del amt, decode_content  # whole frames: botocore's event-stream buffer takes any split
        time.sleep(self._stall_ms / 1000)
        for delay_ms, data in self._pieces:
            time.sleep(delay_ms / 1000)
            if data:
                yield data
        self._pieces = []
        if self._cut:
            import urllib3.exceptions

            raise urllib3.exceptions.ProtocolError("Connection broken: the body ended mid-stream (cuecard: cut)")

    def read(self, amt: int | None = None) -> bytes:
        del amt
        return b"".join(self.stream())

    def close(self) -> None:
        self._pieces = []

    def release_conn(self) -> None:
        self.close()


def bedrock_client(mock: MockModel | Recording, *, instant: bool = True, **options: Any):
    """A boto3 `bedrock-runtime` client answered in-process by `mock`: botocore's `before-send` event hands each
    signed request to the wire layer (no socket), and its own parsers read the reply, event streams included. boto3
    options (`config=`, `region_name=`, ...) are passed on; credentials and a region default to test values."""
    import boto3
    from botocore.awsrequest import AWSResponse

    options.setdefault("region_name", "us-east-1")
    options.setdefault("aws_access_key_id", "test")
    options.setdefault("aws_secret_access_key", "test")
    options.setdefault("endpoint_url", BASE_URL)
    client = boto3.client("bedrock-runtime", **options)

    def send(request: Any, **_: Any) -> Any:
        from urllib.parse import urlsplit

        target = urlsplit(request.url)
        path = target.path + (f"?{target.query}" if target.query else "")
        headers = [(name, value.decode("latin-1") if isinstance(value, bytes) else value)
                   for name, value in request.headers.items()]
        body = request.body or b""
        body = body.encode() if isinstance(body, str) else (body.read() if hasattr(body, "read") else bytes(body))
        reply = mock.handle_http(request.method, path, headers, body, instant=instant)
        if reply is None:
            raise NotImplementedError("boto3 clients replay recordings in-process; record Bedrock with `cuecard record`"
                                      " (a proxy: endpoint_url=its base URL)")
        if reply["kind"] == "abort":
            from botocore.exceptions import ConnectionClosedError

            raise ConnectionClosedError(endpoint_url=request.url)
        if reply["kind"] == "full" and reply["delay_ms"]:
            time.sleep(reply["delay_ms"] / 1000)
        return AWSResponse(request.url, reply["status"], dict(reply["headers"]), _BotocoreBody(reply))

    client.meta.events.register("before-send.bedrock-runtime", send)
    return client
