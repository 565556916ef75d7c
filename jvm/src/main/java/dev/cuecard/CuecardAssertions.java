package dev.cuecard;

import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractAssert;

/**
 * Fluent checks over a mock, with Tramai's semantics, each one of core's checks (the same rule and message in every
 * language):
 *
 * <pre>{@code
 * CuecardAssertions.assertThat(mock).withObserver(observer)
 *     .whenCalled("summarize").wasCalledTimes(2).andRetried(1).andObservedFailure("rate_limited");
 * CuecardAssertions.assertThat(mock).lastRequest().hasLastUserMessageContaining("MS-777").offersTool("cancel");
 * CuecardAssertions.assertThat(mock).scriptFullyUsed();
 * }</pre>
 *
 * A check that does not hold fails with AssertJ's {@link AssertionError} (with {@code as(...)} descriptions) whose
 * message is core's: what was expected, what happened, and the recorded requests.
 */
public final class CuecardAssertions {
    private CuecardAssertions() {}

    public static MockAssert assertThat(MockModel mock) {
        return new MockAssert(mock, null);
    }

    /** Tramai's two-argument form: the provider double and the engine's observer. */
    public static MockAssert assertThat(MockModel mock, RecordingObserver observer) {
        return new MockAssert(mock, observer);
    }

    /** Checks about a mock, judged from an observer's records when one is given. */
    public static final class MockAssert extends AbstractAssert<MockAssert, MockModel> {
        private final RecordingObserver observer;

        MockAssert(MockModel mock, RecordingObserver observer) {
            super(mock, MockAssert.class);
            isNotNull();
            this.observer = observer;
        }

        MockAssert run(Map<String, Object> check) {
            try {
                Native.mockCheck(actual.id(), observer == null ? 0 : observer.id(), Json.write(check, "check"));
            } catch (CuecardAssertionError failure) {
                failWithMessage("%s", failure.getMessage());
            }
            return myself;
        }

        /** Judge retries, parse outcomes and failures from an engine's reports, not the mock's own records. */
        public MockAssert withObserver(RecordingObserver observer) {
            MockAssert other = new MockAssert(actual, CuecardException.notNull(observer, "observer"));
            return info.description() == null ? other : other.as(info.description());
        }

        /** Checks about the calls for one operation (method). */
        public MethodAssert whenCalled(String operation) {
            return new MethodAssert(this, CuecardException.notNull(operation, "operation"));
        }

        public MockAssert allStepsUsed() {
            return run(check("all_steps_used"));
        }

        public MockAssert noUnexpectedRequests() {
            return run(check("no_unexpected_requests"));
        }

        /** No wire request broke a rule of the real API (the {@code contracts} setting: warn or strict). */
        public MockAssert noContractViolations() {
            return run(check("no_contract_violations"));
        }

        /** The MCP tool was called (on any server) at least once. */
        public MockAssert mcpToolCalled(String tool) {
            return run(with(check("mcp_tool_called"), "tool", tool));
        }

        /** The MCP tool was called exactly {@code times} times. */
        public MockAssert mcpToolCalledTimes(String tool, int times) {
            return run(with(with(check("mcp_tool_called"), "tool", tool), "times", times));
        }

        /** The MCP tool was called with arguments containing {@code arguments}. */
        public MockAssert mcpToolCalledWith(String tool, Map<String, Object> arguments) {
            return run(with(with(check("mcp_tool_called"), "tool", tool), "arguments", arguments));
        }

        /**
         * The MCP tool was called: {@code times} times exactly when not null (else at least once), counting only calls
         * whose arguments contain {@code arguments} when not null, on {@code server} when not null.
         */
        public MockAssert mcpToolCalled(String tool, String server, Integer times, Map<String, Object> arguments) {
            return mcpToolCalled(tool, server, times, arguments, null);
        }

