//! The OpenTelemetry hooks of a server: one span per mocked call, exported over OTLP/HTTP (feature `otlp`); without
//! the feature the same calls compile to nothing.

use crate::error::Result;
#[cfg(not(feature = "otlp"))]
use crate::error::{Error, ErrorKind};
use crate::mock::MockModel;
use crate::wire;
#[cfg(feature = "otlp")]
use std::sync::Arc;

/// The OpenTelemetry exporter of a server, when it has one (never without the `otlp` feature).
#[cfg(feature = "otlp")]
pub(super) type Exporter = Option<Arc<crate::telemetry::Telemetry>>;
#[cfg(not(feature = "otlp"))]
pub(super) type Exporter = Option<NoTelemetry>;

/// What a server without the `otlp` feature exports spans with: nothing (no value of it exists).
#[cfg(not(feature = "otlp"))]
#[derive(Clone, Debug)]
pub(super) enum NoTelemetry {}

/// A call's span while it is answered: none without an exporter.
#[cfg(feature = "otlp")]
pub(super) type CallSpan = Option<(Arc<crate::telemetry::Telemetry>, crate::telemetry::CallTrace)>;
#[cfg(not(feature = "otlp"))]
pub(super) type CallSpan = Option<NoTelemetry>;

pub(super) fn start_telemetry(endpoint: Option<&str>) -> Result<Exporter> {
    #[cfg(feature = "otlp")]
    return endpoint.map(|e| crate::telemetry::Telemetry::start(e).map(Arc::new)).transpose();
    #[cfg(not(feature = "otlp"))]
    match endpoint {
        None => Ok(None),
        Some(_) => Err(Error::new(
            ErrorKind::InvalidArgument,
            "this build of cuecard has no OpenTelemetry export (the core's `otlp` feature): leave otlp_endpoint out",
        )
        .with_context("field", "otlp_endpoint")),
    }
}

pub(super) fn stop_telemetry(telemetry: Exporter) {
    if let Some(telemetry) = telemetry {
        #[cfg(feature = "otlp")]
        telemetry.shutdown();
        #[cfg(not(feature = "otlp"))]
        match telemetry {}
    }
}

/// The span of a model request as it arrives (admin requests make none), when the server exports spans.
pub(super) fn begin_span(telemetry: Exporter, parts: &hyper::http::request::Parts) -> CallSpan {
    let telemetry = telemetry?;
    let path = parts.uri.path();
    if wire::is_admin_path(path) {
        return None;
    }
    #[cfg(feature = "otlp")]
    {
        let (test, unprefixed) = match crate::isolation::split_test_prefix(path) {
            Some((id, rest)) => (Some(id.to_string()), rest),
            None => {
                let header = parts.headers.get(crate::isolation::TEST_HEADER).and_then(|v| v.to_str().ok());
                (header.map(str::to_string), path)
            }
        };
        let facts =
            crate::telemetry::CallFacts { method: parts.method.to_string(), path: unprefixed.to_string(), test };
        Some((Arc::clone(&telemetry), crate::telemetry::Telemetry::begin(&parts.headers, facts)))
    }
    #[cfg(not(feature = "otlp"))]
    match telemetry {}
}

pub(super) fn end_span(span: CallSpan, mock: &MockModel, ticket: Option<crate::journal::EntryTicket>, status: u16) {
    if let Some(span) = span {
        #[cfg(feature = "otlp")]
        span.1.end(&span.0, mock, ticket, status);
        #[cfg(not(feature = "otlp"))]
        match span {}
    }
    let _ = (mock, ticket, status);
}
