package dev.cuecard.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A handler (for the tests of this package and of the Server) recording every callback in order ("text:Hello", "tool:...", "complete", "error:..."), and its thread. */
public class Collected implements StreamingChatResponseHandler {
    public final List<String> events = new CopyOnWriteArrayList<>();
    public final List<Thread> threads = new CopyOnWriteArrayList<>();
    public final CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    public volatile Throwable error;

    @Override
    public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
        threads.add(Thread.currentThread());
        events.add("text:" + partial.text());
    }

    @Override
    public void onPartialThinking(PartialThinking thinking) {
        events.add("thinking:" + thinking.text());
    }

    @Override
    public void onPartialToolCall(PartialToolCall call) {
        events.add("partial:" + call.index() + ":" + call.name() + ":" + call.partialArguments());
    }

    @Override
    public void onCompleteToolCall(CompleteToolCall call) {
        events.add("tool:" + call.index() + ":" + call.toolExecutionRequest().id() + ":" + call.toolExecutionRequest().name()
                + ":" + call.toolExecutionRequest().arguments());
    }

    @Override
    public void onCompleteResponse(ChatResponse response) {
        threads.add(Thread.currentThread());
        events.add("complete");
        done.complete(response);
    }

    @Override
    public void onError(Throwable failure) {
        threads.add(Thread.currentThread());
        events.add("error:" + failure.getMessage());
        error = failure;
        done.completeExceptionally(failure);
    }

    public ChatResponse await() throws Exception {
        return done.get(10, TimeUnit.SECONDS);
    }

    /** Waits for the end, failure or not. */
    public void settle() {
        try {
            done.get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the failure is in `error`
        }
    }
}
