package dev.cuecard.tramai

import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

/*
 * Tramai's provider-facing types (tramai-core), as ../shared/spec/seed-systems.md §1.2 describes them. Tramai is not
 * published to a registry this build can reach, so the package carries these types itself, with Tramai's names and
 * fields; the doubles below implement the interfaces a Tramai engine calls.
 */

enum class MessageRole { SYSTEM, USER, ASSISTANT, TOOL }

enum class FinishReason { STOP, LENGTH, CONTENT_FILTER, OTHER }

data class ToolCall(val id: String, val name: String, val argumentsJson: String)

data class ToolDefinition(val name: String, val description: String, val inputSchemaJson: String)

data class Message(
    val role: MessageRole,
    val content: String,
    val toolCallId: String? = null,
    val toolCalls: List<ToolCall>? = null,
) {
    companion object {
        /** A user message. */
        fun text(text: String) = Message(MessageRole.USER, text)
    }
}

data class ModelRequest(
    val model: String,
    val messages: List<Message>,
    val tools: List<ToolDefinition>? = null,
    val maxTokens: Int? = null,
    val temperature: Double? = null,
    val timeoutMillis: Long? = null,
    /** The service interface's qualified name. */
    val operationInterface: String? = null,
    /** The method's simple name: the doubles route on it. */
    val operationMethod: String? = null,
)

data class ModelResponse(
    val content: String,
    val toolCalls: List<ToolCall>? = null,
    val inputTokens: Int? = null,
    val outputTokens: Int? = null,
    val modelUsed: String? = null,
    val finishReason: FinishReason = FinishReason.STOP,
) {
    /** The sum, or null when either part is unknown. */
    fun totalTokens(): Int? = if (inputTokens == null || outputTokens == null) null else inputTokens + outputTokens
}

/** A provider failure: retryable ones are retried by the engine (429, 5xx, timeouts), others surface at once. */
class ProviderException(
    message: String,
    cause: Throwable? = null,
    val statusCode: Int? = null,
    val retryable: Boolean = false,
    val retryAfterMillis: Long? = null,
) : RuntimeException(message, cause)

/** The structured answer could not be parsed within the engine's attempts. */
class StructuredOutputException(
    message: String,
    val originalPrompt: String? = null,
    val lastRawResponse: String? = null,
    val validationError: String? = null,
    val attemptCount: Int? = null,
    cause: Throwable? = null,
) : RuntimeException(message, cause)

/** What a Tramai engine calls. */
interface ModelProvider {
    fun providerId(): String

    suspend fun complete(request: ModelRequest): ModelResponse
}

/** A provider double that records the requests it receives, in call order, across methods. */
interface RecordedRequestProvider {
    val requests: MutableList<ModelRequest>
}

data class OperationCallContext(
    val serviceInterface: String,
    val methodName: String,
    val providerId: String,
    val requestedModel: String,
    /** Zero-based. */
    val attempt: Int,
)

/** Tramai's observer of engine attempts: one observation per provider call. */
fun interface OperationObserver {
    fun onCallStarted(context: OperationCallContext): OperationObservation
}

interface OperationObservation {
    fun onProviderResponse(response: ModelResponse) {}

    fun onProviderFailure(error: Throwable) {}

    fun onStructuredParseFailure(rawResponse: String, errorSummary: String) {}

    fun onEngineEvent(name: String, attributes: Map<String, Any?>) {}

    fun onCallCompleted(parseSuccess: Boolean?) {}

    fun onCallCancelled() {}
}

/**
 * What a tool is told about the call it runs in, with Tramai's seven fields (`../shared/spec/seed-systems.md` §1.2);
 * the last four default as an engine that sets none of them would: no conversation, no idempotency key, the
 * `@Operation` default timeout of 30 seconds, no attributes.
 */
data class ToolExecutionContext(
    val operationName: String,
    val modelName: String,
    val attemptNumber: Int,
    val conversationId: String? = null,
    val idempotencyKey: String? = null,
    val timeout: Duration = 30.seconds,
    val attributes: Map<String, Any?> = emptyMap(),
)

/** A tool the engine can call with a typed input. */
interface TramaiTool<I : Any, O> {
    val name: String
    val description: String
    val inputType: kotlin.reflect.KClass<I>

    suspend fun execute(input: I, context: ToolExecutionContext): O
}
