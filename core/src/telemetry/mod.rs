//! OpenTelemetry: one span per mocked call, following the GenAI semantic conventions (`gen_ai.operation.name`,
//! `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.*`, `gen_ai.response.finish_reasons`), with the
//! test id, the route, the step and the scripted failure, inside the caller's trace when the request carries a
//! `traceparent`. Exported over OTLP/HTTP (protobuf) by the SDK's batching span processor on its own thread: the
//! request path only hands a finished span to its queue. Off unless a server is given an endpoint
//! (`ServerOptions::otlp_endpoint`, `cuecard serve --otlp-endpoint`); not in the WASM module, which has no server.
//!
//! A mocked call is a journaled request: admin requests, model lists and the MCP surface make no span.

mod attributes;
mod client;
#[cfg(test)]
mod tests;

use crate::error::{Error, ErrorKind, Result};
use crate::journal::EntryTicket;
use crate::mock::MockModel;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{Span, SpanKind, Status, Tracer, TracerProvider};
use opentelemetry::Context;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

pub(crate) use attributes::CallFacts;

/// How long the batching processor waits to fill a batch before it sends what it has, unless
/// `OTEL_BSP_SCHEDULE_DELAY` says otherwise: a test run's spans show up within a second.
const DEFAULT_SCHEDULE_DELAY: Duration = Duration::from_millis(1000);

/// The exporter of one server's spans.
pub struct Telemetry {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Telemetry")
    }
}

/// The URL spans are posted to: `endpoint` as given when its path names one (`.../v1/traces`), else with
/// `/v1/traces` added, as `OTEL_EXPORTER_OTLP_ENDPOINT` is read (`http://127.0.0.1:4318` → `.../v1/traces`).
pub fn traces_url(endpoint: &str) -> Result<String> {
    let invalid = |why: &str| {
        Error::new(ErrorKind::InvalidArgument, format!("the OTLP endpoint {endpoint:?} {why}"))
            .with_context("field", "otlp_endpoint")
    };
    let rest = endpoint.strip_prefix("http://").ok_or_else(|| {
        invalid("is not an http:// URL (spans go over plain OTLP/HTTP, as to a local collector's port 4318)")
    })?;
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    if authority.is_empty() {
        return Err(invalid("has no host"));
    }
    let path = path.trim_end_matches('/');
    Ok(if path.is_empty() { format!("http://{authority}/v1/traces") } else { format!("http://{authority}/{path}") })
}

impl Telemetry {
    /// Starts exporting to `endpoint` (see [`traces_url`]); nothing is sent until a span ends.
    pub fn start(endpoint: &str) -> Result<Telemetry> {
        let url = traces_url(endpoint)?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client::ExportClient::new()?)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url.clone())
            .with_timeout(client::TIMEOUT)
            .build()
            .map_err(|e| Error::new(ErrorKind::InvalidArgument, format!("the OTLP exporter to {url}: {e}")))?;
        let mut batch = BatchConfigBuilder::default();
        if std::env::var_os("OTEL_BSP_SCHEDULE_DELAY").is_none() {
            batch = batch.with_scheduled_delay(DEFAULT_SCHEDULE_DELAY);
        }
        let processor = BatchSpanProcessor::builder(exporter).with_batch_config(batch.build()).build();
        let resource = Resource::builder_empty()
            .with_service_name("cuecard")
            .with_attribute(opentelemetry::KeyValue::new("service.version", crate::clock::VERSION))
            .build();
        let provider = SdkTracerProvider::builder().with_span_processor(processor).with_resource(resource).build();
        let tracer = provider.tracer("cuecard");
        Ok(Telemetry { provider, tracer })
    }

    /// What is known of a call when it arrives: its start time and the caller's trace context.
    pub(crate) fn begin(headers: &hyper::HeaderMap, facts: CallFacts) -> CallTrace {
        let carrier: HashMap<String, String> = ["traceparent", "tracestate"]
            .into_iter()
            .filter_map(|name| Some((name.to_string(), headers.get(name)?.to_str().ok()?.to_string())))
            .collect();
        let parent = TraceContextPropagator::new().extract(&carrier);
        CallTrace { started: SystemTime::now(), parent, facts }
    }

    /// Sends what is queued and stops the exporter (when the server stops).
    pub fn shutdown(&self) {
        let _ = self.provider.shutdown();
    }
}

/// A call on its way: made when it arrives, ended (and queued for export) when its answer has been sent.
pub(crate) struct CallTrace {
    started: SystemTime,
    parent: Context,
    facts: CallFacts,
}

impl CallTrace {
    /// Ends the call's span: `ticket` is its journal entry (none for a request that was not journaled, which makes
    /// no span), `status` the HTTP status it was answered with.
    pub(crate) fn end(self, telemetry: &Telemetry, mock: &MockModel, ticket: Option<EntryTicket>, status: u16) {
        let Some(entry) = ticket.and_then(|ticket| mock.entry_of(ticket)) else { return };
        let described = attributes::describe(&entry, &self.facts, status);
        let mut span = telemetry
            .tracer
            .span_builder(described.name)
            .with_kind(SpanKind::Server)
            .with_start_time(self.started)
            .with_attributes(described.attributes)
            .start_with_context(&telemetry.tracer, &self.parent);
        if let Some(error) = described.error {
            span.set_status(Status::error(error));
        }
        span.end_with_timestamp(SystemTime::now());
    }
}
