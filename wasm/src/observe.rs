//! `NativeObserver`: the recording observer the engine under test reports to (`RecordingObserver`).

use crate::convert::{data_of, json_text};
use crate::errors::Fallible;
use cuecard::{CallContext, ObservationEvent};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A recording observer.
#[wasm_bindgen]
pub struct NativeObserver {
    pub(crate) inner: Arc<cuecard::RecordingObserver>,
}

#[wasm_bindgen]
impl NativeObserver {
    /// An observer with no records.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        NativeObserver { inner: Arc::new(cuecard::RecordingObserver::new()) }
    }

    /// Starts a call record (`{operation, provider_id?, ...}`); returns its index.
    pub fn start(&self, context: JsValue) -> Result<u32, JsValue> {
        let context: CallContext = data_of(&context, "context")?;
        Ok(u32::try_from(self.inner.start_call(context)).unwrap_or(u32::MAX))
    }

    /// Reports one observation event to record `index`.
    pub fn report(&self, index: u32, event: JsValue) -> Result<(), JsValue> {
        let event: ObservationEvent = data_of(&event, "event")?;
        self.inner.report(index as usize, event).or_throw()
    }

    /// The records (JSON).
    #[wasm_bindgen(js_name = callRecords)]
    pub fn call_records(&self) -> String {
        json_text(&self.inner.call_records())
    }

    /// Forgets every record.
    pub fn clear(&self) {
        self.inner.clear();
    }
}

impl Default for NativeObserver {
    fn default() -> Self {
        NativeObserver::new()
    }
}
