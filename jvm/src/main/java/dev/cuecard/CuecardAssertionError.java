package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A check that does not hold: an {@link AssertionError}, as AssertJ's are, with core's message (what was expected,
 * what happened, and the recorded history), the same text in every language. {@link #code()} is
 * {@code assertion_failed}.
 */
public class CuecardAssertionError extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final transient JsonNode context;

    public CuecardAssertionError(String message, JsonNode context) {
        super(message);
        this.context = context;
    }

    public String code() {
        return "assertion_failed";
    }

    /** {@code expected}, {@code actual} and the check, as core reports them. */
    public JsonNode context() {
        return context;
    }
}
