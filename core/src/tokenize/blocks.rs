//! The block path: the token starts among 64 ASCII bytes at once, as one bit mask (bit `k` is byte `k`).
//!
//! On ASCII the rules of `docs/concepts/tokens.md` reduce to conditions on a byte's class and the classes just before and
//! after it, plus four things that look further: digit groups of three, the newlines a punctuation run takes
//! with it, the last newline of a white-space run, and contractions. Each is below with the rule it comes from.
//! The scalar scanner (`scalar.rs`) is the reference: a fuzz target and a proptest compare the two byte for byte.
//!
//! Why each start is a start (L letters, N digits, WS white space other than CR/LF, NL CR/LF, O anything else):
//! - a letter starts a token unless a letter is before it, or the character before it leads the word (rule 2):
//!   any WS (it is always the last of its run, so a token starts there), or an O that starts a token and is
//!   alone in its run (a longer run of O is taken whole by rule 5: `...wait` is `...`, `wait`);
//! - an O starts a token unless an O is before it (rule 5 takes the whole run) or U+0020 is (which leads it);
//! - digits: the first of a run, then every third (rule 3);
//! - a NL starts a token when its white-space run starts with it, unless an O is before it: a punctuation run
//!   takes the newlines that follow it (rule 5, `end.\n\n`), and the run's tokens then start after them;
//! - a WS starts a token when it starts its white-space run, or right after the newlines a punctuation run took,
//!   or right after the run's last NL (rule 7) if the run ends before a non-space, or when it is the last of its
//!   run before a non-space (rule 8 leaves it; it is then a token of one, or leads a word or punctuation);
//!   a run that reaches the end of the text is one token (rule 6), which needs no case here;
//! - a contraction (`'s`, `'ll`, rule 1) at an apostrophe that starts a token ends inside the word after it.
//!
//! A block reads two bytes after it: one for "the next character", two for `'ll`, `'ve`, `'re`. The first block after the scalar path starts at a token start with
//! an empty [`Carry`]: whatever came before, every rule above then agrees that this byte starts a token, and no
//! rule looks further back than the token it is in.

use super::classes::Class;
use super::lanes::{classify, ClassMasks};
use super::scalar::{class_at, contraction_len};

/// The token starts that one block found.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockStarts {
    /// Bit `k`: a token starts at byte `k` of the block.
    pub starts: u64,
    /// The next block may go on from this one: all of its bytes were ASCII. (If the next one's first bytes are
    /// not, it knows no start and says so.) Otherwise
    /// `starts` holds only the starts before the first byte that was not ASCII (or the end of the text), less one
    /// (a start needs the character after it), and the scalar scanner takes over from the last of them.
    pub goes_on: bool,
}

/// What a block hands to the next one, packed in one word so that it passes in a register (the iterator's state
/// then stays in registers too): the top bits of its masks (the next block reads them as "the byte before"), and
/// the runs still open at its end. Bit layout: the `*_TOP` constants below.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Carry(u32);

impl Carry {
    const LETTER_TOP: u32 = 0;
    const SPACE_TOP: u32 = 1;
    const BLANK_TOP: u32 = 2;
    const WHITE_TOP: u32 = 3;
    const OTHER_TOP: u32 = 4;
    const OTHER_START_TOP: u32 = 5;
    const NEWLINE_TOP: u32 = 6;
    /// Two bits: the digit mask's bits 62 and 63 (the digit rule looks two bytes back).
    const DIGIT_TOP_TWO: u32 = 7;
    /// Three bits: the digit-group starts among the last three bytes.
    const DIGIT_GROUPS_TOP_THREE: u32 = 9;
    /// The newlines a punctuation run takes continue past the block's end.
    const ABSORBING_NEWLINES: u32 = 12;
    /// Three bits: token starts in the next block's first three bytes that a contraction put there.
    const SPILLED_STARTS: u32 = 13;

    /// `width` bits from `at`, as the low bits of a mask.
    #[inline(always)]
    fn bits(self, at: u32, width: u32) -> u64 {
        u64::from(self.0 >> at) & ((1 << width) - 1)
    }

    /// The top `width` bits of `mask`, placed at `at`.
    #[inline(always)]
    fn top(mask: u64, width: u32, at: u32) -> u32 {
        ((mask >> (64 - width)) as u32) << at
    }
}

