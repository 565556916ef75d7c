package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.openai.OpenAiChatModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LangChain4j's OpenAI model records through a {@link RecordingProxy} once, then replays without the provider. */
public class RecordingTest {
    public static OpenAiChatModel openai(RecordingProxy proxy) {
        return OpenAiChatModel.builder().baseUrl(proxy.openaiBaseUrl()).apiKey("sk-live-0123456789abcdefghij")
                .modelName("gpt-4o").maxRetries(0).build();
    }

    /** Records one question into {@code file} from a local stand-in for the provider. */
    public static String recordOnce(Path file) {
        try (MockModel provider = MockModel.thatResponds("Sunny in Paris."); Server server = provider.serve();
                RecordingProxy proxy = RecordingProxy.start(file, Map.of("mode", "once",
                        "upstream", List.of(server.anthropicBaseUrl()), "allow_in_ci", true))) {
            assertThat(proxy.records()).isTrue();
            String answer = openai(proxy).chat("Weather in Paris?");
            assertThat(proxy.recorded()).isEqualTo(1);
            return answer;
        }
    }

    @Test
    void recordedOnceThenReplayedWithoutTheProvider(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("recordings").resolve("weather.yaml");
        String recorded = recordOnce(file);
        assertThat(Files.readString(file)).contains("Weather in Paris?").doesNotContain("sk-live-");
        try (RecordingProxy replay = RecordingProxy.start(file, Map.of())) {
            assertThat(replay.replays()).isTrue();
            assertThat(replay.records()).isFalse();
            assertThat(openai(replay).chat("Weather in Paris?")).isEqualTo(recorded).isEqualTo("Sunny in Paris.");
            replay.assertAllReplayed();
            assertThatThrownBy(() -> openai(replay).chat("Weather in Lyon?"))
                    .hasMessageContaining("\\\"Weather in Paris?\\\" != \\\"Weather in Lyon?\\\"");
            assertThatThrownBy(replay::assertAllReplayed).isInstanceOf(CuecardAssertionError.class)
                    .hasMessageContaining("unexpected request");
        }
    }

    @Test
    void aRecordingHasNoDriftUntilAFieldIsRenamedInIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("weather.yaml");
        recordOnce(file);
        assertThat(Cuecard.drift(file).get("drifted").asBoolean()).isFalse();
        Files.writeString(file, Files.readString(file).replace("finish_reason", "finish_reasons"));
        var report = Cuecard.drift(file);
        assertThat(report.get("drifted").asBoolean()).isTrue();
        assertThat(report.at("/exchanges/0/differences/0/at").asText()).isEqualTo("choices[].finish_reasons");
        Path spec = Path.of(System.getProperty("cuecard.repo", ".."), "tests", "recordings", "wire-spec-examples.yaml");
        assertThat(Cuecard.drift(spec).get("exchanges")).hasSize(4);
        // Dated long ago and trusted for a week: replaying it warns, naming the file.
        Files.writeString(file, Files.readString(file).replaceFirst("recorded_on: \\S+", "max_age_days: 7\n  recorded_on: 2025-01-15"));
        try (RecordingProxy replay = RecordingProxy.start(file, Map.of())) {
            assertThat(replay.ageWarning()).hasValueSatisfying(w -> assertThat(w)
                    .contains("weather.yaml was recorded on 2025-01-15").contains("more than its max_age_days of 7"));
        }
        assertThatThrownBy(() -> Cuecard.drift(dir.resolve("absent.yaml")))
                .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
    }

    @Test
    void aMissingRecordingAndABadModeAreTypedErrors(@TempDir Path dir) {
        assertThatThrownBy(() -> RecordingProxy.start(dir.resolve("absent.yaml"), Map.of()))
                .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("not_found"))
                .hasMessageContaining("record it with mode once");
        assertThatThrownBy(() -> RecordingProxy.start(dir.resolve("r.yaml"), Map.of("mode", "sometimes")))
                .isInstanceOfSatisfying(CuecardException.class, e -> assertThat(e.code()).isEqualTo("invalid_argument"));
        assertThat(RecordingProxy.pathForTest("WeatherTest", List.of("asks")))
                .isEqualTo("recordings/WeatherTest/asks.yaml");
    }
}
