"""cuecard: a deterministic stand-in for an LLM in tests. One Rust engine; this is its Python package."""
from ._cuecard import VERSION as __version__
from ._cuecard import (CallObservation, MockMemory, MockTool, RecordingObserver, Server, count_tokens, message_text,
                       tokenize)
from .errors import (ArgumentTypeError, AssertionFailedError, CallbackFailedError, CuecardError, CuecardFileError,
                     CuecardIOError, CuecardIsADirectoryError, CuecardPermissionError, HostCallbackError,
                     InternalError, InvalidArgumentError, InvalidRequestError, InvalidScenarioError, InvalidStateError,
                     InvalidUtf8Error, NoRecordingError, NoRouteMatchedError, NotFoundError, ProviderError, RequestCountMismatchError,
                     RequestTooLargeError, ScenarioFileNotFoundError, ScriptExhaustedError, ToolFailedError)
from .mock import MockModel
from .recording import Recording, RecordingWarning, drift
from . import mcp, tools
from .transport import (anthropic_client, async_transport_for, bedrock_client, gemini_client, ollama_client,
                        openai_client, transport_for)
from .verify import assert_that

__all__ = [
    "MockModel", "Recording", "RecordingWarning", "drift", "MockTool", "MockMemory", "RecordingObserver", "CallObservation", "Server", "tools",
    "openai_client", "anthropic_client", "gemini_client", "ollama_client", "bedrock_client", "transport_for", "async_transport_for", "assert_that", "tokenize",
    "count_tokens", "message_text", "CuecardError", "ProviderError", "InvalidScenarioError", "InvalidRequestError",
    "ScriptExhaustedError", "NoRouteMatchedError", "NoRecordingError", "InvalidArgumentError", "InvalidStateError",
    "RequestCountMismatchError", "AssertionFailedError", "CallbackFailedError", "InvalidUtf8Error", "CuecardIOError",
    "ToolFailedError", "InternalError", "NotFoundError", "RequestTooLargeError", "HostCallbackError",
    "ArgumentTypeError", "ScenarioFileNotFoundError", "CuecardPermissionError", "CuecardIsADirectoryError",
    "CuecardFileError", "__version__",
]
