//! The Files and Batch APIs (`docs/concepts/wire.md`, "Files and batches"; the guide
//! `docs/guides/batch-evaluation.md`): OpenAI's `/v1/files` and `/v1/batches`, and Anthropic's
//! `/v1/messages/batches`.
//!
//! Files are kept per mock (`mock::files`). A batch answers its lines through the mock, each as if it had been sent
//! alone to its endpoint (so routes, steps, failures and the journal apply; each line is journaled with
//! `metadata.extra` `{batch, custom_id}`), on the poll that moves the batch to its last working status: a batch moves
//! one status per retrieve (OpenAI `validating` -> `in_progress` -> `finalizing` -> `completed`; Anthropic
//! `in_progress` -> `ended`), so a polling loop sees every status, and a batch cancelled before that answers
//! nothing. A route that names the endpoint `batches` (or `message_batches`, or `files` for uploads) scripts the
//! request itself: a failing step refuses it with that failure, and a `timeout` failure lets a batch be made and
//! then expire without answering a line.

use super::errors::{cuecard_reply, error_reply, Dialect};
use super::routes::Matched;
use super::{raw, request_id, served_reply, HttpReply, HttpRequest};
use crate::error::ErrorKind;
use crate::mock::{MockModel, StoredBatch, StoredFile};
use crate::model::ChatRequest;
use crate::provider_error::ProviderErrorKind;
use crate::script::CallError;
use serde_json::{json, Value};
use std::sync::Arc;

/// The header a batch line carries: `{batch id} {custom_id}`, journaled as `metadata.extra`.
pub const BATCH_HEADER: &str = "x-cuecard-batch";

/// The endpoints an OpenAI batch may call.
const BATCH_ENDPOINTS: [&str; 5] =
    ["/v1/chat/completions", "/v1/responses", "/v1/embeddings", "/v1/completions", "/v1/moderations"];

/// The most lines one batch holds (OpenAI's limit).
const MAX_LINES: usize = 50_000;

/// A batch's life, one status per poll.
const OPENAI_STAGES: [&str; 4] = ["validating", "in_progress", "finalizing", "completed"];

// ---- the request's own script ----------------------------------------------------------------------------------

/// What a route naming `endpoint` says of this request: `Ok(expire)` to go on (`expire` for a `timeout` failure), or
/// the failure's reply. Without such a route the request is journaled as served.
fn scripted(mock: &MockModel, http: &HttpRequest, endpoint: &str, dialect: Dialect) -> Result<(u64, bool), HttpReply> {
    let request = super::served_request("", endpoint, Vec::new());
    let request = ChatRequest { metadata: super::endpoint_metadata(endpoint, http), ..request };
    if !mock.routes_name_endpoint(endpoint) {
        return Ok((mock.record_served(request, Some(raw(http))), false));
    }
    let exchange = mock.chat_timed_raw(request, Some(raw(http)));
    match exchange.result {
        Ok(_) => Ok((exchange.index, false)),
        Err(CallError::Provider(error)) if error.kind == ProviderErrorKind::Timeout => Ok((exchange.index, true)),
        Err(CallError::Provider(error)) => Err(error_reply(dialect, &error, &request_id(exchange.index), 0)),
        Err(error) => Err(super::chat::call_error_reply(dialect, &error, &request_id(exchange.index), 0)),
    }
}

/// A refusal of a malformed or unknown request, journaled.
fn refuse(
    mock: &MockModel,
    http: &HttpRequest,
    endpoint: &str,
    dialect: Dialect,
    status: u16,
    message: &str,
) -> HttpReply {
    let kind = if status == 404 { ErrorKind::NotFound } else { ErrorKind::InvalidRequest };
    let index = mock.reject(super::served_request("", endpoint, Vec::new()), Some(raw(http)), message.to_string());
    cuecard_reply(dialect, status, kind, message, &request_id(index))
}

/// The path's segment `from_end` places before its last (0 is the last).
fn segment(http: &HttpRequest, from_end: usize) -> &str {
    http.path.trim_end_matches('/').rsplit('/').nth(from_end).unwrap_or_default()
}

/// A query parameter's value.
fn query<'a>(http: &'a HttpRequest, name: &str) -> Option<&'a str> {
    http.query.split('&').find_map(|pair| pair.split_once('=').filter(|(key, _)| *key == name).map(|(_, v)| v))
}

