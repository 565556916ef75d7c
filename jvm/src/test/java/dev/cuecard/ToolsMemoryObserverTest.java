package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolsMemoryObserverTest {
    @Test
    void toolsRecordEveryInvocationAndAComputedToolsExceptionPassesUnchanged() {
        try (MockTool weather = MockTool.fixed("weather", "The weather", Map.of("forecast", "sunny"))) {
            assertThat(weather.invoke(Map.of("city", "Paris")).get("forecast").asText()).isEqualTo("sunny");
            weather.invokeJson("{\"city\": \"Rome\"}");
            assertThat(weather.invocations()).hasSize(2);
            assertThat(weather.invocations().get(1).toString()).contains("Rome");
        }
        MockTool failing = MockTool.failing("lookup", null, "service down");
        assertThatThrownBy(() -> failing.invoke(Map.of())).isInstanceOfSatisfying(CuecardException.class, e -> {
            assertThat(e.code()).isEqualTo("tool_failed");
            assertThat(e.getMessage()).contains("service down");
        });
        IllegalStateException bug = new IllegalStateException("tool bug");
        MockTool computing = MockTool.computing("add", "Adds", arguments -> {
            if (arguments.has("boom")) throw bug;
            return arguments.get("a").asInt() + arguments.get("b").asInt();
        });
        assertThat(computing.invoke(Map.of("a", 2, "b", 3)).asInt()).isEqualTo(5);
        assertThatThrownBy(() -> computing.invoke(Map.of("boom", true))).isSameAs(bug);
    }

    @Test
    void aComputedAnswersExceptionReachesTheCallerUnchanged() {
        IOException cause = new IOException("disk full");
        RuntimeException bug = new RuntimeException("the test's own bug", cause);
        MockModel mock = MockModel.thatComputes(request -> Map.of("text", "echo " + request.lastUserText()))
                .thenComputes(request -> {
                    throw bug;
                })
                .thenComputes(request -> 42);
        assertThat(mock.chat("hi").text()).isEqualTo("echo hi");
        assertThatThrownBy(() -> mock.chat("x")).isSameAs(bug);
        assertThatThrownBy(() -> mock.chat("y")).isInstanceOfSatisfying(CuecardException.class,
                e -> assertThat(e.code()).isEqualTo("callback_failed"));
        assertThat(mock.entries()).extracting(JournalEntry::outcome).containsExactly("answered", "callback_failed", "callback_failed");
    }

    @Test
    void memoryKeepsThreadsAndEntriesAndLogsEveryCall() {
        try (MockMemory memory = new MockMemory()) {
            JsonNode thread = memory.call("createThread", Map.of("agent_id", "agent-1"));
            assertThat(thread.get("id").asText()).isEqualTo("thread_1");
            memory.call("add_entry", Map.of("entry", Map.of("thread_id", "thread_1", "message", Map.of("role", "user", "content", "hi"))));
            JsonNode entries = memory.call("get_entries", Map.of("query", Map.of("thread_id", "thread_1")));
            assertThat(entries).hasSize(1);
            assertThatThrownBy(() -> memory.call("update_thread", Map.of("thread_id", "nope", "metadata", Map.of())))
                    .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
            assertThatThrownBy(() -> memory.call("forget_everything", null)).isInstanceOfSatisfying(CuecardException.class,
                    e -> assertThat(e.code()).isEqualTo("invalid_argument"));
            assertThat(memory.calls()).hasSize(4);
        }
    }

    @Test
    void theObserverFeedsTheChecksWithJavaExceptions() {
        MockModel mock = MockModel.thatFails(Failure.of("rate_limited")).thenResponds("ok");
        RecordingObserver observer = new RecordingObserver();
        for (int attempt = 0; ; attempt++) {
            RecordingObserver.CallObservation call = observer.onCallStarted("summarize", "mock", "gpt-4o", attempt);
            try {
                call.onProviderResponse(mock.chat(Map.of("messages", java.util.List.of(Map.of("role", "user", "content", "x")),
                        "metadata", Map.of("operation", "summarize"))));
                call.onCallCompleted(null);
                break;
            } catch (ProviderException e) {
                call.onProviderFailure(new IOException("wrapped", e));
                call.onCallCompleted(null);
            }
        }
        CuecardAssertions.assertThat(mock, observer).whenCalled("summarize").wasCalledTimes(2).andRetried(1)
                .andObservedFailure(IOException.class).andObservedFailure(Exception.class).emittedProvider("mock");
        assertThatThrownBy(() -> CuecardAssertions.assertThat(mock, observer).whenCalled("summarize").andFailedWith(IOException.class))
                .isInstanceOf(AssertionError.class).hasMessageContaining("and_failed_with");
        assertThat(observer.callRecords()).hasSize(2);
        assertThatThrownBy(() -> CuecardAssertions.assertThat(mock).as("my check").receivedRequests(5))
                .isInstanceOf(AssertionError.class).hasMessageStartingWith("[my check]");
    }
}
