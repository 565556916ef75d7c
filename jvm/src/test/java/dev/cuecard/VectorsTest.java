package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The shared vectors (tests/vectors/), the same files every language runs, through the Java API: each runner
 * asserts it ran every vector of its file, and the suite asserts every file ran.
 */
class VectorsTest {
    private static final Path VECTORS = Path.of(System.getProperty("cuecard.repo", ".."), "tests", "vectors");
    private static final Set<String> FILES_RUN = new HashSet<>();

    private static JsonNode vectors(String file) throws Exception {
        JsonNode document = Json.tree(Files.readString(VECTORS.resolve(file), StandardCharsets.UTF_8));
        FILES_RUN.add(file);
        return document.isArray() ? document : document.get("vectors");
    }

    @AfterAll
    static void everyFileRan() throws Exception {
        Set<String> present = new HashSet<>();
        try (var files = Files.list(VECTORS)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).forEach(present::add);
        }
        assertThat(FILES_RUN).as("every vector file has a runner").isEqualTo(present);
    }

    @Test
    void tokenizer() throws Exception {
        for (String file : List.of("tokenizer.json", "tokenizer-reference.json")) {
            int ran = 0;
            JsonNode vectors = vectors(file);
            for (JsonNode vector : vectors) {
                List<String> expected = new ArrayList<>();
                vector.get("expected").forEach(t -> expected.add(t.asText()));
                String input = vector.get("input").asText();
                assertThat(Cuecard.tokenize(input)).as(vector.get("id").asText()).isEqualTo(expected);
                assertThat(Cuecard.countTokens(input)).as(vector.get("id").asText()).isEqualTo(expected.size());
                ran++;
            }
            assertThat(ran).isEqualTo(vectors.size()).isGreaterThanOrEqualTo(30);
        }
    }

    private static JsonNode providerFailure(ProviderException e) {
        ObjectNode failure = Json.MAPPER.createObjectNode();
        failure.put("kind", e.kind()).put("message", e.getMessage()).put("retryable", e.retryable());
        if (e.status() == null) failure.putNull("status");
        else failure.put("status", e.status());
        if (e.retryAfterMs() != null) failure.put("retry_after_ms", e.retryAfterMs());
        if (e.errorType() != null) failure.put("error_type", e.errorType());
        if (e.errorCode() != null) failure.put("error_code", e.errorCode());
        return failure;
    }

    @Test
    void scenarios() throws Exception {
        int ran = 0;
        JsonNode vectors = vectors("scenarios.json");
        for (JsonNode vector : vectors) {
            JsonNode input = vector.get("input");
            try (MockModel mock = MockModel.fromScenario(input.get("scenario").toString())) {
                ArrayNode calls = Json.MAPPER.createArrayNode();
                for (JsonNode call : input.get("calls")) {
                    String request = call.get("request").toString();
                    ObjectNode outcome = calls.addObject();
                    try {
                        if (call.path("mode").asText().equals("stream")) {
                            outcome.set("events", Json.MAPPER.valueToTree(mock.streamJson(request)));
                        } else {
                            outcome.set("response", Json.MAPPER.valueToTree(mock.chatJson(request)));
                        }
                    } catch (ProviderException e) {
                        outcome.set("provider_error", providerFailure(e));
                    } catch (CuecardException e) {
                        outcome.putObject("error").put("code", e.code());
                    }
                }
                ArrayNode journal = Json.MAPPER.createArrayNode();
                for (JournalEntry entry : mock.entries()) {
                    ObjectNode row = journal.addObject();
                    row.put("index", entry.index());
                    if (entry.route() == null) row.putNull("route");
                    else row.put("route", entry.route());
                    if (entry.step() == null) row.putNull("step");
                    else row.put("step", entry.step());
                    row.put("at_ms", entry.atMs()).put("outcome", entry.outcome());
                    for (String key : List.of("kind", "status", "message", "reason", "chaos")) {
                        if (entry.json().has(key)) row.set(key, entry.json().get(key));
                    }
                }
                ObjectNode actual = Json.MAPPER.createObjectNode();
                actual.set("calls", calls);
                actual.set("journal", journal);
                actual.put("unused_steps", mock.unusedSteps().size());
                // Re-read as text: Jackson's trees tell a long 0 from an int 0.
                assertThat(Json.tree(actual.toString())).as(vector.get("id").asText()).isEqualTo(vector.get("expected"));
            }
            ran++;
        }
        assertThat(ran).isEqualTo(vectors.size()).isGreaterThanOrEqualTo(20);
    }

    @Test
    void errors() throws Exception {
        int ran = 0;
        int kinds = 0;
        JsonNode catalogue = Json.tree(Native.errorCatalogue());
        JsonNode vectors = vectors("errors.json");
        for (JsonNode vector : vectors) {
            JsonNode given = vector.get("input");
            String id = vector.get("id").asText();
            if (given.has("kind_number")) {
                JsonNode expected = vector.get("expected");
                JsonNode row = null;
                for (JsonNode r : catalogue) if (r.get(0).asText().equals(expected.get("code").asText())) row = r;
                assertThat(row).as(id).isNotNull();
                assertThat(row.get(1).asInt()).as(id).isEqualTo(expected.get("number").asInt());
                assertThat(row.get(2).asText()).as(id).isEqualTo(expected.get("description").asText());
                kinds++;
            } else {
                CuecardException raised = null;
                try {
                    if (given.has("scenario_json")) MockModel.fromScenario(given.get("scenario_json").asText()).close();
                    else if (given.has("scenario_yaml")) MockModel.fromScenario(given.get("scenario_yaml").asText()).close();
                    else MockModel.thatResponds("x").chatJson(given.get("request_json").asText());
                } catch (CuecardException e) {
                    raised = e;
                }
                JsonNode error = vector.get("error");
                assertThat(raised).as(id).isNotNull();
                assertThat(raised.code()).as(id).isEqualTo(error.get("code").asText());
                if (error.has("message")) assertThat(raised.getMessage()).as(id).isEqualTo(error.get("message").asText());
                if (error.has("paths")) {
                    List<String> paths = new ArrayList<>();
                    error.get("paths").forEach(p -> paths.add(p.asText()));
                    assertThat(raised.issues()).extracting(CuecardException.Issue::path).as(id).isEqualTo(paths);
                }
            }
            ran++;
        }
        assertThat(ran).isEqualTo(vectors.size());
        assertThat(catalogue.size()).as("the catalogue is complete").isEqualTo(kinds);
    }

    /** Runs one check (core's JSON form) through the fluent chain, so the vectors test the Java methods. */
    static void runCheck(CuecardAssertions.MockAssert chain, JsonNode check) {
        String name = check.get("check").asText();
        String operation = check.path("operation").asText(null);
        JsonNode request = check.get("request");
        CuecardAssertions.RequestAssert onRequest = request == null || request.asText().equals("last") ? chain.lastRequest()
                : request.asText().equals("only") ? chain.request() : chain.requestAt(request.asInt());
        switch (name) {
            case "all_steps_used" -> chain.allStepsUsed();
            case "no_unexpected_requests" -> chain.noUnexpectedRequests();
            case "no_contract_violations" -> chain.noContractViolations();
            case "script_fully_used" -> chain.scriptFullyUsed();
            case "received_requests" -> chain.receivedRequests(check.get("times").asInt());
            case "was_called_times" -> chain.whenCalled(operation).wasCalledTimes(check.get("times").asInt());
            case "and_retried" -> chain.whenCalled(operation).andRetried(check.get("times").asInt());
            case "and_parsed_successfully" -> chain.whenCalled(operation).andParsedSuccessfully();
            case "and_observed_parse_failure" -> chain.whenCalled(operation).andObservedParseFailure();
            case "and_observed_failure" -> chain.whenCalled(operation).andObservedFailure(check.get("kind").asText());
            case "and_failed_with" -> chain.whenCalled(operation).andFailedWith(check.get("kind").asText());
            case "emitted_provider" -> chain.whenCalled(operation).emittedProvider(check.get("provider_id").asText());
            case "and_called_tool" -> chain.whenCalled(operation).andCalledTool(check.get("name").asText());
            case "and_called_tool_times" -> chain.whenCalled(operation).andCalledToolTimes(check.get("name").asText(), check.get("times").asInt());
            case "has_last_user_message_containing" -> onRequest.hasLastUserMessageContaining(check.get("text").asText());
            case "has_system_message_containing" -> onRequest.hasSystemMessageContaining(check.get("text").asText());
            case "offers_tool" -> onRequest.offersTool(check.get("name").asText());
            case "offers_exactly_tools" -> {
                List<String> names = new ArrayList<>();
                check.get("names").forEach(n -> names.add(n.asText()));
                onRequest.offersExactlyTools(names);
            }
            case "has_json_schema_response_format" -> {
                if (check.has("name")) onRequest.hasJsonSchemaResponseFormat(check.get("name").asText());
                else onRequest.hasJsonSchemaResponseFormat();
            }
            case "has_model" -> onRequest.hasModel(check.get("model").asText());
            case "mcp_tool_called" -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> arguments = check.has("arguments") ? Json.MAPPER.convertValue(check.get("arguments"), Map.class) : null;
                @SuppressWarnings("unchecked")
                Map<String, Object> responses = check.has("input_responses") ? Json.MAPPER.convertValue(check.get("input_responses"), Map.class) : null;
                chain.mcpToolCalled(check.get("tool").asText(), check.path("server").asText(null),
                        check.has("times") ? check.get("times").asInt() : null, arguments, responses);
            }
            case "socket_received", "socket_sent" -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = check.has("fields") ? Json.MAPPER.convertValue(check.get("fields"), Map.class) : null;
                String type = check.get("type").asText(), session = check.path("session").asText(null);
                Integer times = check.has("times") ? check.get("times").asInt() : null;
                if (name.equals("socket_received")) chain.socketReceived(type, fields, session, times);
                else chain.socketSent(type, fields, session, times);
            }
            case "a2a_received" -> chain.a2aReceived(check.path("text").asText(null), check.path("agent").asText(null),
                    check.has("times") ? check.get("times").asInt() : null);
            case "a2a_task_canceled" -> chain.a2aTaskCanceled(check.path("agent").asText(null));
            case "a2a_not_called" -> chain.a2aNotCalled(check.get("agent").asText());
            case "all_a2a_steps_used" -> chain.allA2aStepsUsed();
            case "answer_fault" -> chain.answerFault(check.path("kind").asText(null),
                    check.has("times") ? check.get("times").asInt() : null, check.path("recovered").asBoolean(false));
            case "socket_events_in_order" -> {
                List<String> types = new ArrayList<>();
                check.get("types").forEach(t -> types.add(t.asText()));
                chain.socketEventsInOrder(types, check.path("direction").asText(null), check.path("session").asText(null));
            }
            case "mcp_tools_listed" -> {
                if (check.has("server")) chain.mcpToolsListed(check.get("server").asText());
                else chain.mcpToolsListed();
            }
            case "no_unexpected_mcp_calls" -> chain.noUnexpectedMcpCalls();
            case "all_mcp_steps_used" -> chain.allMcpStepsUsed();
            case "batch_held" -> {
                if (check.has("batch")) chain.batchHeld(check.get("requests").asLong(), check.get("batch").asText());
                else chain.batchHeld(check.get("requests").asLong());
            }
            case "batch_lines_answered" -> {
                if (check.has("batch")) chain.batchLinesAnswered(check.get("batch").asText());
                else chain.batchLinesAnswered();
            }
            default -> throw new AssertionError("no Java method for the check " + name);
        }
    }

    @Test
    void verify() throws Exception {
        int ran = 0;
        int checks = 0;
        Set<String> names = new HashSet<>();
        JsonNode vectors = vectors("verify.json");
        for (JsonNode vector : vectors) {
            JsonNode input = vector.get("input");
            MockModel mock = MockModel.fromScenario(input.get("scenario").toString());
            for (JsonNode call : input.get("calls")) {
                if (call.path("mode").asText().equals("http")) {
                    // A wire request (what the contract checks read).
                    JsonNode request = call.get("request");
                    List<List<String>> headers = new ArrayList<>();
                    request.path("headers").forEach(h -> headers.add(List.of(h.get(0).asText(), h.get(1).asText())));
                    mock.handleHttp(request.get("method").asText(), request.get("path").asText(), headers,
                            request.path("body").asText("").getBytes(StandardCharsets.UTF_8));
                    continue;
                }
                try {
                    if (call.path("mode").asText().equals("stream")) mock.streamJson(call.get("request").toString());
                    else mock.chatJson(call.get("request").toString());
                } catch (ProviderException | CuecardException expected) {
                    // the script's failures and refusals are part of the history the checks read
                }
            }
            RecordingObserver observer = null;
            if (input.has("observer")) {
                observer = new RecordingObserver();
                for (JsonNode record : input.get("observer")) {
                    JsonNode context = record.get("context");
                    RecordingObserver.CallObservation call = observer.onCallStarted(context.path("operation").asText(null),
                            context.path("provider_id").asText(null), context.path("model").asText(null), context.path("attempt").asInt(0));
                    for (JsonNode event : record.get("events")) report(call, event);
                }
            }
            for (int i = 0; i < input.get("checks").size(); i++) {
                JsonNode check = input.get("checks").get(i);
                JsonNode expected = vector.get("expected").get(i);
                names.add(check.get("check").asText());
                CuecardAssertions.MockAssert chain = observer == null ? CuecardAssertions.assertThat(mock)
                        : CuecardAssertions.assertThat(mock, observer);
                try {
                    runCheck(chain, check);
                    assertThat(expected.has("pass")).as(vector.get("id").asText() + " " + check).isTrue();
                } catch (AssertionError failure) {
                    assertThat(expected.has("message")).as(vector.get("id").asText() + " " + check + ": " + failure.getMessage()).isTrue();
                    assertThat(failure.getMessage()).as(vector.get("id").asText() + " " + check).isEqualTo(expected.get("message").asText());
                }
                ran++;
            }
            checks += input.get("checks").size();
        }
        assertThat(ran).isEqualTo(checks);
        assertThat(vectors.size()).isGreaterThanOrEqualTo(7);
        assertThat(names).as("the vectors reach every check (the core has 34: verify::CHECK_NAMES)").hasSize(34);
    }

    private static void report(RecordingObserver.CallObservation call, JsonNode event) {
        switch (event.get("event").asText()) {
            case "provider_response" -> call.onProviderResponse(Json.MAPPER.convertValue(event.get("response"), Map.class));
            case "provider_failure" -> {
                JsonNode failure = event.get("failure");
                List<String> typeNames = new ArrayList<>();
                failure.path("type_names").forEach(n -> typeNames.add(n.asText()));
                call.onProviderFailure(failure.get("kind").asText(), failure.hasNonNull("status") ? failure.get("status").asInt() : null,
                        failure.path("retryable").asBoolean(), failure.path("message").asText(), typeNames);
            }
            case "structured_parse_failure" -> call.onStructuredParseFailure("<raw>", event.get("summary").asText());
            case "engine_event" -> call.onEngineEvent(event.get("name").asText(), Json.MAPPER.convertValue(event.get("attributes"), Map.class));
            case "call_completed" -> call.onCallCompleted(event.hasNonNull("parse_success") ? event.get("parse_success").asBoolean() : null);
            default -> throw new AssertionError("unknown observer event " + event);
        }
    }

    @Test
    void wire() throws Exception {
        int ran = 0;
        int requests = 0;
        JsonNode vectors = vectors("wire.json");
        for (JsonNode vector : vectors) {
            MockModel mock = MockModel.fromScenario(vector.get("input").get("scenario").toString());
            JsonNode list = vector.get("input").get("requests");
            for (int i = 0; i < list.size(); i++) {
                JsonNode request = list.get(i);
                byte[] body = request.has("body") ? request.get("body").asText().getBytes(StandardCharsets.UTF_8)
                        : Base64.getDecoder().decode(request.path("body_base64").asText(""));
                List<List<String>> headers = new ArrayList<>();
                request.path("headers").forEach(h -> headers.add(List.of(h.get(0).asText(), h.get(1).asText())));
                JsonNode reply = mock.handleHttp(request.get("method").asText(), request.get("path").asText(), headers, body);
                assertThat(reply).as(vector.get("id").asText() + " " + request.get("path").asText()).isEqualTo(vector.get("expected").get(i));
                ran++;
            }
            requests += list.size();
        }
        assertThat(ran).isEqualTo(requests);
        assertThat(vectors.size()).isGreaterThanOrEqualTo(18);
    }
}
