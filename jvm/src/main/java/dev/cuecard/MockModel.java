package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A scripted model: each step answers one request, in the order requests arrive. Script it with the seed verbs
 * ({@code thatResponds("Hi").thenCallsTool("lookup", Map.of("id", 1)).thenFails(Failure.of("rate_limited"))}), from a
 * scenario (JSON or YAML), or with routes per operation or model. Ask it with {@link #chat} or {@link #stream}, or
 * serve it over HTTP to the official SDKs with {@link #serve()}; then check what it received with
 * {@link CuecardAssertions#assertThat(MockModel)}.
 *
 * <p>A request after the last step fails with {@code script_exhausted} (a {@link CuecardException}) naming the
 * request, unless the script ends with {@link #thenRepeats()}. Thread-safe. Close it (or let the {@link
 * java.lang.ref.Cleaner} do it) to free the native side; a closed mock throws {@code invalid_state}.
 */
public final class MockModel implements AutoCloseable {
    private final Handle handle;

    MockModel(long id) {
        this.handle = new Handle(this, id, "a MockModel");
    }

    /** A mock with no steps and the default settings. */
    public MockModel() {
        this(Native.mockNew(null));
    }

    /**
     * A mock with settings: {@code instant} (skip scripted waits), {@code usage} ({@code "none"}, {@code "estimate"} or
     * a usage object), {@code seed}, {@code provider_id}, {@code capabilities}, {@code on_exhausted}
     * ({@code fail}, {@code repeat_last}, {@code cycle}), {@code step_defaults}, {@code journal_limit}.
     */
    public static MockModel withSettings(Map<String, ?> settings) {
        return new MockModel(Native.mockNew(Json.write(CuecardException.notNull(settings, "settings"), "settings")));
    }

    /** A mock from a scenario text, JSON or YAML (see docs/scenario.md). */
    public static MockModel fromScenario(String scenario) {
        return new MockModel(Native.mockFromScenario(CuecardException.notNull(scenario, "scenario"), false));
    }

    /** A mock from a scenario file ({@code .yaml}/{@code .yml} is YAML, anything else JSON). */
    public static MockModel fromScenarioFile(Path path) {
        return new MockModel(Native.mockFromScenario(CuecardException.notNull(path, "path").toString(), true));
    }

    public static MockModel thatResponds(String text) {
        return new MockModel().thenResponds(text);
    }

    public static MockModel thatResponds(Map<String, ?> step) {
        return new MockModel().thenResponds(step);
    }

    public static MockModel thatStreams(String... tokens) {
        return new MockModel().thenStreams(tokens);
    }

    public static MockModel thatCallsTool(String name, Map<String, ?> arguments) {
        return new MockModel().thenCallsTool(name, arguments);
    }

    public static MockModel thatCallsTool(String name, String jsonArguments) {
        return new MockModel().thenCallsTool(name, jsonArguments);
    }

    public static MockModel thatFails(Failure failure) {
        return new MockModel().thenFails(failure);
    }

    public static MockModel thatComputes(Function<RecordedRequest, ?> answer) {
        return new MockModel().thenComputes(answer);
    }

    // ---- scripting ---------------------------------------------------------------------------------------------

    /** Adds a step answering with this text, streamed in word-like tokens. An empty text is invalid_argument. */
    public MockModel thenResponds(String text) {
        Native.mockThenResponds(id(), Json.write(CuecardException.notNull(text, "text"), "text"));
        return this;
    }

    /**
     * Adds a step from a step object: {@code text}, {@code thinking}, {@code tool_calls}, {@code usage},
     * {@code finish_reason}, {@code fail}, {@code fail_after}, {@code delay_ms}, ... (see docs/scenario.md).
     */
    public MockModel thenResponds(Map<String, ?> step) {
        Native.mockThenResponds(id(), Json.write(CuecardException.notNull(step, "step"), "step"));
        return this;
    }

    /** Adds a step streaming exactly these tokens; none is an answer without text. */
    public MockModel thenStreams(String... tokens) {
        return thenStreams(Arrays.asList(CuecardException.notNull(tokens, "tokens")));
    }

    public MockModel thenStreams(List<String> tokens) {
        Native.mockThenStreams(id(), Json.write(CuecardException.notNull(tokens, "tokens"), "tokens"));
        return this;
    }

    /** Adds a step calling one tool with these arguments (by name). */
    public MockModel thenCallsTool(String name, Map<String, ?> arguments) {
        Map<String, Object> call = new LinkedHashMap<>();
        call.put("name", CuecardException.notNull(name, "name"));
        call.put("arguments", arguments == null ? Map.of() : arguments);
        return thenCallsTools(List.of(call));
    }

    /** Adds a step calling one tool with these arguments as JSON text, which may be invalid on purpose. */
    public MockModel thenCallsTool(String name, String jsonArguments) {
        Map<String, Object> call = new LinkedHashMap<>();
        call.put("name", CuecardException.notNull(name, "name"));
        call.put("arguments_json", CuecardException.notNull(jsonArguments, "jsonArguments"));
        return thenCallsTools(List.of(call));
    }

    /** Adds a step calling several tools in one answer: {@code [{name, arguments | arguments_json, id?}]}. */
    public MockModel thenCallsTools(List<? extends Map<String, ?>> calls) {
        Native.mockThenCallsTools(id(), Json.write(CuecardException.notNull(calls, "calls"), "calls"));
        return this;
    }

    /** Adds a step that fails before anything is streamed. */
    public MockModel thenFails(Failure failure) {
        Native.mockThenFails(id(), Json.write(CuecardException.notNull(failure, "failure").toMap(), "failure"), false);
        return this;
    }

    /** Makes the last step fail after its thinking and text were streamed (a broken connection); adds no step. */
    public MockModel andFails(Failure failure) {
        Native.mockThenFails(id(), Json.write(CuecardException.notNull(failure, "failure").toMap(), "failure"), true);
        return this;
    }

    /** Answers every further request of the current route with its last step. */
    public MockModel thenRepeats() {
        Native.mockThenRepeats(id());
        return this;
    }

    /**
     * Adds a step whose answer {@code answer} computes from the request: a text, or a step object (a {@link Map}). It
     * runs on the thread that asks (a server's thread when served); what it throws reaches that caller unchanged.
     */
    public MockModel thenComputes(Function<RecordedRequest, ?> answer) {
        CuecardException.notNull(answer, "answer");
        Native.mockThenComputes(id(), json -> Json.write(answer.apply(new RecordedRequest(Json.tree(json))), "answer"));
        return this;
    }

    /** Starts a route: the steps added next answer only the requests it matches. */
    public MockModel route(Route route) {
        Native.mockRoute(id(), Json.write(CuecardException.notNull(route, "route").toMap(), "route"));
        return this;
    }

    /** Changes the settings given (see {@link #withSettings(Map)}). */
    public MockModel configure(Map<String, ?> settings) {
        Native.mockConfigure(id(), Json.write(CuecardException.notNull(settings, "settings"), "settings"));
        return this;
    }

    /** Every setting in force. */
    public JsonNode settings() {
        return Json.tree(Native.mockSettings(id()));
    }

    // ---- answering ---------------------------------------------------------------------------------------------

    /** Asks with one user message. */
    public Response chat(String userText) {
        return exchange(Json.writeBytes(CuecardException.notNull(userText, "userText"), "userText"));
    }

    /** Asks with a request in cuecard's neutral format ({@code model}, {@code messages}, {@code tools}, ...). */
    public Response chat(Map<String, ?> request) {
        return exchange(Json.writeBytes(CuecardException.notNull(request, "request"), "request"));
    }

    /** Asks with a request as JSON text. */
    public Response chatJson(String requestJson) {
        return exchange(Json.utf8(CuecardException.notNull(requestJson, "requestJson"), "requestJson"));
    }

    /** A whole answer as the library gives it (read in one pass: a tree first would double the cost). */
    private record Exchange(long index, long delayMs, Response response, JsonNode error) {}

    /** A streamed answer as the library gives it. */
    private record Events(long index, List<StreamEvent> events, JsonNode error) {}

    private Response exchange(byte[] requestJson) {
        Exchange answer = Json.read(Native.mockChat(id(), requestJson), Exchange.class);
        waitFor(answer.delayMs());
        if (answer.error() != null) throw CuecardException.ofCall(answer.error());
        return answer.response();
    }

    /** Asks for a stream with one user message: the events, each with its delay (not waited). */
    public List<StreamEvent> stream(String userText) {
        return events(Json.writeBytes(CuecardException.notNull(userText, "userText"), "userText"));
    }

    public List<StreamEvent> stream(Map<String, ?> request) {
        return events(Json.writeBytes(CuecardException.notNull(request, "request"), "request"));
    }

    public List<StreamEvent> streamJson(String requestJson) {
        return events(Json.utf8(CuecardException.notNull(requestJson, "requestJson"), "requestJson"));
    }

    private List<StreamEvent> events(byte[] requestJson) {
        Events answer = Json.read(Native.mockStream(id(), requestJson), Events.class);
        if (answer.error() != null) throw CuecardException.ofCall(answer.error());
        return answer.events();
    }

    /**
     * Answers one HTTP request with the wire protocols (OpenAI chat completions and responses, Anthropic messages),
     * as the server does: the reply as JSON ({@code {"kind": "full", "status", "headers", "body"}}, a stream in
     * frames, or an abort). For an in-process HTTP client.
     */
    public JsonNode handleHttp(String method, String target, List<List<String>> headers, byte[] body) {
        return Json.tree(Native.mockHandleHttp(id(), CuecardException.notNull(method, "method"),
                CuecardException.notNull(target, "target"), Json.write(headers == null ? List.of() : headers, "headers"),
                body));
    }

    /** Serves the mock over HTTP on 127.0.0.1 and a free port. */
    public Server serve() {
        return new Server(this, Native.serverStart(id(), null));
    }

    /** Serves the mock with options ({@code host}, {@code port}, ...). */
    public Server serve(Map<String, ?> options) {
        return new Server(this, Native.serverStart(id(), Json.write(CuecardException.notNull(options, "options"), "options")));
    }

    // ---- what it received --------------------------------------------------------------------------------------

    /** Every journaled request with its outcome, in arrival order. */
    public List<JournalEntry> entries() {
        List<JournalEntry> entries = new ArrayList<>();
        for (JsonNode entry : Json.tree(Native.mockRead(id(), "entries"))) entries.add(JournalEntry.of(entry));
        return entries;
    }

    /** The requests received, in arrival order. */
    public List<RecordedRequest> requests() {
        List<RecordedRequest> requests = new ArrayList<>();
        for (JsonNode request : Json.tree(Native.mockRead(id(), "requests"))) requests.add(new RecordedRequest(request));
        return requests;
    }

    /** The only request received; {@code request_count_mismatch} when there are none or several. */
    public RecordedRequest request() {
        return new RecordedRequest(Json.tree(Native.mockRead(id(), "only_request")));
    }

    /** The last request received; an error when there is none. */
    public RecordedRequest lastRequest() {
        return new RecordedRequest(Json.tree(Native.mockRead(id(), "last_request")));
    }

    /** The steps no request used: {@code [{route, step, description}]}. */
    public JsonNode unusedSteps() {
        return Json.tree(Native.mockRead(id(), "unused_steps"));
    }

    /** The MCP journal: every message the scenario's MCP servers received, oldest first. */
    public JsonNode mcpEntries() {
        return Json.tree(Native.mockRead(id(), "mcp_entries"));
    }

    /** The MCP tool steps no call took: {@code [{server, tool, step}]}. */
    public JsonNode mcpUnusedSteps() {
        return Json.tree(Native.mockRead(id(), "mcp_unused_steps"));
    }

    /** The requests that came after a route ran out or matched no route. */
    public JsonNode unexpectedRequests() {
        return Json.tree(Native.mockRead(id(), "unexpected_requests"));
    }

    /** The journal as the server's {@code GET /_cuecard/journal} gives it. */
    public JsonNode journal() {
        return Json.tree(Native.mockRead(id(), "journal"));
    }

    /** Forgets the journal and restarts every route at its first step. */
    public void reset() {
        Native.mockReset(id());
    }

    @Override
    public void close() {
        handle.close();
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    long id() {
        return handle.id();
    }

    static void waitFor(long milliseconds) {
        if (milliseconds <= 0) return;
        try {
            Thread.sleep(milliseconds);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CuecardException.raisedHere("internal", "interrupted while waiting out a scripted delay", null);
        }
    }
}
