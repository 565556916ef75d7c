package dev.cuecard.tramai

import dev.cuecard.RecordingObserver
import java.util.Collections
import kotlin.reflect.KClass

/** One engine event, as reported. */
data class EngineEvent(val name: String, val attributes: Map<String, Any?>)

/** One provider call as the engine reported it; fields are overwritten (the last report wins), as in Tramai. */
class CallRecord(val context: OperationCallContext) {
    var response: ModelResponse? = null
    var providerFailure: Throwable? = null
    var parseFailureSummary: String? = null
    var parseSuccess: Boolean? = null
    val engineEvents: MutableList<EngineEvent> = Collections.synchronizedList(mutableListOf())
}

/**
 * Tramai's flight recorder: a [CallRecord] per provider call with the very objects reported (responses, exceptions),
 * and the same reports in a core [RecordingObserver], whose records the assertions judge.
 */
class RecordingOperationObserver : OperationObserver, AutoCloseable {
    /** The records, in call order. */
    val callRecords: MutableList<CallRecord> = Collections.synchronizedList(mutableListOf())

    /** The core observer behind the assertions. */
    val recorder: RecordingObserver = RecordingObserver()

    override fun onCallStarted(context: OperationCallContext): OperationObservation {
        val record = CallRecord(context)
        callRecords += record
        val call = recorder.onCallStarted(context.methodName, context.providerId, context.requestedModel, context.attempt)
        return object : OperationObservation {
            override fun onProviderResponse(response: ModelResponse) {
                record.response = response
                call.onProviderResponse(mapOf("message" to mapOf("text" to response.content)))
            }

            override fun onProviderFailure(error: Throwable) {
                record.providerFailure = error
                if (error is ProviderException) call.onProviderFailure(error, error.statusCode, error.retryable)
                else call.onProviderFailure(error)
            }

            override fun onStructuredParseFailure(rawResponse: String, errorSummary: String) {
                record.parseFailureSummary = errorSummary
                call.onStructuredParseFailure(rawResponse, errorSummary)
            }

            override fun onEngineEvent(name: String, attributes: Map<String, Any?>) {
                record.engineEvents += EngineEvent(name, attributes)
                call.onEngineEvent(name, attributes)
            }

            override fun onCallCompleted(parseSuccess: Boolean?) {
                record.parseSuccess = parseSuccess
                call.onCallCompleted(parseSuccess)
            }

            override fun onCallCancelled() = call.onCallCancelled()
        }
    }

    override fun close() = recorder.close()
}

/** A tool double: records every input, then answers with the responder. */
class MockTool<I : Any, O>(
    override val name: String,
    override val description: String,
    override val inputType: KClass<I>,
    private val responder: suspend (I) -> O,
) : TramaiTool<I, O> {
    /** Every input, in call order. */
    val calls: MutableList<I> = Collections.synchronizedList(mutableListOf())

    override suspend fun execute(input: I, context: ToolExecutionContext): O {
        calls += input
        return responder(input)
    }

    companion object {
        /** A tool that always answers [response]. */
        inline fun <reified I : Any, O> fixed(name: String, description: String, response: O): MockTool<I, O> =
            MockTool(name, description, I::class) { response }
    }
}
