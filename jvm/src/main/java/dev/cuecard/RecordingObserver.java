package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tramai's observer protocol for an engine written on the JVM: the engine reports each provider call (start,
 * response or failure, parse outcome, engine events, completion), and the records feed
 * {@code CuecardAssertions.assertThat(mock).withObserver(observer)} ({@code andRetried}, {@code andParsedSuccessfully},
 * {@code andFailedWith}, ...). Recording is core's; this class reads Java exceptions (kind, status, class names).
 */
public final class RecordingObserver implements AutoCloseable {
    private final Handle handle = new Handle(this, Native.observerNew(), "a RecordingObserver");

    /** Starts the record of one provider call and returns what to report to. */
    public CallObservation onCallStarted(String operation, String providerId, String model, int attempt) {
        Map<String, Object> context = new LinkedHashMap<>();
        if (operation != null) context.put("operation", operation);
        if (providerId != null) context.put("provider_id", providerId);
        if (model != null) context.put("model", model);
        context.put("attempt", attempt);
        return new CallObservation(Native.observerStartCall(id(), Json.write(context, "context")));
    }

    /** Every call record, in order: {@code context}, {@code response}, {@code failure}, {@code parse_success}, ... */
    public JsonNode callRecords() {
        return Json.tree(Native.observerRecords(id()));
    }

    @Override
    public void close() {
        handle.close();
    }

    long id() {
        return handle.id();
    }

    /** The class names of an exception and its superclasses, most derived first (simple and qualified names). */
    static List<String> classNames(Throwable failure) {
        List<String> names = new ArrayList<>();
        for (Class<?> type = failure.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            names.add(type.getSimpleName());
            if (!type.getName().equals(type.getSimpleName())) names.add(type.getName());
        }
        return names;
    }

    /** What an engine reports to for one provider call. */
    public final class CallObservation {
        private final long index;

        CallObservation(long index) {
            this.index = index;
        }

        private void report(Map<String, Object> event) {
            Native.observerReport(id(), index, Json.write(event, "event"));
        }

        /** The provider answered (in cuecard's neutral format, e.g. a {@link Response} or a map). */
        public void onProviderResponse(Object response) {
            report(Map.of("event", "provider_response", "response", CuecardException.notNull(response, "response")));
        }

        /**
         * The provider failed. A {@link ProviderException} records its kind and status; any other exception its class
         * names (so {@code andFailedWith(IOException.class)} holds) and, when given, a status.
         */
        public void onProviderFailure(Throwable failure) {
            onProviderFailure(failure, null, null);
        }

        public void onProviderFailure(Throwable failure, Integer status, Boolean retryable) {
            CuecardException.notNull(failure, "failure");
            Map<String, Object> info = new LinkedHashMap<>();
            List<String> names = classNames(failure);
            if (failure instanceof ProviderException provider) {
                info.put("kind", provider.kind());
                info.put("status", status != null ? status : provider.status());
                info.put("retryable", retryable != null ? retryable : provider.retryable());
            } else {
                info.put("kind", names.isEmpty() ? failure.getClass().getSimpleName() : names.get(0));
                info.put("status", status);
                info.put("retryable", retryable != null && retryable);
            }
            info.put("message", String.valueOf(failure.getMessage()));
            info.put("type_names", names);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event", "provider_failure");
            event.put("failure", info);
            report(event);
        }

        /**
         * The provider failed with an error described by names: its kind, and the class names it is an instance of
         * (for an error that crossed from another runtime or was wrapped).
         */
        public void onProviderFailure(String kind, Integer status, boolean retryable, String message, List<String> typeNames) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("kind", CuecardException.notNull(kind, "kind"));
            info.put("status", status);
            info.put("retryable", retryable);
            info.put("message", message == null ? "" : message);
            info.put("type_names", typeNames == null ? List.of() : typeNames);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event", "provider_failure");
            event.put("failure", info);
            report(event);
        }

        public void onStructuredParseFailure(String rawResponse, String summary) {
            report(Map.of("event", "structured_parse_failure", "summary", CuecardException.notNull(summary, "summary")));
        }

        public void onEngineEvent(String name, Map<String, ?> attributes) {
            report(Map.of("event", "engine_event", "name", CuecardException.notNull(name, "name"), "attributes",
                    attributes == null ? Map.of() : attributes));
        }

        /** The call finished: {@code parseSuccess} is null for raw answers, true/false for structured ones. */
        public void onCallCompleted(Boolean parseSuccess) {
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event", "call_completed");
            event.put("parse_success", parseSuccess); // null: a raw answer, nothing parsed
            report(event);
        }

        public void onCallCancelled() {
            report(Map.of("event", "call_cancelled"));
        }
    }
}
