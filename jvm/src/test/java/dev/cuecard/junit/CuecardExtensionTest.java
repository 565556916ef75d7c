package dev.cuecard.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.cuecard.MockModel;
import dev.cuecard.Server;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

class CuecardExtensionTest {
    static final List<MockModel> GIVEN = new ArrayList<>();

    /** Run by the test kit below, not by Surefire (nested classes are excluded). */
    @ExtendWith(CuecardExtension.class)
    static class Sample {
        @Test
        void usesItsScript(MockModel mock) {
            GIVEN.add(mock);
            mock.thenResponds("hi");
            mock.chat("x");
        }

        @Test
        void leavesAStepUnused(MockModel mock) {
            GIVEN.add(mock);
            mock.thenResponds("hi").thenResponds("never asked");
            mock.chat("x");
        }

        @Test
        @UnusedStepsAllowed
        void mayLeaveAStepUnused(MockModel mock) {
            mock.thenResponds("never asked");
        }

        @Test
        @UnusedStepsAllowed
        void stillFailsOnAnUnexpectedRequest(MockModel mock) {
            try {
                mock.chat("nobody scripted this");
            } catch (RuntimeException expected) {
                // the code under test swallowed it
            }
        }

        @Test
        void servesAFreshMock(Server server) {
            server.mock().thenResponds("served");
            assertThat(server.mock().chat("x").text()).isEqualTo("served");
        }
    }

    @Test
    void failsTestsThatLeaveTheScriptUnusedOrGoBeyondIt() {
        GIVEN.clear();
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(Sample.class)).execute().testEvents();
        tests.assertStatistics(stats -> stats.started(5).succeeded(3).failed(2));
        List<String> failures = tests.failed().stream()
                .map(e -> e.getTestDescriptor().getDisplayName() + ": " + e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
                        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::getMessage).orElse(""))
                .toList();
        assertThat(failures).anySatisfy(f -> assertThat(f).startsWith("leavesAStepUnused").contains("never asked"));
        assertThat(failures).anySatisfy(f -> assertThat(f).startsWith("stillFailsOnAnUnexpectedRequest").contains("nobody scripted this"));
        assertThat(GIVEN).hasSize(2).doesNotHaveDuplicates().allSatisfy(mock -> assertThat(mock.isClosed()).isTrue());
    }
}