        /**
         * As {@link #mcpToolCalled(String, String, Integer, Map)}, counting only retries whose answers to an
         * {@code input_required} step contain {@code inputResponses} when not null.
         */
        public MockAssert mcpToolCalled(String tool, String server, Integer times, Map<String, Object> arguments,
                Map<String, Object> inputResponses) {
            Map<String, Object> check = with(check("mcp_tool_called"), "tool", tool);
            if (server != null) with(check, "server", server);
            if (times != null) with(check, "times", times);
            if (arguments != null) with(check, "arguments", arguments);
            if (inputResponses != null) with(check, "input_responses", inputResponses);
            return run(check);
        }

        /**
         * The MCP tool was retried with answers to an {@code input_required} step containing {@code inputResponses}
         * (2026-07-28 multi-round-trip requests).
         */
        public MockAssert mcpToolCalledWithInputResponses(String tool, Map<String, Object> inputResponses) {
            return mcpToolCalled(tool, null, null, null, inputResponses);
        }

        /** A client listed an MCP server's tools. */
        public MockAssert mcpToolsListed() {
            return run(check("mcp_tools_listed"));
        }

        /** A client listed this MCP server's tools. */
        public MockAssert mcpToolsListed(String server) {
            return run(with(check("mcp_tools_listed"), "server", server));
        }

        /** No MCP message went beyond the scenario (an unknown tool or method, a tool past its steps). */
        public MockAssert noUnexpectedMcpCalls() {
            return run(check("no_unexpected_mcp_calls"));
        }

        /** Every MCP tool step answered a call. */
        public MockAssert allMcpStepsUsed() {
            return run(check("all_mcp_steps_used"));
        }

        /** The latest batch made held exactly {@code requests} requests. */
        public MockAssert batchHeld(long requests) {
            return run(with(check("batch_held"), "requests", requests));
        }

        /** The batch {@code batch} held exactly {@code requests} requests. */
        public MockAssert batchHeld(long requests, String batch) {
            return run(with(with(check("batch_held"), "requests", requests), "batch", CuecardException.notNull(batch, "batch")));
        }

        /** Every line of the latest batch made was answered by a step. */
        public MockAssert batchLinesAnswered() {
            return run(check("batch_lines_answered"));
        }

        /** Every line of the batch {@code batch} was answered by a step. */
        public MockAssert batchLinesAnswered(String batch) {
            return run(with(check("batch_lines_answered"), "batch", CuecardException.notNull(batch, "batch")));
        }

        /** A realtime session received a client message of {@code type} whose JSON contains {@code fields}. */
        public MockAssert socketReceived(String type, Map<String, Object> fields) {
            return socketReceived(type, fields, null, null);
        }

        /**
         * A realtime session received a client message of {@code type} whose JSON contains {@code fields} (any when
         * null): {@code times} of them exactly when not null (else at least one), on {@code session} when not null.
         */
        public MockAssert socketReceived(String type, Map<String, Object> fields, String session, Integer times) {
            return run(socketCheck("socket_received", type, fields, session, times));
        }

        /** A realtime session sent a server message of {@code type} whose JSON contains {@code fields}. */
        public MockAssert socketSent(String type, Map<String, Object> fields) {
            return socketSent(type, fields, null, null);
        }

        /** A realtime session sent a server message of {@code type} containing {@code fields}, as {@link #socketReceived}. */
        public MockAssert socketSent(String type, Map<String, Object> fields, String session, Integer times) {
            return run(socketCheck("socket_sent", type, fields, session, times));
        }

        /** Socket messages of these types crossed in this order (others may come between). */
        public MockAssert socketEventsInOrder(List<String> types) {
            return socketEventsInOrder(types, null, null);
        }

        /** Socket messages of these types crossed in this order, of one {@code direction} and {@code session} when not null. */
        public MockAssert socketEventsInOrder(List<String> types, String direction, String session) {
            Map<String, Object> check = with(check("socket_events_in_order"), "types", List.copyOf(CuecardException.notNull(types, "types")));
            if (direction != null) with(check, "direction", direction);
            if (session != null) with(check, "session", session);
            return run(check);
        }

