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
