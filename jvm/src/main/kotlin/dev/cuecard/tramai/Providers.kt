package dev.cuecard.tramai

import dev.cuecard.CuecardException
import dev.cuecard.Failure
import dev.cuecard.MockModel
import dev.cuecard.Route
import dev.cuecard.internal.Json
import dev.cuecard.internal.ScriptedExceptions
import java.util.concurrent.CopyOnWriteArrayList

/**
 * The core mock behind Tramai's doubles: one route per method (`operation`), Tramai's repeat-last rule on each, the
 * requests converted to cuecard's neutral format with the method as operation, and the Java exceptions of
 * `failWith` kept on this side (the core scripts a `custom` failure tagged with the exception's number).
 */
abstract class ScriptedProvider internal constructor(
    private val id: String,
    internal val outcomes: Map<String, List<Outcome>>,
) : ModelProvider, RecordedRequestProvider, AutoCloseable {
    /** Every request, in call order, across all methods; mutable, so a test can clear it. */
    override val requests: MutableList<ModelRequest> = CopyOnWriteArrayList()

    private val thrown = ScriptedExceptions("tramai-exception:")

    /** The core mock: its journal, and every check of `CuecardAssertions`. */
    val mock: MockModel = MockModel.withSettings(mapOf("provider_id" to id))

    /** The response of the outcome the core just took on this thread: Tramai returns exactly that object. */
    private val given = ThreadLocal<ModelResponse>()

    init {
        for ((method, steps) in outcomes) {
            mock.route(Route.operation(method).onExhausted("repeat_last"))
            for (outcome in steps) {
                when (outcome) {
                    // A computed step, so the core's cursor (and repeat_last) says which outcome answered; the core
                    // journals the step, and complete() returns the configured response itself.
                    is Outcome.Response -> {
                        val step = step(outcome.response)
                        mock.thenComputes { given.set(outcome.response); step }
                    }
                    is Outcome.Failure -> mock.thenFails(tag(outcome.error))
                }
            }
        }
    }

    override fun providerId(): String = id

    /**
     * Records the request, then answers with the method's next outcome (the last one once they run out). A request
     * without `operationMethod`, or for a method not configured, is a non-retryable [ProviderException].
     */
    override suspend fun complete(request: ModelRequest): ModelResponse {
        requests += request
        val method = request.operationMethod
        try {
            given.remove()
            mock.chat(neutral(request))
            // Every answer is a computed step that sets it; the exact configured response comes back (seed 000).
            return given.get() ?: throw IllegalStateException("$name answered without a configured response")
        } catch (e: dev.cuecard.ProviderException) {
            thrown.thrownFor(e)?.let { throw it }
            throw ProviderException(e.message ?: e.kind(), statusCode = e.status(), retryable = e.retryable(),
                retryAfterMillis = e.retryAfterMs())
        } catch (e: CuecardException) {
            if (method == null) throw ProviderException("$name requires request.operationMethod to be present")
            if (e.code() == "no_route_matched") throw ProviderException(unconfigured(method))
            throw e
        } finally {
            given.remove()
        }
    }

    internal abstract val name: String

    internal abstract fun unconfigured(method: String): String

    override fun close() = mock.close()

    private fun tag(error: Throwable): Failure {
        if (error is ProviderException) {
            // Tramai's own failure crosses as data: the core journals its status and retryability.
            val failure = Failure.of("custom").message(error.message ?: "").retryable(error.retryable)
            error.statusCode?.let { failure.status(it) }
            error.retryAfterMillis?.let { failure.retryAfterMs(it) }
            if (error.cause == null && error.javaClass == ProviderException::class.java) return failure
        }
        return thrown.failureFor(error)
    }

    private fun step(response: ModelResponse): Map<String, Any?> {
        val step = LinkedHashMap<String, Any?>()
        // Tramai's "" is an answer without text, which the core spells as no tokens.
        if (response.content.isNotEmpty()) step["text"] = response.content else step["tokens"] = emptyList<String>()
        response.toolCalls?.let { calls ->
            step["tool_calls"] = calls.map { mapOf("id" to it.id, "name" to it.name, "arguments_json" to it.argumentsJson) }
        }
        if (response.inputTokens != null || response.outputTokens != null) {
            step["usage"] = mapOf("input_tokens" to (response.inputTokens ?: 0), "output_tokens" to (response.outputTokens ?: 0))
        }
        step["finish_reason"] = response.finishReason.name.lowercase()
        return step
    }

    internal companion object {
        /** A Tramai request in cuecard's neutral format: the method is the operation the routes match. */
        fun neutral(request: ModelRequest): Map<String, Any?> {
            val neutral = LinkedHashMap<String, Any?>()
            neutral["model"] = request.model
            neutral["messages"] = request.messages.map { message ->
                val converted = LinkedHashMap<String, Any?>()
                converted["role"] = message.role.name.lowercase()
                converted["content"] = message.content
                message.toolCallId?.let { converted["tool_call_id"] = it }
                message.toolCalls?.let { calls ->
                    converted["tool_calls"] = calls.map { mapOf("id" to it.id, "name" to it.name, "arguments" to it.argumentsJson) }
                }
                converted
            }
            request.tools?.let { tools ->
                neutral["tools"] = tools.map {
                    mapOf("name" to it.name, "description" to it.description, "parameters" to Json.tree(it.inputSchemaJson))
                }
            }
            request.maxTokens?.let { neutral["max_tokens"] = it }
            request.temperature?.let { neutral["temperature"] = it }
            val metadata = LinkedHashMap<String, Any?>()
            request.operationMethod?.let { metadata["operation"] = it }
            request.operationInterface?.let { metadata["extra"] = mapOf("operation_interface" to it) }
            if (metadata.isNotEmpty()) neutral["metadata"] = metadata
            return neutral
        }
    }
}

