package dev.cuecard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.agent.tool.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MockStreamingChatModelTest {
    private static ChatRequest ask(String text) {
        return ChatRequest.builder().modelName("m-1").messages(dev.langchain4j.data.message.UserMessage.from(text)).build();
    }

    @Test
    void streamsWordLikeTokensOnItsOwnThreadThenCompletes() throws Exception {
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds("Hello, world! Order 12345");
        Collected collected = new Collected();
        model.chat(ask("x"), collected);
        ChatResponse response = collected.await();
        assertThat(collected.events).containsExactly("text:Hello", "text:,", "text: world", "text:!", "text: Order", "text: ",
                "text:123", "text:45", "complete");
        assertThat(collected.threads).doesNotContain(Thread.currentThread());
        assertThat(response.aiMessage().text()).isEqualTo("Hello, world! Order 12345");
        assertThat(response.metadata().modelName()).isEqualTo("m-1");
        assertThat(response.metadata().finishReason()).isEqualTo(FinishReason.STOP);
        assertThat(response.metadata().tokenUsage()).isNull();
    }

    @Test
    void thinkingThenTextThenPartialAndCompleteToolCallsInLangChain4jsOrder() throws Exception {
        AiMessage message = AiMessage.builder().thinking("Let me look.").text("Checking.")
                .toolExecutionRequests(List.of(MockChatModel.toolCall("lookup", Map.of("id", 7)))).build();
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds(message);
        Collected collected = new Collected();
        model.chat(ask("x"), collected);
        ChatResponse response = collected.await();
        List<String> events = collected.events;
        assertThat(events.get(0)).isEqualTo("thinking:Let");
        assertThat(events).containsSubsequence("thinking: look", "text:Checking", "partial:0:lookup:{\"", "tool:0:call_1:lookup:{\"id\":7}", "complete");
        assertThat(String.join("", events.stream().filter(e -> e.startsWith("partial:")).map(e -> e.substring("partial:0:lookup:".length())).toList()))
                .isEqualTo("{\"id\":7}");
        assertThat(response.metadata().finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
        assertThat(response.aiMessage().toolExecutionRequests().get(0).id()).isEqualTo("call_1");
    }

    @Test
    void exactTokensThenABrokenConnection() throws Exception {
        RuntimeException reset = new RuntimeException("connection reset");
        MockStreamingChatModel model = MockStreamingChatModel.thatStreams("Hel", "lo").andFails(reset);
        Collected collected = new Collected();
        model.chat(ask("x"), collected);
        collected.settle();
        assertThat(collected.events).containsExactly("text:Hel", "text:lo", "error:connection reset");
        assertThat(collected.error).isSameAs(reset);
    }

    @Test
    void failuresAndExhaustionGoToOnErrorOnAnotherThread() throws Exception {
        RuntimeException down = new IllegalStateException("down");
        MockStreamingChatModel model = MockStreamingChatModel.thatFails(down);
        Collected first = new Collected();
        model.chat(ask("x"), first);
        first.settle();
        assertThat(first.error).isSameAs(down);
        assertThat(first.threads).doesNotContain(Thread.currentThread());
        Collected second = new Collected();
        model.chat(ask("one question too many"), second);
        second.settle();
        assertThat(second.error).isInstanceOf(IllegalStateException.class).hasMessageContaining("one question too many");
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void aThrowingHandlerGetsOnErrorAndTheStreamGoesOnAndCancelStopsIt() throws Exception {
        MockStreamingChatModel model = MockStreamingChatModel.thatStreams("a", "b", "c").thenStreams("1", "2", "3");
        Collected throwing = new Collected() {
            @Override
            public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
                super.onPartialResponse(partial, context);
                if (partial.text().equals("b")) throw new RuntimeException("handler bug");
            }
        };
        model.chat(ask("x"), throwing);
        throwing.done.handle((r, e) -> r).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 50 && !throwing.events.contains("complete"); i++) Thread.sleep(20);
        assertThat(throwing.events).containsExactly("text:a", "text:b", "error:handler bug", "text:c", "complete");

        CountDownLatch stopped = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        Collected cancelling = new Collected() {
            @Override
            public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
                seen.add(partial.text());
                if (partial.text().equals("2")) {
                    context.streamingHandle().cancel();
                    stopped.countDown();
                }
            }
        };
        model.chat(ask("y"), cancelling);
        assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(seen).containsExactly("1", "2");
        assertThat(cancelling.done).isNotDone();
    }

    @Test
    void aPublisherDeliversOnlyWhatWasRequestedAndEachSubscriptionIsOneRequest() throws Exception {
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds("one two three").thenResponds("again");
        Flow.Publisher<ChatEvent> publisher = model.chat(ask("x"));
        assertThat(model.requests()).isEmpty();
        List<ChatEvent> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
        CompletableFuture<Void> completed = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscribed.complete(subscription);
            }

            @Override
            public void onNext(ChatEvent item) {
                received.add(item);
            }

            @Override
            public void onError(Throwable throwable) {
                completed.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                completed.complete(null);
            }
        });
        Flow.Subscription subscription = subscribed.get(10, TimeUnit.SECONDS);
        Thread.sleep(100);
        assertThat(received).isEmpty();
        subscription.request(2);
        for (int i = 0; i < 100 && received.size() < 2; i++) Thread.sleep(10);
        Thread.sleep(50);
        assertThat(received).containsExactly(new ChatEvent.PartialResponseEvent("one"), new ChatEvent.PartialResponseEvent(" two"));
        subscription.request(Long.MAX_VALUE);
        completed.get(10, TimeUnit.SECONDS);
        assertThat(received).hasSize(4);
        assertThat(received.get(3)).isInstanceOfSatisfying(ChatEvent.CompleteResponseEvent.class,
                e -> assertThat(e.response().aiMessage().text()).isEqualTo("one two three"));
        assertThat(model.requests()).hasSize(1);
    }

    /** Subscribes with unbounded demand; the future completes with every event, or fails with the error. */
    private static CompletableFuture<List<ChatEvent>> drain(Flow.Publisher<ChatEvent> publisher) {
        List<ChatEvent> received = new CopyOnWriteArrayList<>();
        CompletableFuture<List<ChatEvent>> done = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ChatEvent item) {
                received.add(item);
            }

            @Override
            public void onError(Throwable throwable) {
                done.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                done.complete(List.copyOf(received));
            }
        });
        return done;
    }

    @Test
    void doChatWithOneArgumentEmitsTheEventsAsAPublisherWithoutListeners() throws Exception {
        List<String> fired = new CopyOnWriteArrayList<>();
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds(AiMessage.builder().thinking("hm").text("Hi there")
                .toolExecutionRequests(List.of(MockChatModel.toolCall("f", Map.of()))).build()).withListeners(recording(fired));
        List<ChatEvent> events = drain(model.doChat(ask("x"))).get(10, TimeUnit.SECONDS);
        assertThat(events).extracting(e -> e.getClass().getSimpleName()).containsExactly("PartialThinkingEvent",
                "PartialResponseEvent", "PartialResponseEvent", "PartialToolCallEvent", "CompleteToolCallEvent",
                "CompleteResponseEvent");
        assertThat(model.requests()).hasSize(1);
        assertThat(fired).as("doChat is the model's own part: listeners are chat's").isEmpty();
    }

    private static dev.langchain4j.model.chat.listener.ChatModelListener recording(List<String> fired) {
        return new dev.langchain4j.model.chat.listener.ChatModelListener() {
            @Override
            public void onRequest(dev.langchain4j.model.chat.listener.ChatModelRequestContext context) {
                context.attributes().put("call", fired.size());
                fired.add("request:" + context.chatRequest().messages().size());
            }

            @Override
            public void onResponse(dev.langchain4j.model.chat.listener.ChatModelResponseContext context) {
                fired.add("response:" + context.chatResponse().aiMessage().text() + ":" + context.attributes().get("call"));
            }

            @Override
            public void onError(dev.langchain4j.model.chat.listener.ChatModelErrorContext context) {
                fired.add("error:" + context.error().getMessage() + ":" + context.attributes().get("call"));
            }
        };
    }

    @Test
    void listenersHearEachSubscriptionOfThePublisherAsOneCall() throws Exception {
        List<String> fired = new CopyOnWriteArrayList<>();
        dev.langchain4j.model.chat.listener.ChatModelListener throwing = new dev.langchain4j.model.chat.listener.ChatModelListener() {
            @Override
            public void onRequest(dev.langchain4j.model.chat.listener.ChatModelRequestContext context) {
                throw new IllegalStateException("a broken listener is ignored");
            }
        };
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds("ok").thenFails(new RuntimeException("down"))
                .withListeners(throwing, recording(fired));
        Flow.Publisher<ChatEvent> publisher = model.chat(ask("x"));
        assertThat(fired).as("nothing before a subscription").isEmpty();
        assertThat(drain(publisher).get(10, TimeUnit.SECONDS)).hasSize(2);
        CompletableFuture<List<ChatEvent>> failed = drain(publisher);
        assertThat(failed).failsWithin(10, TimeUnit.SECONDS).withThrowableThat().withMessageContaining("down");
        assertThat(fired).containsExactly("request:1", "response:ok:0", "request:1", "error:down:2");
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void aGivenResponseWithoutUsageOrWithTheTextEmptyCompletesTheStreamWithExactlyIt() throws Exception {
        ChatResponse withoutUsage = ChatResponse.builder().aiMessage(AiMessage.from("no usage here")).build();
        ChatResponse empty = ChatResponse.builder().aiMessage(AiMessage.from("")).build();
        MockStreamingChatModel model = MockStreamingChatModel.thatResponds(withoutUsage).thenResponds(empty);
        Collected first = new Collected();
        model.chat(ask("x"), first);
        assertThat(first.await()).isSameAs(withoutUsage);
        assertThat(first.events).containsExactly("text:no", "text: usage", "text: here", "complete");
        Collected second = new Collected();
        model.chat(ask("y"), second);
        assertThat(second.await()).isSameAs(empty);
        assertThat(second.events).as("the text \"\" streams nothing").containsExactly("complete");
    }

    interface Assistant {
        TokenStream chat(String message);
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
    void drivesATokenStreamWithToolsThroughAiServices() throws Exception {
        MockStreamingChatModel model = MockStreamingChatModel.thatCallsTool("weather", Map.of("city", "Paris"))
                .thenResponds("It is sunny in Paris.");
        Weather weather = new Weather();
        Assistant assistant = AiServices.builder(Assistant.class).streamingChatModel(model).tools(weather).build();
        List<String> partials = new CopyOnWriteArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        assistant.chat("Weather in Paris?").onPartialResponse(partials::add).onCompleteResponse(done::complete)
                .onError(done::completeExceptionally).start();
        ChatResponse response = done.get(10, TimeUnit.SECONDS);
        assertThat(response.aiMessage().text()).isEqualTo("It is sunny in Paris.");
        assertThat(partials).containsExactly("It", " is", " sunny", " in", " Paris", ".");
        assertThat(weather.asked).containsExactly("Paris");
        assertThat(model.lastRequest().messages().toString()).contains("sunny in Paris");
    }
}
