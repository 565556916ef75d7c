#!/usr/bin/env python3
"""Validates every scenario of the repository against tests/scenario.schema.json with the `jsonschema` package:
the JSON files in tests/scenarios/ and the scenarios inside tests/vectors/scenarios.json and wire.json. The Rust test
core/tests/schema.rs checks the other direction (the parser knows exactly the schema's fields)."""
import json
import pathlib
import sys

import jsonschema

ROOT = pathlib.Path(__file__).resolve().parents[2]
schema = json.loads((ROOT / "tests/scenario.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

checked = 0
failed = 0
documents = [(str(p.relative_to(ROOT)), json.loads(p.read_text())) for p in sorted((ROOT / "tests/scenarios").glob("*.json"))]
for vectors in ("scenarios.json", "wire.json"):
    for vector in json.loads((ROOT / "tests/vectors" / vectors).read_text())["vectors"]:
        if "scenario" in vector["input"]:
            documents.append((f"tests/vectors/{vectors}#{vector['id']}", vector["input"]["scenario"]))
for name, document in documents:
    errors = list(validator.iter_errors(document))
    checked += 1
    if errors:
        failed += 1
        for error in errors:
            print(f"{name}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
print(f"scenario schema: {checked - failed} passed, {failed} failed")
sys.exit(1 if failed or checked < 20 else 0)