/** One configured outcome of a method. */
sealed class Outcome {
    data class Response(val response: ModelResponse) : Outcome()

    data class Failure(val error: Throwable) : Outcome()
}

/**
 * Tramai's deterministic provider: per method, the configured texts in order, then the last one again.
 *
 * ```kotlin
 * val provider = MockAiProvider {
 *     onMethod("getWeather") respondWith "not json"
 *     onMethod("getWeather") respondWith """{"temperature":22.5,"condition":"Sunny"}"""
 * }
 * ```
 */
class MockAiProvider private constructor(outcomes: Map<String, List<Outcome>>) : ScriptedProvider("mock", outcomes) {
    override val name = "MockAiProvider"

    override fun unconfigured(method: String) = "No mock response configured for method '$method'"

    /** Builds providers; it can go on being used after [build] without changing the providers built. */
    class Builder {
        private val responses = LinkedHashMap<String, MutableList<Outcome>>()

        fun onMethod(name: String): MethodBuilder = MethodBuilder(name)

        inner class MethodBuilder(private val method: String) {
            infix fun respondWith(response: String) {
                responses.getOrPut(method) { mutableListOf() } += Outcome.Response(ModelResponse(content = response))
            }
        }

        fun build(): MockAiProvider = MockAiProvider(responses.mapValues { it.value.toList() })
    }

    companion object {
        operator fun invoke(configure: Builder.() -> Unit): MockAiProvider = Builder().apply(configure).build()
    }
}

/**
 * Tramai's provider of responses and failures: per method, the configured outcomes in order, then the last one again
 * (a failure too).
 *
 * ```kotlin
 * val provider = SimulatedFailureProvider {
 *     onMethod("summarize").retryableFailure("rate limited", statusCode = 429)
 *     onMethod("summarize") respondWith "recovered summary"
 * }
 * ```
 */
class SimulatedFailureProvider private constructor(outcomes: Map<String, List<Outcome>>) :
    ScriptedProvider("simulated-failure", outcomes) {
    override val name = "SimulatedFailureProvider"

    override fun unconfigured(method: String) = "No simulated outcome configured for method '$method'"

    class Builder {
        private val outcomes = LinkedHashMap<String, MutableList<Outcome>>()

        fun onMethod(name: String): MethodBuilder = MethodBuilder(name)

        inner class MethodBuilder(private val method: String) {
            private fun add(outcome: Outcome) {
                outcomes.getOrPut(method) { mutableListOf() } += outcome
            }

            infix fun respondWith(response: String) = add(Outcome.Response(ModelResponse(content = response)))

            /** A whole response: tool calls, token counts, finish reason. */
            infix fun respondWith(response: ModelResponse) = add(Outcome.Response(response))

            fun retryableFailure(message: String, statusCode: Int? = null) =
                add(Outcome.Failure(ProviderException(message, statusCode = statusCode, retryable = true)))

            fun nonRetryableFailure(message: String, statusCode: Int? = null) =
                add(Outcome.Failure(ProviderException(message, statusCode = statusCode, retryable = false)))

            /** Throws exactly this object. */
            infix fun failWith(error: Throwable) = add(Outcome.Failure(error))
        }

        fun build(): SimulatedFailureProvider = SimulatedFailureProvider(outcomes.mapValues { it.value.toList() })
    }

    companion object {
        operator fun invoke(configure: Builder.() -> Unit): SimulatedFailureProvider = Builder().apply(configure).build()
    }
}
