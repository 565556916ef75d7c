package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A request the mock received, in cuecard's neutral format ({@link #json()}: model, messages, tools, tool_choice,
 * response_format, metadata.operation, ...), a snapshot taken on arrival.
 */
public record RecordedRequest(JsonNode json) {
    public String model() {
        return json.path("model").asText("");
    }

    /** The operation (method) the request was routed by, or null. */
    public String operation() {
        JsonNode operation = json.path("metadata").get("operation");
        return operation == null ? null : operation.asText();
    }

    public List<JsonNode> messages() {
        List<JsonNode> messages = new ArrayList<>();
        json.path("messages").forEach(messages::add);
        return messages;
    }

    /** The text of the last user message ("" when there is none). */
    public String lastUserText() {
        List<JsonNode> messages = messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            JsonNode message = messages.get(i);
            if (message.path("role").asText().equals("user")) return textOf(message);
        }
        return "";
    }

    /** The names of the tools offered. */
    public List<String> toolNames() {
        List<String> names = new ArrayList<>();
        json.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
        return names;
    }

    /** A message's text parts joined. */
    public static String textOf(JsonNode message) {
        JsonNode content = message.path("content");
        if (content.isTextual()) return content.asText();
        StringBuilder text = new StringBuilder();
        content.forEach(part -> {
            if (part.path("type").asText().equals("text")) text.append(part.path("text").asText());
        });
        return text.toString();
    }
}
