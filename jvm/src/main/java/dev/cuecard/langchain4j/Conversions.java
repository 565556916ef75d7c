package dev.cuecard.langchain4j;

import dev.cuecard.Response;
import dev.cuecard.ToolCall;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LangChain4j's types to and from cuecard's neutral format: a {@link ChatRequest} becomes the request the core
 * journals and routes (messages, tools, tool choice, response format, sampling), and the core's answer becomes an
 * {@link AiMessage} / {@link ChatResponse} as a provider module would build it.
 */
final class Conversions {
    private Conversions() {}

    /** The request in cuecard's neutral format. */
    static Map<String, Object> request(ChatRequest request) {
        Map<String, Object> neutral = new LinkedHashMap<>();
        neutral.put("model", request.modelName() == null ? "" : request.modelName());
        List<Object> messages = new ArrayList<>();
        for (ChatMessage message : request.messages()) {
            Map<String, Object> converted = message(message);
            if (converted != null) messages.add(converted);
        }
        neutral.put("messages", messages);
        List<ToolSpecification> tools = request.toolSpecifications();
        if (tools != null && !tools.isEmpty()) {
            List<Object> definitions = new ArrayList<>();
            for (ToolSpecification tool : tools) {
                Map<String, Object> definition = new LinkedHashMap<>();
                definition.put("name", tool.name());
                if (tool.description() != null) definition.put("description", tool.description());
                definition.put("parameters", tool.parameters() == null
                        ? Map.of("type", "object", "properties", Map.of())
                        : JsonSchemaElementUtils.toMap(tool.parameters()));
                definitions.add(definition);
            }
            neutral.put("tools", definitions);
        }
        if (request.toolChoice() != null) neutral.put("tool_choice", request.toolChoice().name().toLowerCase(java.util.Locale.ROOT));
        ResponseFormat format = request.responseFormat();
        if (format != null && format.type() == ResponseFormatType.JSON) {
            if (format.jsonSchema() != null) {
                Map<String, Object> schema = new LinkedHashMap<>();
                schema.put("type", "json_schema");
                if (format.jsonSchema().name() != null) schema.put("name", format.jsonSchema().name());
                schema.put("schema", JsonSchemaElementUtils.toMap(format.jsonSchema().rootElement()));
                neutral.put("response_format", schema);
            } else {
                neutral.put("response_format", Map.of("type", "json_object"));
            }
        }
        if (request.temperature() != null) neutral.put("temperature", request.temperature());
        if (request.topP() != null) neutral.put("top_p", request.topP());
        if (request.maxOutputTokens() != null) neutral.put("max_tokens", request.maxOutputTokens());
        if (request.stopSequences() != null && !request.stopSequences().isEmpty()) neutral.put("stop", request.stopSequences());
        return neutral;
    }

    private static Map<String, Object> message(ChatMessage message) {
        Map<String, Object> neutral = new LinkedHashMap<>();
        if (message instanceof SystemMessage system) {
            neutral.put("role", "system");
            neutral.put("content", system.text());
        } else if (message instanceof UserMessage user) {
            neutral.put("role", "user");
            neutral.put("content", contents(user.contents()));
            if (user.name() != null) neutral.put("name", user.name());
        } else if (message instanceof AiMessage ai) {
            neutral.put("role", "assistant");
            if (ai.text() != null) neutral.put("content", ai.text());
            if (ai.thinking() != null) neutral.put("thinking", ai.thinking());
            if (ai.hasToolExecutionRequests()) {
                List<Object> calls = new ArrayList<>();
                for (ToolExecutionRequest call : ai.toolExecutionRequests()) {
                    Map<String, Object> neutralCall = new LinkedHashMap<>();
                    neutralCall.put("id", call.id() == null ? "" : call.id());
                    neutralCall.put("name", call.name());
                    neutralCall.put("arguments", call.arguments() == null ? "{}" : call.arguments());
                    calls.add(neutralCall);
                }
                neutral.put("tool_calls", calls);
            }
        } else if (message instanceof ToolExecutionResultMessage result) {
            neutral.put("role", "tool");
            neutral.put("content", result.text() == null ? "" : result.text());
            if (result.id() != null) neutral.put("tool_call_id", result.id());
            if (result.toolName() != null) neutral.put("name", result.toolName());
        } else {
            return null; // CustomMessage and others no provider sends: not part of the conversation cuecard sees.
        }
        return neutral;
    }

