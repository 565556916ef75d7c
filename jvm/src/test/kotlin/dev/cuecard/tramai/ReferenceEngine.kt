package dev.cuecard.tramai

import com.fasterxml.jackson.databind.JsonNode
import dev.cuecard.internal.Json
import kotlinx.coroutines.delay

/**
 * A small engine with Tramai's semantics (seed-systems.md §1.4), to run the seed's tests as written: provider retries
 * (retryable failures, 4 attempts, backoff 50·2^i ms capped at 1 s, no jitter so runs are repeatable), structured
 * parse retries (3 attempts, the raw answer and feedback appended), a tool loop of at most 5 provider calls per parse
 * attempt, and the observer's callbacks in Tramai's order.
 */
class ReferenceEngine(
    private val provider: ModelProvider,
    private val observer: OperationObserver,
    private val tools: List<MockTool<*, *>> = emptyList(),
    private val model: String = "claude-sonnet-4-20250514",
    private val service: String = "dev.example.WeatherService",
) {
    private val providerRetries = 3
    private val maxParseRetries = 2
    private val maxToolLoops = 5

    /** A raw String operation. */
    suspend fun raw(method: String, prompt: String): String =
        toolLoop(method, mutableListOf(Message.text(prompt)), structured = false).content

    /** A structured operation: [parse] returns null (or throws) when the answer does not fit. */
    suspend fun <T : Any> structured(method: String, prompt: String, parse: (JsonNode) -> T?): T {
        val messages = mutableListOf(Message.text("$prompt\nRespond only with valid JSON matching this schema"))
        var lastRaw: String? = null
        for (attempt in 1..maxParseRetries + 1) {
            lateinit var observation: OperationObservation
            val response = toolLoop(method, messages, structured = true) { observation = it }
            lastRaw = response.content
            val parsed = runCatching { parse(Json.tree(response.content)) }.getOrNull()
            if (parsed != null) {
                observation.onCallCompleted(true)
                return parsed
            }
            observation.onStructuredParseFailure("<redacted structured-output failure>", "Structured output failed validation")
            observation.onCallCompleted(false)
            messages += Message(MessageRole.ASSISTANT, response.content)
            messages += Message.text("The answer was not valid JSON for the schema; answer again.")
        }
        throw StructuredOutputException("Structured output failed after ${maxParseRetries + 1} attempts",
            originalPrompt = prompt, lastRawResponse = lastRaw, attemptCount = maxParseRetries + 1)
    }

    /** Provider calls until an answer without tool calls; a new attempt counter per loop, as Tramai has it. */
    private suspend fun toolLoop(
        method: String,
        messages: MutableList<Message>,
        structured: Boolean,
        last: (OperationObservation) -> Unit = {},
    ): ModelResponse {
        var attempt = 0
        repeat(maxToolLoops) {
            val request = ModelRequest(model, messages.toList(), tools = tools.map { ToolDefinition(it.name, it.description, "{\"type\":\"object\"}") }
                .ifEmpty { null }, operationInterface = service, operationMethod = method)
            val (response, observation) = withRetries(method, request) { attempt++ }
            val calls = response.toolCalls.orEmpty()
            if (calls.isEmpty()) {
                if (structured) last(observation) else observation.onCallCompleted(null)
                return response
            }
            messages += Message(MessageRole.ASSISTANT, response.content, toolCalls = calls)
            for (call in calls) {
                val tool = tools.firstOrNull { it.name == call.name }
                @Suppress("UNCHECKED_CAST")
                val result = (tool as MockTool<Any, Any?>?)?.execute(Json.tree(call.argumentsJson), ToolExecutionContext(method, model, attempt))
                messages += Message(MessageRole.TOOL, result.toString(), toolCallId = call.id)
            }
            observation.onCallCompleted(null)
        }
        error("Exceeded maximum tool call loops ($maxToolLoops)")
    }

    private suspend fun withRetries(method: String, request: ModelRequest, nextAttempt: () -> Int): Pair<ModelResponse, OperationObservation> {
        var retryIndex = 0
        while (true) {
            val observation = observer.onCallStarted(OperationCallContext(service, method, provider.providerId(), model, nextAttempt()))
            observation.onEngineEvent("tramai.route.selected", mapOf("provider_id" to provider.providerId(),
                "effective_model" to model, "route_index" to 0, "is_fallback" to false))
            val failure = try {
                val response = provider.complete(request)
                observation.onProviderResponse(response)
                return response to observation
            } catch (e: ProviderException) {
                e
            } catch (e: Exception) {
                ProviderException("Provider ${provider.providerId()} failed while invoking $service.$method", cause = e)
            }
            observation.onProviderFailure(failure)
            observation.onCallCompleted(null)
            if (!failure.retryable || retryIndex >= providerRetries) throw failure
            val delayMillis = failure.retryAfterMillis?.coerceAtMost(30_000) ?: minOf(50L shl retryIndex, 1_000L)
            observation.onEngineEvent("tramai.retry.scheduled", mapOf("provider_id" to provider.providerId(),
                "retry_index" to retryIndex, "delay_millis" to delayMillis,
                "delay_source" to if (failure.retryAfterMillis != null) "retry_after" else "backoff"))
            delay(delayMillis)
            retryIndex++
        }
    }
}
