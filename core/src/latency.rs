//! Latency profiles: time to first token and inter-token latency drawn from seeded log-normal distributions, given
//! by their median and 99th percentile as an operator reads them off a dashboard.
//!
//! Why log-normal: model latencies are positive and right-skewed (a long tail of slow tokens), and a log-normal is
//! the simplest distribution fixed by exactly the two numbers people quote, p50 and p99: `ln X ~ N(μ, σ)` with
//! `μ = ln p50` and `σ = ln(p99 / p50) / z₀.₉₉`. A draw is `p50 · exp(σ · Φ⁻¹(u))` for a seeded uniform `u`.
//!
//! The draws land on the virtual clock (the events' `delay_ms`), so `instant` mode keeps them as recorded times
//! while skipping the waits, and the server waits them out otherwise. Every function here uses only IEEE-754
//! addition, multiplication, division and square root, which are exactly rounded on every platform: `f64::ln` and
//! `f64::exp` call the platform's libm (glibc natively, Rust's port of musl in WASM), whose last bits may differ,
//! and a draw must be the same number in every language.

use crate::seeded::{mix, request_seed, Seeded};
use serde::{Deserialize, Serialize};

/// The `latency` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// The seed of the draws (default: the scenario's `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Time to first token, per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<Percentiles>,
    /// Inter-token latency, per token after the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itl_ms: Option<Percentiles>,
}

/// A distribution given by its median and 99th percentile, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Percentiles {
    /// The median.
    pub p50: u64,
    /// The 99th percentile (at least the median; equal to it makes every draw the median).
    pub p99: u64,
}

const TTFT: u64 = 0x7474_6674; // "ttft"
const ITL: u64 = 0x0069_746c; // "itl"

impl Latency {
    /// What is wrong with the setting, if anything: `(field below "latency", problem)`.
    pub fn problem(&self) -> Option<(String, String)> {
        for (field, percentiles) in [("ttft_ms", self.ttft_ms), ("itl_ms", self.itl_ms)] {
            let Some(p) = percentiles else { continue };
            if p.p50 == 0 || p.p99 < p.p50 {
                return Some((field.into(), format!("p50 {} and p99 {}: need 0 < p50 <= p99", p.p50, p.p99)));
            }
            if p.p99 > crate::clock::MAX_WAIT_MS {
                return Some((format!("{field}.p99"), format!("{} ms is longer than a day", p.p99)));
            }
        }
        None
    }

    /// The draws of request `index`, for a mock seeded `scenario_seed`.
    pub(crate) fn for_request(&self, scenario_seed: u64, index: u64) -> RequestLatency {
        let seed = self.seed.unwrap_or(scenario_seed);
        RequestLatency {
            ttft_ms: self.ttft_ms.map(|p| p.draw(Seeded::new(request_seed(seed, TTFT, index)).unit())),
            itl: self.itl_ms.map(|p| TokenLatency { seed: request_seed(seed, ITL, index), p50: p.p50, p99: p.p99 }),
        }
    }
}

/// One request's latency: its time to first token, and how its inter-token latencies are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RequestLatency {
    pub ttft_ms: Option<u64>,
    pub itl: Option<TokenLatency>,
}

/// The inter-token latencies of one request: token `k`'s is a function of the request's seed and `k`, so they can
/// be summed without making the events, in any order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TokenLatency {
    seed: u64,
    p50: u64,
    p99: u64,
}

impl TokenLatency {
    /// The wait before delta `k` (`k` ≥ 1: the first delta waits the time to first token instead).
    pub(crate) fn before_delta(&self, k: u64) -> u64 {
        let percentiles = Percentiles { p50: self.p50, p99: self.p99 };
        percentiles.draw(Seeded::new(mix(self.seed ^ k)).unit())
    }
}

/// z of the 99th percentile of the standard normal distribution.
const Z99: f64 = 2.326_347_874_040_840_8;

impl Percentiles {
    /// The log-normal quantile at `u` (in [0, 1)), in whole milliseconds.
    fn draw(self, u: f64) -> u64 {
        if self.p99 == self.p50 {
            return self.p50;
        }
        let sigma = ln(self.p99 as f64 / self.p50 as f64) / Z99;
        let value = self.p50 as f64 * exp(sigma * inverse_normal(u));
        // Rounded to the millisecond, capped at a day (a far tail of a wide profile).
        (value + 0.5).min(crate::clock::MAX_WAIT_MS as f64) as u64
    }
}

const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LN2: f64 = std::f64::consts::LN_2;

