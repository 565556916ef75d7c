//! Writing a recording file as it grows. The first exchange writes the whole document (to a temporary file renamed
//! over the old one, so the file is never half written); every later one is appended (YAML: an item of `routes`,
//! the document's last key; JSON: written over the closing brackets, which follow it again), so the 10,000th
//! exchange costs what the first did and a process killed between exchanges leaves every exchange it answered.
//! A request sent again is then a route of its own further down; a recording's reader joins the two
//! (`Scenario::from_value`).
//!
//! A file that changed under the writer (edited, or written by someone else) is written whole again. Two recorders
//! never write one file: a lock file is held while one records, and a second process is refused at once; in one
//! process, recorders of one file share the lock (a retried test opens its recording again before the first
//! recorder is collected). The lock file lives in the system's temporary directory (`cuecard-locks/`, named by a
//! digest of the recording's absolute path), not beside the recording: a recorder a host collects late (Python,
//! JavaScript) leaves nothing in the user's recordings directory.

use super::Recorder;
use crate::error::{Error, ErrorKind, Result};
use serde_json::Value;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// A recording file being written.
#[derive(Debug)]
pub(super) struct Writer {
    path: PathBuf,
    yaml: bool,
    /// The file's length after this writer's last write, while the file is in the layout it appends to.
    written: Option<u64>,
    _lock: Arc<RecordingLock>,
}

fn write_error(path: &Path, error: &std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("cannot write {}: {error}", path.display()))
        .with_context("path", path.display().to_string())
}

impl Writer {
    /// A writer of `path`: its directory made, the lock taken, and the file (when it exists) opened for writing
    /// once, so a recording that cannot be written is refused before anything is forwarded.
    pub(super) fn open(path: &Path) -> Result<Writer> {
        let directory = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(directory).map_err(|e| write_error(directory, &e))?;
        let lock = RecordingLock::acquire(path)?;
        if path.exists() {
            OpenOptions::new().append(true).open(path).map_err(|e| write_error(path, &e))?;
        } else {
            // The first exchange is written to a temporary file beside it, then renamed: the directory must take
            // a new file.
            let probe = path.with_extension(format!("cuecard-probe-{}", std::process::id()));
            File::create(&probe).map_err(|e| write_error(path, &e))?;
            let _ = std::fs::remove_file(&probe);
        }
        Ok(Writer { path: path.to_path_buf(), yaml: super::is_yaml(path), written: None, _lock: lock })
    }

    /// Writes the exchange `route` that `recorder` has just recorded: appended when the file is as this writer
    /// left it, else the whole recording.
    pub(super) fn write(&mut self, recorder: &Recorder, route: &Value) -> Result<()> {
        if let Some(length) = self.written {
            if let Some(length) = self.append(recorder, route, length)? {
                self.written = Some(length);
                return Ok(());
            }
        }
        self.write_whole(recorder)
    }

    /// Writes the whole recording (to a temporary file renamed over the old one, so it is never half written): the
    /// first exchange, a file changed under the writer, and every MCP or A2A exchange (their sections are not the last key).
    pub(super) fn write_whole(&mut self, recorder: &Recorder) -> Result<()> {
        let text = recorder.to_text(self.yaml)?;
        let temporary = self.path.with_extension("cuecard-partial");
        std::fs::write(&temporary, &text).map_err(|e| write_error(&temporary, &e))?;
        std::fs::rename(&temporary, &self.path).map_err(|e| write_error(&self.path, &e))?;
        // A recording without routes yet (an MCP or A2A one) ends `routes: []`: its first route is written whole.
        self.written = recorder.has_routes().then_some(text.len() as u64);
        Ok(())
    }