        private static Map<String, Object> socketCheck(String name, String type, Map<String, Object> fields, String session, Integer times) {
            Map<String, Object> check = with(check(name), "type", CuecardException.notNull(type, "type"));
            if (fields != null) with(check, "fields", fields);
            if (session != null) with(check, "session", session);
            if (times != null) with(check, "times", times);
            return check;
        }

        /**
         * An answer was made faulty with {@code kind} ({@code "invalid_arguments"}, ...; the {@code answer_faults}
         * setting drew it or a step named it), and the code went on past each such fault to a clean answer.
         */
        public MockAssert recoveredFromAnswerFault(String kind) {
            return answerFault(CuecardException.notNull(kind, "kind"), null, true);
        }

        /**
         * Answers were made faulty: of {@code kind} when not null (else any), {@code times} of them exactly when not
         * null (else at least one); with {@code recovered}, each followed by a request answered without a fault.
         */
        public MockAssert answerFault(String kind, Integer times, boolean recovered) {
            Map<String, Object> check = check("answer_fault");
            if (kind != null) with(check, "kind", kind);
            if (times != null) with(check, "times", times);
            if (recovered) with(check, "recovered", true);
            return run(check);
        }

        /**
         * An A2A agent ({@code agent} when not null) received messages whose text contains {@code text} (any when
         * null): {@code times} of them exactly when not null, else at least one.
         */
        public MockAssert a2aReceived(String text, String agent, Integer times) {
            Map<String, Object> check = check("a2a_received");
            if (text != null) with(check, "text", text);
            if (agent != null) with(check, "agent", agent);
            if (times != null) with(check, "times", times);
            return run(check);
        }

        /** A client cancelled a task of an A2A agent ({@code agent} when not null). */
        public MockAssert a2aTaskCanceled(String agent) {
            Map<String, Object> check = check("a2a_task_canceled");
            if (agent != null) with(check, "agent", agent);
            return run(check);
        }

        /** No JSON-RPC request reached the A2A agent (reading its card is not a call). */
        public MockAssert a2aNotCalled(String agent) {
            return run(with(check("a2a_not_called"), "agent", CuecardException.notNull(agent, "agent")));
        }

        /** Every A2A agent step answered a message. */
        public MockAssert allA2aStepsUsed() {
            return run(check("all_a2a_steps_used"));
        }

        /** Every step used and no request beyond the script. */
        public MockAssert scriptFullyUsed() {
            return run(check("script_fully_used"));
        }

        public MockAssert receivedRequests(int times) {
            Map<String, Object> check = check("received_requests");
            check.put("times", count("times", times));
            return run(check);
        }

        /** Checks about the last request. */
        public RequestAssert lastRequest() {
            return new RequestAssert(this, "last");
        }

        /** Checks about the only request (they fail when there are none or several). */
        public RequestAssert request() {
            return new RequestAssert(this, "only");
        }

        /** Checks about the request with this journal index. */
        public RequestAssert requestAt(int index) {
            return new RequestAssert(this, count("index", index));
        }
    }

    /** Checks about the calls for one operation; each returns the chain. */
    public static final class MethodAssert {
        private final MockAssert mock;
        private final String operation;

        MethodAssert(MockAssert mock, String operation) {
            this.mock = mock;
            this.operation = operation;
        }

        private MethodAssert run(Map<String, Object> check) {
            check.put("operation", operation);
            mock.run(check);
            return this;
        }

        /** The mock received exactly {@code times} requests for the operation (failed ones included). */
        public MethodAssert wasCalledTimes(int times) {
            return run(with(check("was_called_times"), "times", count("times", times)));
        }

        /** The operation's calls minus one: provider retries, parse retries and tool-loop round trips. */
        public MethodAssert andRetried(int times) {
            return run(with(check("and_retried"), "times", count("times", times)));
        }

