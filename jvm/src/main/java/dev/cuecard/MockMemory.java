package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Handle;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;

/**
 * A conversation memory double (Cogitator's adapter contract): threads and entries in memory, every call logged.
 * {@link #call} takes the method name ({@code createThread}, {@code addEntry}, {@code getEntries}, ...) and its
 * arguments as a map; the result is {@code {success, data | error}}. Timestamps come from the mock clock, ids from a
 * counter, so runs are identical.
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
