package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cuecard.langchain4j.Collected;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** langchain4j-open-ai's own models against {@link MockModel#serve()}: the wire protocol, not a Java double. */
class ServerTest {
    private static OpenAiChatModel openai(Server server, int maxRetries) {
        return OpenAiChatModel.builder().baseUrl(server.openaiBaseUrl()).apiKey("test").modelName("gpt-4o")
                .maxRetries(maxRetries).build();
    }

    @Test
    void textOverTheOpenAiProtocol() {
        try (MockModel mock = MockModel.thatResponds("Hello from cuecard."); Server server = mock.serve()) {
            assertThat(server.openaiBaseUrl()).startsWith("http://127.0.0.1:").endsWith("/v1");
            assertThat(openai(server, 0).chat("Hi")).isEqualTo("Hello from cuecard.");
            CuecardAssertions.assertThat(mock).request().hasLastUserMessageContaining("Hi").hasModel("gpt-4o");
        }
    }

    @Test
    void aSpanPerCallGoesToTheOtlpEndpoint() throws Exception {
        com.sun.net.httpserver.HttpServer receiver = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        List<String> posts = java.util.Collections.synchronizedList(new ArrayList<>());
        receiver.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            posts.add(exchange.getRequestURI().getPath() + " " + exchange.getRequestHeaders().getFirst("content-type") + " " + body);
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort();
        try (MockModel mock = MockModel.thatResponds("traced");
                Server server = mock.serve(Map.of("instant", true, "otlp_endpoint", endpoint))) {
            assertThat(openai(server, 0).chat("Hi")).isEqualTo("traced");
        } // stopping sends the queued span (the receiver runs on its own threads)
        receiver.stop(0);
        assertThat(posts).hasSize(1);
        assertThat(posts.get(0)).startsWith("/v1/traces application/x-protobuf ").contains("chat gpt-4o", "gen_ai.provider.name");
        try (MockModel mock = new MockModel()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> mock.serve(Map.of("otlp_endpoint", "https://collector:4318")))
                    .isInstanceOf(CuecardException.class).hasMessageContaining("is not an http:// URL");
        }
    }

    @Test
    void aStreamInWordLikeTokens() throws Exception {
        try (MockModel mock = MockModel.thatResponds("Streamed word by word."); Server server = mock.serve()) {
            OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder().baseUrl(server.openaiBaseUrl())
                    .apiKey("test").modelName("gpt-4o").build();
            Collected collected = new Collected();
            model.chat("Hi", collected);
            assertThat(collected.await().aiMessage().text()).isEqualTo("Streamed word by word.");
            assertThat(collected.events).containsExactly("text:Streamed", "text: word", "text: by", "text: word", "text:.", "complete");
        }
    }

    interface Assistant {
        String ask(String question);
    }

    static final class Weather {
        final List<String> asked = new ArrayList<>();

        @Tool("The weather of a city")
        String weather(String city) {
            asked.add(city);
            return "sunny in " + city;
        }
    }

    @Test
    void aToolLoopAndA429RetriedByTheClient() {
        try (MockModel mock = MockModel.thatFails(Failure.of("rate_limited").retryAfterMs(1))
                .thenCallsTool("weather", Map.of("city", "Paris"))
                .thenResponds("It is sunny in Paris.");
             Server server = mock.serve()) {
            Weather weather = new Weather();
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(openai(server, 2)).tools(weather).build();
            assertThat(assistant.ask("Weather in Paris?")).isEqualTo("It is sunny in Paris.");
            assertThat(weather.asked).containsExactly("Paris");
            assertThat(mock.entries()).extracting(JournalEntry::outcome).containsExactly("failed", "answered", "answered");
            assertThat(mock.entries().get(0).status()).isEqualTo(429);
            CuecardAssertions.assertThat(mock).scriptFullyUsed().receivedRequests(3).lastRequest().offersTool("weather");
        }
    }

    @Test
    void aComputedAnswerRunsOnTheServersThreadAndAFailureThereIsAnHttpError() {
        try (MockModel mock = MockModel.thatComputes(request -> "you said " + request.lastUserText())
                .thenComputes(request -> {
                    throw new IllegalStateException("the test's own bug");
                });
             Server server = mock.serve()) {
            OpenAiChatModel model = openai(server, 0);
            assertThat(model.chat("ping")).isEqualTo("you said ping");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> model.chat("x")).hasMessageContaining("the test's own bug");
            assertThat(mock.entries()).hasSize(2);
        }
    }

    @Test
    void closingStopsServing() throws Exception {
        MockModel mock = MockModel.thatResponds("x");
        Server server = mock.serve();
        int port = server.port();
        server.close();
        try (java.net.Socket socket = new java.net.Socket()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000))
                    .isInstanceOf(java.io.IOException.class);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(server::openaiBaseUrl).isInstanceOf(CuecardException.class)
                .hasMessageContaining("used after close()");
        assertThat(mock.chat("still usable").text()).isEqualTo("x");
    }
}