    private static List<Object> contents(List<Content> contents) {
        List<Object> parts = new ArrayList<>();
        for (Content content : contents) {
            if (content instanceof TextContent text) {
                parts.add(Map.of("type", "text", "text", text.text()));
            } else if (content instanceof ImageContent image) {
                Map<String, Object> part = new LinkedHashMap<>();
                part.put("type", "image");
                if (image.image().url() != null) part.put("url", image.image().url().toString());
                if (image.image().base64Data() != null) part.put("data", image.image().base64Data());
                if (image.image().mimeType() != null) part.put("media_type", image.image().mimeType());
                parts.add(part);
            } else {
                parts.add(Map.of("type", "text", "text", "[" + content.type() + "]"));
            }
        }
        return parts;
    }

    /** A core tool call as LangChain4j's request to execute it. */
    static ToolExecutionRequest toolRequest(ToolCall call) {
        return ToolExecutionRequest.builder().id(call.id()).name(call.name()).arguments(call.arguments()).build();
    }

    /** The core's message as LangChain4j's: text (null when the answer has none), thinking, tool calls. */
    static AiMessage aiMessage(Response response) {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (ToolCall call : response.message().toolCalls()) calls.add(toolRequest(call));
        AiMessage.Builder message = AiMessage.builder().text(response.message().text()).thinking(response.message().thinking());
        if (!calls.isEmpty()) message.toolExecutionRequests(calls);
        return message.build();
    }

    /** The whole response: the model name of the request, the finish reason, the usage the script reports. */
    static ChatResponse chatResponse(Response response, ChatRequest request) {
        ChatResponseMetadata.Builder metadata = ChatResponseMetadata.builder()
                .id(response.id())
                .modelName(request.modelName())
                .finishReason(finishReason(response.finishReason()));
        if (response.usage() != null) {
            metadata.tokenUsage(new TokenUsage((int) response.usage().inputTokens(), (int) response.usage().outputTokens(),
                    (int) response.usage().totalTokens()));
        }
        return ChatResponse.builder().aiMessage(aiMessage(response)).metadata(metadata.build()).build();
    }

    static FinishReason finishReason(String reason) {
        if (reason == null) return null;
        return switch (reason) {
            case "stop" -> FinishReason.STOP;
            case "length" -> FinishReason.LENGTH;
            case "tool_calls" -> FinishReason.TOOL_EXECUTION;
            case "content_filter" -> FinishReason.CONTENT_FILTER;
            default -> FinishReason.OTHER;
        };
    }

    /** A message as a step of the script: {@code {text, thinking, tool_calls}}. */
    static Map<String, Object> step(AiMessage message) {
        Map<String, Object> step = new LinkedHashMap<>();
        if (message.text() != null) step.put("text", message.text());
        if (message.thinking() != null) step.put("thinking", message.thinking());
        if (message.hasToolExecutionRequests()) {
            List<Object> calls = new ArrayList<>();
            for (ToolExecutionRequest call : message.toolExecutionRequests()) {
                Map<String, Object> spec = new LinkedHashMap<>();
                spec.put("name", call.name());
                spec.put("arguments_json", call.arguments() == null ? "{}" : call.arguments());
                if (call.id() != null && !call.id().isEmpty()) spec.put("id", call.id());
                calls.add(spec);
            }
            step.put("tool_calls", calls);
        }
        return step;
    }

    /** The usage of a whole response given as a step (exactly its own, or none). */
    static Map<String, Object> usage(TokenUsage usage) {
        Map<String, Object> neutral = new LinkedHashMap<>();
        neutral.put("input_tokens", usage.inputTokenCount() == null ? 0 : usage.inputTokenCount());
        neutral.put("output_tokens", usage.outputTokenCount() == null ? 0 : usage.outputTokenCount());
        if (usage.totalTokenCount() != null) neutral.put("total_tokens", usage.totalTokenCount());
        return neutral;
    }
}
