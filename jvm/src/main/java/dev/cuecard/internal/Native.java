package dev.cuecard.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The native library's methods (the ffi crate's `jni` feature). Native objects are {@code long} ids: a closed or
 * foreign id is a {@link dev.cuecard.CuecardException}, never a crash. Data crosses as JSON text. Internal: the public
 * classes give these types.
 *
 * <p>The library is loaded from the system property {@code cuecard.library} (a path) when set, otherwise from the
 * classpath ({@code dev/cuecard/native/<os>-<arch>/}, with {@code -musl} after it on a musl Linux such as Alpine),
 * copied to a temporary file first because a JVM can only load a file. The release jar holds the library of every
 * target (scripts/release.sh); a platform without one is an {@link UnsatisfiedLinkError} naming it.
 */
public final class Native {
    private Native() {}

    static {
        load();
    }

    private static void load() {
        String override = System.getProperty("cuecard.library");
        if (override != null && !override.isEmpty()) {
            System.load(Path.of(override).toAbsolutePath().toString());
            return;
        }
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String platform = (os.contains("mac") ? "macos" : os.contains("win") ? "windows" : "linux") + "-"
                + (arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : arch)
                + (!os.contains("mac") && !os.contains("win") && runsOnMusl() ? "-musl" : "");
        String file = os.contains("mac") ? "libcuecard_ffi.dylib" : os.contains("win") ? "cuecard_ffi.dll" : "libcuecard_ffi.so";
        String resource = "/dev/cuecard/native/" + platform + "/" + file;
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("cuecard has no native library for " + platform + " on the classpath ("
                        + resource + "); set -Dcuecard.library=/path/to/" + file);
            }
            Path copy = Files.createTempFile("cuecard-", "-" + file);
            copy.toFile().deleteOnExit();
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            System.load(copy.toAbsolutePath().toString());
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("cuecard could not unpack its native library: " + e);
        }
    }

    /**
     * Whether this JVM runs on musl's C library (Alpine): its own process maps musl's loader. (A glibc system can
     * have musl installed beside it, so the files under /lib do not tell.)
     */
    private static boolean runsOnMusl() {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.anyMatch(line -> line.contains("/ld-musl-") || line.contains("/libc.musl-"));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    public static native String version();
    public static native String tokenize(String text);
    public static native long countTokens(String text);
    public static native String errorCatalogue();
    public static native String drift(String path);
    public static native void release(long id);

    public static native long mockNew(String settingsJson);
    public static native long mockFromScenario(String scenario, boolean isPath);
    public static native void mockConfigure(long mock, String settingsJson);
    public static native String mockSettings(long mock);
    public static native void mockThenResponds(long mock, String answerJson);
    public static native void mockThenStreams(long mock, String tokensJson);
    public static native void mockThenCallsTools(long mock, String callsJson);
    public static native void mockThenFails(long mock, String failureJson, boolean afterText);
    public static native void mockThenRepeats(long mock);
    public static native void mockThenComputes(long mock, JsonFunction answer);
    public static native int mockRoute(long mock, String routeJson);
    // The hot calls cross as UTF-8 bytes (Jackson writes and reads bytes; a String crosses as modified UTF-8).
    public static native byte[] mockChat(long mock, byte[] requestJson);
    public static native byte[] mockStream(long mock, byte[] requestJson);
    public static native String mockHandleHttp(long mock, String method, String target, String headersJson, byte[] body);
    public static native void mockCheck(long mock, long observer, String checkJson);
    public static native String mockRead(long mock, String what);
    public static native void mockReset(long mock);

    public static native long observerNew();
    public static native long observerStartCall(long observer, String contextJson);
    public static native void observerReport(long observer, long index, String eventJson);
    public static native String observerRecords(long observer);

    public static native long serverStart(long mock, String optionsJson);
    public static native String serverInfo(long server);

    public static native long recordingProxyStart(String path, String settingsJson, String optionsJson);
    public static native String recordingProxyInfo(long proxy);
    public static native void recordingProxyCheck(long proxy);
    public static native String recordingPathForTest(String module, String namesJson);

    public static native long toolNew(String optionsJson, JsonFunction function);
    public static native String toolInvoke(long tool, String argumentsJson);
    public static native String toolInvocations(long tool);

    public static native long memoryNew();
    public static native String memoryCall(long memory, String method, String argumentsJson);
}
