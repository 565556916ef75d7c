package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Json;

/**
 * One journaled request and what became of it: {@code outcome} is {@code answered}, {@code failed},
 * {@code failed_after_tokens}, {@code exhausted}, {@code unmatched}, {@code callback_failed} or {@code rejected};
 * route and step say which scripted step answered; {@code atMs} is the mock's clock. {@link #json()} is the entry as
 * core gives it (every field, also those this record leaves out).
 */
public record JournalEntry(long index, RecordedRequest request, Integer route, Integer step, String outcome, long atMs,
        Response response, String kind, Integer status, String message, String reason, JsonNode json) {
    static JournalEntry of(JsonNode entry) {
        return new JournalEntry(entry.path("index").asLong(), new RecordedRequest(entry.get("request")),
                entry.hasNonNull("route") ? entry.get("route").asInt() : null,
                entry.hasNonNull("step") ? entry.get("step").asInt() : null,
                entry.path("outcome").asText(), entry.path("at_ms").asLong(),
                entry.hasNonNull("response") ? Json.read(entry.get("response"), Response.class) : null,
                entry.hasNonNull("kind") ? entry.get("kind").asText() : null,
                entry.hasNonNull("status") ? entry.get("status").asInt() : null,
                entry.hasNonNull("message") ? entry.get("message").asText() : null,
                entry.hasNonNull("reason") ? entry.get("reason").asText() : null, entry);
    }
}
