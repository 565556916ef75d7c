//! Generated answers: values valid against the JSON Schema a request declared (a tool's input schema, a structured
//! output schema), seeded by the scenario's seed and the request's index, so a test needs no hand-written JSON and
//! the same scenario answers the same in every language.
//!
//! The supported subset (docs/concepts/generate.md): `type` (and type lists, OpenAPI's upper-case names, `nullable`),
//! `enum`, `const`, `properties` / `required` / `additionalProperties` / `minProperties`, the number bounds and
//! `multipleOf`, `minLength` / `maxLength`, `pattern` (a regex subset, `pattern`), `format`, `items` /
//! `prefixItems` / `minItems` / `maxItems` / `uniqueItems`, `anyOf` / `oneOf` / `allOf`, and `$ref` into the same
//! document (recursive schemas are bounded). A schema outside it, or one nothing satisfies, is an error naming its
//! path, never a wrong value: each value is checked against the schema (`validate`) before it is given.

mod pattern;
mod schema;
mod step;
mod validate;

use serde_json::Value;

pub use step::{GenerateKind, GenerateStep};
pub use validate::is_valid;

/// Why no value could be generated: the schema path (`/properties/city/pattern`) and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateError {
    /// A JSON pointer into the schema.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "the schema's root" } else { &self.path };
        write!(f, "cannot generate a value at {path}: {}", self.message)
    }
}

/// How many whole attempts (each with its own draws) before a schema is declared unsatisfiable: a value that fails
/// the final check (a `oneOf` matched twice, `uniqueItems` hit by chance) is drawn again, and so is a draw that
/// found no way (an error that does not depend on the draws comes back the same each time).
const ATTEMPTS: u64 = 16;

/// A value valid against `schema`, drawn from `seed`.
pub fn generate(schema: &Value, seed: u64) -> Result<Value, GenerateError> {
    let mut last = None;
    for attempt in 0..ATTEMPTS {
        let draw = crate::seeded::request_seed(seed, PURPOSE, attempt);
        match schema::Generator::new(schema, draw).value(schema, "") {
            Ok(value) if is_valid(schema, &value) => return Ok(value),
            Ok(_) => {
                last = Some(GenerateError {
                    path: String::new(),
                    message: format!("no value drawn in {ATTEMPTS} attempts satisfies the schema"),
                });
            }
            Err(error) => last = Some(error),
        }
    }
    Err(last.unwrap_or_else(|| GenerateError { path: String::new(), message: "unsatisfiable".into() }))
}

/// `seeded::request_seed`'s purpose for generated answers ("generate" in ASCII).
const PURPOSE: u64 = 0x6765_6e65_7261_7465;

#[cfg(test)]
mod tests;
