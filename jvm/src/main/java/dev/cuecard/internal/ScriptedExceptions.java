package dev.cuecard.internal;

import dev.cuecard.CuecardException;
import dev.cuecard.Failure;
import dev.cuecard.ProviderException;
import java.util.ArrayList;
import java.util.List;

/**
 * Java exceptions a script fails with (LangChain4j's {@code thenFails(exception)}, Tramai's {@code failWith}): they
 * cannot cross to the core, so the core scripts a {@code custom} failure whose {@code error_code} numbers the
 * exception here, and the adapter throws the very exception again when that failure comes back. The journal shows
 * the failure with the exception's text.
 */
public final class ScriptedExceptions {
    private final String tag;
    private final List<Throwable> thrown = new ArrayList<>();

    /** {@code tag} starts the error codes, naming the adapter ({@code "langchain4j-exception:"}). */
    public ScriptedExceptions(String tag) {
        this.tag = tag;
    }

    /** The failure to script for {@code exception}. */
    public synchronized Failure failureFor(Throwable exception) {
        CuecardException.notNull(exception, "exception");
        thrown.add(exception);
        return Failure.of("custom").message(String.valueOf(exception)).errorCode(tag + (thrown.size() - 1));
    }

    /** The exception a failure stands for, or null when it is not one of these. */
    public synchronized Throwable thrownFor(ProviderException failure) {
        String code = failure.errorCode();
        if (code == null || !code.startsWith(tag)) return null;
        try {
            int number = Integer.parseInt(code.substring(tag.length()));
            return number >= 0 && number < thrown.size() ? thrown.get(number) : null;
        } catch (NumberFormatException notOurs) {
            return null;
        }
    }
}
