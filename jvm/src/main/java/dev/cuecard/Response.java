package dev.cuecard;

/**
 * A whole answer: the message, the finish reason ({@code stop}, {@code length}, {@code tool_calls}, ...), the usage
 * (as the mock's usage setting says), and the id, model and creation time a provider would report.
 */
public record Response(String id, String model, Long created, AssistantMessage message, String finishReason, Usage usage) {
    /** The text, or "" for an answer without text. */
    public String text() {
        return message == null || message.text() == null ? "" : message.text();
    }
}
