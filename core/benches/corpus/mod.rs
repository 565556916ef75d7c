//! Deterministic benchmark corpora (no downloads): English-like prose, source code, CJK text and a mix.
#![allow(missing_docs, dead_code)]

/// A small deterministic generator (xorshift64*), so every run benchmarks the same bytes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get((self.next_u64() % items.len() as u64) as usize).copied().unwrap_or("")
    }
}

const WORDS: &[&str] = &[
    "the",
    "model",
    "answered",
    "quickly",
    "and",
    "then",
    "streamed",
    "every",
    "token",
    "to",
    "a",
    "client",
    "which",
    "retried",
    "after",
    "rate",
    "limit",
    "of",
    "requests",
    "was",
    "reached",
    "by",
    "test",
    "suite",
    "in",
    "order",
    "we",
    "don't",
    "it's",
    "they'll",
    "shipping",
    "invoice",
    "number",
    "customer",
    "assistant",
    "tool",
    "weather",
    "Paris",
    "London",
    "September",
    "because",
    "however",
    "deterministic",
    "provider",
    "response",
    "Mr",
    "Smith",
];
const PUNCT: &[&str] = &[",", ".", ";", ":", "!", "?", " —", "\"", "(", ")"];

pub fn prose(bytes: usize) -> String {
    let mut rng = Rng::new(1);
    let mut out = String::with_capacity(bytes + 64);
    while out.len() < bytes {
        let sentence_len = 6 + rng.next_u64() % 18;
        for i in 0..sentence_len {
            if i > 0 {
                out.push(' ');
            }
            let word = rng.pick(WORDS);
            if i == 0 {
                let mut chars = word.chars();
                if let Some(c) = chars.next() {
                    out.extend(c.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push_str(word);
            }
            if rng.next_u64().is_multiple_of(9) {
                out.push_str(rng.pick(PUNCT));
            }
            if rng.next_u64().is_multiple_of(23) {
                out.push(' ');
                out.push_str(&(rng.next_u64() % 100_000).to_string());
            }
        }
        out.push_str(if rng.next_u64().is_multiple_of(5) { ".\n\n" } else { ". " });
    }
    out
}

const IDENTS: &[&str] = &["request", "response", "tokens", "index", "mock", "stream", "events", "self", "len", "value"];
const KEYWORDS: &[&str] = &["let", "fn", "if", "for", "return", "match", "while", "pub", "struct", "impl"];

pub fn source_code(bytes: usize) -> String {
    let mut rng = Rng::new(2);
    let mut out = String::with_capacity(bytes + 128);
    let mut depth = 0usize;
    while out.len() < bytes {
        for _ in 0..depth {
            out.push_str("    ");
        }
        match rng.next_u64() % 6 {
            0 => {
                out.push_str(&format!(
                    "{} {}_{}(&mut {}) -> Result<usize, Error> {{",
                    rng.pick(KEYWORDS),
                    rng.pick(IDENTS),
                    rng.pick(IDENTS),
                    rng.pick(IDENTS)
                ));
                depth = (depth + 1).min(4);
            }
            1 if depth > 0 => {
                out.push('}');
                depth -= 1;
            }
            2 => out.push_str(&format!(
                "// {} the {} before {} ({})",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.next_u64() % 4096
            )),
            3 => out.push_str(&format!(
                "{}.{}[{}] += 0x{:x};",
                rng.pick(IDENTS),
                rng.pick(IDENTS),
                rng.next_u64() % 64,
                rng.next_u64() % 65536
            )),
            _ => out.push_str(&format!(
                "let {} = {}::{}(\"{}\", {});",
                rng.pick(IDENTS),
                rng.pick(IDENTS),
                rng.pick(IDENTS),
                rng.pick(WORDS),
                rng.next_u64() % 1000
            )),
        }
        out.push('\n');
    }
    out
}

const CJK: &[&str] = &[
    "世", "界", "你", "好", "日", "本", "語", "の", "は", "を", "に", "コ", "ー", "ヒ", "東", "京", "天", "気", "晴",
    "れ",
];
const CJK_PUNCT: &[&str] = &["，", "。", "、", "「", "」", "！"];

pub fn cjk(bytes: usize) -> String {
    let mut rng = Rng::new(3);
    let mut out = String::with_capacity(bytes + 16);
    while out.len() < bytes {
        out.push_str(rng.pick(CJK));
        if rng.next_u64().is_multiple_of(11) {
            out.push_str(rng.pick(CJK_PUNCT));
        }
        if rng.next_u64().is_multiple_of(97) {
            out.push('\n');
        }
    }
    out
}

pub fn mixed(bytes: usize) -> String {
    let parts = [prose(bytes / 4), source_code(bytes / 4), cjk(bytes / 4)];
    let mut rng = Rng::new(4);
    let mut out = String::with_capacity(bytes + 64);
    let emoji = ["😀", "👍🏽", "❤\u{fe0f}", "🦊"];
    for (i, part) in parts.iter().enumerate() {
        for line in part.lines() {
            out.push_str(line);
            if rng.next_u64().is_multiple_of(7) {
                out.push(' ');
                out.push_str(emoji.get(i % emoji.len()).copied().unwrap_or(""));
                out.push_str(" café naïve résumé Привет мир");
            }
            out.push('\n');
        }
    }
    out
}
