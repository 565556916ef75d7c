package dev.cuecard.tramai

import com.fasterxml.jackson.databind.JsonNode
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import java.io.IOException

/** The five tests of the seed's testing strategy, as written there, plus its tool, repeat-last and error rules. */
class TestingModuleTest {
    data class Weather(val temperature: Double, val condition: String)

    private fun weather(json: JsonNode): Weather? =
        if (json.has("temperature") && json.has("condition")) Weather(json["temperature"].asDouble(), json["condition"].asText()) else null

    @Test
    fun `mock provider returns configured method responses and records requests`() {
        val provider = MockAiProvider { onMethod("getWeather") respondWith """{"temperature":22.5,"condition":"Sunny"}""" }
        val observer = RecordingOperationObserver()
        val result = runBlocking { ReferenceEngine(provider, observer).structured("getWeather", "Weather in London", ::weather) }
        assertThat(result).isEqualTo(Weather(22.5, "Sunny"))
        assertThat(provider.requests.single().operationMethod).isEqualTo("getWeather")
        TramaiAssertions.assertThat(provider, observer).whenCalled("getWeather")
            .wasCalledTimes(1).andRetried(0).andParsedSuccessfully().emittedProvider("mock")
    }

    @Test
    fun `mock provider can drive retry scenarios with sequenced responses`() {
        val provider = MockAiProvider {
            onMethod("getWeather") respondWith "not json"
            onMethod("getWeather") respondWith """{"temperature":22.5,"condition":"Sunny"}"""
        }
        val observer = RecordingOperationObserver()
        val result = runBlocking { ReferenceEngine(provider, observer).structured("getWeather", "Weather in London", ::weather) }
        assertThat(result).isEqualTo(Weather(22.5, "Sunny"))
        TramaiAssertions.assertThat(provider, observer).whenCalled("getWeather")
            .wasCalledTimes(2).andRetried(1).andParsedSuccessfully().andObservedParseFailure()
        assertThat(observer.callRecords.map { it.parseSuccess }).containsExactly(false, true)
    }

    @Test
    fun `simulated failure provider can drive retryable provider recovery`() {
        val provider = SimulatedFailureProvider {
            onMethod("summarize").retryableFailure("rate limited", statusCode = 429)
            onMethod("summarize") respondWith "recovered summary"
        }
        val observer = RecordingOperationObserver()
        val result = runBlocking { ReferenceEngine(provider, observer).raw("summarize", "invoice-1") }
        assertThat(result).isEqualTo("recovered summary")
        TramaiAssertions.assertThat(provider, observer).whenCalled("summarize")
            .wasCalledTimes(2).andRetried(1).andObservedFailure(ProviderException::class).emittedProvider("simulated-failure")
        val first = observer.callRecords[0]
        assertThat((first.providerFailure as ProviderException).statusCode).isEqualTo(429)
        assertThat(first.engineEvents.map { it.name }).containsExactly("tramai.route.selected", "tramai.retry.scheduled")
        assertThat(observer.callRecords.map { it.context.attempt }).containsExactly(0, 1)
    }

    @Test
    fun `simulated failure provider surfaces non retryable failures immediately`() {
        val provider = SimulatedFailureProvider { onMethod("summarize").nonRetryableFailure("unauthorized", statusCode = 401) }
        val observer = RecordingOperationObserver()
        assertThatThrownBy { runBlocking { ReferenceEngine(provider, observer).raw("summarize", "invoice-1") } }
            .isInstanceOfSatisfying(ProviderException::class.java) { error ->
                assertThat(error.statusCode).isEqualTo(401)
                assertThat(error.retryable).isFalse()
            }
        TramaiAssertions.assertThat(provider, observer).whenCalled("summarize")
            .wasCalledTimes(1).andRetried(0).andFailedWith(ProviderException::class)
    }

    @Test
    fun `mock provider captures exhausted structured parse failures`() {
        val provider = MockAiProvider {
            onMethod("getWeather") respondWith "not json"
            onMethod("getWeather") respondWith "still not json"
            onMethod("getWeather") respondWith "still broken"
        }
        val observer = RecordingOperationObserver()
        assertThatThrownBy { runBlocking { ReferenceEngine(provider, observer).structured("getWeather", "Weather in London", ::weather) } }
            .isInstanceOfSatisfying(StructuredOutputException::class.java) { error ->
                assertThat(error.attemptCount).isEqualTo(3)
                assertThat(error.lastRawResponse).isEqualTo("still broken")
            }
        TramaiAssertions.assertThat(provider, observer).whenCalled("getWeather")
            .wasCalledTimes(3).andRetried(2).andObservedParseFailure()
        assertThatThrownBy { TramaiAssertions.assertThat(provider, observer).whenCalled("getWeather").andParsedSuccessfully() }
            .isInstanceOf(AssertionError::class.java).hasMessageContaining("and_parsed_successfully")
    }

    data class GetTimeInput(val timezone: String)

