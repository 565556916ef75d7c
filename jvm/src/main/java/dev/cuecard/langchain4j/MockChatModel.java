package dev.cuecard.langchain4j;

import dev.cuecard.MockModel;
import dev.cuecard.Response;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.internal.Json;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A {@link ChatModel} for tests: no network, it answers what the test scripts, one step per request, and records the
 * requests. For example, a model that calls a tool and then answers:
 *
 * <pre>{@code
 * MockChatModel model = MockChatModel.thatCallsTool("cancelBooking", Map.of("bookingNumber", "MS-777"))
 *         .thenResponds("Booking MS-777 is cancelled.");
 * }</pre>
 *
 * A request after the last step fails with an {@link IllegalStateException} showing the request, unless the script
 * ends with {@link #thenRepeats()}. {@code thenFails(exception)} throws exactly that exception. Listeners given with
 * {@link #withListeners} are fired by {@link ChatModel#chat(ChatRequest)}, as for a real model. The core mock behind
 * it ({@link #mock()}) has the journal and every check of {@code CuecardAssertions}.
 */
public final class MockChatModel extends Script<MockChatModel> implements ChatModel {
    private MockChatModel(MockModel mock) {
        super(mock);
    }

    @Override
    MockChatModel self() {
        return this;
    }

    /** A model over a core mock scripted some other way (a scenario file, routes per operation). */
    public static MockChatModel from(MockModel mock) {
        return new MockChatModel(dev.cuecard.CuecardException.notNull(mock, "mock"));
    }

    private static MockChatModel empty() {
        return new MockChatModel(new MockModel());
    }

    public static MockChatModel thatResponds(String text) {
        return empty().thenResponds(text);
    }

    public static MockChatModel thatResponds(AiMessage... messages) {
        return thatResponds(List.of(dev.cuecard.CuecardException.notNull(messages, "aiMessages")));
    }

    public static MockChatModel thatResponds(List<AiMessage> messages) {
        if (messages.isEmpty()) throw new IllegalArgumentException("thatResponds needs at least one message");
        MockChatModel model = empty();
        messages.forEach(model::thenResponds);
        return model;
    }

    public static MockChatModel thatResponds(ChatResponse response) {
        return empty().thenResponds(response);
    }

    public static MockChatModel thatResponds(Function<ChatRequest, AiMessage> answers) {
        return empty().thenResponds(answers);
    }

    public static MockChatModel thatStreams(String... tokens) {
        return empty().thenStreams(tokens);
    }

    public static MockChatModel thatStreams(List<String> tokens) {
        return empty().thenStreams(tokens);
    }

    public static MockChatModel thatCallsTool(String toolName, Map<String, ?> arguments) {
        return empty().thenCallsTool(toolName, arguments);
    }

    public static MockChatModel thatCallsTool(String toolName, String jsonArguments) {
        return empty().thenCallsTool(toolName, jsonArguments);
    }

    public static MockChatModel thatFails(RuntimeException exception) {
        return empty().thenFails(exception);
    }

    /**
     * A tool call to put in an {@link AiMessage} for {@link #thatResponds(AiMessage...)}: no id, so the mock gives it
     * its next id ({@code call_1}, {@code call_2}, ...).
     */
    public static ToolExecutionRequest toolCall(String toolName, Map<String, ?> arguments) {
        return ToolExecutionRequest.builder().name(toolName).arguments(Json.toJson(arguments == null ? Map.of() : arguments)).build();
    }

    /** Answers with the next step; a failure step throws its exception, a computed step's exception passes unchanged. */
    @Override
    public ChatResponse doChat(ChatRequest request) {
        record(request);
        begin(request);
        try {
            Response response = mock.chat(Conversions.request(request));
            return completion(response, request);
        } catch (RuntimeException e) {
            throw failure(e);
        } finally {
            end();
        }
    }
}
