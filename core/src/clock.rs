//! The ground floor: the virtual clock and the defaults that every other module shares. It imports nothing of
//! the crate, so any module may use it without creating a cycle.
//!
//! cuecard never reads the wall clock. A mock's clock starts at [`CLOCK_EPOCH_SECONDS`] and advances by the
//! scripted delays of its answers (and by `advance_clock`), so every timestamp in an output is a function of the
//! script and the order of the requests.

/// Unix time (seconds) of the mock clock's zero: 2026-01-01T00:00:00Z.
pub const CLOCK_EPOCH_SECONDS: u64 = 1_767_225_600;

/// The provider id a mock reports unless told otherwise (Tramai's `providerId()` of its double).
pub const DEFAULT_PROVIDER_ID: &str = "mock";

/// The model of a request given only as a user text (`mock.chat("Hi")` in the bindings), and the model that
/// `GET /v1/models` always lists.
pub const DEFAULT_MODEL: &str = "cuecard-mock";

/// The `created` time (Unix seconds) of an answer that starts `at_ms` virtual milliseconds after the mock's zero.
pub const fn created_seconds(at_ms: u64) -> u64 {
    CLOCK_EPOCH_SECONDS + at_ms / 1000
}

/// Unix milliseconds of a virtual time in milliseconds.
pub const fn unix_ms(at_ms: u64) -> u64 {
    CLOCK_EPOCH_SECONDS * 1000 + at_ms
}

/// The longest scripted wait: a day. A longer one is a typo (a second count written in microseconds), and on
/// the wire it would hold a connection for years; the virtual clock (`advance_clock`) covers longer spans.
pub const MAX_WAIT_MS: u64 = 86_400_000;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The days from 1970-01-01 to a `YYYY-MM-DD` date (a recording's `recorded_on`), or `None` when the text is not a
/// real date. Howard Hinnant's `days_from_civil`: proleptic Gregorian, exact for every year a recording can carry.
pub fn date_days(text: &str) -> Option<i64> {
    let mut parts = text.split('-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return None;
    }
    let (year, month, day): (i64, i64, i64) = (year.parse().ok()?, month.parse().ok()?, day.parse().ok()?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day < 1 || day > *month_days.get(usize::try_from(month - 1).ok()?)? {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// The `YYYY-MM-DD` date `days` after 1970-01-01 (the inverse of [`date_days`]).
pub fn days_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_from_the_epoch_and_back() {
        assert_eq!(date_days("1970-01-01"), Some(0));
        assert_eq!(date_days("2000-03-01"), Some(11_017));
        assert_eq!(date_days("2024-02-29"), Some(19_782));
        for days in [-100_000, -1, 0, 59, 11_016, 19_782, 20_428, 2_932_896] {
            assert_eq!(date_days(&days_date(days)), Some(days), "{}", days_date(days));
        }
        for bad in ["2025-02-29", "2025-13-01", "2025-1-01", "2025-01-00", "20250101", "2025-01-01-", "yyyy-mm-dd"] {
            assert_eq!(date_days(bad), None, "{bad}");
        }
    }
}
