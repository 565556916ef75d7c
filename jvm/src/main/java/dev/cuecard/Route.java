package dev.cuecard;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which requests a route's steps answer: {@code Route.operation("classify")}, {@code Route.model("gpt-4o")}, or
 * both; {@link #onExhausted(String)} overrides the mock's policy for this route ({@code fail}, {@code repeat_last},
 * {@code cycle}). The first matching route wins; a route without criteria takes every other request.
 */
public final class Route {
    private final Map<String, Object> options = new LinkedHashMap<>();

    private Route() {}

    public static Route any() {
        return new Route();
    }

    public static Route operation(String operation) {
        return new Route().andOperation(operation);
    }

    public static Route model(String model) {
        return new Route().andModel(model);
    }

    public Route andOperation(String operation) {
        options.put("operation", CuecardException.notNull(operation, "operation"));
        return this;
    }

    public Route andModel(String model) {
        options.put("model", CuecardException.notNull(model, "model"));
        return this;
    }

    /** The endpoint a request arrived on: {@code chat_completions}, {@code responses} or {@code messages}. */
    public Route andEndpoint(String endpoint) {
        options.put("endpoint", CuecardException.notNull(endpoint, "endpoint"));
        return this;
    }

    public Route onExhausted(String policy) {
        options.put("on_exhausted", CuecardException.notNull(policy, "policy"));
        return this;
    }

    Map<String, Object> toMap() {
        return options;
    }
}
