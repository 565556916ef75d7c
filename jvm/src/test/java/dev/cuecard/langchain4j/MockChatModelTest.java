package dev.cuecard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cuecard.CuecardAssertions;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.AiServices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MockChatModelTest {
    interface Assistant {
        String ask(String question);
    }

    static final class Bookings {
        final List<String> cancelled = new ArrayList<>();

        @Tool("Cancels a booking")
        String cancelBooking(String bookingNumber) {
            cancelled.add(bookingNumber);
            return "cancelled " + bookingNumber;
        }
    }

    @Test
    void drivesAnAiServicesToolLoopAndRecordsTheRequests() {
        MockChatModel model = MockChatModel.thatCallsTool("cancelBooking", Map.of("bookingNumber", "MS-777"))
                .thenResponds("Booking MS-777 is cancelled.");
        Bookings bookings = new Bookings();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).tools(bookings).build();

        assertThat(assistant.ask("Cancel MS-777")).isEqualTo("Booking MS-777 is cancelled.");
        assertThat(bookings.cancelled).containsExactly("MS-777");
        assertThat(model.requests()).hasSize(2);
        // The second request replays the question, the tool call and the tool's result.
        assertThat(model.lastRequest().messages()).hasSize(3).last()
                .isInstanceOfSatisfying(ToolExecutionResultMessage.class, result -> {
                    assertThat(result.toolName()).isEqualTo("cancelBooking");
                    assertThat(result.text()).isEqualTo("cancelled MS-777");
                });
        CuecardAssertions.assertThat(model.mock()).scriptFullyUsed().lastRequest().offersTool("cancelBooking");
        CuecardAssertions.assertThat(model.mock()).whenCalled("none").wasCalledTimes(0);
        assertThatThrownBy(model::request).isInstanceOf(IllegalStateException.class).hasMessageContaining("exactly 1");
    }

    @Test
    void reportsWhatAProviderReports() {
        MockChatModel model = MockChatModel.thatResponds("Hi!").thenCallsTool("f", "{\"a\": 1}")
                .withTokenUsage(new TokenUsage(3, 2));
        ChatResponse first = model.chat(ChatRequest.builder().modelName("gpt-test").messages(UserMessage.from("x")).build());
        assertThat(first.aiMessage().text()).isEqualTo("Hi!");
        assertThat(first.metadata().modelName()).isEqualTo("gpt-test");
        assertThat(first.metadata().finishReason()).isEqualTo(FinishReason.STOP);
        assertThat(first.metadata().tokenUsage()).isEqualTo(new TokenUsage(3, 2, 5));
        ChatResponse second = model.chat(UserMessage.from("y"));
        assertThat(second.aiMessage().text()).isNull();
        assertThat(second.metadata().finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
        assertThat(second.aiMessage().toolExecutionRequests()).singleElement()
                .satisfies(call -> assertThat(call.arguments()).isEqualTo("{\"a\": 1}"))
                .satisfies(call -> assertThat(call.id()).isNotBlank());
    }

    @Test
    void noUsageByDefaultAndAnEstimateOnRequest() {
        assertThat(MockChatModel.thatResponds("Hello, world!").chat(UserMessage.from("x")).metadata().tokenUsage()).isNull();
        TokenUsage estimated = MockChatModel.thatResponds("Hello, world!").withEstimatedTokenUsage()
                .chat(UserMessage.from("x")).metadata().tokenUsage();
        assertThat(estimated.outputTokenCount()).isEqualTo(4);
        assertThat(estimated.inputTokenCount()).isPositive();
    }

    @Test
    void aGivenResponseIsReturnedExactly() {
        ChatResponse given = ChatResponse.builder().aiMessage(AiMessage.from("exact"))
                .metadata(ChatResponseMetadata.builder().id("r-1").modelName("m").finishReason(FinishReason.LENGTH)
                        .tokenUsage(new TokenUsage(1, 1)).build())
                .build();
        MockChatModel model = MockChatModel.thatResponds(given).withTokenUsage(new TokenUsage(9, 9));
        assertThat(model.chat(UserMessage.from("x"))).isSameAs(given);
    }

    @Test
    void aGivenResponseWithoutTokenUsageOrWithTheTextEmptyIsReturnedExactly() {
        ChatResponse withoutUsage = ChatResponse.builder().aiMessage(AiMessage.from("no usage")).build();
        ChatResponse empty = ChatResponse.builder().aiMessage(AiMessage.from(""))
                .metadata(ChatResponseMetadata.builder().finishReason(FinishReason.STOP).build()).build();
        MockChatModel model = MockChatModel.thatResponds(withoutUsage).thenResponds(empty).withTokenUsage(new TokenUsage(9, 9));
        assertThat(model.chat(UserMessage.from("x"))).isSameAs(withoutUsage);
        ChatResponse second = model.chat(UserMessage.from("y"));
        assertThat(second).isSameAs(empty);
        assertThat(second.aiMessage().text()).isEqualTo("");
    }

    @Test
    void aScriptedExceptionIsThrownExactlyAndTheRequestRecorded() {
        RuntimeException boom = new IllegalStateException("boom");
        MockChatModel model = MockChatModel.thatFails(boom).thenResponds("recovered");
        assertThatThrownBy(() -> model.chat("x")).isSameAs(boom);
        assertThat(model.chat("y")).isEqualTo("recovered");
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void aComputedAnswerSeesTheRequestAndItsExceptionPassesUnchanged() {
        RuntimeException broken = new UnsupportedOperationException("no");
        MockChatModel model = MockChatModel.thatResponds(request -> AiMessage.from("echo: " + ((UserMessage) request.messages().get(0)).singleText()))
                .thenResponds(request -> {
                    throw broken;
                });
        assertThat(model.chat("ping")).isEqualTo("echo: ping");
        assertThatThrownBy(() -> model.chat("x")).isSameAs(broken);
    }

    @Test
    void aRequestAfterTheScriptIsAnIllegalStateShowingTheRequestUnlessItRepeats() {
        MockChatModel model = MockChatModel.thatResponds("once");
        model.chat("first");
        assertThatThrownBy(() -> model.chat("the second question")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the second question");
        MockChatModel repeating = MockChatModel.thatResponds("again").thenRepeats();
        for (int i = 0; i < 3; i++) assertThat(repeating.chat("x")).isEqualTo("again");
        assertThatThrownBy(() -> MockChatModel.thatCallsTool("f", Map.of()).thenRepeats()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> repeating.thenResponds("more")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void misuseIsAJavaException() {
        assertThatThrownBy(() -> MockChatModel.thatResponds("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MockChatModel.thatResponds(AiMessage.from(""))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MockChatModel.thatStreams("a", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MockChatModel.thatResponds(List.of())).isInstanceOf(IllegalArgumentException.class);
        // andFails needs text or thinking to stream before the failure; a tool call has none.
        assertThatThrownBy(() -> MockChatModel.thatCallsTool("f", Map.of()).andFails(new RuntimeException()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void listenersFireAsForARealModelAndCapabilitiesAreReported() {
        List<String> fired = new ArrayList<>();
        ChatModelListener listener = new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                fired.add("request:" + context.chatRequest().messages().size());
            }

            @Override
            public void onResponse(ChatModelResponseContext context) {
                fired.add("response:" + context.chatResponse().aiMessage().text());
            }

            @Override
            public void onError(ChatModelErrorContext context) {
                fired.add("error:" + context.error().getMessage());
            }
        };
        MockChatModel model = MockChatModel.thatResponds("ok").thenFails(new RuntimeException("down"))
                .withListeners(listener).withSupportedCapabilities(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
        model.chat(SystemMessage.from("be brief"), UserMessage.from("x"));
        assertThatThrownBy(() -> model.chat("y")).hasMessage("down");
        assertThat(fired).containsExactly("request:2", "response:ok", "request:1", "error:down");
        assertThat(model.supportedCapabilities()).containsExactly(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
        assertThat(MockChatModel.thatResponds("x").supportedCapabilities()).isEmpty();
    }
}
