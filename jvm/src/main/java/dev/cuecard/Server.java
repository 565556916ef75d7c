package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;

/**
 * A mock served over HTTP on loopback, speaking the OpenAI (chat completions, responses) and Anthropic (messages)
 * wire protocols, so the official SDKs and LangChain4j's provider modules can be pointed at it. Close it to stop it.
 */
public final class Server implements AutoCloseable {
    private final MockModel mock;
    private final Handle handle;
    private final JsonNode info;

    Server(MockModel mock, long id) {
        this.mock = mock;
        this.handle = new Handle(this, id, "a Server");
        this.info = Json.tree(dev.cuecard.internal.Native.serverInfo(id));
    }

    /** The base URL for OpenAI clients: {@code http://127.0.0.1:<port>/v1}. */
    public String openaiBaseUrl() {
        handle.id();
        return info.get("openai_base_url").asText();
    }

    /** The base URL for Anthropic clients: {@code http://127.0.0.1:<port>}. */
    public String anthropicBaseUrl() {
        handle.id();
        return info.get("anthropic_base_url").asText();
    }

    public int port() {
        handle.id();
        return info.get("port").asInt();
    }

    /** The mock it serves. */
    public MockModel mock() {
        return mock;
    }

    /** Stops serving (the port is free when it returns); the mock stays usable. */
    @Override
    public void close() {
        handle.close();
    }
}
