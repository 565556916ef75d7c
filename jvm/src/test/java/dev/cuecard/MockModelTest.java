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
    void streamsWordLikeTokens() {
        MockModel mock = MockModel.thatResponds("Order 12345, please!");
        List<StreamEvent> events = mock.stream("x");
        assertThat(events).filteredOn(e -> e.type().equals("text_delta")).extracting(StreamEvent::text)
                .containsExactly("Order", " ", "123", "45", ",", " please", "!");
        assertThat(events.get(events.size() - 1).type()).isEqualTo("complete");
        assertThat(Cuecard.tokenize("Hello, world!")).containsExactly("Hello", ",", " world", "!");
    }
}
