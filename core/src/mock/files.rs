//! What a mock keeps of the Files and Batch APIs (`wire::batches` speaks them): uploaded files and batches, each
//! numbered per mock (so per test under `/t/{id}/`), forgotten with the journal on a reset or a new scenario.
//!
//! The store holds data only; the wire decides what a batch answers (each line through the mock, as if sent alone)
//! and how its status moves when polled.

use super::MockModel;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An uploaded file (or one cuecard wrote: a batch's output and errors).
#[derive(Clone, Debug)]
pub struct StoredFile {
    /// `file-1`, ...
    pub id: String,
    pub filename: String,
    pub purpose: String,
    /// When it was made, in Unix seconds of the virtual clock.
    pub created_at: u64,
    pub bytes: Arc<[u8]>,
}

/// A batch: the object the API shows (its fields as the protocol writes them, `wire::batches`), how many polls it
/// has seen, and the fields it shows once its work is done.
#[derive(Clone, Debug)]
pub struct StoredBatch {
    pub id: String,
    /// The object shown now.
    pub object: Value,
    /// The polls (retrieves) it has seen since it was made.
    pub polls: u32,
    /// What the object shows when it reaches its end (output and error files, counts, results).
    pub outcome: Value,
}

/// What became of a stored Responses answer after it was made: its retrieves (a background response moves on with
/// each), and whether it was cancelled or deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResponseState {
    pub polls: u32,
    pub cancelled: bool,
    pub deleted: bool,
}

/// Every file and batch of one mock, and the state of its stored responses.
#[derive(Debug, Default)]
pub(crate) struct Store {
    files: BTreeMap<u64, StoredFile>,
    batches: BTreeMap<u64, StoredBatch>,
    next_file: u64,
    next_batch: u64,
    responses: BTreeMap<String, ResponseState>,
}

/// The number at the end of an id (`file-12` is 12), which orders the store.
fn number_of(id: &str) -> Option<u64> {
    id.rsplit(['-', '_', '/']).next()?.parse().ok()
}

impl MockModel {
    /// Keeps a file, naming it `{prefix}{n}` (the next number); returns its id.
    pub fn store_file(&self, prefix: &str, filename: &str, purpose: &str, bytes: Arc<[u8]>) -> StoredFile {
        let mut state = self.lock();
        let created_at = crate::clock::created_seconds(state.clock_ms);
        let store = &mut state.files;
        store.next_file += 1;
        let number = store.next_file;
        let file = StoredFile {
            id: format!("{prefix}{number}"),
            filename: filename.to_string(),
            purpose: purpose.to_string(),
            created_at,
            bytes,
        };
        store.files.insert(number, file.clone());
        file
    }

    /// The file with this id.
    pub fn file(&self, id: &str) -> Option<StoredFile> {
        let number = number_of(id)?;
        self.lock().files.files.get(&number).filter(|f| f.id == id).cloned()
    }

    /// Every file, oldest first.
    pub fn files(&self) -> Vec<StoredFile> {
        self.lock().files.files.values().cloned().collect()
    }

    /// Forgets a file; whether there was one.
    pub fn delete_file(&self, id: &str) -> bool {
        let Some(number) = number_of(id) else { return false };
        let mut state = self.lock();
        match state.files.files.get(&number) {
            Some(file) if file.id == id => state.files.files.remove(&number).is_some(),
            _ => false,
        }
    }

    /// The next batch number (its id is the protocol's: `batch_1`, `msgbatch_1`).
    pub fn next_batch_number(&self) -> u64 {
        let mut state = self.lock();
        state.files.next_batch += 1;
        state.files.next_batch
    }

    /// Keeps a batch under its number.
    pub fn store_batch(&self, number: u64, batch: StoredBatch) {
        self.lock().files.batches.insert(number, batch);
    }

    /// The batch with this id, after `update` changed it (a poll moves its status); `None` for no such batch.
    pub fn update_batch(&self, id: &str, update: impl FnOnce(&mut StoredBatch)) -> Option<StoredBatch> {
        let number = number_of(id)?;
        let mut state = self.lock();
        let batch = state.files.batches.get_mut(&number).filter(|b| b.id == id)?;
        update(batch);
        Some(batch.clone())
    }

    /// Every batch, oldest first.
    pub fn batches(&self) -> Vec<StoredBatch> {
        self.lock().files.batches.values().cloned().collect()
    }

    /// Forgets a batch; whether there was one.
    pub fn delete_batch(&self, id: &str) -> bool {
        let Some(number) = number_of(id) else { return false };
        let mut state = self.lock();
        match state.files.batches.get(&number) {
            Some(batch) if batch.id == id => state.files.batches.remove(&number).is_some(),
            _ => false,
        }
    }

    /// The state of the stored response `id` after `update` changed it.
    pub fn update_response_state(&self, id: &str, update: impl FnOnce(&mut ResponseState)) -> ResponseState {
        let mut state = self.lock();
        let response = state.files.responses.entry(id.to_string()).or_default();
        update(response);
        *response
    }

    /// The virtual clock in Unix seconds.
    pub fn now_seconds(&self) -> u64 {
        crate::clock::created_seconds(self.lock().clock_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_batches_are_numbered_per_mock_and_forgotten_on_reset() {
        let mock = MockModel::new();
        let first = mock.store_file("file-", "a.jsonl", "batch", Arc::from(&b"{}"[..]));
        let second = mock.store_file("file-", "b.jsonl", "batch", Arc::from(&b"[]"[..]));
        assert_eq!((first.id.as_str(), second.id.as_str()), ("file-1", "file-2"));
        assert_eq!(mock.file("file-2").map(|f| f.filename), Some("b.jsonl".into()));
        assert!(mock.file("file-3").is_none() && mock.file("nonsense").is_none());
        assert!(mock.delete_file("file-1") && !mock.delete_file("file-1"));
        let number = mock.next_batch_number();
        let batch = StoredBatch { id: format!("batch_{number}"), object: Value::Null, polls: 0, outcome: Value::Null };
        mock.store_batch(number, batch);
        assert_eq!(mock.update_batch("batch_1", |b| b.polls += 1).map(|b| b.polls), Some(1));
        mock.reset();
        assert!(mock.files().is_empty() && mock.batches().is_empty());
        assert_eq!(mock.store_file("file-", "c", "batch", Arc::from(&b""[..])).id, "file-1");
    }
}
