//! Classifies 64 bytes at once into one bit mask per ASCII class (bit `k` is byte `k`), for the block path.
//!
//! On x86_64 this uses AVX2 where the CPU has it (detected at run time), else SSE2, which every x86_64 CPU has.
//! Elsewhere
//! (wasm32, aarch64, ...) it uses portable SWAR arithmetic on `u64` words. The masks are only meaningful for
//! ASCII bytes: the caller rejects a block whose `non_ascii` mask is not zero.

/// Which of 64 bytes belong to each class the block rules need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ClassMasks {
    /// `A-Z a-z` (class L).
    pub letter: u64,
    /// `0-9` (class N).
    pub digit: u64,
    /// Space, tab, vertical tab, form feed: white space other than a newline (class WS).
    pub space: u64,
    /// U+0020 alone: the one white-space character that may lead a run of punctuation.
    pub blank: u64,
    /// LF and CR (class NL).
    pub newline: u64,
    /// `'`: a contraction may start here.
    pub apostrophe: u64,
    /// Bytes >= 0x80: the block is not ASCII.
    pub non_ascii: u64,
}

/// Classifies `chunk` (64 bytes).
#[inline(always)]
pub(super) fn classify(chunk: &[u8; 64]) -> ClassMasks {
    #[cfg(target_arch = "x86_64")]
    {
        // Detected once; afterwards a load and a well-predicted branch per block.
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, detected just above.
            unsafe { classify_avx2(chunk) }
        } else {
            // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
            unsafe { classify_sse2(chunk) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        classify_swar(chunk)
    }
}

/// Runs `work` (a loop over blocks) compiled for x86-64-v3 when the CPU is one: the block rules then use BMI
/// (`andn`, `tzcnt`, `blsr`) and `popcnt`, and the AVX2 classification is inlined into them. Elsewhere, as is.
#[inline(always)]
pub(super) fn with_best_instructions<R>(work: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has these features, detected just above.
        return unsafe { on_x86_64_v3(work) };
    }
    work()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,popcnt")]
#[inline]
fn on_x86_64_v3<R>(work: impl FnOnce() -> R) -> R {
    work()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn classify_sse2(chunk: &[u8; 64]) -> ClassMasks {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };
    let bits = |lanes: __m128i| u64::from(_mm_movemask_epi8(lanes) as u16);
    // `lo..=hi` in one comparison: shifted so that `lo` lands on -128, the range is the bytes below -128 + its
    // length (signed). Right for ASCII; other bytes only matter through `non_ascii`.
    let between = |v: __m128i, lo: u8, hi: u8| {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
        _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8.wrapping_add(hi - lo + 1)) as i8))
    };
    let is = |v: __m128i, byte: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
    let mut masks = ClassMasks::default();
    for (k, part) in chunk.chunks_exact(16).enumerate() {
        // SAFETY: `part` is 16 readable bytes and `loadu` has no alignment requirement.
        let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
        let shift = 16 * k;
        masks.letter |= bits(between(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', b'z')) << shift;
        masks.digit |= bits(between(v, b'0', b'9')) << shift;
        let blank = is(v, b' ');
        masks.blank |= bits(blank) << shift;
        let newline = _mm_or_si128(is(v, b'\n'), is(v, b'\r'));
        masks.newline |= bits(newline) << shift;
        // Tab, LF, VT, FF, CR less LF and CR.
        let controls = _mm_andnot_si128(newline, between(v, 0x09, 0x0D));
        masks.space |= bits(_mm_or_si128(blank, controls)) << shift;
        masks.apostrophe |= bits(is(v, b'\'')) << shift;
        masks.non_ascii |= bits(v) << shift;
    }
    masks
}

/// The same with AVX2, 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn classify_avx2(chunk: &[u8; 64]) -> ClassMasks {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    let bits = |lanes: __m256i| u64::from(_mm256_movemask_epi8(lanes) as u32);
    // As in `classify_sse2`; AVX2 has no signed "less than", so the comparison is turned around.
    let between = |v: __m256i, lo: u8, hi: u8| {
        let shifted = _mm256_add_epi8(v, _mm256_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
        _mm256_cmpgt_epi8(_mm256_set1_epi8((0x80u8.wrapping_add(hi - lo + 1)) as i8), shifted)
    };
    let is = |v: __m256i, byte: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8));
    let mut masks = ClassMasks::default();
    for (k, part) in chunk.chunks_exact(32).enumerate() {
        // SAFETY: `part` is 32 readable bytes and `loadu` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(part.as_ptr().cast::<__m256i>()) };
        let shift = 32 * k;
        masks.letter |= bits(between(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), b'a', b'z')) << shift;
        masks.digit |= bits(between(v, b'0', b'9')) << shift;
        let blank = is(v, b' ');
        masks.blank |= bits(blank) << shift;
        let newline = _mm256_or_si256(is(v, b'\n'), is(v, b'\r'));
        masks.newline |= bits(newline) << shift;
        let controls = _mm256_andnot_si256(newline, between(v, 0x09, 0x0D));
        masks.space |= bits(_mm256_or_si256(blank, controls)) << shift;
        masks.apostrophe |= bits(is(v, b'\'')) << shift;
        masks.non_ascii |= bits(v) << shift;
    }
    masks
}

