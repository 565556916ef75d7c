package dev.cuecard.junit;

import dev.cuecard.CuecardAssertions;
import dev.cuecard.MockModel;
import dev.cuecard.RecordingObserver;
import dev.cuecard.RecordingProxy;
import dev.cuecard.Server;
import dev.cuecard.SharedTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5: {@code @ExtendWith(CuecardExtension.class)} gives each test a fresh {@link MockModel}, {@link Server} (a
 * fresh mock served on loopback; script it through {@link Server#mock()}) or {@link RecordingObserver} as a parameter,
 * and after the test fails it when a mock has unused steps or received requests beyond its script, with core's
 * message listing them. {@link UnusedStepsAllowed} on the test or its class keeps the check of unexpected requests
 * only. A {@link RecordingProxy} parameter is the test's recording ({@link CuecardRecording} says where and to
 * whom it forwards), in the mode {@code CUECARD_RECORD} names; a replayed recording not used whole fails the test.
 * A {@link SharedTest} parameter is the test's own part of one server shared by the whole run ({@code CUECARD_URL}
 * or the system property {@code cuecard.url} names one started elsewhere; else one server per JVM, started on first
 * use and stopped when the run ends): after a passing test core checks on the server that its loaded steps were
 * used and no request was unexpected (only the latter under {@link UnusedStepsAllowed}), and the test is dropped.
 * Everything is closed after the test.
 */
public final class CuecardExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CuecardExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == MockModel.class || type == Server.class || type == RecordingObserver.class
                || type == RecordingProxy.class || type == SharedTest.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        Resources resources = context.getStore(NAMESPACE).getOrComputeIfAbsent(Resources.class, k -> new Resources(), Resources.class);
        if (type == MockModel.class) return resources.mock();
        if (type == Server.class) return resources.server();
        if (type == RecordingObserver.class) return resources.observer();
        if (type == RecordingProxy.class) return resources.recording(context);
        if (type == SharedTest.class) return resources.shared(context);
        throw new ParameterResolutionException("cuecard cannot give a " + type.getName());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Resources resources = context.getStore(NAMESPACE).get(Resources.class, Resources.class);
        if (resources == null) return;
        boolean lenient = context.getTestMethod().map(m -> m.isAnnotationPresent(UnusedStepsAllowed.class)).orElse(false)
                || context.getTestClass().map(c -> c.isAnnotationPresent(UnusedStepsAllowed.class)).orElse(false);
        try {
            for (MockModel mock : resources.mocks) {
                if (lenient) CuecardAssertions.assertThat(mock).noUnexpectedRequests();
                else CuecardAssertions.assertThat(mock).scriptFullyUsed();
            }
            for (RecordingProxy recording : resources.recordings) {
                if (!lenient) recording.assertAllReplayed();
            }
            for (SharedTest shared : resources.shared) {
                if (context.getExecutionException().isPresent()) continue;
                if (lenient) shared.check(Map.of("check", "no_unexpected_requests"));
                else shared.verify();
            }
        } finally {
            resources.close();
        }
    }

    /** What one test was given, closed after it (the store also closes it if afterEach never runs). */
    private static final class Resources implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final List<MockModel> mocks = new ArrayList<>();
        final List<AutoCloseable> closeables = new ArrayList<>();

        MockModel mock() {
            MockModel mock = new MockModel();
            mocks.add(mock);
            closeables.add(mock);
            return mock;
        }

        Server server() {
            Server server = mock().serve();
            closeables.add(0, server);
            return server;
        }

        final List<RecordingProxy> recordings = new ArrayList<>();

        RecordingProxy recording(ExtensionContext context) {
            CuecardRecording where = context.getTestMethod().map(m -> m.getAnnotation(CuecardRecording.class))
                    .or(() -> context.getTestClass().map(c -> c.getAnnotation(CuecardRecording.class)))
                    .orElse(null);
            String directory = where == null ? "src/test/resources" : where.directory();
            Path path = where != null && !where.path().isEmpty() ? Path.of(where.path()) : Path.of(directory).resolve(
                    RecordingProxy.pathForTest(context.getRequiredTestClass().getSimpleName(),
                            List.of(context.getRequiredTestMethod().getName())));
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("mode", RecordingProxy.modeFromEnvironment());
            if (where != null && where.upstream().length > 0) settings.put("upstream", List.of(where.upstream()));
            if (where != null && where.redact().length > 0) settings.put("redact", List.of(where.redact()));
            RecordingProxy recording = RecordingProxy.start(path, settings);
            recordings.add(recording);
            closeables.add(0, recording);
            return recording;
        }

        final List<SharedTest> shared = new ArrayList<>();

        SharedTest shared(ExtensionContext context) {
            String url = SharedServer.url(context);
            SharedTest test = new SharedTest(url, SharedTest.idFor(context.getUniqueId() + "#" + shared.size()));
            shared.add(test);
            closeables.add(test::drop);
            return test;
        }

        RecordingObserver observer() {
            RecordingObserver observer = new RecordingObserver();
            closeables.add(observer);
            return observer;
        }

        @Override
        public void close() {
            for (AutoCloseable closeable : closeables) {
                try {
                    closeable.close();
                } catch (Exception ignored) {
                    // closing native handles does not fail
                }
            }
            closeables.clear();
        }
    }

    /** The run's shared server: named by {@code CUECARD_URL} or {@code cuecard.url}, else one per JVM, kept in the
     * root context's store so JUnit closes it when the whole run ends. */
    private static final class SharedServer implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        private final MockModel mock = new MockModel();
        private final Server server = mock.serve(Map.of("instant", true));

        static String url(ExtensionContext context) {
            String given = System.getProperty("cuecard.url", System.getenv("CUECARD_URL"));
            if (given != null && !given.isEmpty()) return given;
            SharedServer started = context.getRoot().getStore(NAMESPACE)
                    .getOrComputeIfAbsent(SharedServer.class, k -> new SharedServer(), SharedServer.class);
            return started.server.anthropicBaseUrl();
        }

        @Override
        public void close() {
            server.close();
            mock.close();
        }
    }
}
