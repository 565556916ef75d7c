//! Test-only exports (cargo feature `testing`): they let the C suite prove that every status maps to its code and
//! that a panic becomes `CUECARD_STATUS_INTERNAL`. Release builds do not have them; CI checks the symbols.

use crate::boundary::guard;
use crate::errors::Failure;
use crate::errors::{cuecard_error, cuecard_status};

/// Fails with the error kind whose number is `number` (100 gives a scripted provider failure); an unknown number
/// is `CUECARD_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_testing_error(number: u32, err: *mut *mut cuecard_error) -> cuecard_status {
    guard(err, || {
        if number == cuecard_status::ProviderError as u32 {
            return Err(Failure::Provider(cuecard::ProviderError::rate_limited()));
        }
        let kind = cuecard::ErrorKind::from_number(number)
            .ok_or_else(|| crate::errors::invalid("number", format!("{number} is not an error kind")))?;
        Err(cuecard::Error::new(kind, format!("a {} error raised on purpose", kind.code())).into())
    })
}

/// Panics inside the boundary: returns `CUECARD_STATUS_INTERNAL` with the panic's message.
///
/// # Safety
/// `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_testing_panic(err: *mut *mut cuecard_error) -> cuecard_status {
    guard(err, || panic!("cuecard_testing_panic was called"))
}
