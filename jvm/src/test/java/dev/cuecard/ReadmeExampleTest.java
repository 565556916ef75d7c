package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cuecard.junit.CuecardExtension;
import dev.cuecard.langchain4j.MockChatModel;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.service.AiServices;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

// The book's Java example (docs/start/java.md): a LangChain4j AI service with a tool, against a scripted model; then the core mock
// directly, with the JUnit 5 extension checking that the script was used up.
@ExtendWith(CuecardExtension.class)
class ReadmeExampleTest {
    interface Assistant {
        String chat(String message);
    }

    static class Bookings {
        @Tool("Cancels a booking")
        String cancelBooking(String bookingNumber) {
            return "Booking " + bookingNumber + " cancelled";
        }
    }

    @Test
    void anAiServiceCallsAToolThenAnswers() {
        MockChatModel model = MockChatModel.thatCallsTool("cancelBooking", Map.of("bookingNumber", "MS-777"))
                .thenResponds("Booking MS-777 is cancelled.");
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).tools(new Bookings()).build();

        assertThat(assistant.chat("Please cancel MS-777")).isEqualTo("Booking MS-777 is cancelled.");
        assertThat(model.requests()).hasSize(2);
        CuecardAssertions.assertThat(model.mock())
                .scriptFullyUsed()
                .lastRequest().offersTool("cancelBooking");
    }

    @Test
    void aRetriedRateLimit(MockModel mock) { // a fresh mock from the extension, checked after the test
        mock.route(Route.operation("weather"))
                .thenFails(Failure.of("rate_limited").retryAfterMs(20))
                .thenResponds("It is 22 degrees and sunny in Paris.");
        Map<String, Object> request = Map.of("model", "gpt-4o",
                "messages", java.util.List.of(Map.of("role", "user", "content", "Weather in Paris?")),
                "metadata", Map.of("operation", "weather"));

        String answer;
        try {
            answer = mock.chat(request).text();
        } catch (ProviderException e) { // what the code under test would retry, after e.retryAfterMs()
            assertThat(e.status()).isEqualTo(429);
            answer = mock.chat(request).text();
        }
        assertThat(answer).isEqualTo("It is 22 degrees and sunny in Paris.");
        CuecardAssertions.assertThat(mock).whenCalled("weather").wasCalledTimes(2).andRetried(1)
                .andObservedFailure("rate_limited");
    }
}
