package dev.cuecard.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j 1.19.0 against the real `cuecard serve`, as a conformance client of the server beside the official
 * SDKs: OpenAI and Anthropic, blocking and streaming, a tool loop through AiServices, and the regressions of the
 * wire-fidelity issue (#14) that LangChain4j showed: an empty tool input streamed once, an exhausted script that
 * is not retried.
 */
class LangChain4jConformanceTest {
    private static Process server;
    private static String openaiUrl;
    private static String anthropicUrl;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void startServer() throws Exception {
        String target = System.getenv().getOrDefault("CARGO_TARGET_DIR", Path.of("../../../target").toAbsolutePath().toString());
        String binary = System.getenv().getOrDefault("CUECARD_BIN", target + "/debug/cuecard");
        server = new ProcessBuilder(binary, "serve", "--port", "0", "--instant").redirectErrorStream(false).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        openaiUrl = lastWord(lines.readLine()); // "OpenAI base URL:    http://127.0.0.1:PORT/v1"
        anthropicUrl = lastWord(lines.readLine()); // "Anthropic base URL: http://127.0.0.1:PORT"
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
    }

    private static String lastWord(String line) {
        String[] words = line.trim().split("\\s+");
        return words[words.length - 1];
    }

    /** Replaces the server's script (and forgets its requests) through the admin endpoint. */
    private static void load(String scenarioJson) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(anthropicUrl + "/_cuecard/scenario"))
                .header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(scenarioJson))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
    }

    private static String journal() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(anthropicUrl + "/_cuecard/journal")).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String steps(String... steps) {
        return "{\"cuecard\": 1, \"routes\": [{\"steps\": [" + String.join(", ", steps) + "]}]}";
    }

    private static ChatModel openai() {
        return OpenAiChatModel.builder().baseUrl(openaiUrl).apiKey("test").modelName("gpt-4o").maxRetries(2).build();
    }

    private static ChatModel anthropic() {
        // LangChain4j's Anthropic client appends `/messages`: its base URL includes `/v1`.
        return AnthropicChatModel.builder().baseUrl(anthropicUrl + "/v1").apiKey("test").modelName("claude-test").maxRetries(2).build();
    }

    private static StreamingChatModel streaming(boolean anthropic) {
        return anthropic
                ? AnthropicStreamingChatModel.builder().baseUrl(anthropicUrl + "/v1").apiKey("test").modelName("claude-test").build()
                : OpenAiStreamingChatModel.builder().baseUrl(openaiUrl).apiKey("test").modelName("gpt-4o").build();
    }

    /** Streams one answer, collecting its text pieces and the partial and complete tool calls. */
    private static final class Collected implements StreamingChatResponseHandler {
        final List<String> pieces = new ArrayList<>();
        final List<String> partialArguments = new ArrayList<>();
        final List<ToolExecutionRequest> calls = new ArrayList<>();
        final CompletableFuture<ChatResponse> done = new CompletableFuture<>();

        @Override
        public void onPartialResponse(String partial) {
            pieces.add(partial);
        }

        @Override
        public void onPartialToolCall(PartialToolCall partial) {
            partialArguments.add(partial.partialArguments());
        }

        @Override
        public void onCompleteToolCall(CompleteToolCall complete) {
            calls.add(complete.toolExecutionRequest());
        }

        @Override
        public void onCompleteResponse(ChatResponse response) {
            done.complete(response);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }
    }

    @Test
    void blockingTextOnBothProtocols() throws Exception {
        load(steps("{\"text\": \"Hello from OpenAI.\"}", "{\"text\": \"Hello from Anthropic.\"}"));
        assertEquals("Hello from OpenAI.", openai().chat("Hi"));
        assertEquals("Hello from Anthropic.", anthropic().chat("Hi"));
    }

    @Test
    void streamedWordLikeTokensOnBothProtocols() throws Exception {
        for (boolean viaAnthropic : new boolean[] {false, true}) {
            load(steps("{\"text\": \"Streamed word by word.\"}"));
            Collected collected = new Collected();
            streaming(viaAnthropic).chat("Hi", collected);
            ChatResponse response = collected.done.get(20, TimeUnit.SECONDS);
            assertEquals(List.of("Streamed", " word", " by", " word", "."), collected.pieces);
            assertEquals("Streamed word by word.", response.aiMessage().text());
        }
    }

    /** What a streamed answer parses to: text, tool calls (name and arguments) and finish reason. */
    private static List<String> streamedResult(boolean viaAnthropic) throws Exception {
        Collected collected = new Collected();
        streaming(viaAnthropic).chat("Hi", collected);
        ChatResponse response = collected.done.get(20, TimeUnit.SECONDS);
        List<String> result = new ArrayList<>();
        result.add(String.valueOf(response.aiMessage().text()));
        for (ToolExecutionRequest call : response.aiMessage().toolExecutionRequests()) {
            result.add(call.name() + " " + call.arguments());
        }
        result.add(String.valueOf(response.finishReason()));
        return result;
    }

    @Test
    void twoHundredSeededDeliveriesParseToTheWholeDeliverysResultOnBothProtocols() throws Exception {
        // Text in several UTF-8 widths and two tool calls, cut at seeded bytes with keep-alives, JSON whitespace and
        // every line end (docs/concepts/delivery.md).
        String step = "{\"text\": \"Grüße aus Köln — 東京 🌧️ \\\"quoted\\\"\", \"tool_calls\": ["
                + "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Köln\", \"units\": [\"c\", \"f\"]}},"
                + "{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Asia/東京\"}}]}";
        String[] endings = {"lf", "crlf", "cr"};
        for (boolean viaAnthropic : new boolean[] {false, true}) {
            load(steps(step));
            List<String> expected = streamedResult(viaAnthropic);
            assertTrue(String.join(" ", expected).contains("Köln"), expected.toString());
            for (int seed = 0; seed < 200; seed++) {
                String delivery = "{\"seed\": " + seed + ", \"max_chunk_bytes\": " + (1 + seed % 24)
                        + ", \"keepalives\": true, \"whitespace\": true, \"line_ending\": \"" + endings[seed % 3] + "\"}";
                load("{\"cuecard\": 1, \"delivery\": " + delivery + ", \"routes\": [{\"steps\": [" + step + "]}]}");
                assertEquals(expected, streamedResult(viaAnthropic), (viaAnthropic ? "anthropic" : "openai") + " delivery seed " + seed);
            }
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
    void aToolLoopThroughAiServicesOnBothProtocols() throws Exception {
        for (ChatModel model : List.of(openai(), anthropic())) {
            load(steps("{\"tool_calls\": [{\"name\": \"weather\", \"arguments\": {\"city\": \"Paris\"}}]}", "{\"text\": \"It is sunny in Paris.\"}"));
            Weather tools = new Weather();
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).tools(tools).build();
            assertEquals("It is sunny in Paris.", assistant.ask("Weather in Paris?"));
            assertEquals(List.of("Paris"), tools.asked);
            assertTrue(journal().contains("sunny in Paris"), "the tool result went back to the model");
        }
    }

    @Test
    void anthropicStreamsAToolCallWithoutArgumentsOnce() throws Exception {
        load(steps("{\"tool_calls\": [{\"name\": \"now\"}]}"));
        Collected collected = new Collected();
        streaming(true).chat("What time is it?", collected);
        collected.done.get(20, TimeUnit.SECONDS);
        assertEquals(1, collected.calls.size());
        assertEquals("now", collected.calls.get(0).name());
        assertEquals("{}", collected.calls.get(0).arguments());
        // LangChain4j adds its own "{}" at the block's end; cuecard streams the empty input as no text, as
        // Anthropic does, so the handler sees it once (it saw ["{}", "{}"] before).
        assertEquals(List.of("{}"), collected.partialArguments);
    }

    @Test
    void anExhaustedScriptIsRefusedOnceAndNotRetried() throws Exception {
        load(steps("{\"text\": \"only one\"}"));
        assertEquals("only one", openai().chat("Hi"));
        RuntimeException error = assertThrows(RuntimeException.class, () -> openai().chat("Again"));
        assertTrue(String.valueOf(error.getMessage()).contains("script_exhausted"), String.valueOf(error.getMessage()));
        assertThrows(RuntimeException.class, () -> anthropic().chat("Again"));
        String journal = journal();
        assertEquals(2, journal.split("\"outcome\":\"exhausted\"", -1).length - 1, "one request each, no retries: " + journal);
    }
}
