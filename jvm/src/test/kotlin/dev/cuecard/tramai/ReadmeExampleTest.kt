package dev.cuecard.tramai

import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

// The book's Kotlin example (docs/start/kotlin.md): Tramai's DSL. A provider that fails with a 429 and then answers, an engine that
// retries (here the test's reference engine), and Tramai's assertion chain over the provider and the observer.
class ReadmeExampleTest {
    @Test
    fun `a rate limit is retried once`() {
        val provider = SimulatedFailureProvider {
            onMethod("summarize").retryableFailure("rate limited", statusCode = 429)
            onMethod("summarize") respondWith "recovered summary"
        }
        val observer = RecordingOperationObserver()

        val summary = runBlocking { ReferenceEngine(provider, observer).raw("summarize", "invoice-1") }

        assertThat(summary).isEqualTo("recovered summary")
        TramaiAssertions.assertThat(provider, observer)
            .whenCalled("summarize")
            .wasCalledTimes(2)
            .andRetried(1)
            .andObservedFailure(ProviderException::class)
            .emittedProvider("simulated-failure")
    }
}
