package dev.cuecard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * cuecard's own error: a malformed scenario, a script that ran out, a route that matched nothing, a wrong argument, a
 * closed object. {@link #code()} is stable and the same in every language ({@code script_exhausted},
 * {@code invalid_argument}, ...); {@link #issues()} lists the problems found at paths of a document and
 * {@link #context()} names the argument, the path or the request. A scripted provider failure is a
 * {@link ProviderException} instead, and a failed check an {@link CuecardAssertionError}.
 */
public class CuecardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A problem at a path of a document (a scenario, a request). */
    public record Issue(String path, String message) {}

    private final String code;
    private final int number;
    private final List<Issue> issues;
    private final transient JsonNode context;

    public CuecardException(String code, int number, String message, List<Issue> issues, JsonNode context) {
        super(message);
        this.code = code;
        this.number = number;
        this.issues = List.copyOf(issues);
        this.context = context == null ? JsonNodeFactory.instance.objectNode() : context;
    }

    /** The stable code: {@code invalid_scenario}, {@code script_exhausted}, {@code invalid_argument}, ... */
    public String code() {
        return code;
    }

    /** The code's stable number (the C ABI's status). */
    public int number() {
        return number;
    }

    public List<Issue> issues() {
        return issues;
    }

    /** Structured facts: {@code argument}, {@code path}, {@code request}, ... (an empty object when none). */
    public JsonNode context() {
        return context;
    }

    /** The exception for the library's error JSON. Called by the native library to throw; not API. */
    public static Throwable fromNative(String json) {
        JsonNode data = tree(json);
        if ("provider".equals(data.path("family").asText())) return ProviderException.of(data.get("error"));
        return of(data);
    }

    /** The exception for core's error object ({@code {code, number, message, issues, context}}). */
    static Throwable of(JsonNode error) {
        String code = error.path("code").asText("internal");
        String message = error.path("message").asText();
        if (code.equals("assertion_failed")) return new CuecardAssertionError(message, error.path("context"));
        List<Issue> issues = new ArrayList<>();
        for (JsonNode issue : error.path("issues")) {
            issues.add(new Issue(issue.path("path").asText(), issue.path("message").asText()));
        }
        return new CuecardException(code, error.path("number").asInt(), message, issues, error.get("context"));
    }

    /** A call's error ({@code {family, error | message}}) as the exception to throw. */
    static RuntimeException ofCall(JsonNode outcome) {
        switch (outcome.path("family").asText()) {
            case "provider":
                return ProviderException.of(outcome.get("error"));
            case "cuecard": {
                Throwable error = of(outcome.get("error"));
                if (error instanceof RuntimeException runtime) return runtime;
                throw (Error) error;
            }
            default:
                return raisedHere("host_error", outcome.path("message").asText(), null);
        }
    }

    /** {@code invalid_argument} naming the argument, raised on the Java side before anything crosses. */
    public static CuecardException invalidArgument(String argument, String problem) {
        return raisedHere("invalid_argument", "argument `" + argument + "` " + problem,
                JsonNodeFactory.instance.objectNode().put("argument", argument));
    }

    /** {@code invalid_state}: the object was closed. */
    public static CuecardException closed(String what) {
        return raisedHere("invalid_state", what + " was used after close()", null);
    }

    /** An error the Java side raises itself, numbered as core numbers its code (core's catalogue, read once). */
    static CuecardException raisedHere(String code, String message, JsonNode context) {
        return new CuecardException(code, Catalogue.NUMBERS.getOrDefault(code, 0), message, List.of(), context);
    }

    /** Core's error codes and their numbers. */
    private static final class Catalogue {
        static final java.util.Map<String, Integer> NUMBERS = read();

        private static java.util.Map<String, Integer> read() {
            java.util.Map<String, Integer> numbers = new java.util.HashMap<>();
            for (JsonNode row : tree(dev.cuecard.internal.Native.errorCatalogue())) {
                numbers.put(row.get(0).asText(), row.get(1).asInt());
            }
            return java.util.Map.copyOf(numbers);
        }
    }

    /**
     * Reads the library's error JSON (always valid) with a reader of its own: {@code internal.Json} raises this
     * class for bad arguments, so this class does not use it back.
     */
    private static JsonNode tree(String json) {
        try {
            return ErrorReader.READER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the native library answered invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The error reader, made when the first error is read. */
    private static final class ErrorReader {
        static final ObjectMapper READER = new ObjectMapper();
    }

    /** Refuses a null argument. */
    public static <T> T notNull(T value, String argument) {
        if (value == null) throw invalidArgument(argument, "is null");
        return value;
    }
}
