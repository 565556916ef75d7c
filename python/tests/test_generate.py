"""Generated answers from Python: 100,000 values drawn for a corpus of schemas all validate with an independent
validator (the `jsonschema` package); schemas outside the supported subset are refused with an error naming the
path, never answered wrongly. And embeddings whose similarity means something."""
import json
import math

import jsonschema
import pytest

import cuecard

INSTANCES = 100_000

CORPUS = [
    {"type": "string"},
    {"type": "string", "minLength": 25, "maxLength": 30},
    {"type": "string", "maxLength": 2},
    {"type": "string", "pattern": "^[A-Z]{2}\\d{3}$"},
    {"type": "string", "pattern": "(red|green|blue)-[a-f0-9]{4,6}"},
    {"type": "string", "pattern": "^\\w+@\\w+\\.(com|org)$"},
    {"type": "string", "pattern": "^[^\\s,]{3}(,[^\\s,]{3})*$"},
    {"type": "string", "format": "date"},
    {"type": "string", "format": "email"},
    {"type": "string", "enum": ["low", "medium", "high"]},
    {"enum": [0, False, "", None, [], {}]},
    {"const": 0},
    {"const": False},
    {"type": "integer"},
    {"type": "integer", "minimum": -5, "maximum": 5},
    {"type": "integer", "exclusiveMinimum": 10, "exclusiveMaximum": 12},
    {"type": "integer", "multipleOf": 13},
    {"type": "number", "minimum": 0.1, "maximum": 0.2},
    {"type": "number", "multipleOf": 0.5, "minimum": 2},
    {"type": "boolean"},
    {"type": "null"},
    {"type": ["integer", "string"]},
    {"type": ["null", "boolean"]},
    {"type": "array", "items": {"type": "string"}},
    {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 4}, "minItems": 4, "maxItems": 4,
     "uniqueItems": True},
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string", "format": "uuid"}], "items": False},
    {"type": "array", "maxItems": 0},
    {"type": "object"},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False, "required": ["a"]},
    {"type": "object", "minProperties": 2, "maxProperties": 3, "additionalProperties": {"type": "boolean"}},
    {"type": "object", "required": ["x", "y"], "additionalProperties": {"type": "number"}},
    {"anyOf": [{"type": "string", "minLength": 3}, {"type": "integer", "maximum": 0}]},
    {"oneOf": [{"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 3}]},
    {"oneOf": [{"type": "object", "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}},
                "required": ["kind", "lives"]},
               {"type": "object", "properties": {"kind": {"const": "dog"}, "good": {"type": "boolean"}},
                "required": ["kind", "good"]}]},
    {"allOf": [{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
               {"properties": {"name": {"type": "string", "maxLength": 5}}, "required": ["name"]}]},
    {"allOf": [{"minimum": 3}, {"maximum": 4}, {"type": "integer"}]},
    {"$defs": {"tree": {"type": "object", "properties": {"value": {"type": "integer"},
                                                         "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
                        "required": ["value"]}},
     "$ref": "#/$defs/tree"},
    {"$defs": {"name": {"type": "string", "minLength": 1}}, "type": "object",
     "properties": {"first": {"$ref": "#/$defs/name"}, "last": {"$ref": "#/$defs/name"}}, "required": ["first", "last"]},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"},
                                      "where": {"type": "string", "format": "ipv4"},
                                      "who": {"type": "array", "items": {"type": "string", "format": "email"}}},
     "required": ["when", "where", "who"], "additionalProperties": False},
    # What openai-python's to_strict_json_schema writes for a pydantic model with an optional field.
    {"type": "object", "properties": {"title": {"type": "string"}, "rating": {"anyOf": [{"type": "integer"},
                                                                                       {"type": "null"}]}},
     "required": ["title", "rating"], "additionalProperties": False},
    True,
]

UNSUPPORTED = [
    ({"not": {"type": "string"}}, "/not"),
    ({"type": "string", "pattern": "^(?=a)"}, "/pattern"),
    ({"type": "object", "properties": {"a": {"if": {"type": "string"}}}, "required": ["a"]}, "/properties/a/if"),
    ({"type": "array", "contains": {"type": "integer"}}, "/contains"),
    ({"type": "integer", "minimum": 3, "maximum": 2}, ""),
    ({"type": "string", "pattern": "^a{9}$", "maxLength": 3}, ""),
]


def generated(schema, count):
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "seed": 11, "routes": [
        {"on_exhausted": "repeat_last", "steps": [{"generate": "output", "schema": schema}]}]})
    return [json.loads(mock.chat("give me one")["message"]["text"]) for _ in range(count)]


def test_100000_generated_values_validate_with_an_independent_validator():
    per_schema = INSTANCES // len(CORPUS) + 1
    checked = 0
    for schema in CORPUS:
        validator = jsonschema.Draft202012Validator(schema)
        values = generated(schema, per_schema)
        for value in values:
            errors = list(validator.iter_errors(value))
            assert not errors, f"{schema}: {value}: {errors[0].message}"
        checked += len(values)
        if schema is not True and schema.get("type") == "boolean":
            assert {True, False} <= set(values)
    assert checked >= INSTANCES


@pytest.mark.parametrize(("schema", "path"), UNSUPPORTED)
def test_unsupported_or_unsatisfiable_schemas_are_refused_naming_the_path(schema, path):
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [{"generate": "output", "schema": schema}]}]})
    with pytest.raises(cuecard.CallbackFailedError) as raised:
        mock.chat("give me one")
    assert f"cannot generate a value at {path or 'the schema'}" in str(raised.value)
    [entry] = mock.entries()
    assert entry["outcome"] == "callback_failed"


def test_tool_arguments_are_drawn_from_the_schemas_the_request_sent():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [
        {"generate": "tool_calls", "with": {"units": "c"}}, {"text": "Done."}]}]})
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "units": {"enum": ["c", "f"]}},
              "required": ["city", "units"], "additionalProperties": False}
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather?"}],
               "tools": [{"name": "get_weather", "parameters": schema}]}
    [call] = mock.chat(request)["message"]["tool_calls"]
    arguments = json.loads(call["arguments"])
    jsonschema.validate(arguments, schema)
    assert (call["name"], arguments["units"]) == ("get_weather", "c")
    assert mock.chat(request)["message"]["text"] == "Done."


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_embeddings_rank_texts_that_share_words_closer():
    mock = cuecard.MockModel()
    texts = ["the cat sat on the mat", "a cat on a mat", "stock prices fell"]
    body = json.dumps({"model": "text-embedding-3-small", "input": texts}).encode()
    reply = mock.handle_http("POST", "/v1/embeddings", [("content-type", "application/json")], body)
    cat, near, far = [item["embedding"] for item in json.loads(reply["body"])["data"]]
    assert cosine(cat, near) > cosine(cat, far) + 0.2
    assert len(cat) == 1536