/// A page of a list (newest first unless `order=asc`), after the id `after`, at most `limit`.
fn page<T>(http: &HttpRequest, mut items: Vec<T>, id: impl Fn(&T) -> &str, newest_first: bool) -> (Vec<T>, bool) {
    let ascending = query(http, "order").map_or(!newest_first, |order| order == "asc");
    if !ascending {
        items.reverse();
    }
    if let Some(after) = query(http, "after").or_else(|| query(http, "after_id")) {
        if let Some(at) = items.iter().position(|item| id(item) == after) {
            items.drain(..=at);
        }
    }
    let limit = query(http, "limit").and_then(|l| l.parse::<usize>().ok()).unwrap_or(10_000).max(1);
    let has_more = items.len() > limit;
    items.truncate(limit);
    (items, has_more)
}

// ---- OpenAI files ----------------------------------------------------------------------------------------------

fn file_object(file: &StoredFile) -> Value {
    json!({"id": file.id, "object": "file", "bytes": file.bytes.len(), "created_at": file.created_at,
        "filename": file.filename, "purpose": file.purpose, "status": "processed", "expires_at": null,
        "status_details": null})
}

const PURPOSES: [&str; 8] =
    ["assistants", "assistants_output", "batch", "batch_output", "fine-tune", "vision", "user_data", "evals"];

/// `POST /v1/files`: a form with `file` and `purpose`.
pub(crate) fn upload(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let (endpoint, dialect) = (matched.endpoint, Dialect::OpenAi);
    let parts = match super::multipart::parse(http.header("content-type"), &http.body) {
        Ok(parts) => parts,
        Err(message) => return refuse(mock, http, endpoint, dialect, 400, &message),
    };
    let purpose = super::multipart::field(&parts, "purpose").map(|p| p.text());
    let purpose = match purpose {
        Some(Ok(purpose)) if PURPOSES.contains(&purpose) => purpose.to_string(),
        Some(Ok(other)) => {
            let message = format!("purpose {other:?} is not one of {}", PURPOSES.join(", "));
            return refuse(mock, http, endpoint, dialect, 400, &message);
        }
        Some(Err(message)) => return refuse(mock, http, endpoint, dialect, 400, &message),
        None => return refuse(mock, http, endpoint, dialect, 400, "the form has no purpose"),
    };
    let Some(file) = super::multipart::field(&parts, "file") else {
        return refuse(mock, http, endpoint, dialect, 400, "the form has no file");
    };
    let index = match scripted(mock, http, endpoint, dialect) {
        Ok((index, _)) => index,
        Err(reply) => return reply,
    };
    let filename = file.filename.clone().unwrap_or_else(|| "upload".to_string());
    let stored = mock.store_file("file-", &filename, &purpose, Arc::from(file.body));
    served_reply(index, &file_object(&stored))
}

/// `GET /v1/files`, `GET /v1/files/{id}`, `GET /v1/files/{id}/content`, `DELETE /v1/files/{id}`.
pub(crate) fn files(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let endpoint = matched.endpoint;
    let content = http.path.trim_end_matches('/').ends_with("/content");
    let id = if content { segment(http, 1) } else { segment(http, 0) };
    if id == "files" {
        let purpose = query(http, "purpose");
        let files: Vec<StoredFile> =
            mock.files().into_iter().filter(|f| purpose.is_none_or(|p| f.purpose == p)).collect();
        let (files, has_more) = page(http, files, |f| &f.id, true);
        let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
        let data: Vec<Value> = files.iter().map(file_object).collect();
        let first = files.first().map(|f| f.id.clone());
        let last = files.last().map(|f| f.id.clone());
        return served_reply(
            index,
            &json!({"object": "list", "data": data, "first_id": first, "last_id": last,
            "has_more": has_more}),
        );
    }
    let Some(file) = mock.file(id) else {
        return refuse(mock, http, endpoint, Dialect::OpenAi, 404, &format!("No such File object: {id}"));
    };
    let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
    if http.method == "DELETE" {
        mock.delete_file(id);
        return served_reply(index, &json!({"id": id, "object": "file", "deleted": true}));
    }
    if content {
        let headers = vec![
            ("content-type".into(), "application/octet-stream".into()),
            ("x-request-id".into(), request_id(index).into()),
        ];
        return super::binary_reply(headers, &file.bytes);
    }
    served_reply(index, &file_object(&file))
}

// ---- OpenAI batches --------------------------------------------------------------------------------------------

/// One line of a batch's input: its custom id, the endpoint's path and the body.
struct Line {
    custom_id: String,
    url: String,
    body: Value,
}

