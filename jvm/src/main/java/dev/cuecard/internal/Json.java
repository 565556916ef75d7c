package dev.cuecard.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.cuecard.CuecardException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * JSON between Java values and the native library, with Jackson: Java records and maps in, records out. cuecard's
 * JSON is snake_case; Java's names are camelCase.
 */
public final class Json {
    private Json() {}

    /** Java values as cuecard's JSON: records get snake_case names, nulls are left out. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.USE_DEFAULTS))
            .build();

    static {
        // The same nesting limit as cuecard's (core MAX_DEPTH), so deep data fails here with a clear message.
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(128).build());
    }

    /** {@code value} as JSON text; a value Jackson cannot write (a cycle, a too deep nesting) is invalid_argument. */
    public static String write(Object value, String argument) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException | StackOverflowError e) {
            throw CuecardException.invalidArgument(argument, "cannot be written as JSON: " + describe(e));
        }
    }

    /** {@code value} as JSON in UTF-8 bytes (what the hot native calls take), with {@link #write}'s errors. */
    public static byte[] writeBytes(Object value, String argument) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException | StackOverflowError e) {
            throw CuecardException.invalidArgument(argument, "cannot be written as JSON: " + describe(e));
        }
    }

    /**
     * {@code text} in UTF-8; a lone surrogate, which has no UTF-8 form, is invalid_argument ({@code getBytes} would
     * put a {@code ?} in its place).
     */
    public static byte[] utf8(String text, String argument) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(text));
            byte[] out = new byte[bytes.remaining()];
            bytes.get(out);
            return out;
        } catch (CharacterCodingException e) {
            throw CuecardException.invalidArgument(argument, "is not valid Unicode text (a lone surrogate)");
        }
    }

    /** Reads the library's JSON, given as UTF-8 bytes, into {@code type}. */
    public static <T> T read(byte[] json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the native library answered JSON that does not fit: " + e.getMessage(), e);
        }
    }

    /** Reads the library's JSON (always valid). */
    public static JsonNode tree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the native library answered invalid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Reads the library's JSON text into {@code type}. */
    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the native library answered JSON that does not fit: " + e.getOriginalMessage(), e);
        }
    }

    /** Reads the library's JSON into {@code type}. */
    public static <T> T read(JsonNode json, Class<T> type) {
        return MAPPER.convertValue(json, type);
    }

    private static String describe(Throwable e) {
        if (e instanceof StackOverflowError) return "it nests too deeply or refers to itself";
        if (e instanceof JsonProcessingException j) return j.getOriginalMessage();
        return String.valueOf(e.getMessage());
    }
}
