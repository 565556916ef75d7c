#!/usr/bin/env bash
# Builds the book (docs/, mdBook): first each language's API docs into docs/api/ (generated, never committed:
# rustdoc, pdoc, TypeDoc, Javadoc), then the book with every internal link and anchor checked by
# mdbook-linkcheck2, into $CARGO_TARGET_DIR/book/html. The book's code blocks and generated reference pages are
# checked by `cargo test -p cuecard-cli --test book`, which the README's test command runs before this; this prints
# the count of blocks per language that the test wrote.
#
# Usage: tests/book.sh PYTHON, where PYTHON has the cuecard wheel installed (pdoc is installed into it).
# Needs mdbook 0.5.4 and mdbook-linkcheck2 0.13.0 on PATH (.ci/run installs them), node/node_modules (TypeDoc)
# and Maven (Javadoc).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:?usage: tests/book.sh PYTHON (a python with the cuecard wheel)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
API=docs/api
rm -rf "$API" && mkdir -p "$API"

# Rust: the crate with every feature (the server, recording, telemetry).
cargo doc --no-deps --locked -q -p cuecard --all-features
cp -r "$CARGO_TARGET_DIR/doc" "$API/rust"

# Python: the package and the native module's stubs (pdoc reads the .pyi of an extension module).
"$PYTHON" -m pip install --quiet --disable-pip-version-check pdoc==16.0.0
"$PYTHON" -m pdoc --no-show-source cuecard cuecard._cuecard cuecard.langchain cuecard.mcp cuecard.pytest_plugin \
  cuecard.recording cuecard.shared cuecard.transport cuecard.verify -o "$API/python"

# Node: the TypeScript declarations of every entry point.
(cd node && node_modules/.bin/typedoc --logLevel Error --disableSources --readme none --name cuecard --tsconfig tsconfig.json \
  --entryPoints types/index.d.ts --entryPoints types/ai.d.ts --entryPoints types/cogitator.d.ts \
  --entryPoints types/vitest.d.ts --entryPoints types/jest.d.ts --entryPoints types/matchers.d.ts \
  --entryPoints types/shared.d.ts --entryPoints types/browser.d.ts --out "../$API/node")

# Java: Javadoc of the public packages (the Kotlin DSL has its own page in the book).
(cd jvm && mvn -B -ntp -q org.apache.maven.plugins:maven-javadoc-plugin:3.12.0:javadoc -Ddoclint=none)
cp -r jvm/target/reports/apidocs "$API/java"

# The book: rendered, and every internal link checked (a broken one fails the build).
rm -rf "$CARGO_TARGET_DIR/book"
mdbook build docs -d "$CARGO_TARGET_DIR/book"
test -f "$CARGO_TARGET_DIR/book/html/reference/checks.html"
CHAPTERS=$(grep -c '](.*\.md)' docs/SUMMARY.md)
# The count of code blocks, as the book test (run by `cargo test --workspace` before this) wrote it.
BLOCKS="$CARGO_TARGET_DIR/tmp/book-code-blocks.txt"
[ -s "$BLOCKS" ] || { echo "no $BLOCKS: run cargo test -p cuecard-cli --test book first" >&2; exit 1; }
cat "$BLOCKS"; echo
echo "book: $CHAPTERS chapters built, every internal link checked, API docs for Rust, Python, Node and Java: 1 passed, 0 failed"
