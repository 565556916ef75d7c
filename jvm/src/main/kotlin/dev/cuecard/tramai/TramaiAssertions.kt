package dev.cuecard.tramai

import dev.cuecard.CuecardAssertions
import kotlin.reflect.KClass

/**
 * Tramai's assertion chain over a provider double and the engine's observer, each link one of core's checks with
 * Tramai's semantics (`andRetried` counts every provider call of the method minus one, `andCalledTool` looks at
 * tool calls replayed in later requests, ...). A failure is AssertJ's `AssertionError` with core's message.
 *
 * ```kotlin
 * TramaiAssertions.assertThat(provider, observer)
 *     .whenCalled("summarize").wasCalledTimes(2).andRetried(1).andObservedFailure(ProviderException::class)
 * ```
 */
object TramaiAssertions {
    @JvmStatic
    fun assertThat(provider: ScriptedProvider, observer: RecordingOperationObserver): TramaiAssertion =
        TramaiAssertion(provider, observer)
}

class TramaiAssertion internal constructor(
    private val provider: ScriptedProvider,
    private val observer: RecordingOperationObserver,
) {
    fun whenCalled(method: String): MethodAssertion =
        MethodAssertion(CuecardAssertions.assertThat(provider.mock, observer.recorder).whenCalled(method))
}

class MethodAssertion internal constructor(private val checks: CuecardAssertions.MethodAssert) {
    fun wasCalledTimes(n: Int) = apply { checks.wasCalledTimes(n) }

    fun andRetried(n: Int) = apply { checks.andRetried(n) }

    fun andParsedSuccessfully() = apply { checks.andParsedSuccessfully() }

    fun andObservedParseFailure() = apply { checks.andObservedParseFailure() }

    fun andObservedFailure(errorType: KClass<out Throwable>) = apply { checks.andObservedFailure(errorType.java) }

    fun andFailedWith(errorType: KClass<out Throwable>) = apply { checks.andFailedWith(errorType.java) }

    fun emittedProvider(providerId: String) = apply { checks.emittedProvider(providerId) }

    fun andCalledTool(toolName: String) = apply { checks.andCalledTool(toolName) }

    fun andCalledToolTimes(toolName: String, n: Int) = apply { checks.andCalledToolTimes(toolName, n) }
}