/// The lines of an input file, or the validation errors (`{code, message, line}`) the batch fails with.
fn read_lines(bytes: &[u8], endpoint: &str) -> Result<Vec<Line>, Vec<Value>> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, raw_line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let number = i + 1;
        let mut problem = |code: &str, message: String| {
            errors.push(json!({"code": code, "message": message, "param": null, "line": number}));
        };
        let Ok(value) = serde_json::from_str::<Value>(raw_line) else {
            problem("invalid_json_line", format!("line {number} is not valid JSON"));
            continue;
        };
        let custom_id = value.get("custom_id").and_then(Value::as_str).unwrap_or_default().to_string();
        let url = value.get("url").and_then(Value::as_str).unwrap_or_default().to_string();
        if custom_id.is_empty() {
            problem("missing_required_parameter", format!("line {number} has no custom_id"));
        } else if !seen.insert(custom_id.clone()) {
            problem("duplicate_custom_id", format!("line {number} repeats the custom_id {custom_id:?}"));
        } else if value.get("method").and_then(Value::as_str) != Some("POST") {
            problem("invalid_method", format!("line {number}: the method must be POST"));
        } else if url != endpoint {
            problem("mismatched_endpoint", format!("line {number} calls {url:?}, not the batch's {endpoint}"));
        } else if !value.get("body").is_some_and(Value::is_object) {
            problem("missing_required_parameter", format!("line {number} has no body object"));
        } else {
            lines.push(Line { custom_id, url, body: value.get("body").cloned().unwrap_or_default() });
        }
    }
    if lines.is_empty() && errors.is_empty() {
        errors.push(json!({"code": "empty_file", "message": "the input file has no lines", "param": null,
            "line": null}));
    }
    if lines.len() > MAX_LINES {
        errors.push(json!({"code": "too_many_requests", "message": format!("a batch holds at most {MAX_LINES} \
            requests"), "param": null, "line": null}));
    }
    if errors.is_empty() {
        Ok(lines)
    } else {
        Err(errors)
    }
}

/// One line answered through the mock: its status, request id and body.
fn answer_line(mock: &MockModel, batch_id: &str, line: &Line, anthropic: bool) -> (u16, String, Value) {
    let mut request = HttpRequest::new("POST", &line.url, Vec::new(), line.body.to_string().into_bytes())
        .with_header("content-type", "application/json")
        .with_header(BATCH_HEADER, &format!("{batch_id} {}", line.custom_id));
    if anthropic {
        request = request.with_header("anthropic-version", "2023-06-01");
    }
    let reply = super::handle(mock, &request);
    let id_header = if anthropic { "request-id" } else { "x-request-id" };
    let request_id = reply.header(id_header).unwrap_or_default().to_string();
    match reply {
        HttpReply::Abort { .. } => {
            let error = json!({"error": {"message": "the connection was reset", "type": "server_error"}});
            (500, request_id, error)
        }
        reply => {
            let body = serde_json::from_str(&reply.body_text()).unwrap_or(Value::Null);
            (reply.status(), request_id, body)
        }
    }
}

/// The OpenAI batch object at stage `stage` of `stages`, from what it was made with and its outcome.
fn openai_batch_view(batch: &StoredBatch, stages: &[&str]) -> Value {
    let stage = (batch.polls as usize).min(stages.len() - 1);
    let status = stages.get(stage).copied().unwrap_or("validating");
    let mut object = batch.object.clone();
    let created = object["created_at"].as_u64().unwrap_or_default();
    object["status"] = json!(status);
    let at = |k: usize| json!(created + k as u64);
    let reached = |name: &str| stages.iter().position(|s| *s == name).filter(|k| *k <= stage);
    for (field, name) in [
        ("in_progress_at", "in_progress"),
        ("finalizing_at", "finalizing"),
        ("completed_at", "completed"),
        ("failed_at", "failed"),
        ("expired_at", "expired"),
        ("cancelling_at", "cancelling"),
        ("cancelled_at", "cancelled"),
    ] {
        if let Some(k) = reached(name) {
            object[field] = at(k);
        }
    }
    if stage + 1 == stages.len() {
        // The end: the output and error files, the counts, the validation errors.
        for key in ["output_file_id", "error_file_id", "request_counts", "errors"] {
            if let Some(value) = batch.outcome.get(key) {
                object[key] = value.clone();
            }
        }
    } else if status != "validating" {
        object["request_counts"]["total"] = batch.outcome["total"].clone();
    }
    object
}

