//! The scalar scanner: one token at a time, any Unicode text. It is the reference for the block path
//! (`blocks.rs`), which only handles runs of ASCII, and it takes over wherever that path cannot go.

use super::classes::{ascii_class, class_of_code_point, Class};

/// End of the token that starts at `i` (a token start, `i < bytes.len()`), by the rules of `docs/concepts/tokens.md`.
#[inline(always)]
pub(super) fn token_end(bytes: &[u8], i: usize) -> usize {
    let first = bytes.get(i).copied().unwrap_or(0);
    scan_fast(bytes, i, first)
}

/// Decodes the scalar value starting at `i`, returning (code point, byte length). `bytes` is valid UTF-8 and
/// `i` is a char boundary, so the lead byte tells the length; out-of-range reads give 0 and cannot panic.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let b0 = bytes.get(i).copied().unwrap_or(0) as u32;
    let cont = |k: usize| (bytes.get(i + k).copied().unwrap_or(0x80) as u32) & 0x3F;
    if b0 < 0x80 {
        (b0, 1)
    } else if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4)
    }
}

/// Class and byte length of the character at `i`, or `None` at the end of the text.
#[inline(always)]
pub(super) fn class_at(bytes: &[u8], i: usize) -> Option<(Class, usize)> {
    let b = *bytes.get(i)?;
    if b < 0x80 {
        return Some((ascii_class(b), 1));
    }
    let (cp, len) = decode(bytes, i);
    Some((class_of_code_point(cp), len))
}

/// End of the maximal run of characters from `i` whose class satisfies `keep`.
#[inline(always)]
fn run_end(bytes: &[u8], mut i: usize, keep: impl Fn(Class) -> bool) -> usize {
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            if !keep(ascii_class(b)) {
                break;
            }
            i += 1;
        } else {
            let (cp, len) = decode(bytes, i);
            if !keep(class_of_code_point(cp)) {
                break;
            }
            i += len;
        }
    }
    i
}

/// End of the maximal run of ASCII letters, then of any letters and marks (the word body).
#[inline(always)]
fn word_end(bytes: &[u8], mut i: usize) -> usize {
    // Most words are ASCII: stay in the tight loop as long as possible.
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_alphabetic() {
            i += 1;
        } else if b < 0x80 {
            return i;
        } else {
            return run_end(bytes, i, Class::is_word);
        }
    }
    i
}

/// Length of a contraction (`'s`, `'ll`, ...) starting at the apostrophe at `i`, if there is one (rule 1).
#[inline]
pub(super) fn contraction_len(bytes: &[u8], i: usize) -> Option<usize> {
    let next = *bytes.get(i + 1)?;
    match next {
        b's' | b'd' | b'm' | b't' | b'S' | b'D' | b'M' | b'T' => return Some(2),
        // U+017F LATIN SMALL LETTER LONG S folds to 's' (cl100k matches it case-insensitively).
        0xC5 if bytes.get(i + 2) == Some(&0xBF) => return Some(3),
        _ => {}
    }
    let pair = [next.to_ascii_lowercase(), bytes.get(i + 2)?.to_ascii_lowercase()];
    matches!(&pair, b"ll" | b"ve" | b"re").then_some(3)
}

/// Letters `A-Z a-z` among 8 bytes, as the high bit of each byte lane (SWAR; valid for ASCII lanes, and
/// non-ASCII lanes are excluded).
#[inline(always)]
fn ascii_letter_lanes(chunk: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let folded = (chunk | 0x2020_2020_2020_2020) & LOW7; // 'A'..'Z' -> 'a'..'z'; nothing else lands there
    let at_least_a = folded + 0x1F1F_1F1F_1F1F_1F1F; // high bit set iff lane >= 0x61
    let above_z = folded + 0x0505_0505_0505_0505; // high bit set iff lane >= 0x7B
    at_least_a & !above_z & !chunk & HIGH
}

/// End of the word body starting at `i`: ASCII letters eight at a time, then any letters and marks.
#[inline(always)]
fn word_end_fast(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let lanes = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let not_letters = !ascii_letter_lanes(lanes) & 0x8080_8080_8080_8080;
        if not_letters != 0 {
            i += (not_letters.trailing_zeros() / 8) as usize;
            return match bytes.get(i) {
                Some(&b) if b >= 0x80 => run_end(bytes, i, Class::is_word),
                _ => i,
            };
        }
        i += 8;
    }
    word_end(bytes, i)
}