    /// Appends `route`; `None` (nothing written) when the file is not `length` bytes long or a JSON file does not
    /// end as this writer ended it.
    fn append(&self, recorder: &Recorder, route: &Value, length: u64) -> Result<Option<u64>> {
        let text = recorder.route_text(route, self.yaml)?;
        let failed = |e: std::io::Error| write_error(&self.path, &e);
        let mut file = match OpenOptions::new().read(true).write(true).open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(failed(e)),
        };
        if file.metadata().map_err(failed)?.len() != length {
            return Ok(None);
        }
        let at = if self.yaml {
            length
        } else {
            let trailer = super::JSON_TRAILER.as_bytes();
            let Some(at) = length.checked_sub(trailer.len() as u64) else { return Ok(None) };
            let mut end = vec![0; trailer.len()];
            file.seek(SeekFrom::Start(at)).map_err(failed)?;
            file.read_exact(&mut end).map_err(failed)?;
            if end != trailer {
                return Ok(None);
            }
            at
        };
        file.seek(SeekFrom::Start(at)).map_err(failed)?;
        file.write_all(text.as_bytes()).map_err(failed)?;
        Ok(Some(at + text.len() as u64))
    }
}

/// The lock on one recording file, held while a recorder of this process may write it.
#[derive(Debug)]
struct RecordingLock {
    path: PathBuf,
    _file: File,
}

/// The locks this process holds, by lock file: recorders of one file in one process share one.
static HELD: Mutex<Option<HashMap<PathBuf, Weak<RecordingLock>>>> = Mutex::new(None);

impl RecordingLock {
    fn acquire(recording: &Path) -> Result<Arc<RecordingLock>> {
        let path = lock_path(recording)?;
        let locks = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(locks).map_err(|e| write_error(locks, &e))?;
        let mut held = HELD.lock().map_err(|_| Error::new(ErrorKind::Internal, "the recording locks are poisoned"))?;
        let held = held.get_or_insert_with(HashMap::new);
        held.retain(|_, lock| lock.strong_count() > 0);
        if let Some(lock) = held.get(&path).and_then(Weak::upgrade) {
            return Ok(lock);
        }
        // The recorder that held the lock removes its file on leaving: one opened just before is locked in vain,
        // so the lock counts only when the path still names the file locked.
        for _ in 0..3 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| write_error(&path, &e))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    let holder = holder.trim();
                    let by = if holder.is_empty() { String::new() } else { format!(" (process {holder})") };
                    return Err(Error::new(
                        ErrorKind::Io,
                        format!(
                            "{} is being recorded by another recorder{by}: two recorders of one file would each \
                             overwrite the other's exchanges; record into another file, or stop the other one",
                            recording.display()
                        ),
                    )
                    .with_context("path", recording.display().to_string())
                    .with_context("io_error", "locked"));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(write_error(&path, &e)),
            }
            if same_file(&file, &path) {
                let _ = file.set_len(0).and_then(|()| write!(file, "{}", std::process::id()));
                let lock = Arc::new(RecordingLock { path: path.clone(), _file: file });
                held.insert(path, Arc::downgrade(&lock));
                return Ok(lock);
            }
        }
        Err(Error::new(ErrorKind::Io, format!("cannot take the lock {}: it keeps being replaced", path.display())))
    }
}

/// The lock file of the recording at `recording` (whose directory exists): `cuecard-locks/<digest>.lock` in the
/// system's temporary directory, the digest that of the recording's absolute path.
pub(super) fn lock_path(recording: &Path) -> Result<PathBuf> {
    let directory = recording.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let directory = directory.canonicalize().map_err(|e| write_error(directory, &e))?;
    let absolute = directory.join(recording.file_name().unwrap_or_default());
    let digest = crate::seeded::fnv1a64(absolute.to_string_lossy().bytes());
    Ok(std::env::temp_dir().join("cuecard-locks").join(format!("{digest:016x}.lock")))
}

impl Drop for RecordingLock {
    fn drop(&mut self) {
        // Removed while still locked: a recorder waiting for it finds the file gone and makes its own.
        let _ = std::fs::remove_file(&self.path);
        // And forgotten by the process (its weak reference would keep the allocation until the next acquire).
        if let Ok(mut held) = HELD.lock() {
            if let Some(held) = held.as_mut() {
                if held.get(&self.path).is_some_and(|lock| lock.strong_count() == 0) {
                    held.remove(&self.path);
                }
                if held.is_empty() {
                    *held = HashMap::new();
                }
            }
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}
