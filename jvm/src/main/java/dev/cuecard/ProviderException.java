package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A provider failure the script asked for: a 429 with retry-after, a 529 overload, a timeout, a reset connection. It
 * carries what a real provider's error carries, so retry code can be tested against it.
 */
public class ProviderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String kind;
    private final Integer status;
    private final boolean retryable;
    private final Long retryAfterMs;
    private final String errorType;
    private final String errorCode;

    public ProviderException(String kind, String message, Integer status, boolean retryable, Long retryAfterMs,
            String errorType, String errorCode) {
        super(message);
        this.kind = kind;
        this.status = status;
        this.retryable = retryable;
        this.retryAfterMs = retryAfterMs;
        this.errorType = errorType;
        this.errorCode = errorCode;
    }

    static ProviderException of(JsonNode error) {
        return new ProviderException(error.path("kind").asText(), error.path("message").asText(),
                error.hasNonNull("status") ? error.get("status").asInt() : null, error.path("retryable").asBoolean(),
                error.hasNonNull("retry_after_ms") ? error.get("retry_after_ms").asLong() : null,
                error.hasNonNull("error_type") ? error.get("error_type").asText() : null,
                error.hasNonNull("error_code") ? error.get("error_code").asText() : null);
    }

    /** The failure kind: {@code rate_limited}, {@code overloaded}, {@code timeout}, {@code connection_reset}, ... */
    public String kind() {
        return kind;
    }

    /** The HTTP status, when the failure has one. */
    public Integer status() {
        return status;
    }

    public boolean retryable() {
        return retryable;
    }

    /** The provider's retry-after hint in milliseconds, when given. */
    public Long retryAfterMs() {
        return retryAfterMs;
    }

    public String errorType() {
        return errorType;
    }

    public String errorCode() {
        return errorCode;
    }
}
