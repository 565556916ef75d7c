//! Any UTF-8 text: the word-like tokens are non-empty and put together give the text back, and the count agrees.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let tokens: Vec<&str> = cuecard::tokenize(text).collect();
    assert!(tokens.iter().all(|t| !t.is_empty()), "no empty token");
    assert_eq!(tokens.concat(), text, "the tokens are the text");
    assert_eq!(cuecard::count_tokens(text), tokens.len(), "the count is the number of tokens");
});
