// The ESM entry of `cuecard`: the same objects as the CommonJS entry (one addon, one set of classes).
import cuecard from '../lib/index.js';

export const {
  MockModel, MockStream, assertThat, verify, runCheck, RecordingObserver, MockTool, MockMemory, Server, createFetch, createWebSocket,
  McpTransport,
  awsRequestHandler,
  openaiOptions, anthropicOptions, BASE_URL, cuecardMock, Recording, cuecardRecording, tokenize, countTokens, drift, checkNames, VERSION, version, CuecardError,
  InvalidScenarioError, InvalidRequestError, ScriptExhaustedError, NoRouteMatchedError, InvalidArgumentError,
  InvalidStateError, RequestCountMismatchError, AssertionFailedError, CallbackFailedError, InvalidUtf8Error,
  CuecardIOError, ToolFailedError, InternalError, NotFoundError, RequestTooLargeError, HostCallbackError,
  NoRecordingError, ProviderError, errorClassFor,
} = cuecard;
export default cuecard;
