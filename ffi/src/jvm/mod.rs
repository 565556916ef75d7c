//! The JVM's door into the same library (cargo feature `jni`): `static native` methods of
//! `dev.cuecard.internal.Native` (jvm/), beside the C exports, over the same core face.
//!
//! - Native objects cross as `long` ids of a registry, not as pointers: a closed or foreign id is a typed
//!   `invalid_state` / `invalid_argument` exception, never a dangling pointer, whatever the Java code does.
//! - Data crosses as JSON text, read by the same helpers as the C ABI's: a `String`, except for the hot calls
//!   (`mockChat`, `mockStream`), whose request and answer cross as UTF-8 `byte[]` (no modified-UTF-8 conversion).
//! - A cuecard error is thrown as the exception `dev.cuecard.CuecardException.fromNative(errorJson)` builds; a Java
//!   exception thrown by a computed answer or tool is thrown again, the very same object.

mod exports;
mod handles;

use crate::errors::{invalid, Failure};
use jni::objects::{JByteArray, JObject, JString, JThrowable, JValue};
use jni::refs::Global;
use jni::{jni_sig, jni_str, Env, EnvUnowned};
use std::sync::Arc;

/// Why a native method did not finish.
enum Thrown {
    /// cuecard's own error or a provider failure: thrown as the package's exception for it.
    Failure(Failure),
    /// A Java exception caught in a callback (with its class and message): thrown again unchanged.
    Java(Arc<Global<JThrowable<'static>>>, String),
    /// JNI itself failed (an exception may already be pending).
    Jni(jni::errors::Error),
}

impl From<Failure> for Thrown {
    fn from(failure: Failure) -> Thrown {
        Thrown::Failure(failure)
    }
}

impl From<cuecard::Error> for Thrown {
    fn from(error: cuecard::Error) -> Thrown {
        Thrown::Failure(Failure::Cuecard(error))
    }
}

impl From<jni::errors::Error> for Thrown {
    fn from(error: jni::errors::Error) -> Thrown {
        match error {
            jni::errors::Error::CaughtJavaException { exception, name, msg, .. } => {
                Thrown::Java(Arc::new(exception), format!("{name}: {msg}"))
            }
            other => Thrown::Jni(other),
        }
    }
}

impl From<cuecard::CallError> for Thrown {
    fn from(error: cuecard::CallError) -> Thrown {
        match error {
            cuecard::CallError::Host(host) => match java_exception(&host) {
                Some(exception) => Thrown::Java(exception, host.message().to_string()),
                None => Thrown::Failure(Failure::Cuecard(host.to_error())),
            },
            other => Thrown::Failure(other.into()),
        }
    }
}

/// The Java exception a host error carries, when a Java callback raised it.
fn java_exception(host: &cuecard::HostError) -> Option<Arc<Global<JThrowable<'static>>>> {
    Arc::clone(host.payload()).downcast::<Global<JThrowable<'static>>>().ok()
}

type Outcome<T> = Result<T, Thrown>;

/// The error JSON of a failure: core's error object, or a provider failure with `"provider": true`.
fn failure_json(failure: &Failure) -> String {
    match failure {
        Failure::Cuecard(error) => error.to_json().to_string(),
        Failure::Provider(error) => serde_json::json!({"family": "provider", "error": error}).to_string(),
    }
}

/// Throws `thrown` in Java. JNI reports a thrown exception as an `Err(JavaException)`: that is the success here.
fn throw(env: &mut Env<'_>, thrown: Thrown) -> jni::errors::Result<()> {
    let result = match thrown {
        Thrown::Java(exception, _) => env.throw(exception.as_ref()),
        Thrown::Failure(failure) => {
            let json = env.new_string(failure_json(&failure))?;
            let exception = env
                .call_static_method(
                    jni_str!("dev/cuecard/CuecardException"),
                    jni_str!("fromNative"),
                    jni_sig!("(Ljava/lang/String;)Ljava/lang/Throwable;"),
                    &[JValue::Object(&json)],
                )?
                .l()?;
            let exception = env.cast_local::<JThrowable>(exception)?;
            env.throw(exception)
        }
        Thrown::Jni(error) => return Err(error),
    };
    match result {
        Err(jni::errors::Error::JavaException) | Ok(()) => Ok(()),
        Err(other) => Err(other),
    }
}

