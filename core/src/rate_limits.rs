//! Rate limits: each provider's rate-limit headers on every reply (`x-ratelimit-*` for OpenAI and Azure,
//! `anthropic-ratelimit-*` for Anthropic), and, when asked, the 429 the provider answers once a limit is reached.
//!
//! The model is the one the providers document: one bucket per limit, refilled continuously over a minute, so
//! OpenAI's `x-ratelimit-reset-requests` is the time until the bucket is full again (`120ms` after one request at
//! 500 a minute). A request takes one unit of the requests bucket, and from the tokens bucket what OpenAI reserves:
//! its characters over four (OpenAI's own estimate, cheap enough for every request) plus its `max_tokens`. Time is
//! the virtual clock's, so the same run reports the same headers in every language.

use crate::provider_error::{ProviderError, ProviderErrorKind};
use serde::{Deserialize, Serialize};

/// The `rate_limits` setting. Headers are on by default, with limits no test reaches by accident; `enforce` makes
/// a request past a limit fail as the provider's 429.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimits {
    /// Requests per minute (default 10,000).
    #[serde(default = "default_requests")]
    pub requests_per_minute: u32,
    /// Tokens per minute (default 2,000,000).
    #[serde(default = "default_tokens")]
    pub tokens_per_minute: u32,
    /// Answer a request past a limit with a 429 `rate_limited` failure and its `retry-after-ms` (default false).
    #[serde(default)]
    pub enforce: bool,
    /// Send the headers on every wire reply (default true).
    #[serde(default = "yes")]
    pub headers: bool,
}

const fn default_requests() -> u32 {
    10_000
}

const fn default_tokens() -> u32 {
    2_000_000
}

const fn yes() -> bool {
    true
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        RateLimits {
            requests_per_minute: default_requests(),
            tokens_per_minute: default_tokens(),
            enforce: false,
            headers: true,
        }
    }
}

/// A minute, the window every limit is given over.
const WINDOW_MS: u64 = 60_000;

impl RateLimits {
    /// What is wrong with the setting, if anything: `(field, problem)`.
    pub fn problem(&self) -> Option<(String, String)> {
        [("requests_per_minute", self.requests_per_minute), ("tokens_per_minute", self.tokens_per_minute)]
            .into_iter()
            .find(|(_, limit)| *limit == 0)
            .map(|(field, _)| (field.to_string(), "0 is not a limit (at least 1 a minute)".to_string()))
    }
}

/// Where the limits stand after a request: what its reply reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitReading {
    /// Requests per minute.
    pub requests_limit: u32,
    /// Requests left now.
    pub requests_remaining: u32,
    /// Milliseconds until the requests bucket is full again.
    pub requests_reset_ms: u64,
    /// Tokens per minute.
    pub tokens_limit: u32,
    /// Tokens left now.
    pub tokens_remaining: u32,
    /// Milliseconds until the tokens bucket is full again.
    pub tokens_reset_ms: u64,
    /// The virtual time of the request, in milliseconds (Anthropic's resets are points in time).
    pub at_ms: u64,
}

/// The two buckets. A level is in unit-milliseconds: a unit taken adds a minute's worth (`WINDOW_MS`), and each
/// millisecond drains `limit` of them, so the arithmetic stays in integers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Buckets {
    requests: u64,
    tokens: u64,
    at_ms: u64,
}

/// A request refused because a limit is reached.
pub(crate) struct Throttled {
    pub error: Box<ProviderError>,
    pub reading: RateLimitReading,
}

