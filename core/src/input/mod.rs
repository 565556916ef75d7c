//! Host data in: the strict readers every layer uses to turn JSON, JSON text or a host language's values into core
//! types (the floor the face and the scenario stand on, as pydantic-core's `input/` is for its validators).
//!
//! - [`host_data`]: host data into JSON with the depth, cycle and NaN limits;
//! - [`host_read`]: host data straight into core types when it fits, the same result without the JSON between;
//! - [`strict`]: JSON into core types, a struct from an object only (never an array read by position);
//! - [`strict_text`]: JSON text into core types under the same rule, without a `Value` between (a fast path).
//!
//! The face re-exports them as `cuecard::api::{host_data, host_read, strict, strict_text}`, where bindings find them.

pub mod host_data;
pub mod host_read;
pub mod strict;
pub mod strict_text;

pub use host_data::{data_from_json, to_json, HostNode, HostReadError, HostValue, MAX_DEPTH};
pub use host_read::{from_host, read_host};
pub use strict::{deserialize_data, DataError};
pub use strict_text::read_json_text;
