//! JSON strings for the events written by hand (`push_json_str`): quoted and escaped byte for byte as serde_json
//! writes them, so hand-written and serialized bodies agree (`tests/vectors/wire.json`, and the property test
//! below against serde_json itself).
//!
//! serde_json looks at every byte through a table and writes each run between escapes on its own; an answer's
//! text is hundreds of bytes with nothing to escape, and escaping was about a quarter of a whole chat completion's
//! instructions. Here the clean start of a string (all of it, most often) is found eight bytes at a time and copied
//! in one piece; after the first escape, bytes are looked at one by one.
//!
//! The rule (RFC 8259, section 7, in serde_json's choice of forms): `"` and `\` get a backslash; backspace, form
//! feed, line feed, carriage return and tab are written `\b`, `\f`, `\n`, `\r`, `\t`; every other byte below 0x20
//! is `\u00XX` with lower-case hex digits; everything else (DEL, `/`, all of non-ASCII) is copied as it is.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes of `word` may need escaping. Never misses one; a byte at or above 0x80 next to
/// one that matches can be reported too, which only sends those eight bytes through the exact check.
fn may_need_escape(word: u64) -> bool {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let is_zero = |x: u64| x.wrapping_sub(ONES) & !x;
    (below_space | is_zero(quote) | is_zero(backslash)) & HIGH_BITS != 0
}

/// Which bytes need escaping, as a table: one load per byte where three comparisons were slower on short tokens.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

fn needs_escape(byte: u8) -> bool {
    NEEDS_ESCAPE[usize::from(byte)]
}

fn push_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]);
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', high, low]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends `text` to `out` as a JSON string.
pub(crate) fn push_json_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let clean = clean_prefix(bytes);
    out.extend_from_slice(bytes.get(..clean).unwrap_or_default());
    if clean < bytes.len() {
        push_escaped(out, bytes.get(clean..).unwrap_or_default());
    }
    out.push(b'"');
}

/// Appends an answer's id, as `Envelope::id` makes it (the scripted id, or `prefix` and the number), to `out` as a
/// JSON string, without making a `String` of it first (one allocation less per reply).
pub(crate) fn push_json_id(out: &mut Vec<u8>, envelope: &crate::stream::Envelope, prefix: &str) {
    match &envelope.scripted_id {
        Some(id) => push_json_str(out, id),
        None => {
            push_json_str(out, prefix);
            out.pop(); // the closing quote: the digits go inside, and need no escaping
            out.extend_from_slice(itoa::Buffer::new().format(envelope.number).as_bytes());
            out.push(b'"');
        }
    }
}

/// How many bytes at the start of `bytes` need no escaping: eight at a time, then one by one.
fn clean_prefix(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut clean = 0;
    for eight in words.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(eight);
        if may_need_escape(u64::from_le_bytes(word)) {
            break;
        }
        clean += 8;
    }
    clean + bytes.iter().skip(clean).take_while(|&&byte| !needs_escape(byte)).count()
}

/// The rest of a string from its first byte that needs escaping: each run of clean bytes copied in one piece.
fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut clean_from = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        if needs_escape(byte) {
            out.extend_from_slice(bytes.get(clean_from..at).unwrap_or_default());
            push_escape(out, byte);
            clean_from = at + 1;
        }
    }
    out.extend_from_slice(bytes.get(clean_from..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        push_json_str(&mut out, text);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn every_byte_that_needs_it_is_escaped_as_serde_json_does() {
        for byte in 0u8..0x80 {
            let text = char::from(byte).to_string();
            assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap_or_default(), "byte {byte:#04x}");
        }
        // At every position of an eight-byte word, and next to non-ASCII bytes (the word check's false positives).
        for position in 0..20 {
            for special in ["\"", "\\", "\n", "\u{1}", "\u{1f}", "é", "\u{7f}", "/"] {
                let text = format!("{}{special}{}", "a".repeat(position), "ü".repeat(position % 5));
                assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap_or_default(), "{text:?}");
            }
        }
        assert_eq!(escaped(""), "\"\"");
    }

    #[test]
    fn an_id_is_written_as_the_json_string_of_the_id_the_envelope_makes() {
        let envelope = |number, scripted_id: Option<&str>| crate::stream::Envelope {
            number,
            scripted_id: scripted_id.map(str::to_string),
            model: "m".into(),
            created: 0,
            recorded: None,
            headers: Vec::new(),
            rate_limit: None,
            go_away_ms: None,
            answered_by: crate::stream::AnsweredBy::default(),
        };
        let cases =
            [(1, None, "chatcmpl-"), (12_345, None, "resp_"), (7, Some("my \"id\"\n"), "resp_"), (3, None, "a\"b")];
        for (number, scripted, prefix) in cases {
            let envelope = envelope(number, scripted);
            let mut out = Vec::new();
            push_json_id(&mut out, &envelope, prefix);
            let expected = serde_json::to_string(&envelope.id(prefix)).unwrap_or_default();
            assert_eq!(String::from_utf8(out).unwrap_or_default(), expected, "{number} {scripted:?} {prefix}");
        }
    }

    proptest! {
        #[test]
        fn any_text_is_written_as_serde_json_writes_it(text in any::<String>()) {
            prop_assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap_or_default());
        }

        #[test]
        fn text_rich_in_escapes_is_written_as_serde_json_writes_it(text in "[a-z\"\\\\\n\t\u{0}-\u{1f}é€]{0,64}") {
            prop_assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap_or_default());
        }
    }
}
