package dev.cuecard.junit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a test or its class: the {@link dev.cuecard.RecordingProxy} that {@link CuecardExtension} gives the test is
 * kept in {@code <directory>/recordings/<TestClass>/<testMethod>.yaml} (or {@link #path()}), in the mode
 * {@code CUECARD_RECORD} names ({@code none}, replay only, by default), forwarding to {@link #upstream()}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface CuecardRecording {
    /** Where requests the recording lacks go: {@code URL} or {@code PROTOCOL=URL}; none: the providers' APIs. */
    String[] upstream() default {};

    /** The directory recordings are kept under, relative to the working directory. */
    String directory() default "src/test/resources";

    /** The recording file itself, relative to the working directory; empty: named after the test. */
    String path() default "";

    /** Texts never written to the recording. */
    String[] redact() default {};
}
