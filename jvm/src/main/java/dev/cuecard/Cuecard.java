package dev.cuecard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cuecard.internal.Json;
import dev.cuecard.internal.Native;
import java.util.ArrayList;
import java.util.List;

/** The library's version and the word-like tokenizer (the same tokens in every language). */
public final class Cuecard {
    private Cuecard() {}

    public static String version() {
        return Native.version();
    }

    /** Splits text into word-like tokens: "Hello, world!" is "Hello", ",", " world", "!". */
    public static List<String> tokenize(String text) {
        List<String> tokens = new ArrayList<>();
        for (JsonNode token : Json.tree(Native.tokenize(CuecardException.notNull(text, "text")))) tokens.add(token.asText());
        return tokens;
    }

    public static int countTokens(String text) {
        return (int) Native.countTokens(CuecardException.notNull(text, "text"));
    }

    /**
     * The drift report of a recording (cuecard's, or a vcrpy cassette), as {@code cuecard drift --json} gives it:
     * {@code drifted}, and per recorded exchange the {@code differences} between what the real API sent and what
     * cuecard sends for the same answer (fields, types, kind names, stream events, status, headers).
     */
    public static JsonNode drift(java.nio.file.Path recording) {
        return Json.tree(Native.drift(CuecardException.notNull(recording, "recording").toString()));
    }
}
