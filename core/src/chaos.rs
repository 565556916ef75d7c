//! Seeded chaos: provider failures injected at given rates, drawn from the seed and the request's journal index, so
//! the same run fails the same requests in every language (aimock's chaos is `Math.random`, and cannot be replayed).
//!
//! A chaos failure stands in for the provider failing before the script is reached: the route's step is not used,
//! so the request a client retries gets the step the failed one would have had. It is journaled as a scripted
//! failure is (`outcome: failed`, with its `error`), and marked `chaos: true`.

use crate::provider_error::{ProviderError, ProviderErrorKind};
use crate::seeded::draw_kind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `chaos` setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chaos {
    /// The seed of the draws (default: the scenario's `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The probability of each failure kind per request (`{"rate_limited": 0.05, "server_error": 0.02}`); the
    /// kinds are those of `fail.kind` but `custom`, and the rates add up to at most 1 (`problem` checks). A JSON
    /// map rather than a map of numbers: the WASM module already carries its code (a `BTreeMap<String, f64>`
    /// cost it 5 KB).
    pub rates: Map<String, Value>,
    /// The routes (by index) whose requests may fail; all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<usize>>,
    /// The `retry-after` of a chaos failure that has a status, in milliseconds (none by default: the client's own
    /// back-off, about 0.5 to 8 s in the official SDKs). `1` makes them retry almost at once; openai-python takes
    /// only a value above 0 (at 0 it backs off as without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

/// `seeded::request_seed`'s purpose for chaos ("chaos" in ASCII).
const PURPOSE: u64 = 0x0063_6861_6f73;

impl Chaos {
    /// What is wrong with the setting, if anything: `(field path below "chaos", problem)`. `route_count` is the
    /// number of routes, when known (a scenario), to check `routes`.
    pub fn problem(&self, route_count: Option<usize>) -> Option<(String, String)> {
        let kinds: Vec<&str> =
            ProviderErrorKind::ALL.iter().filter(|k| **k != ProviderErrorKind::Custom).map(|k| k.code()).collect();
        if let Some(problem) = crate::seeded::rates_problem(&self.rates, &kinds, "a failure kind") {
            return Some(problem);
        }
        if let (Some(routes), Some(count)) = (&self.routes, route_count) {
            if let Some(missing) = routes.iter().find(|r| **r >= count) {
                return Some(("routes".into(), format!("there is no route {missing}: the scenario has {count}")));
            }
        }
        None
    }

    /// The failure chaos injects into request `index` taken by route `route`, if any.
    pub(crate) fn failure_for(&self, scenario_seed: u64, index: u64, route: usize) -> Option<ProviderError> {
        if self.routes.as_ref().is_some_and(|routes| !routes.contains(&route)) {
            return None;
        }
        let kinds = ProviderErrorKind::ALL.into_iter().map(|kind| (kind, kind.code()));
        let kind = draw_kind(&self.rates, self.seed.unwrap_or(scenario_seed), PURPOSE, index, kinds)?;
        let error = ProviderError::new(kind).with_message(format!("{} (cuecard chaos)", kind.default_message()));
        Some(match self.retry_after_ms {
            Some(ms) if kind.default_status().is_some() => error.with_retry_after_ms(ms),
            _ => error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chaos(rates: &[(&str, f64)]) -> Chaos {
        Chaos {
            seed: Some(1),
            rates: rates.iter().map(|(k, r)| (k.to_string(), Value::from(*r))).collect(),
            routes: None,
            retry_after_ms: None,
        }
    }

    #[test]
    fn failures_come_at_their_rates_and_the_same_ones_each_time() {
        let chaos = chaos(&[("rate_limited", 0.05), ("server_error", 0.02), ("connection_reset", 0.01)]);
        let draws: Vec<Option<ProviderErrorKind>> =
            (0..100_000).map(|i| chaos.failure_for(0, i, 0).map(|e| e.kind)).collect();
        let share = |kind| draws.iter().filter(|d| **d == Some(kind)).count() as f64 / 100_000.0;
        assert!((share(ProviderErrorKind::RateLimited) - 0.05).abs() < 0.003);
        assert!((share(ProviderErrorKind::ServerError) - 0.02).abs() < 0.002);
        assert!((share(ProviderErrorKind::ConnectionReset) - 0.01).abs() < 0.0015);
        let again: Vec<_> = (0..100_000).map(|i| chaos.failure_for(0, i, 0).map(|e| e.kind)).collect();
        assert_eq!(draws, again);
    }

    #[test]
    fn only_the_named_routes_fail_and_retry_after_is_set() {
        let mut chaos = chaos(&[("rate_limited", 1.0)]);
        chaos.routes = Some(vec![1]);
        chaos.retry_after_ms = Some(1);
        assert!(chaos.failure_for(0, 0, 0).is_none());
        let error = chaos.failure_for(0, 0, 1).unwrap();
        assert_eq!((error.kind, error.retry_after_ms), (ProviderErrorKind::RateLimited, Some(1)));
        chaos.rates = [("connection_reset".to_string(), Value::from(1.0))].into_iter().collect();
        assert_eq!(chaos.failure_for(0, 0, 1).unwrap().retry_after_ms, None);
    }

    #[test]
    fn bad_settings_are_named() {
        assert_eq!(chaos(&[("flaky", 0.1)]).problem(None).unwrap().0, "rates.flaky");
        assert_eq!(chaos(&[("custom", 0.1)]).problem(None).unwrap().0, "rates.custom");
        assert_eq!(chaos(&[("timeout", 1.5)]).problem(None).unwrap().0, "rates.timeout");
        let mut text = chaos(&[]);
        text.rates.insert("timeout".into(), Value::from("often"));
        assert_eq!(text.problem(None).unwrap(), ("rates.timeout".into(), "\"often\" is not a number".into()));
        assert_eq!(chaos(&[("timeout", 0.6), ("overloaded", 0.6)]).problem(None).unwrap().0, "rates");
        let mut routes = chaos(&[("timeout", 0.1)]);
        routes.routes = Some(vec![3]);
        assert_eq!(routes.problem(Some(2)).unwrap().0, "routes");
        assert!(routes.problem(Some(4)).is_none());
    }
}
