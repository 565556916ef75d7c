package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A tool double that records every invocation before it answers: a fixed result ({@link #fixed}), a failure
 * ({@link #failing}), or a result computed by a Java function whose exception reaches the caller unchanged.
 */
public final class MockTool implements AutoCloseable {
    private final Handle handle;
    private final String name;

    private MockTool(String name, Map<String, Object> options, Function<JsonNode, ?> compute) {
        this.name = name;
        long id = Native.toolNew(Json.write(options, "options"), compute == null ? null
                : json -> Json.write(compute.apply(Json.tree(json)), "result"));
        this.handle = new Handle(this, id, "a MockTool");
    }

    private static Map<String, Object> options(String name, String description) {
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("name", CuecardException.notNull(name, "name"));
        options.put("description", description == null ? "" : description);
        return options;
    }

    /** A tool that always returns {@code result}. */
    public static MockTool fixed(String name, String description, Object result) {
        Map<String, Object> options = options(name, description);
        options.put("result", result);
        return new MockTool(name, options, null);
    }

    /** A tool that always fails with {@code message} (a {@code tool_failed} error). */
    public static MockTool failing(String name, String description, String message) {
        Map<String, Object> options = options(name, description);
        options.put("fails", CuecardException.notNull(message, "message"));
        return new MockTool(name, options, null);
    }

    /** A tool computing its result from the arguments. */
    public static MockTool computing(String name, String description, Function<JsonNode, ?> compute) {
        return new MockTool(name, options(name, description), CuecardException.notNull(compute, "compute"));
    }

    public String name() {
        return name;
    }

    /** Invokes the tool with arguments (a map or a record) and returns its result. */
    public JsonNode invoke(Object arguments) {
        return outcome(Json.write(arguments == null ? Map.of() : arguments, "arguments"));
    }

    /** Invokes the tool with arguments as JSON text, as a model sends them (possibly invalid). */
    public JsonNode invokeJson(String argumentsJson) {
        return outcome(Json.write(CuecardException.notNull(argumentsJson, "argumentsJson"), "argumentsJson"));
    }

    private JsonNode outcome(String argumentsJson) {
        JsonNode outcome = Json.tree(Native.toolInvoke(handle.id(), argumentsJson));
        MockModel.waitFor(outcome.path("delay_ms").asLong());
        if (outcome.has("error")) throw CuecardException.ofCall(outcome.get("error"));
        return outcome.get("result");
    }

    /** Every invocation, in order: {@code [{arguments, result | error}]}. */
    public JsonNode invocations() {
        return Json.tree(Native.toolInvocations(handle.id()));
    }

    @Override
    public void close() {
        handle.close();
    }
}