/// The stages a batch goes through, from what its outcome says.
fn openai_stages(batch: &StoredBatch) -> Vec<&'static str> {
    match batch.outcome["end"].as_str() {
        Some("failed") => vec!["validating", "failed"],
        Some("expired") => vec!["validating", "in_progress", "expired"],
        Some("cancelled") => vec!["validating", "cancelling", "cancelled"],
        _ => OPENAI_STAGES.to_vec(),
    }
}

/// `POST /v1/batches`.
pub(crate) fn create_batch(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let (endpoint_name, dialect) = (matched.endpoint, Dialect::OpenAi);
    let body: Value = match serde_json::from_slice(&http.body) {
        Ok(body) => body,
        Err(e) => {
            return refuse(mock, http, endpoint_name, dialect, 400, &format!("the request body is not valid JSON: {e}"))
        }
    };
    let field = |name: &str| body.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    let (input_file_id, endpoint) = (field("input_file_id"), field("endpoint"));
    if !BATCH_ENDPOINTS.contains(&endpoint.as_str()) {
        let message = format!("request.endpoint {endpoint:?} is not one of {}", BATCH_ENDPOINTS.join(", "));
        return refuse(mock, http, endpoint_name, dialect, 400, &message);
    }
    if field("completion_window") != "24h" {
        return refuse(mock, http, endpoint_name, dialect, 400, "request.completion_window must be \"24h\"");
    }
    let Some(input) = mock.file(&input_file_id) else {
        let message = format!("request.input_file_id: no such File object: {input_file_id:?}");
        return refuse(mock, http, endpoint_name, dialect, 400, &message);
    };
    let (index, expire) = match scripted(mock, http, endpoint_name, dialect) {
        Ok(scripted) => scripted,
        Err(reply) => return reply,
    };
    let number = mock.next_batch_number();
    let id = format!("batch_{number}");
    let created_at = mock.now_seconds();
    let object = json!({"id": id, "object": "batch", "endpoint": endpoint, "errors": null,
        "input_file_id": input_file_id, "completion_window": "24h", "status": "validating", "output_file_id": null,
        "error_file_id": null, "created_at": created_at, "in_progress_at": null, "expires_at": created_at + 86_400,
        "finalizing_at": null, "completed_at": null, "failed_at": null, "expired_at": null, "cancelling_at": null,
        "cancelled_at": null, "request_counts": {"total": 0, "completed": 0, "failed": 0},
        "metadata": body.get("metadata").cloned().unwrap_or(Value::Null)});
    let outcome = match read_lines(&input.bytes, &endpoint) {
        Err(errors) => json!({"end": "failed", "errors": {"object": "list", "data": errors}}),
        Ok(lines) => {
            let total = lines.len();
            let pending: Vec<Value> =
                lines.iter().map(|l| json!({"custom_id": l.custom_id, "url": l.url, "body": l.body})).collect();
            json!({"end": if expire { "expired" } else { "completed" }, "total": total, "lines": pending})
        }
    };
    let batch = StoredBatch { id: id.clone(), object, polls: 0, outcome };
    mock.store_batch(number, batch.clone());
    served_reply(index, &openai_batch_view(&batch, &openai_stages(&batch)))
}

/// Answers a batch's pending lines (once), writing its output and error files; `None` when there is no such batch.
fn work_openai(mock: &MockModel, id: &str) -> Option<StoredBatch> {
    // Take the lines under the store's lock (a second poll finds none), answer them outside it.
    let mut pending = Vec::new();
    let batch = mock.update_batch(id, |batch| {
        batch.polls += 1;
        let stages = openai_stages(batch);
        let working = stages.iter().position(|s| *s == "finalizing" || *s == "expired").unwrap_or(usize::MAX);
        if batch.polls as usize >= working {
            if let Some(Value::Array(lines)) = batch.outcome.as_object_mut().and_then(|o| o.remove("lines")) {
                pending = lines;
            }
        }
    })?;
    if pending.is_empty() {
        return Some(batch);
    }
    let expired = batch.outcome["end"] == "expired";
    let (mut output, mut errors) = (String::new(), String::new());
    let (mut completed, mut failed) = (0u64, 0u64);
    for (i, line) in pending.iter().enumerate() {
        let line = Line {
            custom_id: line["custom_id"].as_str().unwrap_or_default().to_string(),
            url: line["url"].as_str().unwrap_or_default().to_string(),
            body: line["body"].clone(),
        };
        let line_id = format!("batch_req_{}_{}", batch.id.trim_start_matches("batch_"), i + 1);
        if expired {
            let error = json!({"code": "batch_expired",
                "message": "This request could not be executed before the completion window expired."});
            let record = json!({"id": line_id, "custom_id": line.custom_id, "response": null, "error": error});
            errors.push_str(&format!("{record}\n"));
            failed += 1;
            continue;
        }
        let (status, request_id, body) = answer_line(mock, &batch.id, &line, false);
        let record = json!({"id": line_id, "custom_id": line.custom_id,
            "response": {"status_code": status, "request_id": request_id, "body": body}, "error": null});
        if (200..300).contains(&status) {
            output.push_str(&format!("{record}\n"));
            completed += 1;
        } else {
            errors.push_str(&format!("{record}\n"));
            failed += 1;
        }
    }
    let stem = batch.id.clone();
    let output_id = (!output.is_empty()).then(|| {
        mock.store_file("file-", &format!("{stem}_output.jsonl"), "batch_output", Arc::from(output.as_bytes())).id
    });
    let error_id = (!errors.is_empty()).then(|| {
        mock.store_file("file-", &format!("{stem}_error.jsonl"), "batch_output", Arc::from(errors.as_bytes())).id
    });
    mock.update_batch(id, |batch| {
        let outcome = &mut batch.outcome;
        outcome["output_file_id"] = json!(output_id);
        outcome["error_file_id"] = json!(error_id);
        let total = outcome["total"].clone();
        outcome["request_counts"] = json!({"total": total, "completed": completed, "failed": failed});
    })
}

