//! `NativeServer`: the loopback server over a mock, on its own threads; it never keeps Node alive at exit.

use crate::convert::data_of;
use crate::errors::Fallible;
use crate::mock::NativeMock;
use napi::{Env, Unknown};
use napi_derive::napi;
use std::sync::Arc;

/// The loopback server. `stop()` is idempotent.
#[napi]
pub struct NativeServer {
    server: cuecard::Server,
}

#[napi]
impl NativeServer {
    /// Serves `mock` on 127.0.0.1 (`{port?, host?, instant?}`; port 0 picks a free one).
    #[napi(constructor)]
    pub fn new(env: Env, mock: &NativeMock, options: Option<Unknown<'_>>) -> napi::Result<Self> {
        let options: cuecard::ServerOptions = match options {
            Some(o) => data_of(&env, &o, "options")?,
            None => cuecard::ServerOptions::default(),
        };
        let server = cuecard::Server::start_with(Arc::clone(&mock.inner), options).or_throw(&env)?;
        Ok(NativeServer { server })
    }

    /// `http://127.0.0.1:PORT`.
    #[napi(getter)]
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// For `new OpenAI({ baseURL })` (ends in `/v1`).
    #[napi(getter)]
    pub fn openai_base_url(&self) -> String {
        self.server.openai_base_url()
    }

    /// For `new Anthropic({ baseURL })`.
    #[napi(getter)]
    pub fn anthropic_base_url(&self) -> String {
        self.server.anthropic_base_url()
    }

    /// The port.
    #[napi(getter)]
    pub fn port(&self) -> u32 {
        u32::from(self.server.addr().port())
    }

    /// Stops the server (idempotent); requests in flight finish.
    #[napi]
    pub fn stop(&self) {
        self.server.stop();
    }
}