/// The same classification with SWAR arithmetic on eight bytes at a time.
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn classify_swar(chunk: &[u8; 64]) -> ClassMasks {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const fn splat(byte: u8) -> u64 {
        0x0101_0101_0101_0101 * byte as u64
    }
    // For ASCII lanes: the high bit is set where the lane is >= lo (resp. > hi); no carry crosses lanes.
    let at_least = |w: u64, lo: u8| w.wrapping_add(splat(0x80 - lo)) & HIGH;
    let above = |w: u64, hi: u8| w.wrapping_add(splat(0x7F - hi)) & HIGH;
    let between = |w: u64, lo: u8, hi: u8| at_least(w, lo) & !above(w, hi);
    let is = |w: u64, byte: u8| between(w, byte, byte);
    // The high bits of the eight lanes, gathered into the low eight bits (lane i -> bit i) by one multiply.
    let gather = |lanes: u64| ((lanes >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
    let mut masks = ClassMasks::default();
    for (k, part) in chunk.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(part);
        let w = u64::from_le_bytes(word);
        let shift = 8 * k;
        masks.letter |= gather(between(w | splat(0x20), b'a', b'z')) << shift;
        masks.digit |= gather(between(w, b'0', b'9')) << shift;
        let blank = is(w, b' ');
        masks.blank |= gather(blank) << shift;
        masks.space |= gather(blank | is(w, 0x09) | is(w, 0x0B) | is(w, 0x0C)) << shift;
        masks.newline |= gather(is(w, b'\n') | is(w, b'\r')) << shift;
        masks.apostrophe |= gather(is(w, b'\'')) << shift;
        masks.non_ascii |= gather(w & HIGH) << shift;
    }
    masks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte by byte, the obvious way.
    fn classify_bytewise(chunk: &[u8; 64]) -> ClassMasks {
        let mut masks = ClassMasks::default();
        for (k, &b) in chunk.iter().enumerate() {
            let bit = 1u64 << k;
            let set = |mask: &mut u64, yes: bool| {
                if yes {
                    *mask |= bit;
                }
            };
            if b >= 0x80 {
                set(&mut masks.non_ascii, true);
                continue;
            }
            set(&mut masks.letter, b.is_ascii_alphabetic());
            set(&mut masks.digit, b.is_ascii_digit());
            set(&mut masks.space, matches!(b, b' ' | 0x09 | 0x0B | 0x0C));
            set(&mut masks.blank, b == b' ');
            set(&mut masks.newline, matches!(b, b'\n' | b'\r'));
            set(&mut masks.apostrophe, b == b'\'');
        }
        masks
    }

    #[test]
    fn every_ascii_byte_in_every_lane_is_classified_as_bytewise() {
        for offset in 0..128u8 {
            let chunk: [u8; 64] = std::array::from_fn(|k| (k as u8).wrapping_mul(7).wrapping_add(offset) & 0x7F);
            let expected = classify_bytewise(&chunk);
            assert_eq!(classify(&chunk), expected, "offset {offset}");
            assert_eq!(classify_swar(&chunk), expected, "offset {offset}");
            // SAFETY: SSE2 is part of the x86_64 baseline.
            #[cfg(target_arch = "x86_64")]
            assert_eq!(unsafe { classify_sse2(&chunk) }, expected, "offset {offset}");
        }
    }

    #[test]
    fn non_ascii_bytes_are_flagged_in_their_lane() {
        for lane in 0..64 {
            let mut chunk = [b'a'; 64];
            chunk[lane] = 0x80 | lane as u8;
            assert_eq!(classify(&chunk).non_ascii, 1 << lane);
            assert_eq!(classify_swar(&chunk).non_ascii, 1 << lane);
        }
    }
}