/// `GET /v1/batches`, `GET /v1/batches/{id}` (one status further per retrieve), `POST /v1/batches/{id}/cancel`.
pub(crate) fn batches(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let endpoint = matched.endpoint;
    let cancel = http.method == "POST";
    let id = if cancel { segment(http, 1) } else { segment(http, 0) };
    if id == "batches" {
        let (batches, has_more) = page(http, mock.batches(), |b| &b.id, true);
        let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
        let data: Vec<Value> = batches.iter().map(|b| openai_batch_view(b, &openai_stages(b))).collect();
        let first = batches.first().map(|b| b.id.clone());
        let last = batches.last().map(|b| b.id.clone());
        return served_reply(
            index,
            &json!({"object": "list", "data": data, "first_id": first, "last_id": last,
            "has_more": has_more}),
        );
    }
    if !mock.batches().iter().any(|b| b.id == id) {
        return refuse(mock, http, endpoint, Dialect::OpenAi, 404, &format!("No batch found with id '{id}'."));
    }
    let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
    let batch = if cancel {
        mock.update_batch(id, |batch| {
            // Cancelling stops a batch whose lines are not answered yet; one that answered them stays as it is.
            if batch.outcome.get("lines").is_some() && batch.outcome["end"] != "failed" {
                let total = batch.outcome["total"].clone();
                batch.outcome = json!({"end": "cancelled", "total": total,
                    "request_counts": {"total": total, "completed": 0, "failed": 0}});
                batch.polls = 1;
            }
        })
    } else {
        work_openai(mock, id)
    };
    match batch {
        Some(batch) => served_reply(index, &openai_batch_view(&batch, &openai_stages(&batch))),
        None => cuecard_reply(Dialect::OpenAi, 404, ErrorKind::NotFound, "the batch was deleted", &request_id(index)),
    }
}

// ---- Anthropic message batches ---------------------------------------------------------------------------------

/// The Anthropic batch object: `in_progress` until polled once, then `ended` with its counts and results URL.
fn anthropic_batch_view(batch: &StoredBatch) -> Value {
    let mut object = batch.object.clone();
    let ended = batch.polls >= 1 && batch.outcome.get("lines").is_none();
    if ended {
        object["processing_status"] = json!("ended");
        object["ended_at"] = batch.outcome["ended_at"].clone();
        object["request_counts"] = batch.outcome["request_counts"].clone();
        object["results_url"] = json!(format!("/v1/messages/batches/{}/results", batch.id));
    } else if batch.outcome["end"] == "canceled" {
        object["processing_status"] = json!("canceling");
    }
    object
}

