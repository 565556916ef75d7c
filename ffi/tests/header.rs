//! `include/cuecard.h` is exactly what the pinned cbindgen generates from `ffi/src`: regenerate it with
//! `UPDATE_HEADER=1 cargo test -p cuecard-ffi --test header` and commit the result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new().with_crate(&crate_dir).with_config(config).generate().unwrap();
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = crate_dir.join("../include/cuecard.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/cuecard.h differs from what cbindgen generates: run UPDATE_HEADER=1 cargo test -p cuecard-ffi --test header"
    );
    // Every function has a doc comment in the header.
    let mut previous = "";
    for line in generated.lines() {
        let declaration = line.trim_end().ends_with(");") && !line.starts_with("typedef") && !line.starts_with(' ');
        if declaration && line.contains(" cuecard_") {
            assert!(previous.trim_end().ends_with("*/"), "no doc comment before: {line}");
        }
        previous = line;
    }
}