/// Bit `p` set where bit `p - 1` of `mask` is, the bit below 0 coming from the previous block's mask (its top bit,
/// kept in `carry` at `top`).
#[inline(always)]
fn shifted(mask: u64, carry: Carry, top: u32) -> u64 {
    (mask << 1) | carry.bits(top, 1)
}

/// The token starts among `bytes[base..base + 64]`, given the previous block's [`Carry`] (which is updated), or
/// `None` when the block holds none that can be known (its first two bytes are not both ASCII).
// Inlined only into `count_by_blocks` (a loop over blocks) and `next_block` (one block for the iterator), neither of
// them inlined: the carry stays in registers from block to block and the per-token loops stay small.
#[inline(always)]
pub(super) fn block_starts(bytes: &[u8], base: usize, carry: &mut Carry) -> Option<BlockStarts> {
    let masks = match bytes.get(base..base + 64).and_then(|c| c.try_into().ok()) {
        Some(chunk) => classify(chunk),
        None => classify_last(bytes.get(base..)?),
    };
    let present = u64::MAX.checked_shl((bytes.len() - base) as u32).map_or(u64::MAX, |absent| !absent);
    let unknown = masks.non_ascii | !present;
    let ahead = |k: usize| bytes.get(base + 64 + k).copied().filter(u8::is_ascii);
    // The first byte that is not ASCII or not there, and the bits of the starts that can be known before it.
    let (first_unknown, known) = if unknown != 0 {
        let first = unknown.trailing_zeros();
        (first, if first == 0 { 0 } else { (1u64 << (first - 1)) - 1 })
    } else if ahead(0).is_none() {
        (64, u64::MAX >> 1)
    } else {
        (64, u64::MAX)
    };
    if known == 0 {
        return None;
    }
    let goes_on = unknown == 0;

    let letter = masks.letter;
    let digit = masks.digit;
    let space = masks.space;
    let blank = masks.blank;
    let newline = masks.newline;
    let white = space | newline;
    let other = !(letter | digit | white);

    let letter_before = shifted(letter, *carry, Carry::LETTER_TOP);
    let space_before = shifted(space, *carry, Carry::SPACE_TOP);
    let blank_before = shifted(blank, *carry, Carry::BLANK_TOP);
    let white_before = shifted(white, *carry, Carry::WHITE_TOP);
    let other_before = shifted(other, *carry, Carry::OTHER_TOP);
    let newline_before = shifted(newline, *carry, Carry::NEWLINE_TOP);
    let digit_before = (digit << 1) | carry.bits(Carry::DIGIT_TOP_TWO + 1, 1);

    // Rule 5: a run of O is one token from its first character, or from the U+0020 that leads it.
    let other_start = other & !other_before & !blank_before;
    let other_start_before = shifted(other_start, *carry, Carry::OTHER_START_TOP);
    // Rule 2: a word starts with its first letter unless a WS or a lone token-starting O leads it.
    let word_led = space_before | (other_before & other_start_before);
    let letter_start = letter & !letter_before & !word_led;

    // Rule 3: the first digit of a run, then every third one while the run goes on.
    let three_digits = digit & digit_before & ((digit << 2) | carry.bits(Carry::DIGIT_TOP_TWO, 2));
    let mut digit_groups = (digit & !digit_before) | (carry.bits(Carry::DIGIT_GROUPS_TOP_THREE, 3) & three_digits);
    loop {
        let more = digit_groups | ((digit_groups << 3) & three_digits);
        if more == digit_groups {
            break;
        }
        digit_groups = more;
    }

    // Rules 5-7 for newlines: a white-space run starting with NL starts there, unless punctuation took them.
    let newline_start = newline & !white_before & !other_before;
    // The first WS after the newlines a punctuation run took: add one at the start of each such newline run, and
    // the carry lands on the byte after it (or leaves the block and lands on the next block's first byte).
    let taken_newlines = newline & other_before;
    let (sum, out_first) = newline.overflowing_add(taken_newlines);
    let (sum, out_second) = sum.overflowing_add(carry.bits(Carry::ABSORBING_NEWLINES, 1));
    let after_taken_newlines = sum & space;
    let absorbing_newlines = out_first || out_second;

    // Rules 8-9: the last WS of a run before a non-space starts a token.
    let non_space = !white;
    let next_non_space = (non_space >> 1) | (u64::from(ahead(0).is_some_and(|b| !is_white(b))) << 63);
    let last_of_run = space & next_non_space;
    // Rule 7: the WS right after a run's last NL, when the run goes on to a non-space.
    let after_last_newline =
        after_last_newline(bytes, base, first_unknown, space, non_space, space & newline_before & known);

    // Rule 1: contractions end inside the word after the apostrophe (apostrophes are rare: one at a time).
    let (contraction_ends, spilled) = contraction_ends(bytes, base, masks.apostrophe & other_start);

    let starts = letter_start
        | digit_groups
        | other_start
        | newline_start
        | (space & !white_before)
        | after_taken_newlines
        | last_of_run
        | after_last_newline
        | contraction_ends
        | carry.bits(Carry::SPILLED_STARTS, 3);

    // A contraction is at most three bytes long, so what it spills lands in the next block's first three.
    debug_assert!(spilled < 1 << 3);
    *carry = Carry(
        Carry::top(letter, 1, Carry::LETTER_TOP)
            | Carry::top(space, 1, Carry::SPACE_TOP)
            | Carry::top(blank, 1, Carry::BLANK_TOP)
            | Carry::top(white, 1, Carry::WHITE_TOP)
            | Carry::top(other, 1, Carry::OTHER_TOP)
            | Carry::top(other_start, 1, Carry::OTHER_START_TOP)
            | Carry::top(newline, 1, Carry::NEWLINE_TOP)
            | Carry::top(digit, 2, Carry::DIGIT_TOP_TWO)
            | Carry::top(digit_groups, 3, Carry::DIGIT_GROUPS_TOP_THREE)
            | (u32::from(absorbing_newlines) << Carry::ABSORBING_NEWLINES)
            | ((spilled as u32 & 0b111) << Carry::SPILLED_STARTS),
    );
    // `known` lies below the first unknown byte, so `& !unknown` changes nothing here. It is written out because the
    // iterator cuts its slices at these starts without checking char boundaries (`Tokens::slice`), and this line
    // alone makes that sound: every start is an ASCII byte inside the text.
    Some(BlockStarts { starts: starts & known & !unknown, goes_on })
}

