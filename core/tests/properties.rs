//! Properties over arbitrary input: the splitter and the parsers never panic, and the splitter's invariants hold.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use proptest::prelude::*;

/// Strings mixing every class: ASCII, white space, CJK, marks, emoji, astral letters and arbitrary scalars.
fn mixed_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z]{1,8}",
        "[0-9]{1,6}",
        "[ \t\n\r]{1,4}",
        "[!-/:-@\\[-`{-~]{1,4}",
        "'[sdmtlvre]{0,2}",
        "[\u{4e00}-\u{4e10}\u{3041}-\u{3050}ー]{1,3}",
        "[\u{0300}-\u{0310}\u{fe0f}]{1,2}",
        "[😀🦊❤\u{200d}]{1,3}",
        any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|parts| parts.concat())
}

/// ASCII prose-like text, long enough for several 64-byte blocks, with the bytes that end a block early.
fn ascii_prose() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => "[a-zA-Z]{1,9}",
        6 => Just(" ".to_string()),
        3 => "[!-&(-/:-@\\[-`{-~]{1,3}",
        1 => "[0-9]{1,5}",
        1 => "'[a-zA-Z]{0,2}",
        1 => "[\n\r\t\u{b}\u{c} ]{1,4}",
        1 => "[éü😀\u{301}\u{a0}\u{17f}]",
    ];
    prop::collection::vec(piece, 0..120).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_count_agrees_with_the_token_iterator(text in ascii_prose()) {
        prop_assert_eq!(cuecard::count_tokens(&text), cuecard::tokenize(&text).count(), "{:?}", text);
    }

    #[test]
    fn the_block_path_agrees_with_the_scalar_scanner(text in ascii_prose()) {
        let tokens: Vec<&str> = cuecard::tokenize(&text).collect();
        let scalar: Vec<&str> = cuecard::tokenize::tokenize_scalar(&text).collect();
        prop_assert_eq!(tokens, scalar, "{:?}", text);
    }

    #[test]
    fn tokens_are_non_empty_and_concatenate_to_the_input(text in mixed_text()) {
        let tokens: Vec<&str> = cuecard::tokenize(&text).collect();
        prop_assert!(tokens.iter().all(|t| !t.is_empty()));
        prop_assert_eq!(tokens.concat(), text.clone());
        prop_assert_eq!(cuecard::count_tokens(&text), tokens.len());
        // A token made of digits has at most three of them.
        let is_digit = |c: char| cuecard::tokenize::class_of(c) == cuecard::tokenize::Class::N;
        for t in &tokens {
            if t.chars().all(is_digit) {
                prop_assert!(t.chars().count() <= 3, "{:?}", t);
            }
        }
    }

    #[test]
    fn arbitrary_strings_split_without_panic(text in any::<String>()) {
        let tokens: Vec<&str> = cuecard::tokenize(&text).collect();
        prop_assert_eq!(tokens.concat(), text);
    }

    #[test]
    fn the_scenario_parser_never_panics_on_any_text(text in any::<String>()) {
        let _ = cuecard::Scenario::from_json(&text);
        let _ = cuecard::Scenario::from_yaml(&text);
        let _ = cuecard::ChatRequest::from_json(&text);
    }

    #[test]
    fn the_scenario_parser_never_panics_on_near_valid_json(
        kind in prop_oneof![Just("rate_limited"), Just("custom"), Just("nope"), Just("")],
        status in prop_oneof![Just("429"), Just("-1"), Just("70000"), Just("\"x\""), Just("null")],
        text in prop_oneof![Just("\"hi\""), Just("\"\""), Just("5"), Just("[\"a\"]")],
        policy in prop_oneof![Just("\"fail\""), Just("\"repeat_last\""), Just("\"cycle\""), Just("3")],
    ) {
        let json = format!(
            r#"{{"cuecard":1,"on_exhausted":{policy},"routes":[{{"steps":[{{"text":{text}}},{{"fail":{{"kind":"{kind}","status":{status}}}}}]}}]}}"#
        );
        match cuecard::Scenario::from_json(&json) {
            Ok(s) => { let _ = cuecard::MockModel::from_scenario(&s); }
            Err(e) => prop_assert_eq!(e.code(), "invalid_scenario"),
        }
    }
}
