//! `cuecard_recording_proxy`: a recording on loopback (core's `RecordingProxy`): replayed from its file, and in a
//! record mode forwarded to the upstream and written as it arrives. Point any HTTP client at its base URL.

use crate::boundary::{borrow, c_string, data, free_handle, guard, into_handle, out, text, HandleKind};
use crate::errors::{cuecard_error, cuecard_status};
use cuecard::record::{ProxyOptions, RecordingProxy, RecordingSettings};
use std::ffi::c_char;

/// A running (or stopped) recording proxy. Thread-safe.
pub struct cuecard_recording_proxy {
    _private: [u8; 0],
}

impl HandleKind for RecordingProxy {
    type C = cuecard_recording_proxy;
    const TAG: u64 = 0x6375_6563_6172_6407;
    const NAME: &'static str = "cuecard_recording_proxy";
}

/// Starts a recording proxy on the file at `path` (UTF-8). `settings_json` (may be NULL with length 0) is core's
/// recording settings: `{"mode"? ("none", the default, replays only; "once", "new", "all"), "upstream"? (a list of
/// "URL" or "PROTOCOL=URL"), "redact"?, "redact_fields"?, "allow_in_ci"?}`; `options_json` (may be NULL with
/// length 0) is `{"host"?, "port"? (0, a free one, by default), "upstream_ca"?}`. Caller owns `*out_proxy`; free
/// it with `cuecard_recording_proxy_free` (which stops it).
///
/// # Safety
/// Pointers are valid for their lengths; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_recording_proxy_start(
    path: *const c_char,
    path_len: usize,
    settings_json: *const c_char,
    settings_len: usize,
    options_json: *const c_char,
    options_len: usize,
    out_proxy: *mut *mut cuecard_recording_proxy,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_proxy, "out_proxy")?;
        // SAFETY: the caller's promise.
        let path = unsafe { text(path, path_len, "path")? };
        let settings: RecordingSettings = match settings_len {
            0 => RecordingSettings::default(),
            // SAFETY: the caller's promise.
            _ => unsafe { data(settings_json, settings_len, "settings_json")? },
        };
        let options: ProxyOptions = match options_len {
            0 => ProxyOptions::default(),
            // SAFETY: the caller's promise.
            _ => unsafe { data(options_json, options_len, "options_json")? },
        };
        *slot = into_handle(RecordingProxy::start(path, &settings, &options)?);
        Ok(())
    })
}

/// The proxy's base URL (`http://127.0.0.1:PORT`; OpenAI clients add `/v1`). Caller owns `*out_url`.
///
/// # Safety
/// `proxy` is a live handle; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_recording_proxy_base_url(
    proxy: *const cuecard_recording_proxy,
    out_url: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_url, "out_url")?;
        // SAFETY: the caller's promise.
        *slot = c_string(unsafe { borrow::<RecordingProxy>(proxy, "proxy")? }.base_url())?;
        Ok(())
    })
}

/// How many exchanges the proxy recorded since it started.
///
/// # Safety
/// As for `cuecard_recording_proxy_base_url`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_recording_proxy_recorded(
    proxy: *const cuecard_recording_proxy,
    out_count: *mut usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_count, "out_count")?;
        // SAFETY: the caller's promise.
        *slot = unsafe { borrow::<RecordingProxy>(proxy, "proxy")? }.recorded();
        Ok(())
    })
}

/// Stops (if running) and frees a proxy; every exchange recorded is in its file. NULL is a no-op.
///
/// # Safety
/// `proxy` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_recording_proxy_free(proxy: *mut cuecard_recording_proxy) {
    // SAFETY: the caller's promise; dropping the proxy stops it.
    unsafe { free_handle::<RecordingProxy>(proxy) }
}
