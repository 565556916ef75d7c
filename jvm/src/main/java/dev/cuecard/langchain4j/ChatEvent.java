package dev.cuecard.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialToolCall;

/**
 * One event of a streamed answer, as {@link MockStreamingChatModel#chat(dev.langchain4j.model.chat.request.ChatRequest)}
 * publishes them: thinking, text, per tool call its partial calls and the complete call, then the complete response.
 * (The newer LangChain4j the seed describes publishes such events; 1.19 has only handlers, so these are cuecard's.)
 */
public sealed interface ChatEvent {
    record PartialThinkingEvent(PartialThinking thinking) implements ChatEvent {}

    record PartialResponseEvent(String text) implements ChatEvent {}

    record PartialToolCallEvent(PartialToolCall toolCall) implements ChatEvent {}

    record CompleteToolCallEvent(CompleteToolCall toolCall) implements ChatEvent {}

    record CompleteResponseEvent(ChatResponse response) implements ChatEvent {}
}
