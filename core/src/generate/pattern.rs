//! The regex subset of `pattern`: literals, `.`, classes (`[a-z0-9_]`, `[^,]`, `\d \w \s` and their negations),
//! groups (`(…)`, `(?:…)`), alternation, the quantifiers `* + ? {n} {n,} {n,m}` (lazy and possessive marks are
//! read and ignored), and the anchors `^ $`. Lookarounds, backreferences, `\b` and Unicode properties are refused
//! with the reason, so a schema using them is an error rather than a wrong value.
//!
//! A pattern is parsed once into [`Node`]s, which both generate a matching string and search a string for a match
//! (JSON Schema patterns are not anchored: a value is valid when the pattern matches somewhere in it).

use crate::seeded::Seeded;

#[derive(Clone, Debug)]
pub(super) enum Node {
    Literal(char),
    /// A set of inclusive ranges, or everything printable but them.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    /// `.`: any character but a line break.
    Any,
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
    Start,
    End,
}

/// Parses `pattern`, or says what in it is not supported.
pub(super) fn parse(pattern: &str) -> Result<Node, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser { chars: &chars, at: 0 };
    let node = parser.alternation()?;
    match parser.peek() {
        None => Ok(node),
        Some(c) => Err(format!("unexpected {c:?} at {}", parser.at)),
    }
}

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
}

const DIGITS: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
const SPACE: &[(char, char)] = &[('\t', '\r'), (' ', ' ')];

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += 1;
        c
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.concat()?];
        while self.peek() == Some('|') {
            self.at += 1;
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 { branches.remove(0) } else { Node::Alternation(branches) })
    }

    fn concat(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn atom(&mut self) -> Result<Node, String> {
        let Some(c) = self.next() else { return Err("the pattern ends early".into()) };
        Ok(match c {
            '(' => {
                if self.peek() == Some('?') {
                    self.at += 1;
                    match self.next() {
                        Some(':') => {}
                        _ => return Err("lookarounds and named groups are not supported".into()),
                    }
                }
                let inner = self.alternation()?;
                if self.next() != Some(')') {
                    return Err("a group is not closed".into());
                }
                inner
            }
            '[' => self.class()?,
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '\\' => self.escape(false)?,
            '*' | '+' | '?' => return Err(format!("{c:?} repeats nothing")),
            other => Node::Literal(other),
        })
    }

    /// An escape after `\`; in a class, `\b` is a backspace and shorthand classes are ranges.
    fn escape(&mut self, in_class: bool) -> Result<Node, String> {
        let Some(c) = self.next() else { return Err("the pattern ends in a backslash".into()) };
        let class = |ranges: &[(char, char)], negated| Node::Class { ranges: ranges.to_vec(), negated };
        Ok(match c {
            'd' => class(DIGITS, false),
            'D' => class(DIGITS, true),
            'w' => class(WORD, false),
            'W' => class(WORD, true),
            's' => class(SPACE, false),
            'S' => class(SPACE, true),
            'n' => Node::Literal('\n'),
            't' => Node::Literal('\t'),
            'r' => Node::Literal('\r'),
            'f' => Node::Literal('\u{c}'),
            'v' => Node::Literal('\u{b}'),
            'b' if in_class => Node::Literal('\u{8}'),
            'b' | 'B' => return Err("word boundaries (\\b) are not supported".into()),
            'p' | 'P' => return Err("Unicode properties (\\p{…}) are not supported".into()),
            'u' => {
                let hex: String = (0..4).filter_map(|_| self.next()).collect();
                let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                Node::Literal(code.ok_or_else(|| format!("\\u{hex} is not a character"))?)
            }
            '1'..='9' => return Err("backreferences are not supported".into()),
            other => Node::Literal(other),
        })
    }

    fn class(&mut self) -> Result<Node, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.next() else { return Err("a class is not closed".into()) };
            if c == ']' && !first {
                break;
            }
            first = false;
            let low = match c {
                '\\' => match self.escape(true)? {
                    Node::Literal(l) => l,
                    Node::Class { ranges: more, negated: false } => {
                        ranges.extend(more);
                        continue;
                    }
                    _ => return Err("a negated shorthand (\\D, \\W, \\S) inside a class is not supported".into()),
                },
                other => other,
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|n| *n != ']') {
                self.at += 1;
                let high = match self.next() {
                    Some('\\') => match self.escape(true)? {
                        Node::Literal(h) => h,
                        _ => return Err("a range ends in a class".into()),
                    },
                    Some(h) => h,
                    None => return Err("a class is not closed".into()),
                };
                if high < low {
                    return Err(format!("the range {low}-{high} is reversed"));
                }
                ranges.push((low, high));
            } else {
                ranges.push((low, low));
            }
        }
        Ok(Node::Class { ranges, negated })
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.counts() {
                Some(counts) => counts,
                None => return Ok(atom), // a `{` that is not a quantifier is a literal, as in ECMAScript
            },
            _ => return Ok(atom),
        };
        self.at += 1; // past `*`, `+`, `?` or the `}` of the counts
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1; // lazy or possessive: the same strings match
        }
        if matches!(atom, Node::Start | Node::End) {
            return Err("an anchor cannot repeat".into());
        }
        if max.is_some_and(|max| max < min) {
            return Err(format!("{{{min},{}}} repeats fewer than its minimum", max.unwrap_or(0)));
        }
        Ok(Node::Repeat { node: Box::new(atom), min, max })
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor, leaving the cursor on its `}`.
    fn counts(&mut self) -> Option<(u32, Option<u32>)> {
        let close = self.chars.get(self.at..)?.iter().position(|c| *c == '}')? + self.at;
        let inside: String = self.chars.get(self.at + 1..close)?.iter().collect();
        let (min, max) = match inside.split_once(',') {
            Some((min, "")) => (min.trim().parse().ok()?, None),
            Some((min, max)) => (min.trim().parse().ok()?, Some(max.trim().parse().ok()?)),
            None => {
                let n = inside.trim().parse().ok()?;
                (n, Some(n))
            }
        };
        self.at = close;
        Some((min, max))
    }
}

