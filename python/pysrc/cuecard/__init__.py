"""cuecard: a deterministic stand-in for an LLM in tests. One Rust engine; this is its Python package."""
from ._cuecard import VERSION as __version__
from ._cuecard import MockMemory, count_tokens, tokenize
from .errors import (AssertionFailedError, CallbackFailedError, CuecardError, CuecardIOError, InternalError,
                     InvalidArgumentError, InvalidRequestError, InvalidScenarioError, InvalidStateError,
                     InvalidUtf8Error, NoRouteMatchedError, ProviderError, RequestCountMismatchError,
                     ScriptExhaustedError, ToolFailedError)
from .mock import MockModel
from . import tools
from .observe import CallObservation, RecordingObserver
from .server import Server
from .tools import MockTool
from .transport import anthropic_client, async_transport_for, openai_client, transport_for
from .verify import assert_that

__all__ = [
    "MockModel", "MockTool", "MockMemory", "RecordingObserver", "CallObservation", "tools", "openai_client", "anthropic_client", "transport_for", "async_transport_for", "Server", "assert_that", "tokenize", "count_tokens", "CuecardError", "ProviderError", "InvalidScenarioError",
    "InvalidRequestError", "ScriptExhaustedError", "NoRouteMatchedError", "InvalidArgumentError", "InvalidStateError",
    "RequestCountMismatchError", "AssertionFailedError", "CallbackFailedError", "InvalidUtf8Error", "CuecardIOError",
    "ToolFailedError", "InternalError", "__version__",
]
