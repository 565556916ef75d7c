package dev.cuecard.tramai

import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

// The README's Kotlin example (the front page's): Tramai's DSL, scripted per method.
class ReadmeFrontPageTest {
    @Test
    fun `a provider answers per method`() {
        val provider = MockAiProvider { onMethod("summarize") respondWith "A short summary." }
        val request = ModelRequest("gpt-4o", listOf(Message.text("long text")), operationMethod = "summarize")
        assertThat(runBlocking { provider.complete(request) }.content).isEqualTo("A short summary.")
        assertThat(provider.requests.single().operationMethod).isEqualTo("summarize")
    }
}
