package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MockModelTest {
    @Test
    void scriptsAnswersInOrderAndJournalsEveryRequest() {
        try (MockModel mock = MockModel.thatResponds("Hello, world!")
                .thenCallsTool("lookup", Map.of("id", 7))
                .thenFails(Failure.of("rate_limited").retryAfterMs(250))) {
            Response first = mock.chat("Hi");
            assertThat(first.text()).isEqualTo("Hello, world!");
            assertThat(first.finishReason()).isEqualTo("stop");
            Response second = mock.chat("Look it up");
            assertThat(second.message().toolCalls()).singleElement()
                    .satisfies(call -> assertThat(call.name()).isEqualTo("lookup"))
                    .satisfies(call -> assertThat(call.arguments()).isEqualTo("{\"id\":7}"));
            assertThatThrownBy(() -> mock.chat("again"))
                    .isInstanceOfSatisfying(ProviderException.class, e -> {
                        assertThat(e.kind()).isEqualTo("rate_limited");
                        assertThat(e.status()).isEqualTo(429);
                        assertThat(e.retryAfterMs()).isEqualTo(250L);
                    });
            assertThatThrownBy(() -> mock.chat("one too many"))
                    .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("script_exhausted"));
            assertThat(mock.entries()).extracting(JournalEntry::outcome)
                    .containsExactly("answered", "answered", "failed", "exhausted");
            assertThat(mock.requests()).extracting(RecordedRequest::lastUserText)
                    .containsExactly("Hi", "Look it up", "again", "one too many");
        }
    }

    @Test
    void anMcpServerAnswersOverTheWireFaceAndItsJournalAndChecksReadIt() {
        String scenario = """
                {"cuecard": 1, "mcp": {"servers": [{"name": "weather", "tools": [{"name": "get_forecast",
                  "steps": [{"match": {"arguments": {"city": "Paris"}}, "text": "22 °C, sunny"}, {"text": "unused"}]}]}]}}""";
        try (MockModel mock = MockModel.fromScenario(scenario)) {
            List<List<String>> json = List.of(List.of("content-type", "application/json"));
            byte[] init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            var initialized = mock.handleHttp("POST", "/mcp", json, init);
            assertThat(initialized.get("status").asInt()).isEqualTo(200);
            byte[] call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_forecast\",\"arguments\":{\"city\":\"Paris\"}}}"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            var answered = mock.handleHttp("POST", "/mcp",
                    List.of(List.of("content-type", "application/json"), List.of("mcp-session-id", "cuecard-mcp-1")), call);
            assertThat(answered.get("body").asText()).contains("22 °C, sunny");
            assertThat(mock.mcpEntries()).extracting(e -> e.get("method").asText()).containsExactly("initialize", "tools/call");
            assertThat(mock.mcpUnusedSteps()).singleElement().satisfies(u -> assertThat(u.get("step").asInt()).isEqualTo(1));
            CuecardAssertions.assertThat(mock).mcpToolCalledWith("get_forecast", Map.of("city", "Paris")).noUnexpectedMcpCalls();
            assertThatThrownBy(() -> CuecardAssertions.assertThat(mock).allMcpStepsUsed())
                    .isInstanceOf(AssertionError.class).hasMessageContaining("weather get_forecast step 1");
        }
    }

    @Test
    void streamsWordLikeTokens() {
        MockModel mock = MockModel.thatResponds("Order 12345, please!");
        List<StreamEvent> events = mock.stream("x");
        assertThat(events).filteredOn(e -> e.type().equals("text_delta")).extracting(StreamEvent::text)
                .containsExactly("Order", " ", "123", "45", ",", " please", "!");
        assertThat(events.get(events.size() - 1).type()).isEqualTo("complete");
        assertThat(Cuecard.tokenize("Hello, world!")).containsExactly("Hello", ",", " world", "!");
    }
}
