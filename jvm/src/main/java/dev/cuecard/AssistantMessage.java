package dev.cuecard;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/** What the model said: text (null for an answer without text), thinking, tool calls (empty when none). */
public record AssistantMessage(@JsonInclude(JsonInclude.Include.ALWAYS) String text, String thinking,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ToolCall> toolCalls) {
    public AssistantMessage {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }
}
