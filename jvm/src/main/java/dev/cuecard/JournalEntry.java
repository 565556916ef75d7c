package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One journaled request and what became of it: {@code outcome} is {@code answered}, {@code failed},
 * {@code exhausted}, {@code unmatched}, {@code callback_failed} or {@code rejected}; route and step say which scripted
 * step answered; {@code atMs} is the mock's clock.
 */
public record JournalEntry(long index, JsonNode request, Integer route, Integer step, String outcome, long atMs,
        Response response, JsonNode error, String kind, Integer status, String message, String reason) {
    public RecordedRequest recorded() {
        return new RecordedRequest(request);
    }
}
