package dev.cuecard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cuecard.langchain4j.MockChatModel;
import org.junit.jupiter.api.Test;

// The README's Java example (the front page's): LangChain4j's ChatModel, scripted.
class ReadmeFrontPageTest {
    @Test
    void aScriptedChatModel() {
        MockChatModel model = MockChatModel.thatResponds("Hello!");
        assertThat(model.chat("Hi")).isEqualTo("Hello!");
        CuecardAssertions.assertThat(model.mock()).scriptFullyUsed().lastRequest().hasLastUserMessageContaining("Hi");
    }
}
