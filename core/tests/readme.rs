//! Every code block of the README (the front page; the book's blocks are checked by cli/tests/book.rs) marked `<!-- START example: PATH -->` is exactly the file at PATH, which CI
//! runs, so the README's examples cannot rot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[test]
fn readme_examples_are_the_files_ci_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut checked = Vec::new();
    for section in readme.split("<!-- START example: ").skip(1) {
        let (path, rest) = section.split_once(" -->").unwrap();
        let block = rest.split("<!-- END example -->").next().unwrap();
        let code = block.split_once("```").unwrap().1;
        let code = code.split_once('\n').unwrap().1; // drop the language tag line
        let code = code.rsplit_once("```").unwrap().0;
        let file = std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(code, file, "the README block for {path} differs from the file");
        checked.push(path.to_string());
    }
    assert_eq!(
        checked,
        [
            "core/tests/readme_front_page.rs",
            "python/tests/test_readme_front_page.py",
            "node/test/readme-front-page.test.mjs",
            "examples/c/front_page.c",
            "jvm/src/test/java/dev/cuecard/ReadmeFrontPageTest.java",
            "go/readme_test.go"
        ]
    );
    assert!(readme.lines().count() <= 200, "the README is a front page: at most 200 lines");
}

/// The book states the status an exhausted script gets on the wire; it must be the one the wire sends (the README
/// once said 500 while the server sent 422).
#[test]
fn the_book_states_the_status_of_an_exhausted_script() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("docs/start/wire-server.md")).unwrap();
    let mock = cuecard::MockModel::new();
    let body = r#"{"model": "m", "messages": [{"role": "user", "content": "x"}]}"#;
    let reply = cuecard::wire::handle(&mock, &cuecard::wire::HttpRequest::post_json("/v1/chat/completions", body));
    assert!(reply.body_text().contains("script_exhausted"), "{}", reply.body_text());
    let claim = format!("an exhausted script or unmatched request a {}", reply.status());
    assert!(readme.contains(&claim), "docs/start/wire-server.md does not say {claim:?}");
}
