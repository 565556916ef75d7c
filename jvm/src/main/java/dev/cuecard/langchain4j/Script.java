package dev.cuecard.langchain4j;

import dev.cuecard.CuecardException;
import dev.cuecard.MockModel;
import dev.cuecard.ProviderException;
import dev.cuecard.Response;
import dev.cuecard.internal.ScriptedExceptions;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The script and the records behind {@link MockChatModel} and {@link MockStreamingChatModel}: the seed's verbs on a
 * core {@link MockModel} (one route, steps taken in arrival order), the LangChain4j requests received, and the Java
 * objects a step gives that cannot cross to the core: the exceptions of {@code thenFails} / {@code andFails} (the core
 * scripts a {@code custom} failure tagged with the exception's number and this class swaps the exception back in),
 * a whole {@link ChatResponse}, and the function of a computed step.
 */
abstract class Script<SELF extends Script<SELF>> implements AutoCloseable {

    /** The LangChain4j request being answered on this thread, for computed steps. */
    private static final ThreadLocal<ChatRequest> CURRENT = new ThreadLocal<>();
    /** The whole response a step gave, picked up on the thread that asked right after the core answered. */
    private static final ThreadLocal<ChatResponse> GIVEN = new ThreadLocal<>();

    final MockModel mock;
    private final ScriptedExceptions exceptions = new ScriptedExceptions("langchain4j-exception:");
    private final List<ChatRequest> requests = Collections.synchronizedList(new ArrayList<>());
    private volatile List<ChatModelListener> listeners = List.of();
    private volatile Set<Capability> capabilities = Set.of();

    Script(MockModel mock) {
        this.mock = mock;
    }

    abstract SELF self();

    /** Runs a core verb, giving its misuse errors as Java's: a wrong argument, a call in the wrong state. */
    final SELF verb(Runnable verb) {
        try {
            verb.run();
        } catch (CuecardException e) {
            throw javaMisuse(e);
        }
        return self();
    }

    static RuntimeException javaMisuse(CuecardException e) {
        return switch (e.code()) {
            case "invalid_argument", "callback_failed" -> new IllegalArgumentException(e.getMessage(), e);
            case "invalid_state", "script_exhausted", "no_route_matched", "no_recording", "request_count_mismatch" ->
                    new IllegalStateException(e.getMessage(), e);
            default -> e;
        };
    }

    // ---- the seed's verbs (each adds one step, answering one request) -------------------------------------------

    /** Adds a step: the next request is answered with this text, in word-like tokens. */
    public SELF thenResponds(String text) {
        return verb(() -> mock.thenResponds(text));
    }

    /** Adds a step: the next request is answered with this message, in word-like tokens. */
    public SELF thenResponds(AiMessage message) {
        CuecardException.notNull(message, "aiMessage");
        // An empty text is refused by the core's rule (a provider that streams no text completes with null).
        if (message.text() != null && message.text().isEmpty()) return thenResponds("");
        return verb(() -> mock.thenResponds(Conversions.step(message)));
    }

    /**
     * Adds a step: the next request is answered by streaming the message of the given response and completing with
     * exactly that response, metadata included. Tool calls without an id get the mock's next id.
     */
    public SELF thenResponds(ChatResponse response) {
        CuecardException.notNull(response, "chatResponse");
        Map<String, Object> step = Conversions.step(response.aiMessage());
        // The text "" streams nothing (the response completes with exactly "" all the same), and an answer with
        // nothing to stream is the core's "no tokens".
        if ("".equals(step.get("text"))) step.remove("text");
        if (!step.containsKey("text") && !step.containsKey("thinking") && !step.containsKey("tool_calls")) {
            step.put("tokens", List.of());
        }
        // The core streams the step; the response the call completes with is exactly the given one (GIVEN), so a
        // response without token usage gives the step none.
        if (response.tokenUsage() != null) step.put("usage", Conversions.usage(response.tokenUsage()));
        return verb(() -> mock.thenComputes(request -> {
            GIVEN.set(response);
            return step;
        }));
    }

    /** Adds a step: the next request is answered by streaming exactly these tokens. */
    public SELF thenStreams(String... tokens) {
        return thenStreams(Arrays.asList(CuecardException.notNull(tokens, "tokens")));
    }

    public SELF thenStreams(List<String> tokens) {
        return verb(() -> mock.thenStreams(tokens));
    }

    /** Adds a step: the next request is answered with a call of the tool (arguments by name). */
    public SELF thenCallsTool(String toolName, Map<String, ?> arguments) {
        return verb(() -> mock.thenCallsTool(toolName, arguments));
    }

    /** Adds a step: the next request is answered with a call of the tool (arguments as JSON, possibly invalid). */
    public SELF thenCallsTool(String toolName, String jsonArguments) {
        return verb(() -> mock.thenCallsTool(toolName, jsonArguments));
    }

    /** Adds a step: the next request fails with this exception before anything is streamed. */
    public SELF thenFails(RuntimeException exception) {
        return verb(() -> mock.thenFails(exceptions.failureFor(exception)));
    }

    /** Makes the last step fail after its thinking and text were streamed; adds no step. */
    public SELF andFails(RuntimeException exception) {
        return verb(() -> mock.andFails(exceptions.failureFor(exception)));
    }

    /** Answers every further request with the last step (a computed one computes again). */
    public SELF thenRepeats() {
        return verb(mock::thenRepeats);
    }

    /** Adds a step computing the answer from the request; what it throws fails the request unchanged. */
    public SELF thenResponds(Function<ChatRequest, AiMessage> answers) {
        CuecardException.notNull(answers, "answers");
        return verb(() -> mock.thenComputes(request -> {
            AiMessage message = answers.apply(CURRENT.get());
            if (message == null) throw new IllegalArgumentException("the function answered null instead of an AiMessage");
            if (message.text() != null && message.text().isEmpty()) {
                throw new IllegalArgumentException("the function answered the text \"\": a provider that streams no text "
                        + "completes with null; give a message without text instead");
            }
            return Conversions.step(message);
        }));
    }

    /** Reports this usage in every response, except a step that gives a whole response; null for none (default). */
    public SELF withTokenUsage(TokenUsage tokenUsage) {
        Object usage = tokenUsage == null ? "none" : Conversions.usage(tokenUsage);
        return verb(() -> mock.configure(Map.of("usage", usage)));
    }

    /** Reports usage estimated by the word-like tokenizer (input: the request's messages; output: the answer). */
    public SELF withEstimatedTokenUsage() {
        return verb(() -> mock.configure(Map.of("usage", "estimate")));
    }

    public SELF withListeners(ChatModelListener... listeners) {
        return withListeners(Arrays.asList(CuecardException.notNull(listeners, "listeners")));
    }

    public SELF withListeners(List<ChatModelListener> listeners) {
        this.listeners = List.copyOf(CuecardException.notNull(listeners, "listeners"));
        return self();
    }

    public SELF withSupportedCapabilities(Capability... capabilities) {
        return withSupportedCapabilities(Set.of(CuecardException.notNull(capabilities, "capabilities")));
    }

    public SELF withSupportedCapabilities(Set<Capability> capabilities) {
        this.capabilities = Set.copyOf(CuecardException.notNull(capabilities, "capabilities"));
        return self();
    }

    // ---- what it received ----------------------------------------------------------------------------------------

    /** A copy of the requests received so far, in arrival order. */
    public List<ChatRequest> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** The only request received so far; IllegalStateException when there are none or several. */
    public ChatRequest request() {
        List<ChatRequest> all = requests();
        if (all.size() != 1) throw new IllegalStateException("expected exactly 1 request, but the mock received " + all.size());
        return all.get(0);
    }

    /** The last request received so far; IllegalStateException when there is none. */
    public ChatRequest lastRequest() {
        List<ChatRequest> all = requests();
        if (all.isEmpty()) throw new IllegalStateException("the mock received no request");
        return all.get(all.size() - 1);
    }

    /** The core mock behind the script: its journal, and {@code CuecardAssertions.assertThat(model.mock())}. */
    public MockModel mock() {
        return mock;
    }

    public List<ChatModelListener> listeners() {
        return listeners;
    }

    public Set<Capability> supportedCapabilities() {
        return capabilities;
    }

    @Override
    public void close() {
        mock.close();
    }

    // ---- answering (for the two models) ---------------------------------------------------------------------------

    void record(ChatRequest request) {
        requests.add(request);
    }

    /** Sets up a call on this thread: computed steps see {@code request}; a given response starts unset. */
    static void begin(ChatRequest request) {
        CURRENT.set(request);
        GIVEN.remove();
    }

    static void end() {
        CURRENT.remove();
        GIVEN.remove();
    }

    /** The response to complete with: the one a step gave (tool call ids filled in), or one built from the core's. */
    static ChatResponse completion(Response response, ChatRequest request) {
        ChatResponse given = GIVEN.get();
        if (given == null) return Conversions.chatResponse(response, request);
        List<ToolExecutionRequest> calls = given.aiMessage().toolExecutionRequests();
        boolean missingIds = calls.stream().anyMatch(call -> call.id() == null || call.id().isEmpty());
        if (!missingIds) return given;
        AiMessage filled = given.aiMessage().toBuilder().toolExecutionRequests(Conversions.aiMessage(response).toolExecutionRequests()).build();
        return given.toBuilder().aiMessage(filled).build();
    }

    /** The exception a failure stands for: the Java exception a step gave, else cuecard's. */
    final RuntimeException failure(Throwable error) {
        if (error instanceof ProviderException provider && exceptions.thrownFor(provider) instanceof RuntimeException given) {
            return given;
        }
        if (error instanceof CuecardException cuecard) return javaMisuse(cuecard);
        if (error instanceof RuntimeException runtime) return runtime;
        if (error instanceof Error fatal) throw fatal;
        return new RuntimeException(error);
    }
}
