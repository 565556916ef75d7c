package dev.cuecard.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cuecard.RecordingProxy;
import dev.cuecard.RecordingTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A test given its recording by {@link CuecardExtension}: replayed (CUECARD_RECORD unset), checked after it. */
@ExtendWith(CuecardExtension.class)
class RecordingExtensionTest {
    static final String FILE = "target/test-recordings/RecordingExtensionTest/replays.yaml";

    @BeforeAll
    static void recordIt() throws Exception {
        Files.deleteIfExists(Path.of(FILE));
        RecordingTest.recordOnce(Path.of(FILE));
    }

    @Test
    @CuecardRecording(path = FILE)
    void replays(RecordingProxy recording) {
        assertThat(recording.path()).isEqualTo(Path.of(FILE));
        assertThat(recording.replays()).isTrue();
        assertThat(RecordingTest.openai(recording).chat("Weather in Paris?")).isEqualTo("Sunny in Paris.");
    }
}
