package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A recording on loopback: requests the recording file answers are replayed; in a record mode ({@code once},
 * {@code new}, {@code all}) what it lacks is forwarded to the upstream of its protocol, relayed as it arrives and
 * written to the file. Point any client (LangChain4j's, an official SDK) at {@link #openaiBaseUrl()} or
 * {@link #baseUrl()}. The rules are core's, the same as {@code cuecard record}'s and every other language's. Close it
 * to stop it.
 */
public final class RecordingProxy implements AutoCloseable {
    private final Handle handle;
    private final Path path;
    private final JsonNode info;

    private RecordingProxy(long id, Path path) {
        this.handle = new Handle(this, id, "a RecordingProxy");
        this.path = path;
        this.info = Json.tree(Native.recordingProxyInfo(id));
        // A recording older than its max_age_days is still replayed, with a warning naming it.
        ageWarning().ifPresent(warning -> System.getLogger("dev.cuecard").log(System.Logger.Level.WARNING, warning));
    }

    /** The warning naming the file when it is replayed past its {@code max_age_days} (also logged at start). */
    public java.util.Optional<String> ageWarning() {
        JsonNode warning = info.get("age_warning");
        return warning == null || warning.isNull() ? java.util.Optional.empty() : java.util.Optional.of(warning.asText());
    }

    /**
     * Starts on the recording at {@code path} with core's settings: {@code mode} ({@code none}, the default, replays
     * only; {@code once}, {@code new}, {@code all}), {@code upstream} (a list of {@code URL} or {@code PROTOCOL=URL};
     * the providers' public APIs by default), {@code redact}, {@code redact_fields}, {@code allow_in_ci}.
     */
    public static RecordingProxy start(Path path, Map<String, ?> settings) {
        long id = Native.recordingProxyStart(path.toString(), Json.write(settings, "settings"), null);
        return new RecordingProxy(id, path);
    }

    /** The mode {@code CUECARD_RECORD} names ({@code none} when unset), as per-test recordings take it. */
    public static String modeFromEnvironment() {
        String mode = System.getenv("CUECARD_RECORD");
        return mode == null || mode.isEmpty() ? "none" : mode;
    }

    /** The file a test's recording is kept in, relative to a directory: {@code recordings/<module>/<names>.yaml}. */
    public static String pathForTest(String module, List<String> names) {
        return Native.recordingPathForTest(module, Json.write(names, "names"));
    }

    public Path path() {
        return path;
    }

    /** {@code http://127.0.0.1:<port>}: for Anthropic, Gemini, Ollama and Bedrock clients. */
    public String baseUrl() {
        handle.id();
        return info.get("base_url").asText();
    }

    /** {@code http://127.0.0.1:<port>/v1}: for OpenAI clients. */
    public String openaiBaseUrl() {
        handle.id();
        return info.get("openai_base_url").asText();
    }

    /** Whether it answers from the file first. */
    public boolean replays() {
        return info.get("replays").asBoolean();
    }

    /** Whether it forwards and records what the file lacks. */
    public boolean records() {
        return info.get("records").asBoolean();
    }

    /** How many exchanges were recorded since it started. */
    public long recorded() {
        return Json.tree(Native.recordingProxyInfo(handle.id())).get("recorded").asLong();
    }

    /**
     * Fails with core's message when it replays and a recorded exchange was not asked for, or a request matched no
     * recording; does nothing while recording.
     */
    public void assertAllReplayed() {
        Native.recordingProxyCheck(handle.id());
    }

    /** Stops it; the file holds every exchange recorded. */
    @Override
    public void close() {
        handle.close();
    }
}
