package dev.cuecard.internal;

/**
 * A Java function the native library calls with JSON text and that answers JSON text: a computed answer (the request
 * in, a text or a step object out) or a mock tool (arguments in, result out). Whatever it throws reaches the caller of
 * the mock unchanged. Internal: the public API takes typed lambdas and wraps them.
 */
@FunctionalInterface
public interface JsonFunction {
    /** The answer to {@code json}, as JSON text. */
    String apply(String json) throws Throwable;
}
