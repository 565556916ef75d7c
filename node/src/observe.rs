//! `NativeObserver`: Tramai's observer protocol. The package's `RecordingObserver` turns each callback (and a
//! JS error's kind, status and class names) into core's `ObservationEvent`; recording is the core's.

use crate::convert::{data_of, json_text};
use crate::errors::Fallible;
use cuecard::{CallContext, ObservationEvent};
use napi::{Env, Unknown};
use napi_derive::napi;
use std::sync::Arc;

/// Records every provider call an engine reports, in order.
#[napi]
pub struct NativeObserver {
    pub(crate) inner: Arc<cuecard::RecordingObserver>,
}

#[napi]
impl NativeObserver {
    #[napi(constructor)]
    pub fn new() -> Self {
        NativeObserver { inner: Arc::new(cuecard::RecordingObserver::new()) }
    }

    /// A provider call starts (`{operation?, service?, provider_id?, model?, attempt?}`); returns its record index.
    #[napi]
    pub fn start(&self, env: Env, context: Unknown<'_>) -> napi::Result<u32> {
        let context: CallContext = data_of(&env, &context, "context")?;
        Ok(u32::try_from(self.inner.start_call(context)).unwrap_or(u32::MAX))
    }

    /// Reports one callback of call `index` (`{"event": "provider_failure", "failure": {...}}`, ...).
    #[napi]
    pub fn report(&self, env: Env, index: u32, event: Unknown<'_>) -> napi::Result<()> {
        let event: ObservationEvent = data_of(&env, &event, "event")?;
        self.inner.report(index as usize, event).or_throw(&env)
    }

    /// Every call record (JSON).
    #[napi]
    pub fn call_records(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.call_records())
    }

    /// Forgets every record.
    #[napi]
    pub fn clear(&self) {
        self.inner.clear();
    }
}

impl Default for NativeObserver {
    fn default() -> Self {
        NativeObserver::new()
    }
}
