package dev.cuecard;

import dev.cuecard.langchain4j.MockChatModel;
import dev.cuecard.langchain4j.MockStreamingChatModel;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.mock.ChatModelMock;
import dev.langchain4j.model.chat.mock.StreamingChatModelMock;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The per-call benchmark: a scripted {@code ChatModel.chat} and a streamed answer, cuecard's mocks beside LangChain4j's
 * own test mocks ({@code ChatModelMock}, {@code StreamingChatModelMock} from langchain4j-core's test jar), the
 * core mock alone, and the floor of any native call. Each figure is the median of 7 rounds, in microseconds per call, after a warm-up of 5 rounds' worth. Run it with
 * {@code mvn -B -ntp test-compile exec:exec@bench} ({@code -Dbench.args=--quick} for a smoke run).
 */
public final class Bench {
    private static final String ANSWER = "Booking MS-777 is cancelled; the refund of 120 EUR arrives in 3 days.";

    private interface Call {
        Object run() throws Exception;
    }

    /** Every call's result lands here, so the JIT cannot drop a call whose result is unused (LangChain4j's
     * {@code ChatModelMock} measured 0.15 us without it, 0.9 us another day: its work was partly eliminated). */
    private static volatile int sink;

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        int calls = quick ? 200 : 20_000;
        int streams = quick ? 50 : 3_000;
        ChatRequest request = ChatRequest.builder().modelName("gpt-4o")
                .messages(SystemMessage.from("You are a booking assistant."), UserMessage.from("Cancel booking MS-777, please."))
                .build();

        // Both libraries keep every request. LangChain4j keeps a reference; cuecard journals a copy with its outcome,
        // so over the 150,000 calls of a figure cuecard's journal is bounded (journal_limit) to measure the call,
        // not the memory of a journal no test grows to.
        MockChatModel cuecard = MockChatModel.thatResponds(ANSWER).thenRepeats();
        cuecard.mock().configure(java.util.Map.of("journal_limit", 1000));
        ChatModel upstream = ChatModelMock.thatAlwaysResponds(ANSWER);
        MockModel core = MockModel.withSettings(java.util.Map.of("journal_limit", 1000)).thenResponds(ANSWER).thenRepeats();
        MockStreamingChatModel cuecardStreaming = MockStreamingChatModel.thatResponds(ANSWER).thenRepeats();
        cuecardStreaming.mock().configure(java.util.Map.of("journal_limit", 1000));
        // LangChain4j's streaming mock answers each AiMessage once (then "aiMessage cannot be null"): a new one per
        // call, which costs a constructor and a queue.
        java.util.function.Supplier<StreamingChatModel> upstreamStreaming = () -> StreamingChatModelMock.thatAlwaysStreams(ANSWER);

        System.out.println("cuecard JVM per-call benchmark (" + (quick ? "quick" : "full") + "), microseconds per call, median of 7 rounds");
        double ours = report("chat", "ChatModel.chat: cuecard MockChatModel", calls, () -> cuecard.chat(request));
        double theirs = report("chat/langchain4j-mock", "ChatModel.chat: LangChain4j ChatModelMock", calls, () -> upstream.chat(request));
        report("core-chat", "MockModel.chat (the core alone, a user text)", calls, () -> core.chat("Cancel booking MS-777, please."));
        // The floor of any call that reaches the core: one native call doing almost nothing (the crossing, the
        // boundary's error handling, an empty text). A goal below it cannot be met by a call that runs the core.
        double floor = report("native-floor", "floor: one native call (Cuecard.countTokens of an empty text)", calls, () -> Cuecard.countTokens(""));
        double oursStream = report("stream", "streamed answer: cuecard MockStreamingChatModel (word-like tokens)", streams,
                () -> awaitStream(cuecardStreaming, request));
        double theirsStream = report("stream/langchain4j-mock", "streamed answer: LangChain4j StreamingChatModelMock (one char per token)", streams,
                () -> awaitStream(upstreamStreaming.get(), request));
        System.out.printf("ratio cuecard / LangChain4j: chat %.2fx, stream %.2fx; the native floor alone is %.2fx of ChatModelMock%n",
                ours / theirs, oursStream / theirsStream, floor / theirs);
    }

    private static double report(String id, String name, int iterations, Call call) throws Exception {
        int seen = 0;
        // Warm-up: five figures' worth. cuecard's call reaches its steady speed only after about 100,000 calls (the
        // JIT compiles Jackson's readers and the adapter late): with half a figure of warm-up, the median took in
        // rounds at twice the steady time (8.7-10 us against 4.5), while LangChain4j's trivial mock warms at once.
        for (int i = 0; i < iterations * 5; i++) seen ^= System.identityHashCode(call.run());
        double[] rounds = new double[7];
        for (int round = 0; round < rounds.length; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) seen ^= System.identityHashCode(call.run());
            rounds[round] = (System.nanoTime() - start) / 1000.0 / iterations;
        }
        sink = seen;
        Arrays.sort(rounds);
        double median = rounds[rounds.length / 2];
        System.out.printf("  %-72s %9.2f us%n", name, median);
        System.out.printf(java.util.Locale.ROOT, "figure jvm/%s %.4g us%n", id, median); // for bench/figures.py
        return median;
    }

    private static Object awaitStream(StreamingChatModel model, ChatRequest request) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        model.chat(request, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {}

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.countDown();
            }

            @Override
            public void onError(Throwable error) {
                done.countDown();
            }
        });
        if (!done.await(10, TimeUnit.SECONDS)) throw new IllegalStateException("a stream did not finish");
        return done;
    }
}