    @Test
    fun `tool calls are captured and asserted, counting the loop as retries`() {
        val getTime = MockTool.fixed<JsonNode, String>("get_time", "Get current time", "12:00 UTC")
        val provider = SimulatedFailureProvider {
            onMethod("getTime") respondWith ModelResponse("", toolCalls = listOf(ToolCall("call_1", "get_time", """{"timezone":"UTC"}""")))
            onMethod("getTime") respondWith """{"time":"12:00 UTC"}"""
        }
        val observer = RecordingOperationObserver()
        val time = runBlocking {
            ReferenceEngine(provider, observer, tools = listOf(getTime)).structured("getTime", "What time is it?") { it["time"]?.asText() }
        }
        assertThat(time).isEqualTo("12:00 UTC")
        assertThat(getTime.calls.map { it["timezone"].asText() }).containsExactly("UTC")
        TramaiAssertions.assertThat(provider, observer).whenCalled("getTime")
            .wasCalledTimes(2).andRetried(1).andCalledTool("get_time").andCalledToolTimes("get_time", 1).andParsedSuccessfully()
        assertThat(provider.requests.first().messages.none { it.role == MessageRole.TOOL }).isTrue()
        assertThat(provider.requests.last().messages.any { it.role == MessageRole.TOOL && it.content == "12:00 UTC" }).isTrue()
    }

    @Test
    fun `the last outcome repeats, failures included, and errors name the method`() {
        val provider = MockAiProvider { onMethod("a") respondWith "only" }
        runBlocking {
            repeat(3) { assertThat(provider.complete(ModelRequest("m", listOf(Message.text("x")), operationMethod = "a")).content).isEqualTo("only") }
        }
        assertThatThrownBy { runBlocking { provider.complete(ModelRequest("m", listOf(Message.text("x")), operationMethod = "b")) } }
            .isInstanceOf(ProviderException::class.java).hasMessage("No mock response configured for method 'b'")
        assertThatThrownBy { runBlocking { provider.complete(ModelRequest("m", listOf(Message.text("x")))) } }
            .isInstanceOf(ProviderException::class.java).hasMessage("MockAiProvider requires request.operationMethod to be present")
        assertThat(provider.requests).hasSize(5)
        assertThat(provider.mock.entries()).hasSize(5)

        val reset = IOException("connection reset")
        val failing = SimulatedFailureProvider {
            onMethod("analyze") respondWith "fine"
            onMethod("analyze") failWith reset
        }
        val request = ModelRequest("m", listOf(Message.text("x")), operationMethod = "analyze")
        runBlocking {
            assertThat(failing.complete(request).content).isEqualTo("fine")
            repeat(2) { assertThatThrownBy { runBlocking { failing.complete(request) } }.isSameAs(reset) }
        }
    }

    @Test
    fun `an arbitrary throwable is wrapped by the engine and observed as such`() {
        val provider = SimulatedFailureProvider { onMethod("analyze") failWith IOException("connection reset") }
        val observer = RecordingOperationObserver()
        assertThatThrownBy { runBlocking { ReferenceEngine(provider, observer).raw("analyze", "x") } }
            .isInstanceOf(ProviderException::class.java).hasCauseInstanceOf(IOException::class.java)
        TramaiAssertions.assertThat(provider, observer).whenCalled("analyze")
            .wasCalledTimes(1).andFailedWith(ProviderException::class).andObservedFailure(RuntimeException::class)
    }

    @Test
    fun `respondWith a ModelResponse returns exactly that response, the model it names included`() {
        val exact = ModelResponse(
            content = "", toolCalls = listOf(ToolCall("call-7", "lookup", "{\"id\": 1")),
            inputTokens = 11, outputTokens = 3, modelUsed = "gpt-4o-2024-08-06", finishReason = FinishReason.LENGTH,
        )
        val provider = SimulatedFailureProvider {
            onMethod("plan") respondWith exact
            onMethod("plan") respondWith "then text"
        }
        val request = ModelRequest("gpt-4o", listOf(Message.text("x")), operationMethod = "plan")
        runBlocking {
            assertThat(provider.complete(request)).isSameAs(exact)
            val text = provider.complete(request)
            assertThat(text).isEqualTo(ModelResponse(content = "then text"))
            assertThat(text.modelUsed).isNull()
            assertThat(provider.complete(request)).isEqualTo(ModelResponse(content = "then text")) // the last repeats
        }
        assertThat(provider.mock.entries()).hasSize(3)
    }

    @Test
    fun `a tool execution context has Tramai's seven fields, the last four with defaults`() {
        val context = ToolExecutionContext("getWeather", "gpt-4o", 1)
        assertThat(listOf(context.conversationId, context.idempotencyKey, context.attributes)).containsExactly(null, null, emptyMap<String, Any?>())
        assertThat(context.timeout).isEqualTo(kotlin.time.Duration.parse("30s"))
        val full = ToolExecutionContext("getWeather", "gpt-4o", 2, conversationId = "c-1", idempotencyKey = "k-1",
            timeout = kotlin.time.Duration.parse("5s"), attributes = mapOf("tenant" to "t"))
        assertThat(full.copy(attemptNumber = 1).attributes).containsEntry("tenant", "t")
        assertThat(full.timeout.inWholeMilliseconds).isEqualTo(5_000)
    }
}
