//! Any UTF-8 text: the word-like tokens are non-empty and put together give the text back, the count agrees, and
//! the block path (64 ASCII bytes at a time) gives exactly the scalar scanner's tokens, byte for byte.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let tokens: Vec<&str> = cuecard::tokenize(text).collect();
    assert!(tokens.iter().all(|t| !t.is_empty()), "no empty token");
    assert_eq!(tokens.concat(), text, "the tokens are the text");
    assert_eq!(cuecard::count_tokens(text), tokens.len(), "the count is the number of tokens");
    let scalar: Vec<&str> = cuecard::tokenize::tokenize_scalar(text).collect();
    assert_eq!(tokens, scalar, "the block path agrees with the scalar scanner");
    let offsets: Vec<(usize, usize)> = cuecard::tokenize::token_offsets(text).collect();
    let from_offsets: Vec<&str> = offsets.iter().map(|&(start, end)| &text[start..end]).collect();
    assert_eq!(from_offsets, scalar, "the offsets are the tokens");
});
