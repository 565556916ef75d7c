package dev.cuecard.langchain4j;

import dev.cuecard.CuecardException;
import dev.cuecard.MockModel;
import dev.cuecard.StreamEvent;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * A {@link StreamingChatModel} for tests: it streams what the test scripts, one step per request, and records the
 * requests. For example, a stream that breaks after its text:
 *
 * <pre>{@code
 * MockStreamingChatModel model = MockStreamingChatModel.thatStreams("Hel", "lo")
 *         .andFails(new RuntimeException("connection reset"));
 * }</pre>
 *
 * An answer is streamed as a provider streams it: thinking, then text, in word-like tokens ("Hello, world!" is
 * "Hello", ",", " world", "!"), then per tool call its partial calls and the complete call, then the complete
 * response with the request's model name and finish reason. Like a provider, the mock answers on its own thread:
 * {@code chat(request, handler)} returns at once and calls the handler on another thread, also for a failure. A
 * handler that throws gets the exception in {@code onError} and the stream goes on, as LangChain4j's own models do;
 * {@link StreamingHandle#cancel()} stops it silently. A request after the last step gets an
 * {@link IllegalStateException} in {@code onError} that shows the request.
 */
public final class MockStreamingChatModel extends Script<MockStreamingChatModel> implements StreamingChatModel {
    private MockStreamingChatModel(MockModel mock) {
        super(mock);
    }

    @Override
    MockStreamingChatModel self() {
        return this;
    }

    public static MockStreamingChatModel from(MockModel mock) {
        return new MockStreamingChatModel(CuecardException.notNull(mock, "mock"));
    }

    private static MockStreamingChatModel empty() {
        return new MockStreamingChatModel(new MockModel());
    }

    public static MockStreamingChatModel thatResponds(String text) {
        return empty().thenResponds(text);
    }

    public static MockStreamingChatModel thatResponds(AiMessage... messages) {
        return thatResponds(List.of(CuecardException.notNull(messages, "aiMessages")));
    }

    public static MockStreamingChatModel thatResponds(List<AiMessage> messages) {
        if (messages.isEmpty()) throw new IllegalArgumentException("thatResponds needs at least one message");
        MockStreamingChatModel model = empty();
        messages.forEach(model::thenResponds);
        return model;
    }

    public static MockStreamingChatModel thatResponds(ChatResponse response) {
        return empty().thenResponds(response);
    }

    public static MockStreamingChatModel thatResponds(Function<ChatRequest, AiMessage> answers) {
        return empty().thenResponds(answers);
    }

    public static MockStreamingChatModel thatStreams(String... tokens) {
        return empty().thenStreams(tokens);
    }

    public static MockStreamingChatModel thatStreams(List<String> tokens) {
        return empty().thenStreams(tokens);
    }

    public static MockStreamingChatModel thatCallsTool(String toolName, Map<String, ?> arguments) {
        return empty().thenCallsTool(toolName, arguments);
    }

    public static MockStreamingChatModel thatCallsTool(String toolName, String jsonArguments) {
        return empty().thenCallsTool(toolName, jsonArguments);
    }

    public static MockStreamingChatModel thatFails(RuntimeException exception) {
        return empty().thenFails(exception);
    }

    /**
     * Streams the next step's answer to {@code handler} on a new thread: partial thinking and text, partial and
     * complete tool calls, then the complete response; a failure goes to {@code onError}, never thrown.
     */
    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        record(request);
        Thread thread = new Thread(() -> stream(request, new Deliver(handler)), "cuecard-stream");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The next step's answer as a {@link Flow.Publisher} of {@link ChatEvent}s, with the listeners notified (what the
     * newer LangChain4j the seed describes returns from {@code chat(request)}): each subscription is one call, so
     * each listener hears {@code onRequest} when it is subscribed to, then {@code onResponse} before the complete
     * response is delivered, or {@code onError} before the failure is; a listener that throws is ignored, as
     * LangChain4j's models log and ignore it.
     */
    public Flow.Publisher<ChatEvent> chat(ChatRequest request) {
        return publisher(CuecardException.notNull(request, "chatRequest"), listeners());
    }

    /**
     * Emits {@link PartialThinking} and {@link PartialResponse} events, then {@link PartialToolCall} and
     * {@link CompleteToolCall} events, then the complete response, as a {@link Flow.Publisher} (seed 001's
     * {@code doChat(ChatRequest)}, beside {@code doChat(request, handler)}; like that one, it notifies no listener:
     * {@link #chat(ChatRequest)} does). Each subscription is one request: the mock records it and takes the next step
     * when subscribed to, on a new thread; each event is delivered only after it was requested, on that thread or,
     * for an event that was waiting, on the thread that requests it. A failure is reported with {@code onError},
     * never thrown.
     */
    public Flow.Publisher<ChatEvent> doChat(ChatRequest request) {
        return publisher(CuecardException.notNull(request, "chatRequest"), List.of());
    }

    private Flow.Publisher<ChatEvent> publisher(ChatRequest request, List<ChatModelListener> listeners) {
        return new EventPublisher<>(sink -> {
            Listening listening = new Listening(listeners, request, provider());
            record(request);
            Throwable[] failure = new Throwable[1];
            stream(request, new Target() {
                @Override
                public boolean cancelled() {
                    return sink.cancelled();
                }

                @Override
                public void thinking(String text) {
                    sink.next(new ChatEvent.PartialThinkingEvent(new PartialThinking(text)));
                }

                @Override
                public void text(String text) {
                    sink.next(new ChatEvent.PartialResponseEvent(text));
                }

                @Override
                public void partialToolCall(PartialToolCall call) {
                    sink.next(new ChatEvent.PartialToolCallEvent(call));
                }

                @Override
                public void completeToolCall(CompleteToolCall call) {
                    sink.next(new ChatEvent.CompleteToolCallEvent(call));
                }

                @Override
                public void complete(ChatResponse response) {
                    listening.response(response);
                    sink.next(new ChatEvent.CompleteResponseEvent(response));
                }

                @Override
                public void error(Throwable error) {
                    failure[0] = error;
                }
            });
            if (failure[0] != null) {
                listening.error(failure[0]);
                throw failure[0];
            }
        });
    }

    /**
     * One call's listener notifications, as LangChain4j's {@code StreamingChatModel.chat(request, handler)} makes them:
     * one attribute map shared by the call's contexts, {@code onRequest} at once, then {@code onResponse} or
     * {@code onError}; what a listener throws is dropped.
     */
    private static final class Listening {
        private final List<ChatModelListener> listeners;
        private final ChatRequest request;
        private final ModelProvider provider;
        private final Map<Object, Object> attributes = new ConcurrentHashMap<>();

        Listening(List<ChatModelListener> listeners, ChatRequest request, ModelProvider provider) {
            this.listeners = listeners;
            this.request = request;
            this.provider = provider;
            each(listener -> listener.onRequest(new ChatModelRequestContext(request, provider, attributes)));
        }

        void response(ChatResponse response) {
            each(listener -> listener.onResponse(new ChatModelResponseContext(response, request, provider, attributes)));
        }

        void error(Throwable error) {
            each(listener -> listener.onError(new ChatModelErrorContext(error, request, provider, attributes)));
        }

        private void each(java.util.function.Consumer<ChatModelListener> call) {
            for (ChatModelListener listener : listeners) {
                try {
                    call.accept(listener);
                } catch (RuntimeException ignored) {
                    // LangChain4j logs a failing listener and goes on; the call's outcome is not the listener's.
                }
            }
        }
    }

    /** Where a stream's events go: a handler, or a publisher's subscription. */
    private interface Target {
        boolean cancelled();

        void thinking(String text);

        void text(String text);

        void partialToolCall(PartialToolCall call);

        void completeToolCall(CompleteToolCall call);

        void complete(ChatResponse response);

        void error(Throwable error);
    }

    /** Asks the core on this thread and plays the events into {@code target}, waiting out each event's delay. */
    private void stream(ChatRequest request, Target target) {
        List<StreamEvent> events;
        begin(request);
        try {
            events = mock.stream(Conversions.request(request));
            for (StreamEvent event : events) {
                if (target.cancelled()) return;
                sleep(event.delayMs());
                if (target.cancelled()) return;
                switch (event.type()) {
                    case "thinking_delta" -> target.thinking(event.text());
                    case "text_delta" -> target.text(event.text());
                    case "tool_call_delta" -> target.partialToolCall(PartialToolCall.builder().index(event.index())
                            .id(event.id()).name(event.name()).partialArguments(event.arguments()).build());
                    case "tool_call" -> target.completeToolCall(
                            new CompleteToolCall(event.index(), Conversions.toolRequest(event.call())));
                    case "complete" -> target.complete(completion(event.response(), request));
                    case "error" -> target.error(failure(event.failure()));
                    default -> { } // an event kind of a newer core: nothing a handler has a method for
                }
            }
        } catch (RuntimeException e) {
            target.error(failure(e));
        } finally {
            end();
        }
    }

    private static void sleep(long milliseconds) {
        if (milliseconds <= 0) return;
        try {
            Thread.sleep(milliseconds);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A handler as LangChain4j's own models call it: with a cancellable {@link StreamingHandle} in each context, and
     * an exception thrown by a callback given to {@code onError} (one thrown by {@code onError} is dropped), after
     * which the stream goes on.
     */
    private static final class Deliver implements Target, StreamingHandle {
        private final StreamingChatResponseHandler handler;
        private volatile boolean cancelled;

        Deliver(StreamingChatResponseHandler handler) {
            this.handler = handler;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancelled() {
            return cancelled;
        }

        private void call(Runnable callback) {
            try {
                callback.run();
            } catch (RuntimeException e) {
                error(e);
            }
        }

        @Override
        public void thinking(String text) {
            call(() -> handler.onPartialThinking(new PartialThinking(text), new PartialThinkingContext(this)));
        }

        @Override
        public void text(String text) {
            call(() -> handler.onPartialResponse(new PartialResponse(text), new PartialResponseContext(this)));
        }

        @Override
        public void partialToolCall(PartialToolCall call) {
            call(() -> handler.onPartialToolCall(call, new PartialToolCallContext(this)));
        }

        @Override
        public void completeToolCall(CompleteToolCall call) {
            call(() -> handler.onCompleteToolCall(call));
        }

        @Override
        public void complete(ChatResponse response) {
            call(() -> handler.onCompleteResponse(response));
        }

        @Override
        public void error(Throwable error) {
            try {
                handler.onError(error);
            } catch (RuntimeException ignored) {
                // LangChain4j's models log and drop it: there is no one left to tell.
            }
        }
    }
}