/// The classes of the text's last bytes (fewer than 64), padded: the bytes past the end are cut off by the
/// caller, like bytes that are not ASCII.
#[cold]
fn classify_last(rest: &[u8]) -> ClassMasks {
    let mut padded = [0u8; 64];
    if let Some(start) = padded.get_mut(..rest.len()) {
        start.copy_from_slice(rest);
    }
    classify(&padded)
}

/// CR, LF, space, tab, vertical tab, form feed: the ASCII members of WS and NL.
#[inline(always)]
fn is_white(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Of the WS bytes right after a NL (`candidates`), those whose WS run ends at a non-space: the run holds no
/// further NL, so rule 7's token ended at that NL. A run that reaches a byte the masks do not know (past the
/// block, or not ASCII) is followed in the text.
#[inline(always)]
fn after_last_newline(
    bytes: &[u8],
    base: usize,
    first_unknown: u32,
    space: u64,
    non_space: u64,
    mut candidates: u64,
) -> u64 {
    let mut starts = 0;
    while candidates != 0 {
        let p = candidates.trailing_zeros();
        candidates &= candidates - 1;
        let run_end = (!space & (u64::MAX << p)).trailing_zeros();
        let ends_at_non_space = if run_end < first_unknown {
            non_space >> run_end & 1 == 1
        } else {
            run_goes_on_to_non_space(bytes, base + run_end as usize)
        };
        if ends_at_non_space {
            starts |= 1 << p;
        }
    }
    starts
}

/// Whether the WS run going on at `i` ends at a non-space, rather than at a NL or the end of the text.
#[cold]
fn run_goes_on_to_non_space(bytes: &[u8], mut i: usize) -> bool {
    while let Some((class, len)) = class_at(bytes, i) {
        match class {
            Class::Ws => i += len,
            Class::Nl => return false,
            _ => return true,
        }
    }
    false
}

/// The ends of the contractions at the given apostrophes: in this block, and those past its end (for the next).
#[inline(always)]
fn contraction_ends(bytes: &[u8], base: usize, mut apostrophes: u64) -> (u64, u64) {
    let (mut here, mut next) = (0u64, 0u64);
    while apostrophes != 0 {
        let p = apostrophes.trailing_zeros() as usize;
        apostrophes &= apostrophes - 1;
        if let Some(len) = contraction_len(bytes, base + p) {
            let end = p + len;
            if end < 64 {
                here |= 1 << end;
            } else {
                next |= 1 << (end - 64);
            }
        }
    }
    (here, next)
}
