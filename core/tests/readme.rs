//! The README's Rust quickstart is exactly `core/examples/quickstart.rs` (which CI runs), so it cannot rot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[test]
fn readme_quickstart_is_the_example_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("core/examples/quickstart.rs")).unwrap();
    let start = readme.find("<!-- START rust-quickstart").expect("START marker");
    let end = readme.find("<!-- END rust-quickstart -->").expect("END marker");
    let block = &readme[start..end];
    let code = block.split("```rust\n").nth(1).unwrap().split("```").next().unwrap();
    assert_eq!(code, example, "README quickstart and core/examples/quickstart.rs differ");
}
