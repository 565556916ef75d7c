package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;

/**
 * A conversation memory double (Cogitator's adapter contract): threads and entries in memory, every call logged.
 * {@link #call} takes the method name ({@code create_thread} or {@code createThread}, {@code add_entry},
 * {@code get_entries}, ...) and its arguments as a map ({@code agent_id}, {@code thread_id}, {@code entry_id},
 * {@code metadata}, {@code entry}, {@code query}); the result is the method's value as JSON (null for methods
 * without one), an unknown thread is a {@code not_found} {@link CuecardException}. Timestamps come from the mock
 * clock and ids from counters, so runs are identical.
 */
public final class MockMemory implements AutoCloseable {
    private final Handle handle = new Handle(this, Native.memoryNew(), "a MockMemory");

    public JsonNode call(String method, Object arguments) {
        return Json.tree(Native.memoryCall(handle.id(), CuecardException.notNull(method, "method"),
                arguments == null ? null : Json.write(arguments, "arguments")));
    }

    /** The call log: {@code [{method, args}]}. */
    public JsonNode calls() {
        return Json.tree(Native.memoryCall(handle.id(), "calls", null));
    }

    @Override
    public void close() {
        handle.close();
    }
}
