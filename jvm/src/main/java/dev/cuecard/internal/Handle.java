package dev.cuecard.internal;

import dev.cuecard.CuecardException;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A native object's id, released by {@link #close()} or, when a test forgets, by a {@link Cleaner} once the Java
 * object is unreachable. After close, {@link #id()} throws invalid_state naming the object.
 */
public final class Handle implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final AtomicLong id;
    private final String what;
    private final Cleaner.Cleanable cleanable;

    /** Takes ownership of {@code id}; {@code owner} is the Java object whose reachability keeps it alive. */
    public Handle(Object owner, long id, String what) {
        this.id = new AtomicLong(id);
        this.what = what;
        AtomicLong shared = this.id;
        this.cleanable = CLEANER.register(owner, () -> {
            long last = shared.getAndSet(0);
            if (last != 0) Native.release(last);
        });
    }

    /** The id, or invalid_state when closed. */
    public long id() {
        long current = id.get();
        if (current == 0) throw CuecardException.closed(what);
        return current;
    }

    public boolean isClosed() {
        return id.get() == 0;
    }

    @Override
    public void close() {
        cleanable.clean();
    }
}
