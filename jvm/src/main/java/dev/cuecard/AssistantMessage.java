package dev.cuecard;

import java.util.List;

/** What the model said: text (null for an answer without text), thinking, tool calls. */
public record AssistantMessage(String text, String thinking, List<ToolCall> toolCalls) {
    public AssistantMessage {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }
}