        public MethodAssert andParsedSuccessfully() {
            return run(check("and_parsed_successfully"));
        }

        public MethodAssert andObservedParseFailure() {
            return run(check("and_observed_parse_failure"));
        }

        /** Some call failed with this kind ({@code rate_limited}) or exception class name. */
        public MethodAssert andObservedFailure(String kind) {
            return run(with(check("and_observed_failure"), "kind", CuecardException.notNull(kind, "kind")));
        }

        /** Some call failed with an exception of this class (or a subclass). */
        public MethodAssert andObservedFailure(Class<? extends Throwable> type) {
            return andObservedFailure(CuecardException.notNull(type, "type").getSimpleName());
        }

        /** The last call failed with this kind or exception class name. */
        public MethodAssert andFailedWith(String kind) {
            return run(with(check("and_failed_with"), "kind", CuecardException.notNull(kind, "kind")));
        }

        public MethodAssert andFailedWith(Class<? extends Throwable> type) {
            return andFailedWith(CuecardException.notNull(type, "type").getSimpleName());
        }

        /** Every call went to this provider. */
        public MethodAssert emittedProvider(String providerId) {
            return run(with(check("emitted_provider"), "provider_id", CuecardException.notNull(providerId, "providerId")));
        }

        /** The tool was called (a call replayed inside a later request of the operation). */
        public MethodAssert andCalledTool(String name) {
            return run(with(check("and_called_tool"), "name", CuecardException.notNull(name, "name")));
        }

        public MethodAssert andCalledToolTimes(String name, int times) {
            Map<String, Object> check = with(check("and_called_tool_times"), "name", CuecardException.notNull(name, "name"));
            return run(with(check, "times", count("times", times)));
        }
    }

    /** Checks about one journaled request; each returns the chain. */
    public static final class RequestAssert {
        private final MockAssert mock;
        private final Object request;

        RequestAssert(MockAssert mock, Object request) {
            this.mock = mock;
            this.request = request;
        }

        private RequestAssert run(Map<String, Object> check) {
            check.put("request", request);
            mock.run(check);
            return this;
        }

        public RequestAssert hasLastUserMessageContaining(String text) {
            return run(with(check("has_last_user_message_containing"), "text", CuecardException.notNull(text, "text")));
        }

        public RequestAssert hasSystemMessageContaining(String text) {
            return run(with(check("has_system_message_containing"), "text", CuecardException.notNull(text, "text")));
        }

        public RequestAssert offersTool(String name) {
            return run(with(check("offers_tool"), "name", CuecardException.notNull(name, "name")));
        }

        public RequestAssert offersExactlyTools(String... names) {
            return offersExactlyTools(List.of(CuecardException.notNull(names, "names")));
        }

        public RequestAssert offersExactlyTools(List<String> names) {
            return run(with(check("offers_exactly_tools"), "names", List.copyOf(CuecardException.notNull(names, "names"))));
        }

        public RequestAssert hasJsonSchemaResponseFormat() {
            return run(check("has_json_schema_response_format"));
        }

        public RequestAssert hasJsonSchemaResponseFormat(String name) {
            return run(with(check("has_json_schema_response_format"), "name", CuecardException.notNull(name, "name")));
        }

        public RequestAssert hasModel(String model) {
            return run(with(check("has_model"), "model", CuecardException.notNull(model, "model")));
        }
    }

    private static Map<String, Object> check(String name) {
        Map<String, Object> check = new LinkedHashMap<>();
        check.put("check", name);
        return check;
    }

    private static Map<String, Object> with(Map<String, Object> check, String key, Object value) {
        check.put(key, value);
        return check;
    }

    private static int count(String argument, int value) {
        if (value < 0) throw CuecardException.invalidArgument(argument, "must be >= 0, found " + value);
        return value;
    }
}