/// End of a punctuation run from `i` (rule 5 after its optional space): O/M characters, then CR/LF.
#[inline(always)]
fn punctuation_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(&b) = bytes.get(i) {
        if b >= 0x80 {
            i = run_end(bytes, i, |c| matches!(c, Class::O | Class::M));
            break;
        }
        if ascii_class(b) != Class::O {
            break;
        }
        i += 1;
    }
    while let Some(b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

/// The common ASCII cases first (a word, a space-led word, digits, punctuation), then the general rule table.
/// Each shortcut applies the same rules as `scan_token`, restricted to ASCII characters whose class is certain;
/// anything else falls through to the general path.
#[inline(always)]
fn scan_fast(bytes: &[u8], i: usize, first: u8) -> usize {
    let next = bytes.get(i + 1).copied().unwrap_or(0);
    if first == b' ' {
        if next.is_ascii_alphabetic() {
            return word_end_fast(bytes, i + 2); // rule 2, led by the space
        }
        if next < 0x80 && next != 0 && ascii_class(next) == Class::O {
            return punctuation_end(bytes, i + 1); // rule 5 with its optional space
        }
    } else if first.is_ascii_alphabetic() {
        return word_end_fast(bytes, i + 1); // rule 2
    } else if first.is_ascii_digit() {
        // Rule 3: up to three digits; a non-ASCII digit may follow, so only ASCII is taken here.
        let mut end = i + 1;
        while end < i + 3 && bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end == i + 3 || bytes.get(end).is_none_or(|b| *b < 0x80) {
            return end;
        }
    } else if first != b'\'' && first < 0x80 && ascii_class(first) == Class::O {
        if next.is_ascii_alphabetic() {
            return word_end_fast(bytes, i + 2); // rule 2, led by the punctuation character
        }
        if next < 0x80 {
            return punctuation_end(bytes, i); // rule 5 (a non-ASCII next may be a letter or mark: general path)
        }
    }
    let (class, len) = if first < 0x80 {
        (ascii_class(first), 1)
    } else {
        let (cp, len) = decode(bytes, i);
        (class_of_code_point(cp), len)
    };
    scan_token(bytes, i, class, len)
}

/// The rules of `docs/concepts/tokens.md` ("Rules"), in priority order. `class`/`len` describe the character at `i`.
#[inline(never)]
fn scan_token(bytes: &[u8], i: usize, class: Class, len: usize) -> usize {
    let first = bytes.get(i).copied().unwrap_or(0);
    // 1. Contraction.
    if first == b'\'' {
        if let Some(n) = contraction_len(bytes, i) {
            return i + n;
        }
    }
    match class {
        // 2. Word without a leading character.
        Class::L | Class::M => return word_end(bytes, i + len),
        // 3. Digits: one to three.
        Class::N => {
            let mut end = i + len;
            for _ in 0..2 {
                match class_at(bytes, end) {
                    Some((Class::N, n)) => end += n,
                    _ => break,
                }
            }
            return end;
        }
        // 4. One CJK character with its combining marks.
        Class::Cjk => return run_end(bytes, i + len, |c| c == Class::M),
        Class::Ws | Class::O | Class::Nl => {}
    }
    let next = class_at(bytes, i + len).map(|(c, _)| c);
    // 2. Word led by one whitespace or other character.
    if matches!(class, Class::Ws | Class::O) && next.is_some_and(Class::is_word) {
        return word_end(bytes, i + len);
    }
    // 5. Punctuation, optionally led by one U+0020, then trailing newlines.
    let punct_start = if class == Class::O {
        Some(i)
    } else if first == b' ' && matches!(next, Some(Class::O | Class::M)) {
        Some(i + 1)
    } else {
        None
    };
    if let Some(start) = punct_start {
        let end = run_end(bytes, start, |c| matches!(c, Class::O | Class::M));
        return run_end(bytes, end, |c| c == Class::Nl);
    }
    whitespace_token_end(bytes, i)
}

/// Rules 6–9 for a token starting with whitespace at `i`.
#[inline]
fn whitespace_token_end(bytes: &[u8], i: usize) -> usize {
    let mut pos = i;
    let mut chars = 0usize;
    let mut last_char_start = i;
    let mut after_last_newline = None;
    while let Some((class, len)) = class_at(bytes, pos) {
        if !class.is_space() {
            break;
        }
        if class == Class::Nl {
            after_last_newline = Some(pos + len);
        }
        last_char_start = pos;
        chars += 1;
        pos += len;
    }
    if pos >= bytes.len() {
        pos // 6. the run reaches the end of the text
    } else if let Some(end) = after_last_newline {
        end // 7. up to and including the last newline
    } else if chars >= 2 {
        last_char_start // 8. all but the last character
    } else {
        pos // 9. one whitespace character
    }
}
