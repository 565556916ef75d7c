//! The one pseudo-random generator of cuecard: SplitMix64 (Steele, Lea and Flood, 2014), written out here
//! because its sequence is part of the product. The same seed must give the same stream cuts, chaos failures and
//! latencies in every language and in every release, so the generator cannot be a library whose sequence may
//! change between versions. SplitMix64 is small, passes BigCrush, and any 64-bit seed (0 included) is a good one.
//!
//! Each use draws from its own stream: [`Seeded::for_use`] mixes the scenario's seed, what the numbers are for
//! (a constant per feature) and the request's index, so turning one feature on does not move another's draws.
//!
//! The one digest is here too, for the same reason: FNV-1a (64 bits) names a recorded answer in a file, signs a
//! thinking block, places a word in an embedding and keys a request match, and each must stay the same in every
//! release.

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub(crate) struct Seeded {
    state: u64,
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a bijective mix of 64 bits.
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of one request's draws for one feature (`purpose` is a constant of that feature).
pub(crate) const fn request_seed(seed: u64, purpose: u64, request_index: u64) -> u64 {
    mix(mix(seed ^ mix(purpose)).wrapping_add(request_index.wrapping_mul(GOLDEN_GAMMA)))
}

/// FNV-1a's 64-bit offset basis: the digest of no bytes.
pub(crate) const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a's step: the digest so far with one more byte.
pub(crate) const fn fnv1a64_step(hash: u64, byte: u8) -> u64 {
    (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

/// The 64-bit FNV-1a digest of `bytes`.
pub(crate) fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(FNV_OFFSET_BASIS, fnv1a64_step)
}

impl Seeded {
    /// A generator from a seed.
    pub(crate) const fn new(seed: u64) -> Seeded {
        Seeded { state: seed }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix(self.state)
    }

    /// A number in `0..bound` (`bound` ≥ 1), by Lemire's multiply-shift (the bias is below 2⁻³² for the small
    /// bounds used here, and the result is the same on every platform).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound.max(1))) >> 64) as u64
    }

    /// A number in `low..=high`.
    pub(crate) fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.below(high.saturating_sub(low).saturating_add(1))
    }

    /// A float in `[0, 1)` with 53 random bits (exact: no rounding differs between platforms).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `numerator / denominator`.
    pub(crate) fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }
}

/// Rates per kind (`{"rate_limited": 0.05}`), as the `chaos` and `answer_faults` settings give them: what is wrong
/// with them (`(field below the setting, problem)`), given the kinds that exist.
pub(crate) fn rates_problem(
    rates: &serde_json::Map<String, serde_json::Value>,
    kinds: &[&str],
    what: &str,
) -> Option<(String, String)> {
    let mut total = 0.0;
    for (kind, rate) in rates {
        let Some(rate) = rate.as_f64() else {
            return Some((format!("rates.{kind}"), format!("{rate} is not a number")));
        };
        if !kinds.contains(&kind.as_str()) {
            return Some((format!("rates.{kind}"), format!("not {what} (one of {})", kinds.join(", "))));
        }
        if !(rate.is_finite() && (0.0..=1.0).contains(&rate)) {
            return Some((format!("rates.{kind}"), format!("{rate} is not a probability from 0 to 1")));
        }
        total += rate;
    }
    (total > 1.0 + 1e-9).then(|| ("rates".into(), format!("the rates add up to {total}, more than 1")))
}

/// The kind drawn at `rates` for one request: one unit draw from `seed`, `purpose` and the request's index, matched
/// against the rates added up in the order of `kinds` (fixed, so a draw means the same however a host ordered the
/// keys); `None` when the draw falls past them all.
pub(crate) fn draw_kind<K: Copy>(
    rates: &serde_json::Map<String, serde_json::Value>,
    seed: u64,
    purpose: u64,
    index: u64,
    kinds: impl IntoIterator<Item = (K, &'static str)>,
) -> Option<K> {
    let draw = Seeded::new(request_seed(seed, purpose, index)).unit();
    let mut upper = 0.0;
    for (kind, name) in kinds {
        upper += rates.get(name).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
        if draw < upper {
            return Some(kind);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_gives_its_published_sequence() {
        // The first outputs for seed 1234567 as published with the reference implementation (Vigna, splitmix64.c).
        let mut generator = Seeded::new(1_234_567);
        let first: Vec<u64> = (0..3).map(|_| generator.next_u64()).collect();
        assert_eq!(first, [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423]);
    }

    #[test]
    fn draws_stay_in_their_bounds_and_cover_them() {
        let mut generator = Seeded::new(7);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let n = generator.between(3, 7);
            assert!((3..=7).contains(&n));
            seen[(n - 3) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn each_request_and_purpose_has_its_own_stream() {
        assert_ne!(request_seed(0, 1, 0), request_seed(0, 1, 1));
        assert_ne!(request_seed(0, 1, 0), request_seed(0, 2, 0));
        assert_eq!(request_seed(5, 1, 9), request_seed(5, 1, 9));
    }
}
