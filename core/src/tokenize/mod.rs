//! The word-like splitter: how cuecard cuts an answer into streamed tokens.
//!
//! This implements `spec/tokenizer.md` (spec version 1) exactly: tiktoken's cl100k_base pre-tokenizer with CJK
//! split one character per token and combining marks counted as word characters. In short: a word with the
//! space (or one other non-letter) before it, up to three digits, a run of punctuation, or whitespace.
//!
//! The scanner works on UTF-8 bytes with an ASCII fast path and never allocates: [`tokenize`] yields
//! sub-slices of the input whose concatenation is the input, byte for byte.

mod classes;
mod tables;

pub use classes::{class_of, Class};
pub use tables::UNICODE_VERSION;

use classes::{ascii_class, class_of_code_point};

/// The version of the splitting rule implemented here (`spec_version` of the public vectors).
pub const SPEC_VERSION: u32 = 1;

/// Splits `text` into word-like tokens: zero-copy slices that concatenate back to `text`.
///
/// ```
/// let tokens: Vec<&str> = cuecard::tokenize("Hello, world!").collect();
/// assert_eq!(tokens, ["Hello", ",", " world", "!"]);
/// ```
pub fn tokenize(text: &str) -> Tokens<'_> {
    Tokens { text, pos: 0 }
}

/// Counts the word-like tokens of `text` (the length of [`tokenize`]'s output).
pub fn count_tokens(text: &str) -> usize {
    let mut scanner = Tokens { text, pos: 0 };
    let mut count = 0;
    while scanner.advance().is_some() {
        count += 1;
    }
    count
}

/// The byte ranges of the tokens, for callers that need offsets rather than slices.
pub fn token_offsets(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut scanner = Tokens { text, pos: 0 };
    std::iter::from_fn(move || {
        let start = scanner.pos;
        scanner.advance().map(|end| (start, end))
    })
}

/// Iterator over the word-like tokens of a text; see [`tokenize`].
#[derive(Clone, Debug)]
pub struct Tokens<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let end = self.advance()?;
        self.text.get(start..end)
    }
}

impl std::iter::FusedIterator for Tokens<'_> {}

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
fn class_at(bytes: &[u8], i: usize) -> Option<(Class, usize)> {
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
fn contraction_len(bytes: &[u8], i: usize) -> Option<usize> {
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

impl Tokens<'_> {
    /// Scans one token from `self.pos`; returns its end and moves past it, or `None` at the end.
    #[inline]
    fn advance(&mut self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let i = self.pos;
        let (class, len) = class_at(bytes, i)?;
        let end = scan_token(bytes, i, class, len);
        self.pos = end;
        Some(end)
    }
}

/// The rule table of spec §3, in priority order. `class`/`len` describe the character at `i`.
#[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        tokenize(text).collect()
    }

    #[test]
    fn examples_from_the_spec() {
        assert_eq!(split("Hello, world!"), ["Hello", ",", " world", "!"]);
        assert_eq!(split("Order 12345"), ["Order", " ", "123", "45"]);
        assert_eq!(split("Hello 世界"), ["Hello", " ", "世", "界"]);
        assert_eq!(split("你好，世界"), ["你", "好", "，", "世", "界"]);
        assert_eq!(split("...wait"), ["...", "wait"]);
        assert_eq!(split("(hello"), ["(hello"]);
        assert_eq!(split(" (hello"), [" (", "hello"]);
        assert_eq!(split("price:\u{a0}100"), ["price", ":", "\u{a0}", "100"]);
        assert_eq!(split("x  1  一  !"), ["x", " ", " ", "1", " ", " ", "一", " ", " !"]);
        assert_eq!(split("1\u{fe0f}\u{20e3}"), ["1", "\u{fe0f}\u{20e3}"]);
        assert_eq!(split("❤\u{fe0f}ok"), ["❤\u{fe0f}ok"]);
        assert_eq!(split("DON’T"), ["DON", "’T"]);
        assert_eq!(split("a\n\n  \n  b"), ["a", "\n\n  \n", " ", " b"]);
        assert_eq!(split("end.\n\n"), ["end", ".\n\n"]);
        assert_eq!(split("don't"), ["don", "'t"]);
        assert_eq!(split("'sup"), ["'s", "up"]);
        assert_eq!(split("we'LL"), ["we", "'LL"]);
        assert_eq!(split("'\u{17f}"), ["'\u{17f}"]);
        assert_eq!(split("コーヒー"), ["コ", "ー", "ヒ", "ー"]);
        assert_eq!(split("1234567"), ["123", "456", "7"]);
        assert_eq!(split("   "), ["   "]);
        assert_eq!(split("a \t b"), ["a", " \t", " b"]);
        assert!(split("").is_empty());
    }

    #[test]
    fn counts_and_offsets_agree_with_the_tokens() {
        let text = "The quick 🦊 jumps over 1234 lazy 犬.\n";
        let tokens = split(text);
        assert_eq!(count_tokens(text), tokens.len());
        let rebuilt: Vec<&str> = token_offsets(text).map(|(a, b)| &text[a..b]).collect();
        assert_eq!(rebuilt, tokens);
    }
}
