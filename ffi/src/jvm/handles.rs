//! The registry behind the JVM's `long` handles: an id per native object, so that Java code holding a closed or
//! foreign id gets an exception naming the problem instead of touching freed memory. A lookup is one mutex and one
//! map probe (tens of nanoseconds beside a call that serializes JSON).

use crate::errors::{invalid, Failure};
use cuecard::record::RecordingProxy;
use cuecard::{MockMemory, MockModel, MockTool, RecordingObserver, Server};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// A native object a Java object stands for.
#[derive(Clone)]
pub(super) enum Native {
    Mock(Arc<MockModel>),
    Server(Arc<Server>),
    Observer(Arc<RecordingObserver>),
    Tool(Arc<MockTool>),
    Memory(Arc<MockMemory>),
    Proxy(Arc<RecordingProxy>),
}

impl Native {
    fn name(&self) -> &'static str {
        match self {
            Native::Mock(_) => "a MockModel",
            Native::Server(_) => "a Server",
            Native::Observer(_) => "a RecordingObserver",
            Native::Tool(_) => "a MockTool",
            Native::Memory(_) => "a MockMemory",
            Native::Proxy(_) => "a RecordingProxy",
        }
    }
}

fn table() -> &'static Mutex<HashMap<i64, Native>> {
    static TABLE: OnceLock<Mutex<HashMap<i64, Native>>> = OnceLock::new();
    TABLE.get_or_init(Mutex::default)
}

/// Registers `native` and returns its id (never 0, which Java uses for "closed").
pub(super) fn register(native: Native) -> i64 {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    table().lock().unwrap_or_else(PoisonError::into_inner).insert(id, native);
    id
}

/// Forgets `id`; the object lives on while a call or a server still holds it. Unknown ids are ignored, so closing
/// twice is harmless.
pub(super) fn release(id: i64) -> Option<Native> {
    table().lock().unwrap_or_else(PoisonError::into_inner).remove(&id)
}

fn lookup(id: i64, argument: &str, wanted: &str) -> Result<Native, Failure> {
    table().lock().unwrap_or_else(PoisonError::into_inner).get(&id).cloned().ok_or_else(|| {
        Failure::Cuecard(
            cuecard::Error::new(cuecard::ErrorKind::InvalidState, format!("{wanted} was used after close()"))
                .with_context("argument", argument),
        )
    })
}

fn wrong(argument: &str, wanted: &str, found: &Native) -> Failure {
    invalid(argument, format!("is not {wanted} (it is {})", found.name()))
}

macro_rules! getter {
    ($name:ident, $variant:ident, $type:ty, $wanted:literal) => {
        pub(super) fn $name(id: i64, argument: &str) -> Result<Arc<$type>, Failure> {
            match lookup(id, argument, $wanted)? {
                Native::$variant(value) => Ok(value),
                other => Err(wrong(argument, $wanted, &other)),
            }
        }
    };
}

getter!(mock, Mock, MockModel, "a MockModel");
getter!(server, Server, Server, "a Server");
getter!(observer, Observer, RecordingObserver, "a RecordingObserver");
getter!(tool, Tool, MockTool, "a MockTool");
getter!(memory, Memory, MockMemory, "a MockMemory");
getter!(proxy, Proxy, RecordingProxy, "a RecordingProxy");
