package dev.cuecard;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A provider failure to script: {@code Failure.of("rate_limited").retryAfterMs(1000)}. Kinds: {@code rate_limited}
 * (429), {@code overloaded} (529), {@code server_error} (500), {@code unavailable} (503), {@code timeout},
 * {@code unauthorized} (401), {@code forbidden} (403), {@code not_found} (404), {@code bad_request} (400),
 * {@code context_length_exceeded}, {@code content_filtered}, {@code connection_reset} and {@code custom}; each has a
 * default status, message and retryability that the methods override.
 */
public final class Failure {
    private final Map<String, Object> spec = new LinkedHashMap<>();

    private Failure(String kind) {
        spec.put("kind", CuecardException.notNull(kind, "kind"));
    }

    public static Failure of(String kind) {
        return new Failure(kind);
    }

    public Failure status(int status) {
        spec.put("status", status);
        return this;
    }

    public Failure message(String message) {
        spec.put("message", CuecardException.notNull(message, "message"));
        return this;
    }

    public Failure retryable(boolean retryable) {
        spec.put("retryable", retryable);
        return this;
    }

    public Failure retryAfterMs(long milliseconds) {
        spec.put("retry_after_ms", milliseconds);
        return this;
    }

    public Failure errorType(String type) {
        spec.put("error_type", type);
        return this;
    }

    public Failure errorCode(String code) {
        spec.put("error_code", code);
        return this;
    }

    /** The failure as cuecard's JSON object. */
    public Map<String, Object> toMap() {
        return Map.copyOf(spec);
    }
}
