package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One test's part of a shared cuecard server: under {@code /t/{id}/} it has its own copy of the scenario, its own
 * cursors and journal, so tests running at once (JUnit's parallel execution, several JVMs, CI jobs) share one server
 * without seeing each other's requests. The JUnit {@code CuecardExtension} gives one per test as a parameter; its
 * admin requests go over HTTP, so the server may be another process's ({@code CUECARD_URL}).
 */
public final class SharedTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final String serverUrl;
    private final String id;
    private volatile boolean loaded;

    /** The test {@code id} (1 to 128 of {@code A-Z a-z 0-9 _ - . ~}) on the server at {@code serverUrl}. */
    public SharedTest(String serverUrl, String id) {
        this.serverUrl = CuecardException.notNull(serverUrl, "serverUrl").replaceAll("/+$", "");
        this.id = CuecardException.notNull(id, "id");
    }

    /** A test's id from a name of any characters (JUnit's unique id): a digest, stable across runs. */
    public static String idFor(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(CuecardException.notNull(name, "name").getBytes(StandardCharsets.UTF_8));
            return "t" + HexFormat.of().formatHex(digest).substring(0, 24);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    public String id() {
        return id;
    }

    /** {@code http://127.0.0.1:PORT/t/{id}}. */
    public String baseUrl() {
        return serverUrl + "/t/" + id;
    }

    /** For OpenAI clients (ends in {@code /v1}). */
    public String openaiBaseUrl() {
        return baseUrl() + "/v1";
    }

    /** For Anthropic clients. */
    public String anthropicBaseUrl() {
        return baseUrl();
    }

    /** Whether {@link #load} gave it a scenario of its own. */
    public boolean loaded() {
        return loaded;
    }

    /** Gives this test its own scenario: JSON or YAML text, or a map written as JSON; its journal starts empty. */
    public SharedTest load(Object scenario) {
        String body = CuecardException.notNull(scenario, "scenario") instanceof String text ? text : Json.write(scenario, "scenario");
        admin("PUT", "/scenario", body);
        loaded = true;
        return this;
    }

    /** The test's journal, as the server's {@code GET /_cuecard/t/{id}/journal} gives it. */
    public JsonNode journal() {
        return admin("GET", "/journal", null);
    }

    /** Every journaled request of this test with its outcome, in arrival order. */
    public List<JournalEntry> entries() {
        List<JournalEntry> entries = new ArrayList<>();
        for (JsonNode entry : journal().get("entries")) entries.add(JournalEntry.of(entry));
        return entries;
    }

    /**
     * Runs checks as data on the server ({@code Map.of("check", "script_fully_used")}, as core names them); the
     * first that does not hold throws a {@link CuecardAssertionError} with core's message.
     */
    @SafeVarargs
    public final void check(Map<String, ?>... checks) {
        JsonNode result = admin("POST", "/checks", Json.write(List.of(checks), "checks"));
        if (!result.path("ok").asBoolean()) {
            JsonNode failure = result.get("failure");
            throw new CuecardAssertionError(failure.get("message").asText(), failure);
        }
    }

    /**
     * The end-of-test check: every loaded step used and no unexpected request (only the latter when nothing was
     * loaded: the server's own scenario may hold steps this test never meant to use).
     */
    public void verify() {
        check(Map.of("check", loaded ? "script_fully_used" : "no_unexpected_requests"));
    }

    /** Drops this test from the server. */
    public void drop() {
        admin("DELETE", "", null);
    }

    private JsonNode admin(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(serverUrl + "/_cuecard/t/" + id + path))
                .header("content-type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response;
        try {
            response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw CuecardException.raisedHere("io", "cuecard: " + method + " " + serverUrl + path + ": " + e, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CuecardException.raisedHere("io", "cuecard: interrupted during " + method + " " + path, null);
        }
        if (response.statusCode() >= 400) {
            JsonNode error = Json.tree(response.body()).path("error");
            throw CuecardException.raisedHere(error.path("code").asText("invalid_request"),
                    "cuecard: " + method + " " + path + ": " + error.path("message").asText(response.body()), error.get("context"));
        }
        return Json.tree(response.body());
    }
}
