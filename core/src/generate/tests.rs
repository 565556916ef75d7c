//! Each supported keyword gives valid values over many seeds; unsupported keywords and unsatisfiable schemas are
//! errors naming their path.

use super::*;
use serde_json::json;

fn valid_over_seeds(schema: Value) -> Vec<Value> {
    (0..300)
        .map(|seed| {
            let value = generate(&schema, seed).unwrap_or_else(|e| panic!("{schema}: seed {seed}: {e}"));
            assert!(is_valid(&schema, &value), "{schema}: seed {seed} gave {value}");
            value
        })
        .collect()
}

#[test]
fn every_supported_keyword_gives_valid_values() {
    let schemas = [
        json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
               "required": ["city", "days"], "additionalProperties": false}),
        json!({"type": "string", "enum": ["celsius", "fahrenheit"]}),
        json!({"const": false}),
        json!({"const": 0}),
        json!({"type": ["string", "null"], "minLength": 30, "maxLength": 40}),
        json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}),
        json!({"type": "integer", "multipleOf": 7, "minimum": 10, "maximum": 30}),
        json!({"type": "number", "multipleOf": 0.25, "maximum": -3}),
        json!({"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"}),
        json!({"type": "string", "pattern": "(cat|dog)s?\\.[^ ]+"}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "string", "format": "uuid"}),
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3}, "minItems": 3, "maxItems": 4, "uniqueItems": true}),
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": false}),
        json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}),
        json!({"oneOf": [{"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 3}]}),
        json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                         {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}),
        json!({"$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"},
                   "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name", "children"]}},
               "$ref": "#/$defs/node"}),
        json!({"type": "OBJECT", "properties": {"when": {"type": "STRING", "nullable": true}}, "required": ["when"]}),
        json!({"type": "object", "minProperties": 3, "additionalProperties": {"type": "integer"}}),
    ];
    for schema in schemas {
        valid_over_seeds(schema);
    }
}

#[test]
fn values_are_readable_and_the_same_seed_gives_the_same_value() {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let value = generate(&schema, 42).unwrap();
    assert_eq!(value, generate(&schema, 42).unwrap());
    let city = value["city"].as_str().unwrap();
    assert!(city.chars().all(|c| c.is_ascii_lowercase()), "{city}");
    let values = valid_over_seeds(json!({"type": "boolean"}));
    assert!(values.contains(&json!(true)) && values.contains(&json!(false)), "both booleans are drawn");
}

#[test]
fn unsupported_keywords_and_unsatisfiable_schemas_are_errors_naming_the_path() {
    let not = generate(&json!({"properties": {"a": {"not": {"type": "string"}}}, "required": ["a"]}), 0).unwrap_err();
    assert_eq!(not.path, "/properties/a/not");
    assert!(not.to_string().contains("`not` is not supported"), "{not}");
    let lookahead = generate(&json!({"type": "string", "pattern": "(?=a)b"}), 0).unwrap_err();
    assert_eq!(lookahead.path, "/pattern");
    let empty_enum = generate(&json!({"type": "integer", "enum": ["a", "b"]}), 0).unwrap_err();
    assert_eq!(empty_enum.path, "/enum");
    assert!(generate(&json!({"type": "integer", "minimum": 5, "maximum": 4}), 0).is_err());
    assert!(generate(&json!({"required": ["x"], "additionalProperties": false}), 0).is_err());
    assert!(generate(&json!({"$ref": "#/$defs/missing"}), 0).unwrap_err().message.contains("points at nothing"));
    let endless = json!({"$defs": {"a": {"type": "object", "properties": {"next": {"$ref": "#/$defs/a"}}, "required": ["next"]}},
                         "$ref": "#/$defs/a"});
    assert!(generate(&endless, 0).unwrap_err().message.contains("recurses"));
    // A pattern the length bounds contradict is drawn again, then refused: never a wrong value.
    assert!(generate(&json!({"type": "string", "pattern": "^a{5}$", "maxLength": 3}), 0).is_err());
}

#[test]
fn patterns_match_as_json_schema_reads_them() {
    let cases = [
        ("^a+b$", "aab", true),
        ("^a+b$", "ab!", false),
        ("b", "abc", true),
        ("^(?:x|yz){2}$", "xyz", true),
        ("^[^0-9]+$", "abc", true),
        ("^[^0-9]+$", "a1", false),
        ("^\\w+@\\w+\\.com$", "amber@river.com", true),
        ("^.{3}$", "abcd", false),
        ("^(a*)*$", "aaa", true),
    ];
    for (source, text, expected) in cases {
        let node = pattern::parse(source).unwrap();
        assert_eq!(pattern::search(&node, text), expected, "{source} on {text:?}");
    }
}