/// e^x for |x| < 700, to about 1 ulp: x = k·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series (terms to
/// r¹⁴/14!), then scaled by 2^k through the exponent bits.
pub(crate) fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let k = (x / LN2 + if x < 0.0 { -0.5 } else { 0.5 }) as i64; // rounded to the nearest
    let r = (x - k as f64 * LN2_HI) - k as f64 * LN2_LO;
    let mut term = 1.0;
    let mut sum = 1.0;
    for n in 1..=14 {
        term = term * r / f64::from(n);
        sum += term;
    }
    sum * f64::from_bits(((k + 1023) as u64) << 52)
}

/// ln x for a positive, normal x: x = m·2^e with m in [√½, √2), ln m = 2·atanh(s) with s = (m − 1)/(m + 1),
/// |s| < 0.172, by its series (terms to s²³).
pub(crate) fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000); // in [1, 2)
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut power = s;
    let mut sum = 0.0;
    for n in 0..12 {
        sum += power / f64::from(2 * n + 1);
        power *= s2;
    }
    e as f64 * LN2_HI + (2.0 * sum + e as f64 * LN2_LO)
}

/// Φ⁻¹(u), the standard normal quantile, by Acklam's rational approximation (relative error below 1.2·10⁻⁹),
/// with this module's `ln` and IEEE `sqrt`.
pub(crate) fn inverse_normal(u: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    const LOW: f64 = 0.024_25;
    // u = 0 (a 2⁻⁵³ chance) is the far tail, not infinity.
    let u = u.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if u < LOW {
        tail((-2.0 * ln(u)).sqrt())
    } else if u > 1.0 - LOW {
        -tail((-2.0 * ln(1.0 - u)).sqrt())
    } else {
        let q = u - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_ln_agree_with_the_platform_within_about_four_ulps() {
        for i in -2000..2000 {
            let x = f64::from(i) / 97.0;
            let (ours, std) = (exp(x), x.exp());
            assert!((ours - std).abs() <= std * 1e-15, "exp({x}): {ours} vs {std}");
        }
        for i in 1..4000 {
            let x = f64::from(i) * 0.37;
            let (ours, std) = (ln(x), x.ln());
            assert!((ours - std).abs() <= 1e-15 * std.abs().max(1.0), "ln({x}): {ours} vs {std}");
        }
    }

    #[test]
    fn the_normal_quantile_is_right_at_known_points() {
        for (u, z) in [(0.5, 0.0), (0.975, 1.959_963_984_540_054), (0.99, Z99), (0.001, -3.090_232_306_167_813)] {
            assert!((inverse_normal(u) - z).abs() < 1e-8, "Φ⁻¹({u}) = {} not {z}", inverse_normal(u));
        }
    }

    /// The percentile of sorted draws, nearest rank.
    fn percentile(sorted: &[u64], p: f64) -> f64 {
        sorted[((p * sorted.len() as f64).ceil() as usize).saturating_sub(1)] as f64
    }

    #[test]
    fn ten_thousand_draws_have_the_scripted_p50_and_p99_within_5_percent() {
        let profile = Latency {
            seed: Some(11),
            ttft_ms: Some(Percentiles { p50: 400, p99: 1500 }),
            itl_ms: Some(Percentiles { p50: 30, p99: 120 }),
        };
        let mut ttft: Vec<u64> = (0..10_000).map(|i| profile.for_request(0, i).ttft_ms.unwrap()).collect();
        let itl = profile.for_request(0, 0).itl.unwrap();
        let mut tokens: Vec<u64> = (1..=10_000).map(|k| itl.before_delta(k)).collect();
        ttft.sort_unstable();
        tokens.sort_unstable();
        for (name, sorted, p50, p99) in [("ttft", &ttft, 400.0, 1500.0), ("itl", &tokens, 30.0, 120.0)] {
            let (got50, got99) = (percentile(sorted, 0.5), percentile(sorted, 0.99));
            assert!((got50 / p50 - 1.0).abs() <= 0.05, "{name} p50 {got50} vs {p50}");
            assert!((got99 / p99 - 1.0).abs() <= 0.05, "{name} p99 {got99} vs {p99}");
        }
    }

    #[test]
    fn a_bad_profile_is_named() {
        let bad = |p50, p99| Latency { seed: None, ttft_ms: Some(Percentiles { p50, p99 }), itl_ms: None }.problem();
        assert_eq!(bad(0, 10).unwrap().0, "ttft_ms");
        assert_eq!(bad(10, 5).unwrap().0, "ttft_ms");
        assert_eq!(bad(10, 100_000_000).unwrap().0, "ttft_ms.p99");
        assert!(bad(10, 10).is_none());
    }
}
