package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cuecard.internal.Native;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input of every kind gets a typed exception naming what was wrong: never a JVM crash, never a hang. */
class BadInputTest {
    private static void invalidArgument(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String argument) {
        assertThatThrownBy(call).isInstanceOfSatisfying(CuecardException.class, e -> {
            assertThat(e.code()).isEqualTo("invalid_argument");
            assertThat(e.number()).as("core's number for the code, also when Java raises it").isEqualTo(5);
            assertThat(e.getMessage()).contains(argument);
        });
    }

    @Test
    void nullArgumentsAreNamed() {
        MockModel mock = new MockModel();
        invalidArgument(() -> mock.thenResponds((String) null), "text");
        invalidArgument(() -> mock.chat((String) null), "userText");
        invalidArgument(() -> mock.thenFails(null), "failure");
        invalidArgument(() -> MockModel.fromScenario(null), "scenario");
        invalidArgument(() -> Cuecard.tokenize(null), "text");
        // Past the Java checks, the native side refuses null too (a caller of the internal class).
        invalidArgument(() -> Native.mockThenResponds(mock.id(), null), "answer");
        invalidArgument(() -> Native.mockChat(mock.id(), null), "request");
        invalidArgument(() -> Native.mockThenComputes(mock.id(), null), "answer");
    }

    /** The user text "x" as the hot native calls take it: JSON in UTF-8 bytes. */
    private static final byte[] X = "\"x\"".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    @Test
    void textThatIsNotUnicodeIsTyped() {
        MockModel mock = MockModel.thatResponds("x");
        // Bytes that are not UTF-8 (a caller of the internal class), and a Java string no UTF-8 can hold.
        byte[] latin1 = "\"caf\u00e9\"".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> Native.mockChat(mock.id(), latin1)).isInstanceOfSatisfying(CuecardException.class, e -> {
            assertThat(e.code()).isEqualTo("invalid_utf8");
            assertThat(e.getMessage()).contains("argument `request` is not valid UTF-8 (byte 4)");
        });
        invalidArgument(() -> mock.chatJson("\"lone \ud800\""), "requestJson");
        invalidArgument(() -> mock.streamJson("\"lone \ud800\""), "requestJson");
        assertThat(mock.chatJson("\"caf\u00e9 \ud83d\ude00\"").text()).isEqualTo("x");
        assertThat(mock.request().lastUserText()).isEqualTo("caf\u00e9 \ud83d\ude00");
    }

    @Test
    void malformedJsonAndScenariosAreTyped() {
        MockModel mock = MockModel.thatResponds("x");
        assertThatThrownBy(() -> mock.chatJson("{\"messages\": [")).isInstanceOfSatisfying(CuecardException.class,
                e -> assertThat(e.code()).isEqualTo("invalid_argument"));
        assertThatThrownBy(() -> mock.chatJson("{\"messages\": 3}")).isInstanceOfSatisfying(CuecardException.class,
                e -> assertThat(e.code()).isEqualTo("invalid_request"));
        assertThatThrownBy(() -> MockModel.fromScenario("{\"routes\": [{\"steps\": [{\"txt\": 1}]}]}"))
                .isInstanceOfSatisfying(CuecardException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_scenario");
                    assertThat(e.issues()).extracting(CuecardException.Issue::path).contains("routes[0].steps[0].txt");
                });
        assertThatThrownBy(() -> MockModel.fromScenarioFile(java.nio.file.Path.of("/nonexistent/cuecard.yaml")))
                .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isIn("io", "not_found"));
        assertThatThrownBy(() -> mock.thenResponds(Map.of("text", "x", "nonsense", true)))
                .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("invalid_argument"));
    }

    @Test
    void deepAndCyclicDataIsRefusedNotACrash() {
        MockModel mock = MockModel.thatResponds("x");
        Map<String, Object> cyclic = new HashMap<>();
        cyclic.put("self", cyclic);
        invalidArgument(() -> mock.chat(cyclic), "request");
        Object deep = "leaf";
        for (int i = 0; i < 100_000; i++) deep = List.of(deep);
        Object tooDeep = deep;
        invalidArgument(() -> mock.thenResponds(Map.of("text", "x", "nested", tooDeep)), "step");
        StringBuilder json = new StringBuilder();
        for (int i = 0; i < 10_000; i++) json.append('[');
        assertThatThrownBy(() -> mock.chatJson(json.toString())).isInstanceOf(CuecardException.class);
        assertThat(mock.chat("still works").text()).isEqualTo("x");
    }

    @Test
    void closedAndForeignHandlesAreInvalidStateNotACrash() {
        MockModel mock = MockModel.thatResponds("x");
        long id = mock.id();
        mock.close();
        mock.close(); // twice is harmless
        assertThatThrownBy(() -> mock.chat("x")).isInstanceOfSatisfying(CuecardException.class, e -> {
            assertThat(e.code()).isEqualTo("invalid_state");
            assertThat(e.getMessage()).isEqualTo("a MockModel was used after close()");
            assertThat(e.number()).isEqualTo(6);
        });
        // The native side checks too: a released id, an id never given out, an id of another kind.
        assertThatThrownBy(() -> Native.mockChat(id, X)).isInstanceOfSatisfying(CuecardException.class,
                e -> assertThat(e.code()).isEqualTo("invalid_state"));
        assertThatThrownBy(() -> Native.mockChat(Long.MAX_VALUE, X)).isInstanceOf(CuecardException.class);
        RecordingObserver observer = new RecordingObserver();
        assertThatThrownBy(() -> Native.mockChat(observer.id(), X)).isInstanceOfSatisfying(CuecardException.class, e -> {
            assertThat(e.code()).isEqualTo("invalid_argument");
            assertThat(e.getMessage()).contains("is not a MockModel (it is a RecordingObserver)");
        });
    }

    @Test
    void aForgottenMockIsFreedByTheCleaner() throws Exception {
        List<java.lang.ref.WeakReference<MockModel>> refs = new ArrayList<>();
        for (int i = 0; i < 100; i++) refs.add(new java.lang.ref.WeakReference<>(MockModel.thatResponds("x")));
        for (int i = 0; i < 50 && refs.stream().anyMatch(r -> r.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(refs).allSatisfy(r -> assertThat(r.get()).isNull());
    }

    @Test
    void wrongValuesInChecksAndCountsAreNamed() {
        MockModel mock = MockModel.thatResponds("x");
        invalidArgument(() -> CuecardAssertions.assertThat(mock).receivedRequests(-1), "times");
        invalidArgument(() -> CuecardAssertions.assertThat(mock).whenCalled(null), "operation");
        assertThatThrownBy(() -> MockModel.withSettings(Map.of("usage", 7))).isInstanceOfSatisfying(CuecardException.class,
                e -> assertThat(e.getMessage()).contains("settings"));
    }
}