/// `POST /v1/messages/batches`: `{requests: [{custom_id, params}]}`.
pub(crate) fn create_message_batch(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let (endpoint, dialect) = (matched.endpoint, Dialect::Anthropic);
    let body: Value = match serde_json::from_slice(&http.body) {
        Ok(body) => body,
        Err(e) => {
            return refuse(mock, http, endpoint, dialect, 400, &format!("the request body is not valid JSON: {e}"))
        }
    };
    let requests = match body.get("requests").and_then(Value::as_array) {
        Some(requests) if !requests.is_empty() && requests.len() <= 100_000 => requests,
        _ => {
            return refuse(mock, http, endpoint, dialect, 400, "requests: a list of 1 to 100,000 requests is required")
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut lines = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let custom_id = request.get("custom_id").and_then(Value::as_str).unwrap_or_default();
        let params = request.get("params").filter(|p| p.is_object());
        let problem = match (custom_id.is_empty(), params) {
            (true, _) => Some(format!("requests.{i}.custom_id: Field required")),
            (_, None) => Some(format!("requests.{i}.params: Field required")),
            _ if !seen.insert(custom_id.to_string()) => {
                Some(format!("requests.{i}.custom_id: {custom_id:?} is used by an earlier request"))
            }
            _ => None,
        };
        if let Some(message) = problem {
            return refuse(mock, http, endpoint, dialect, 400, &message);
        }
        lines.push(json!({"custom_id": custom_id, "url": "/v1/messages", "body": params}));
    }
    let (index, expire) = match scripted(mock, http, endpoint, dialect) {
        Ok(scripted) => scripted,
        Err(reply) => return reply,
    };
    let number = mock.next_batch_number();
    let id = format!("msgbatch_{number:024}");
    let now_ms = mock.clock_ms();
    let total = lines.len();
    let object = json!({"id": id, "type": "message_batch", "processing_status": "in_progress",
        "request_counts": {"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
        "ended_at": null, "created_at": crate::rate_limits::rfc3339(now_ms),
        "expires_at": crate::rate_limits::rfc3339(now_ms + 86_400_000), "archived_at": null,
        "cancel_initiated_at": null, "results_url": null});
    let outcome = json!({"end": if expire { "expired" } else { "succeeded" }, "total": total, "lines": lines});
    let batch = StoredBatch { id: id.clone(), object, polls: 0, outcome };
    mock.store_batch(number, batch.clone());
    super::served_reply_as(Dialect::Anthropic, index, &anthropic_batch_view(&batch))
}

/// Answers an Anthropic batch's lines on its first poll (or writes them canceled or expired).
fn work_anthropic(mock: &MockModel, id: &str) -> Option<StoredBatch> {
    let mut pending = Vec::new();
    let batch = mock.update_batch(id, |batch| {
        batch.polls += 1;
        if let Some(Value::Array(lines)) = batch.outcome.as_object_mut().and_then(|o| o.remove("lines")) {
            pending = lines;
        }
    })?;
    if pending.is_empty() {
        return Some(batch);
    }
    let end = batch.outcome["end"].as_str().unwrap_or("succeeded").to_string();
    let mut counts = json!({"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0});
    let mut results = String::new();
    for line in &pending {
        let custom_id = line["custom_id"].as_str().unwrap_or_default().to_string();
        let result = match end.as_str() {
            "canceled" | "expired" => json!({"type": end}),
            _ => {
                let line =
                    Line { custom_id: custom_id.clone(), url: "/v1/messages".into(), body: line["body"].clone() };
                match answer_line(mock, &batch.id, &line, true) {
                    (200, _, message) => json!({"type": "succeeded", "message": message}),
                    (_, _, error) => json!({"type": "errored", "error": error}),
                }
            }
        };
        let kind = result["type"].as_str().unwrap_or("errored").to_string();
        counts[kind.as_str()] = json!(counts[kind.as_str()].as_u64().unwrap_or(0) + 1);
        results.push_str(&format!("{}\n", json!({"custom_id": custom_id, "result": result})));
    }
    let ended_at = crate::rate_limits::rfc3339(mock.clock_ms());
    mock.update_batch(id, |batch| {
        let outcome = &mut batch.outcome;
        outcome["request_counts"] = counts;
        outcome["results"] = json!(results);
        outcome["ended_at"] = json!(ended_at);
    })
}

/// `GET /v1/messages/batches`, `GET .../{id}` (ended from the first retrieve on), `GET .../{id}/results`,
/// `POST .../{id}/cancel`, `DELETE .../{id}`.
pub(crate) fn message_batches(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let endpoint = matched.endpoint;
    let last = segment(http, 0);
    let (id, action) = match last {
        "results" | "cancel" => (segment(http, 1), last),
        _ => (last, ""),
    };
    let respond = |index: u64, body: &Value| super::served_reply_as(Dialect::Anthropic, index, body);
    if id == "batches" {
        let (batches, has_more) = page(http, mock.batches(), |b| &b.id, true);
        let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
        let data: Vec<Value> = batches.iter().map(anthropic_batch_view).collect();
        let first = batches.first().map(|b| b.id.clone());
        let last = batches.last().map(|b| b.id.clone());
        return respond(index, &json!({"data": data, "has_more": has_more, "first_id": first, "last_id": last}));
    }
    if !mock.batches().iter().any(|b| b.id == id) {
        return refuse(mock, http, endpoint, Dialect::Anthropic, 404, &format!("No batch found with id '{id}'."));
    }
    let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
    if http.method == "DELETE" {
        mock.delete_batch(id);
        return respond(index, &json!({"id": id, "type": "message_batch_deleted"}));
    }
    let batch = match action {
        "cancel" => {
            let now = crate::rate_limits::rfc3339(mock.clock_ms());
            mock.update_batch(id, |batch| {
                if batch.outcome.get("lines").is_some() {
                    batch.outcome["end"] = json!("canceled");
                    batch.object["cancel_initiated_at"] = json!(now);
                }
            })
        }
        "results" => mock.update_batch(id, |_| {}),
        _ => work_anthropic(mock, id),
    };
    let Some(batch) = batch else {
        return cuecard_reply(
            Dialect::Anthropic,
            404,
            ErrorKind::NotFound,
            "the batch was deleted",
            &request_id(index),
        );
    };
    if action == "results" {
        let Some(results) = batch.outcome["results"].as_str() else {
            let message = format!("Batch {id} has not ended: its results are not available yet");
            return cuecard_reply(Dialect::Anthropic, 400, ErrorKind::InvalidRequest, &message, &request_id(index));
        };
        let headers =
            vec![("content-type".into(), "application/binary".into()), ("request-id".into(), request_id(index).into())];
        return super::binary_reply(headers, results.as_bytes());
    }
    respond(index, &anthropic_batch_view(&batch))
}

// ---- Gemini batches --------------------------------------------------------------------------------------------

/// A Gemini batch's states, one per poll (the SDKs read them as `JOB_STATE_*`).
fn gemini_states(batch: &StoredBatch) -> Vec<&'static str> {
    match batch.outcome["end"].as_str() {
        Some("expired") => vec!["BATCH_STATE_PENDING", "BATCH_STATE_RUNNING", "BATCH_STATE_EXPIRED"],
        Some("cancelled") => vec!["BATCH_STATE_PENDING", "BATCH_STATE_CANCELLED"],
        _ => vec!["BATCH_STATE_PENDING", "BATCH_STATE_RUNNING", "BATCH_STATE_SUCCEEDED"],
    }
}

/// The batch as Gemini's API shows it: an operation whose `metadata` is the batch.
fn gemini_batch_view(batch: &StoredBatch) -> Value {
    let states = gemini_states(batch);
    let stage = (batch.polls as usize).min(states.len() - 1);
    let mut object = batch.object.clone();
    object["metadata"]["state"] = json!(states.get(stage).copied().unwrap_or("BATCH_STATE_PENDING"));
    if stage + 1 == states.len() {
        object["metadata"]["endTime"] = object["metadata"]["createTime"].clone();
        if let Some(output) = batch.outcome.get("output") {
            object["metadata"]["output"] = output.clone();
        }
        if let Some(stats) = batch.outcome.get("batchStats") {
            object["metadata"]["batchStats"] = stats.clone();
        }
        object["done"] = json!(true);
    }
    object
}

/// `POST /{v}/models/{model}:batchGenerateContent` with inlined requests.
pub(crate) fn create_gemini_batch(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let (endpoint, dialect) = (matched.endpoint, Dialect::Gemini);
    let model = matched.model.clone().unwrap_or_default();
    let body: Value = match serde_json::from_slice(&http.body) {
        Ok(body) => body,
        Err(e) => {
            return refuse(mock, http, endpoint, dialect, 400, &format!("the request body is not valid JSON: {e}"))
        }
    };
    let config = &body["batch"]["inputConfig"];
    if config.get("fileName").is_some() {
        let message = "batch.inputConfig.fileName: cuecard answers inlined requests only (send them in \
                       inputConfig.requests)";
        return refuse(mock, http, endpoint, dialect, 400, message);
    }
    let Some(requests) = config["requests"]["requests"].as_array().filter(|r| !r.is_empty()) else {
        return refuse(mock, http, endpoint, dialect, 400, "batch.inputConfig.requests.requests is required");
    };
    let lines: Vec<Value> = requests
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let key = item["metadata"]["key"].as_str().map_or_else(|| i.to_string(), str::to_string);
            json!({"custom_id": key, "metadata": item.get("metadata"), "body": item.get("request")})
        })
        .collect();
    let (index, expire) = match scripted(mock, http, endpoint, dialect) {
        Ok(scripted) => scripted,
        Err(reply) => return reply,
    };
    let number = mock.next_batch_number();
    let id = format!("batches/{number}");
    let now = crate::rate_limits::rfc3339(mock.clock_ms());
    let object = json!({"name": id, "metadata": {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": format!("models/{}", model.trim_start_matches("models/")),
        "displayName": body["batch"]["displayName"], "createTime": now, "updateTime": now,
        "batchStats": {"requestCount": lines.len().to_string()}, "name": id}});
    let total = lines.len();
    let outcome = json!({"end": if expire { "expired" } else { "succeeded" }, "total": total, "lines": lines,
        "model": model});
    let batch = StoredBatch { id, object, polls: 0, outcome };
    mock.store_batch(number, batch.clone());
    served_reply(index, &gemini_batch_view(&batch))
}

/// Answers a Gemini batch's requests on the poll that ends it.
fn work_gemini(mock: &MockModel, id: &str) -> Option<StoredBatch> {
    let mut pending = Vec::new();
    let batch = mock.update_batch(id, |batch| {
        batch.polls += 1;
        if batch.polls as usize + 1 >= gemini_states(batch).len() {
            if let Some(Value::Array(lines)) = batch.outcome.as_object_mut().and_then(|o| o.remove("lines")) {
                pending = lines;
            }
        }
    })?;
    if pending.is_empty() || batch.outcome["end"] != "succeeded" {
        return Some(batch);
    }
    let model = batch.outcome["model"].as_str().unwrap_or_default().to_string();
    let (mut succeeded, mut failed) = (0u64, 0u64);
    let responses: Vec<Value> = pending
        .iter()
        .map(|line| {
            let custom_id = line["custom_id"].as_str().unwrap_or_default().to_string();
            let mut request = HttpRequest::new(
                "POST",
                &format!("/v1beta/models/{model}:generateContent"),
                Vec::new(),
                line["body"].to_string().into_bytes(),
            )
            .with_header("content-type", "application/json")
            .with_header("x-goog-api-client", "cuecard-batch")
            .with_header(BATCH_HEADER, &format!("{id} {custom_id}"));
            request.query = String::new();
            let reply = super::handle(mock, &request);
            let body: Value = serde_json::from_str(&reply.body_text()).unwrap_or(Value::Null);
            let mut item = match (reply.status(), body) {
                (200, response) => {
                    succeeded += 1;
                    json!({"response": response})
                }
                (status, error) => {
                    failed += 1;
                    let message = error["error"]["message"].as_str().unwrap_or("the request failed").to_string();
                    json!({"error": {"code": status, "message": message}})
                }
            };
            if !line["metadata"].is_null() {
                item["metadata"] = line["metadata"].clone();
            }
            item
        })
        .collect();
    mock.update_batch(id, |batch| {
        batch.outcome["output"] = json!({"inlinedResponses": {"inlinedResponses": responses}});
        let total = batch.outcome["total"].as_u64().unwrap_or(0);
        batch.outcome["batchStats"] = json!({"requestCount": total.to_string(),
            "successfulRequestCount": succeeded.to_string(), "failedRequestCount": failed.to_string()});
    })
}

/// `GET /{v}/batches/{n}` (one state further per retrieve), `POST /{v}/batches/{n}:cancel`, `DELETE /{v}/batches/{n}`.
pub(crate) fn gemini_batches(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let endpoint = matched.endpoint;
    let last = segment(http, 0);
    let cancel = last.ends_with(":cancel") || last.ends_with("%3Acancel");
    let number = last.split([':', '%']).next().unwrap_or_default();
    let id = format!("batches/{number}");
    if !mock.batches().iter().any(|b| b.id == id) {
        return refuse(mock, http, endpoint, Dialect::Gemini, 404, &format!("Batch {id} not found."));
    }
    let index = mock.record_served(super::served_request("", endpoint, Vec::new()), Some(raw(http)));
    if http.method == "DELETE" {
        mock.delete_batch(&id);
        return served_reply(index, &json!({}));
    }
    if cancel {
        mock.update_batch(&id, |batch| {
            if batch.outcome.get("lines").is_some() {
                batch.outcome["end"] = json!("cancelled");
                batch.polls = 1;
            }
        });
        return served_reply(index, &json!({}));
    }
    match work_gemini(mock, &id) {
        Some(batch) => served_reply(index, &gemini_batch_view(&batch)),
        None => cuecard_reply(Dialect::Gemini, 404, ErrorKind::NotFound, "the batch was deleted", &request_id(index)),
    }
}
