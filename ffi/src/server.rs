//! `cuecard_server`: the loopback HTTP server over a mock, on its own threads. Stopping is graceful and idempotent;
//! after a stop the handle still exists but its URLs are refused with `CUECARD_STATUS_INVALID_STATE`.

use crate::boundary::{borrow, c_string, data, free_handle, guard, into_handle, out, HandleKind};
use crate::errors::Outcome;
use crate::errors::{cuecard_error, cuecard_status};
use crate::mock::cuecard_mock;
use cuecard::{Server, ServerOptions};
use std::ffi::c_char;
use std::sync::Arc;

/// A running (or stopped) server. Thread-safe: stop it from any thread.
pub struct cuecard_server {
    _private: [u8; 0],
}

impl HandleKind for Server {
    type C = cuecard_server;
    const TAG: u64 = 0x6375_6563_6172_6402;
    const NAME: &'static str = "cuecard_server";
}

/// The running server behind a handle argument; a stopped one is `invalid_state`.
unsafe fn running<'a>(pointer: *const cuecard_server) -> Outcome<&'a Server> {
    // SAFETY: forwarded from the export's contract.
    let server = unsafe { borrow::<Server>(pointer, "server")? };
    if server.is_stopped() {
        return Err(cuecard::Error::new(cuecard::ErrorKind::InvalidState, "the server is stopped").into());
    }
    Ok(server)
}

/// Serves `mock` on loopback. `options_json` (may be NULL with length 0) is `{"host"? (default "127.0.0.1"),
/// "port"? (0 picks a free one), "instant"?}`. The server keeps the mock alive. Caller owns `*out_server`; free it
/// with `cuecard_server_free` (which stops it).
///
/// # Safety
/// `mock` is a live handle; pointers are valid for their lengths; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_start(
    mock: *const cuecard_mock,
    options_json: *const c_char,
    options_len: usize,
    out_server: *mut *mut cuecard_server,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_server, "out_server")?;
        // SAFETY: the caller's promise.
        let mock = Arc::clone(unsafe { crate::mock::mock(mock)? });
        let options: ServerOptions = match options_len {
            0 => ServerOptions::default(),
            // SAFETY: the caller's promise.
            _ => unsafe { data(options_json, options_len, "options_json")? },
        };
        *slot = into_handle(Server::start_with(mock, options)?);
        Ok(())
    })
}

/// The base URL for OpenAI clients (`http://127.0.0.1:PORT/v1`). Caller owns `*out_url`.
///
/// # Safety
/// `server` is a live handle; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_openai_base_url(
    server: *const cuecard_server,
    out_url: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_url, "out_url")?;
        // SAFETY: the caller's promise.
        *slot = c_string(unsafe { running(server)? }.openai_base_url())?;
        Ok(())
    })
}

/// The base URL for Anthropic clients (`http://127.0.0.1:PORT`). Caller owns `*out_url`.
///
/// # Safety
/// As for `cuecard_server_openai_base_url`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_anthropic_base_url(
    server: *const cuecard_server,
    out_url: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_url, "out_url")?;
        // SAFETY: the caller's promise.
        *slot = c_string(unsafe { running(server)? }.anthropic_base_url())?;
        Ok(())
    })
}

/// The port the server listens on.
///
/// # Safety
/// As for `cuecard_server_openai_base_url`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_port(
    server: *const cuecard_server,
    out_port: *mut u16,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_port, "out_port")?;
        // SAFETY: the caller's promise.
        *slot = unsafe { running(server)? }.addr().port();
        Ok(())
    })
}

/// Stops the server: no new connections; requests in flight get up to a second. Idempotent.
///
/// # Safety
/// `server` is a live handle; `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_stop(
    server: *const cuecard_server,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        unsafe { borrow::<Server>(server, "server")? }.stop();
        Ok(())
    })
}

/// Stops (if running) and frees a server. NULL is a no-op.
///
/// # Safety
/// `server` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_server_free(server: *mut cuecard_server) {
    // SAFETY: the caller's promise; dropping the server stops it.
    unsafe { free_handle::<Server>(server) }
}
