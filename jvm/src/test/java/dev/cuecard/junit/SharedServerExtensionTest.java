package dev.cuecard.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cuecard.CuecardAssertionError;
import dev.cuecard.SharedTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** The extension's shared-server mode: many tests at once on one server, each with its own journal and checks. */
class SharedServerExtensionTest {
    static final Set<String> SERVERS = ConcurrentHashMap.newKeySet();
    static final Set<String> IDS = ConcurrentHashMap.newKeySet();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final ObjectMapper JSON = new ObjectMapper();

    static String chat(SharedTest shared, String text) throws Exception {
        String body = JSON.writeValueAsString(Map.of("model", "gpt-4o", "messages", List.of(Map.of("role", "user", "content", text))));
        HttpRequest request = HttpRequest.newBuilder(URI.create(shared.openaiBaseUrl() + "/chat/completions"))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        JsonNode reply = JSON.readTree(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body());
        return reply.path("choices").path(0).path("message").path("content").asText();
    }

    static Map<String, Object> scenario(List<String> answers) {
        List<Map<String, Object>> steps = new ArrayList<>();
        for (String answer : answers) steps.add(Map.of("text", answer));
        return Map.of("cuecard", 1, "routes", List.of(Map.of("steps", steps)));
    }

    // ANCHOR: shared
    /** Run by the test kit below, in parallel, not by Surefire (nested classes are excluded). */
    @ExtendWith(CuecardExtension.class)
    static class Sample {
        @RepeatedTest(50)
        void seesExactlyItsOwnRequests(SharedTest shared, RepetitionInfo repetition) throws Exception {
            SERVERS.add(shared.baseUrl().substring(0, shared.baseUrl().indexOf("/t/")));
            IDS.add(shared.id());
            int n = repetition.getCurrentRepetition();
            int calls = 1 + n % 3;
            List<String> answers = new ArrayList<>();
            List<String> questions = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                answers.add("answer " + n + "." + i);
                questions.add("test " + n + " call " + i);
            }
            shared.load(scenario(answers));
            for (int i = 0; i < calls; i++) assertThat(chat(shared, questions.get(i))).isEqualTo(answers.get(i));
            assertThat(shared.journal().get("count").asInt()).isEqualTo(calls);
            assertThat(shared.entries()).extracting(e -> e.request().lastUserText()).containsExactlyElementsOf(questions);
            shared.check(Map.of("check", "received_requests", "times", calls));
            assertThatThrownBy(() -> shared.check(Map.of("check", "received_requests", "times", calls + 1)))
                    .isInstanceOf(CuecardAssertionError.class).hasMessageContaining("received_requests");
        }
        // ANCHOR_END: shared

        @Test
        void leavesASharedStepUnused(SharedTest shared) {
            shared.load(scenario(List.of("never asked")));
        }

        @Test
        @UnusedStepsAllowed
        void mayLeaveASharedStepUnused(SharedTest shared) {
            shared.load(scenario(List.of("never asked")));
        }
    }

    @Test
    void manyTestsAtOnceShareOneServerEachWithItsOwnJournal() {
        SERVERS.clear();
        IDS.clear();
        Events tests = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "8")
                .selectors(selectClass(Sample.class)).execute().testEvents();
        tests.assertStatistics(stats -> stats.started(52).succeeded(51).failed(1));
        String failure = tests.failed().stream().findFirst().orElseThrow().getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::getMessage).orElse("");
        assertThat(tests.failed().stream().findFirst().orElseThrow().getTestDescriptor().getDisplayName()).startsWith("leavesASharedStepUnused");
        assertThat(failure).contains("script_fully_used() failed").contains("never asked");
        assertThat(SERVERS).as("one server for the run").hasSize(1);
        assertThat(IDS).as("each test its own id").hasSize(50);
    }
}