/// How many more repeats than the minimum an open-ended quantifier generates, at most.
const EXTRA_REPEATS: u32 = 3;

/// A string matching `node`, drawn from `rng`.
pub(super) fn generate(node: &Node, rng: &mut Seeded, out: &mut String) {
    match node {
        Node::Literal(c) => out.push(*c),
        Node::Any => out.push(pick_letter(rng)),
        Node::Class { ranges, negated: false } => {
            let total: u64 = ranges.iter().map(|(l, h)| u64::from(*h) - u64::from(*l) + 1).sum();
            let mut at = rng.below(total.max(1));
            for (low, high) in ranges {
                let size = u64::from(*high) - u64::from(*low) + 1;
                if at < size {
                    out.extend(char::from_u32(*low as u32 + at as u32));
                    return;
                }
                at -= size;
            }
        }
        Node::Class { ranges, negated: true } => {
            let allowed: Vec<char> =
                ('!'..='~').filter(|c| !ranges.iter().any(|(l, h)| (*l..=*h).contains(c))).collect();
            if let Some(c) = allowed.get(rng.below(allowed.len() as u64) as usize) {
                out.push(*c);
            }
        }
        Node::Concat(items) => items.iter().for_each(|item| generate(item, rng, out)),
        Node::Alternation(branches) => {
            if let Some(branch) = branches.get(rng.below(branches.len() as u64) as usize) {
                generate(branch, rng, out);
            }
        }
        Node::Repeat { node, min, max } => {
            let most = max.unwrap_or(min + EXTRA_REPEATS).min(min + EXTRA_REPEATS);
            let count = rng.between(u64::from(*min), u64::from(most));
            (0..count).for_each(|_| generate(node, rng, out));
        }
        Node::Start | Node::End => {}
    }
}

fn pick_letter(rng: &mut Seeded) -> char {
    char::from(b'a' + rng.below(26) as u8)
}

/// Whether `node` matches somewhere in `text` (JSON Schema's unanchored `pattern`).
pub(super) fn search(node: &Node, text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    (0..=chars.len()).any(|start| matches(node, &chars, start, &mut |_| true))
}

/// Backtracking: whether `node` matches `chars` from `at` with some end for which `rest` holds.
fn matches(node: &Node, chars: &[char], at: usize, rest: &mut dyn FnMut(usize) -> bool) -> bool {
    match node {
        Node::Literal(c) => chars.get(at) == Some(c) && rest(at + 1),
        Node::Any => chars.get(at).is_some_and(|c| *c != '\n' && *c != '\r') && rest(at + 1),
        Node::Class { ranges, negated } => {
            chars.get(at).is_some_and(|c| ranges.iter().any(|(l, h)| (*l..=*h).contains(c)) != *negated) && rest(at + 1)
        }
        Node::Start => at == 0 && rest(at),
        Node::End => at == chars.len() && rest(at),
        Node::Concat(items) => concat(items, chars, at, rest),
        Node::Alternation(branches) => branches.iter().any(|b| matches(b, chars, at, rest)),
        Node::Repeat { node, min, max } => repeat(node, *min, *max, chars, at, rest),
    }
}

fn concat(items: &[Node], chars: &[char], at: usize, rest: &mut dyn FnMut(usize) -> bool) -> bool {
    match items.split_first() {
        None => rest(at),
        Some((first, others)) => matches(first, chars, at, &mut |next| concat(others, chars, next, rest)),
    }
}

/// Greedy repetition; past the minimum, an iteration that consumes nothing ends the loop (so `(a*)*` terminates).
fn repeat(
    node: &Node,
    min: u32,
    max: Option<u32>,
    chars: &[char],
    at: usize,
    rest: &mut dyn FnMut(usize) -> bool,
) -> bool {
    if max != Some(0)
        && matches(node, chars, at, &mut |next| {
            (next > at || min > 0) && repeat(node, min.saturating_sub(1), max.map(|m| m - 1), chars, next, rest)
        })
    {
        return true;
    }
    min == 0 && rest(at)
}
