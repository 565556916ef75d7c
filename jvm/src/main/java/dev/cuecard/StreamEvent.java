package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One streamed event, in the order a provider streams them: {@code thinking_delta}s, {@code text_delta}s, per tool
 * call its {@code tool_call_delta}s and then the {@code tool_call}, then {@code complete} with the whole response; or
 * an {@code error} (a failure after the text, or before anything). {@code delayMs} is the wait before it and
 * {@code atMs} its time on the mock's clock.
 */
public record StreamEvent(String type, long delayMs, long atMs, String text, Integer index, String id, String name,
        String arguments, ToolCall call, Response response, JsonNode error) {
    /** The failure of an {@code error} event, as the exception a provider's client would throw. */
    public ProviderException failure() {
        return error == null ? null : ProviderException.of(error);
    }
}