/// Runs a native method's body: a failure becomes a Java exception and the method returns `T::default()`
/// (ignored by Java while the exception is pending); a JNI error or a panic becomes a `RuntimeException`.
fn run<'local, T: Default>(mut env: EnvUnowned<'local>, body: impl FnOnce(&mut Env<'local>) -> Outcome<T>) -> T {
    env.with_env(|env| -> jni::errors::Result<T> {
        match body(env) {
            Ok(value) => Ok(value),
            Err(thrown) => throw(env, thrown).map(|()| T::default()),
        }
    })
    .resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// A Java string argument as Rust text; `null` is `invalid_argument` naming it.
fn text(env: &Env<'_>, value: &JString<'_>, argument: &str) -> Outcome<String> {
    if value.is_null() {
        return Err(invalid(argument, "is null").into());
    }
    Ok(value.try_to_string(env)?)
}

/// A Java string argument that may be `null` (then `None`).
fn optional_text(env: &Env<'_>, value: &JString<'_>, argument: &str) -> Outcome<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    text(env, value, argument).map(Some)
}

/// A Java `byte[]` argument as UTF-8 text; `null` is `invalid_argument` and bytes that are not UTF-8 are
/// `invalid_utf8`, each naming it.
fn utf8(env: &Env<'_>, bytes: &JByteArray<'_>, argument: &str) -> Outcome<String> {
    if bytes.is_null() {
        return Err(invalid(argument, "is null").into());
    }
    String::from_utf8(env.convert_byte_array(bytes)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Thrown::from(
            cuecard::Error::new(
                cuecard::ErrorKind::InvalidUtf8,
                format!("argument `{argument}` is not valid UTF-8 (byte {at})"),
            )
            .with_context("argument", argument),
        )
    })
}

/// A Java `byte[]` holding a result's UTF-8 text.
fn java_bytes(env: &mut Env<'_>, value: impl AsRef<str>) -> Outcome<jni::sys::jbyteArray> {
    Ok(env.byte_array_from_slice(value.as_ref().as_bytes())?.into_raw())
}

/// A Java string for a result.
fn java_string(env: &mut Env<'_>, value: impl AsRef<str>) -> Outcome<jni::sys::jstring> {
    Ok(env.new_string(value)?.into_raw())
}

/// JSON text of core data (which always serializes).
fn json_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A Java object implementing `dev.cuecard.internal.JsonFunction` (`String apply(String json)`), callable from any
/// thread: a server's threads are attached for the call and detached after, so none outlives it.
struct JsonFunction {
    vm: jni::JavaVM,
    function: Global<JObject<'static>>,
}

impl JsonFunction {
    fn new(env: &Env<'_>, function: &JObject<'_>, argument: &str) -> Outcome<JsonFunction> {
        if function.is_null() {
            return Err(invalid(argument, "is null").into());
        }
        Ok(JsonFunction { vm: env.get_java_vm()?, function: env.new_global_ref(function)? })
    }

    /// Calls the function with JSON text; a Java exception comes back as a host error carrying it.
    fn call(&self, input: &str) -> Result<String, cuecard::CallError> {
        let outcome = self.vm.attach_current_thread_for_scope(|env| -> Outcome<String> {
            let input = env.new_string(input)?;
            let output = env
                .call_method(
                    &self.function,
                    jni_str!("apply"),
                    jni_sig!("(Ljava/lang/String;)Ljava/lang/String;"),
                    &[JValue::Object(&input)],
                )?
                .l()?;
            let output = env.cast_local::<JString>(output)?;
            if output.is_null() {
                return Err(Failure::Cuecard(cuecard::Error::new(
                    cuecard::ErrorKind::CallbackFailed,
                    "a Java callback returned null",
                ))
                .into());
            }
            Ok(output.try_to_string(env)?)
        });
        outcome.map_err(|thrown| match thrown {
            Thrown::Java(exception, description) => cuecard::CallError::Host(cuecard::HostError::new(
                format!("a Java callback threw {description}"),
                exception,
            )),
            Thrown::Failure(Failure::Cuecard(error)) => cuecard::CallError::Cuecard(error),
            Thrown::Failure(Failure::Provider(error)) => cuecard::CallError::Provider(error),
            Thrown::Jni(error) => cuecard::CallError::Cuecard(cuecard::Error::new(
                cuecard::ErrorKind::CallbackFailed,
                format!("a Java callback could not be called: {error}"),
            )),
        })
    }
}
