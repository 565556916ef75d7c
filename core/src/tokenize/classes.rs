//! The seven character classes of the word-like rule (`docs/concepts/tokens.md`, "Classes"), looked up from generated tables.

use super::tables::{ASTRAL_RANGES, BMP_BLOCKS, BMP_INDEX, BMP_SHIFT};

/// The class of one Unicode scalar value. Every scalar has exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Class {
    /// U+000A LF and U+000D CR.
    Nl = 0,
    /// White_Space minus CR/LF.
    Ws = 1,
    /// Han, Hiragana and Katakana script, plus eleven Common-script letters used with them.
    Cjk = 2,
    /// General_Category L*, not CJK.
    L = 3,
    /// General_Category M*, not CJK.
    M = 4,
    /// General_Category N*, not CJK.
    N = 5,
    /// Everything else: punctuation, symbols, emoji, controls, unassigned.
    O = 6,
}

impl Class {
    #[inline(always)]
    const fn from_u8(value: u8) -> Class {
        match value {
            0 => Class::Nl,
            1 => Class::Ws,
            2 => Class::Cjk,
            3 => Class::L,
            4 => Class::M,
            5 => Class::N,
            _ => Class::O,
        }
    }

    /// Letters and marks: the body of a word.
    #[inline(always)]
    pub fn is_word(self) -> bool {
        matches!(self, Class::L | Class::M)
    }

    /// Whitespace of either kind.
    #[inline(always)]
    pub fn is_space(self) -> bool {
        matches!(self, Class::Ws | Class::Nl)
    }
}

/// The class of each ASCII byte, taken from the same generated table so the fast path cannot disagree with it.
// Indexing is evaluated at compile time: an out-of-range index would fail the build, not panic at run time.
#[allow(clippy::indexing_slicing)]
static ASCII_CLASSES: [Class; 128] = {
    let mut table = [Class::O; 128];
    let mut i = 0;
    while i < 128 {
        let block = BMP_INDEX[i >> BMP_SHIFT] as usize;
        table[i] = Class::from_u8(BMP_BLOCKS[(block << BMP_SHIFT) | (i & ((1 << BMP_SHIFT) - 1))]);
        i += 1;
    }
    table
};

/// Class of an ASCII byte (`byte < 0x80`).
#[inline(always)]
pub(super) fn ascii_class(byte: u8) -> Class {
    ASCII_CLASSES.get(byte as usize).copied().unwrap_or(Class::O)
}

/// Class of any Unicode scalar value.
#[inline]
pub fn class_of(c: char) -> Class {
    class_of_code_point(c as u32)
}

#[inline(always)]
pub(super) fn class_of_code_point(cp: u32) -> Class {
    if cp < 0x80 {
        return ascii_class(cp as u8);
    }
    if cp < 0x1_0000 {
        let block = BMP_INDEX.get((cp >> BMP_SHIFT) as usize).copied().unwrap_or(0) as usize;
        let offset = (block << BMP_SHIFT) | (cp as usize & ((1 << BMP_SHIFT) - 1));
        return Class::from_u8(BMP_BLOCKS.get(offset).copied().unwrap_or(6));
    }
    astral_class(cp)
}

/// Above the BMP (rare in text): binary search over the ranges that are not O. Kept out of line so the hot
/// BMP path stays small enough to inline.
#[cold]
#[inline(never)]
fn astral_class(cp: u32) -> Class {
    match ASTRAL_RANGES.binary_search_by(|&(first, last, _)| {
        if last < cp {
            std::cmp::Ordering::Less
        } else if first > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => ASTRAL_RANGES.get(i).map_or(Class::O, |&(_, _, class)| Class::from_u8(class)),
        Err(_) => Class::O,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spot_checks_across_the_table() {
        assert_eq!(class_of('\n'), Class::Nl);
        assert_eq!(class_of('\r'), Class::Nl);
        assert_eq!(class_of('\t'), Class::Ws);
        assert_eq!(class_of('\u{a0}'), Class::Ws);
        assert_eq!(class_of('\u{3000}'), Class::Ws);
        assert_eq!(class_of('a'), Class::L);
        assert_eq!(class_of('é'), Class::L);
        assert_eq!(class_of('\u{301}'), Class::M);
        assert_eq!(class_of('\u{fe0f}'), Class::M);
        assert_eq!(class_of('7'), Class::N);
        assert_eq!(class_of('½'), Class::N);
        assert_eq!(class_of('世'), Class::Cjk);
        assert_eq!(class_of('ー'), Class::Cjk);
        assert_eq!(class_of('〇'), Class::Cjk);
        assert_eq!(class_of('、'), Class::O);
        assert_eq!(class_of('한'), Class::L);
        assert_eq!(class_of('\u{200d}'), Class::O);
        assert_eq!(class_of('😀'), Class::O);
        assert_eq!(class_of('\u{20000}'), Class::Cjk);
        assert_eq!(class_of('\u{1d400}'), Class::L);
        assert_eq!(class_of('\u{e0100}'), Class::M);
        assert_eq!(class_of('\u{10ffff}'), Class::O);
    }

    #[test]
    fn standard_library_agrees_on_numbers_and_white_space() {
        // `char::is_numeric` is \p{N} and `char::is_whitespace` is White_Space; the table must agree
        // wherever the standard library's Unicode version does (it may be older for new characters).
        for cp in (0u32..0x3_0000).filter(|cp| !(0xD800..0xE000).contains(cp)) {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let class = class_of(c);
            if c.is_whitespace() {
                assert!(class.is_space(), "U+{cp:04X} is white space");
            }
            if class.is_space() {
                assert!(c.is_whitespace(), "U+{cp:04X} is not white space");
            }
            if c.is_numeric() && class != Class::Cjk {
                assert_eq!(class, Class::N, "U+{cp:04X} is numeric");
            }
        }
    }
}