impl Buckets {
    /// Takes one request costing `tokens` at `at_ms`, or refuses it under `enforce` when a bucket would overflow.
    /// A bucket that is empty always lets a request through (one larger than the whole limit included), so a
    /// client that waits as told always gets through.
    pub(crate) fn take(&mut self, limits: &RateLimits, at_ms: u64, tokens: u64) -> Result<RateLimitReading, Throttled> {
        let elapsed = at_ms.saturating_sub(self.at_ms);
        self.at_ms = self.at_ms.max(at_ms);
        let (request_limit, token_limit) = (u64::from(limits.requests_per_minute), u64::from(limits.tokens_per_minute));
        self.requests = self.requests.saturating_sub(elapsed.saturating_mul(request_limit));
        self.tokens = self.tokens.saturating_sub(elapsed.saturating_mul(token_limit));
        let wanted = [(self.requests, 1, request_limit), (self.tokens, tokens, token_limit)];
        if limits.enforce {
            for (index, (level, cost, limit)) in wanted.into_iter().enumerate() {
                let after = level.saturating_add(cost.saturating_mul(WINDOW_MS));
                let capacity = limit.saturating_mul(WINDOW_MS);
                if level > 0 && after > capacity {
                    let wait_ms = (after - capacity).div_ceil(limit);
                    let used = level.div_ceil(WINDOW_MS);
                    let what = if index == 0 { "requests per min (RPM)" } else { "tokens per min (TPM)" };
                    let message = format!(
                        "Rate limit reached on {what}: Limit {limit}, Used {used}, Requested {cost}. Please try again \
                         in {}.",
                        go_duration(wait_ms)
                    );
                    let error = ProviderError::new(ProviderErrorKind::RateLimited)
                        .with_message(message)
                        .with_retry_after_ms(wait_ms);
                    return Err(Throttled { error: Box::new(error), reading: self.reading(limits, at_ms) });
                }
            }
        }
        self.requests = self.requests.saturating_add(WINDOW_MS);
        self.tokens = self.tokens.saturating_add(tokens.saturating_mul(WINDOW_MS));
        Ok(self.reading(limits, at_ms))
    }

    fn reading(&self, limits: &RateLimits, at_ms: u64) -> RateLimitReading {
        let remaining = |level: u64, limit: u32| {
            let used = level.div_ceil(WINDOW_MS);
            u32::try_from(u64::from(limit).saturating_sub(used)).unwrap_or(0)
        };
        RateLimitReading {
            requests_limit: limits.requests_per_minute,
            requests_remaining: remaining(self.requests, limits.requests_per_minute),
            requests_reset_ms: self.requests.div_ceil(u64::from(limits.requests_per_minute)),
            tokens_limit: limits.tokens_per_minute,
            tokens_remaining: remaining(self.tokens, limits.tokens_per_minute),
            tokens_reset_ms: self.tokens.div_ceil(u64::from(limits.tokens_per_minute)),
            at_ms,
        }
    }
}

/// The tokens a request reserves: its characters over four, plus its `max_tokens`.
pub(crate) fn reserved_tokens(request: &crate::model::ChatRequest) -> u64 {
    let text_bytes = |message: &crate::model::Message| {
        let parts: usize = message
            .content
            .iter()
            .map(|part| match part {
                crate::model::ContentPart::Text { text } => text.len(),
                _ => 0,
            })
            .sum();
        let calls: usize = message.tool_calls.iter().map(|c| c.name.len() + c.arguments.len()).sum();
        parts + calls + message.thinking.as_deref().map_or(0, str::len)
    };
    let chars: usize = request.messages.iter().map(text_bytes).sum();
    (chars as u64).div_ceil(4) + request.max_tokens.unwrap_or(0)
}

/// A duration as OpenAI writes its resets (Go's form): `120ms`, `1s`, `8.64s`, `6m0s`. Written by hand with
/// `itoa`: two of these go out on every OpenAI reply, and `format!` spent 4% of a request on them (issue #31).
pub fn go_duration(ms: u64) -> String {
    let mut out = String::with_capacity(16);
    let mut decimal = itoa::Buffer::new();
    if ms < 1000 {
        out.push_str(decimal.format(ms));
        out.push_str("ms");
        return out;
    }
    let (minutes, rest) = (ms / 60_000, ms % 60_000);
    if minutes > 0 {
        out.push_str(decimal.format(minutes));
        out.push('m');
    }
    out.push_str(decimal.format(rest / 1000));
    let fraction = rest % 1000;
    if fraction != 0 {
        // Three digits with the trailing zeros dropped: 640 is ".64".
        let digits = [fraction / 100, fraction / 10 % 10, fraction % 10];
        let kept = if digits[2] != 0 {
            3
        } else if digits[1] != 0 {
            2
        } else {
            1
        };
        out.push('.');
        out.extend(digits.iter().take(kept).map(|d| char::from(b'0' + (*d % 10) as u8)));
    }
    out.push('s');
    out
}

/// A virtual time in milliseconds as an RFC 3339 UTC timestamp, rounded up to the second (Anthropic's resets:
/// `2026-01-01T00:00:01Z`).
pub fn rfc3339(at_ms: u64) -> String {
    let seconds = crate::clock::CLOCK_EPOCH_SECONDS + at_ms.div_ceil(1000);
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_date(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", of_day / 3600, of_day % 3600 / 60, of_day % 60)
}

/// The proleptic Gregorian date of a count of days since 1970-01-01, by eras of 400 years (146,097 days).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let shifted = days + 719_468; // days since 0000-03-01, so that a year ends with February
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 is March
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(requests: u32, tokens: u32, enforce: bool) -> RateLimits {
        RateLimits { requests_per_minute: requests, tokens_per_minute: tokens, enforce, headers: true }
    }

    #[test]
    fn a_request_at_500_a_minute_resets_in_120ms_and_the_bucket_refills() {
        let mut buckets = Buckets::default();
        let first = buckets.take(&limits(500, 1000, false), 0, 100).ok().unwrap();
        assert_eq!((first.requests_remaining, first.requests_reset_ms), (499, 120));
        assert_eq!((first.tokens_remaining, first.tokens_reset_ms), (900, 6000));
        let second = buckets.take(&limits(500, 1000, false), 60, 0).ok().unwrap();
        // Half a request drained in 60 ms: 1.5 taken, rounded up.
        assert_eq!((second.requests_remaining, second.requests_reset_ms), (498, 180));
        let later = buckets.take(&limits(500, 1000, false), 60_000, 0).ok().unwrap();
        assert_eq!((later.requests_remaining, later.tokens_remaining), (499, 1000));
    }

    #[test]
    fn enforced_limits_refuse_with_the_wait_until_a_unit_frees_and_let_the_waiting_client_through() {
        let mut buckets = Buckets::default();
        let strict = limits(2, 1_000_000, true);
        assert!(buckets.take(&strict, 0, 0).is_ok());
        assert!(buckets.take(&strict, 0, 0).is_ok());
        let Err(refused) = buckets.take(&strict, 0, 0) else { panic!("a third request at 2 a minute passed") };
        assert_eq!(refused.error.retry_after_ms, Some(30_000));
        assert_eq!(refused.error.kind, ProviderErrorKind::RateLimited);
        assert!(refused.error.message.contains("Limit 2, Used 2, Requested 1"), "{}", refused.error.message);
        assert_eq!(refused.reading.requests_remaining, 0);
        assert!(buckets.take(&strict, 29_999, 0).is_err());
        assert!(buckets.take(&strict, 30_000, 0).is_ok());
    }

    #[test]
    fn a_request_larger_than_the_whole_limit_passes_an_empty_bucket() {
        let mut buckets = Buckets::default();
        let reading = buckets.take(&limits(10, 100, true), 0, 500).ok().unwrap();
        assert_eq!((reading.tokens_remaining, reading.tokens_reset_ms), (0, 300_000));
        let Err(refused) = buckets.take(&limits(10, 100, true), 0, 1) else { panic!("an overdrawn bucket passed") };
        assert!(refused.error.message.contains("tokens per min (TPM)"), "{}", refused.error.message);
    }

    #[test]
    fn durations_are_written_as_openai_writes_them() {
        let cases = [
            (0, "0ms"),
            (120, "120ms"),
            (999, "999ms"),
            (1000, "1s"),
            (1001, "1.001s"),
            (8640, "8.64s"),
            (8600, "8.6s"),
            (59_976, "59.976s"),
            (60_500, "1m0.5s"),
            (61_000, "1m1s"),
            (360_000, "6m0s"),
            (3_600_010, "60m0.01s"),
        ];
        for (ms, text) in cases {
            assert_eq!(go_duration(ms), text);
        }
    }

    #[test]
    fn reset_times_are_rfc3339_on_the_virtual_clock() {
        assert_eq!(rfc3339(0), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(1), "2026-01-01T00:00:01Z");
        assert_eq!(rfc3339(59 * 86_400_000 + 3_723_000), "2026-03-01T01:02:03Z");
        assert_eq!(rfc3339(365 * 86_400_000), "2027-01-01T00:00:00Z");
    }

    #[test]
    fn a_zero_limit_is_a_problem_naming_its_field() {
        assert_eq!(limits(0, 1, false).problem().map(|p| p.0).as_deref(), Some("requests_per_minute"));
        assert_eq!(limits(1, 1, false).problem(), None);
    }
}
