//! The core's layers, kept: every `crate::` path in `core/src` (tests excluded) points at a unit of the same or a
//! lower layer, never through the crate root, never at another unit's compatibility re-export, and the units
//! import each other without a cycle.
//!
//! The layer table is the one in `docs/contributing/layout.md` (between the `layers:start` and `layers:end`
//! markers), so the page a newcomer reads and the rule this test enforces cannot drift apart. A unit is a top-level
//! file of `core/src` or a top-level folder taken whole; `lib.rs` is above every layer. Imports inside one unit are
//! the unit's own business (a folder is free to arrange its files).
//!
//! The scan is lexical, with no parser: comments, string and character literals are blanked first, then every item
//! under `#[cfg(test)]` (an inline test module, or a `mod tests;` whose file is then skipped whole) is cut.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers as `docs/contributing/layout.md` gives them: unit name -> (level, the level's name).
fn layer_table(root: &Path) -> BTreeMap<String, (u32, String)> {
    let page = fs::read_to_string(root.join("docs/contributing/layout.md")).unwrap();
    let table = page
        .split("<!-- layers:start -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- layers:end -->").next())
        .expect("docs/contributing/layout.md has no <!-- layers:start --> ... <!-- layers:end --> table");
    let mut units = BTreeMap::new();
    for row in table.lines().filter(|line| line.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let Some((level, name)) = cells[0].split_once(' ') else { continue };
        let Ok(level) = level.parse::<u32>() else { continue }; // the header and the |---| rows
        for unit in cells[1].split('`').skip(1).step_by(2) {
            let unit = unit.trim_end_matches('/').to_string();
            let previous = units.insert(unit.clone(), (level, name.to_string()));
            assert!(previous.is_none(), "layout.md lists the unit `{unit}` twice");
        }
    }
    assert!(!units.is_empty(), "the layer table of layout.md has no rows");
    units
}

/// Blanks comments, string literals (plain, byte and raw) and character literals, keeping every newline so line
/// numbers stay right.
fn blank_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !is_ident_char(prev(&chars, i)) {
            // A raw string r"..." or r#"..."#: ends at a quote followed by as many hashes.
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.extend(chars[i..j.min(chars.len())].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'); otherwise a lifetime, kept.
            let end = if next == Some('\\') {
                chars[i + 2..].iter().position(|&c| c == '\'').map(|p| i + 2 + p + 1)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.extend(chars[i..end].iter().map(|&c| blank(c)));
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev(chars: &[char], i: usize) -> char {
    if i == 0 {
        ' '
    } else {
        chars[i - 1]
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Cuts every item under `#[cfg(test)]` (keeping newlines) and returns the names of `mod name;` items it cut, whose
/// files hold tests only.
fn cut_test_items(code: &str) -> (String, Vec<String>) {
    let mut code: Vec<char> = code.chars().collect();
    let mut test_files = Vec::new();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= code.len() {
        if code[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        // The item: up to a `;` outside braces, or to the end of its first brace block.
        let start = i;
        let mut j = i + marker.len();
        let mut depth = 0usize;
        let mut end = code.len();
        while j < code.len() {
            match code[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let item: String = code[start + marker.len()..end].iter().collect();
        let words: Vec<&str> = item.split(|c: char| !is_ident_char(c)).filter(|w| !w.is_empty()).collect();
        if item.trim_end().ends_with(';') {
            if let Some(pos) = words.iter().position(|w| *w == "mod") {
                test_files.push(words[pos + 1].to_string());
            }
        }
        for c in &mut code[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    (code.into_iter().collect(), test_files)
}

/// One `crate::` path: the line it starts on and its segments (`crate::a::b::C` -> `[a, b, C]`).
fn crate_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(pos) = code[from..].find("crate::") {
        let at = from + pos;
        from = at + "crate::".len();
        if at > 0 && (is_ident_char(bytes[at - 1] as char) || bytes[at - 1] == b'$') {
            continue; // `$crate::` in a macro, or a longer identifier
        }
        let line = code[..at].matches('\n').count() + 1;
        let mut paths = Vec::new();
        expand(&code[from..], Vec::new(), &mut paths);
        found.extend(paths.into_iter().map(|path| (line, path)));
    }
    found
}

/// Reads a path from the start of `rest` (after `crate::` or a group's `::{`), expanding `{a, b::c}` groups.
fn expand(rest: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut rest = rest.trim_start();
    loop {
        let ident: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
        if ident.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                for item in split_group(group) {
                    expand(item, path.clone(), out);
                }
                return;
            }
            break;
        }
        rest = rest[ident.len()..].trim_start();
        if ident != "self" {
            path.push(ident);
        }
        match rest.strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The items of a `{...}` group (the text after its `{`), split at its top-level commas.
fn split_group(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// A source file of the crate, with its unit and its code (comments, literals and tests cut).
struct SourceFile {
    path: PathBuf,
    unit: String,
    code: String,
}

fn read_sources(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut test_only = BTreeSet::new();
    let mut stack = vec![src.to_path_buf()];
    let mut all = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                all.push(path);
            }
        }
    }
    all.sort();
    for path in all {
        let relative = path.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_string_lossy();
        let unit = first.trim_end_matches(".rs").to_string();
        let (code, tests) = cut_test_items(&blank_comments_and_literals(&fs::read_to_string(&path).unwrap()));
        // Where `mod name;` of this file points: beside it for lib.rs and mod.rs, else in the folder of its name.
        let dir = match path.file_name().unwrap().to_str().unwrap() {
            "lib.rs" | "mod.rs" => path.parent().unwrap().to_path_buf(),
            _ => path.with_extension(""),
        };
        for name in tests {
            test_only.insert(dir.join(format!("{name}.rs")));
            test_only.insert(dir.join(&name).join("mod.rs"));
        }
        files.push(SourceFile { path, unit, code });
    }
    files.retain(|file| !test_only.contains(&file.path));
    files
}

/// The names a folder unit's `mod.rs` re-exports from another unit (`pub use crate::other::Name`): its
/// compatibility paths for users outside the crate, which code inside the crate must not take.
fn compat_reexports(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let mut reexports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files.iter().filter(|f| f.path.ends_with(format!("{}/mod.rs", f.unit))) {
        for statement in file.code.split(';') {
            let statement = statement.trim();
            let Some(used) = statement.strip_prefix("pub use crate::") else { continue };
            let mut paths = Vec::new();
            expand(used, Vec::new(), &mut paths);
            for path in paths.into_iter().filter(|p| p[0] != file.unit) {
                reexports.entry(file.unit.clone()).or_default().insert(path.last().unwrap().clone());
            }
        }
    }
    reexports
}

/// Every broken rule, one line each, naming the file, the line and the rule.
fn violations(root: &Path) -> Vec<String> {
    let layers = layer_table(root);
    let files = read_sources(&root.join("core/src"));
    let reexports = compat_reexports(&files);
    let units: BTreeSet<&str> = files.iter().map(|f| f.unit.as_str()).collect();
    let mut problems = Vec::new();
    for unit in &units {
        if *unit != "lib" && !layers.contains_key(*unit) {
            problems
                .push(format!("core/src/{unit}: a unit the layer table of docs/contributing/layout.md does not place"));
        }
    }
    for unit in layers.keys() {
        if !units.contains(unit.as_str()) {
            problems.push(format!("docs/contributing/layout.md: the layer table lists `{unit}`, which core/src lacks"));
        }
    }
    let mut graph: BTreeMap<&str, BTreeMap<&str, String>> = BTreeMap::new();
    for file in &files {
        if file.unit == "lib" {
            continue; // the crate root declares the modules and re-exports them: above every layer
        }
        let shown = file.path.strip_prefix(root).unwrap().display().to_string();
        let Some((level, level_name)) = layers.get(&file.unit) else { continue };
        for (line, path) in crate_paths(&file.code) {
            // The unit's name as `units` holds it, so the graph borrows from there, not from this path.
            let target: &str = units.get(path[0].as_str()).copied().unwrap_or("");
            let place = format!("{shown}:{line}: crate::{}", path.join("::"));
            if target.is_empty() {
                problems.push(format!(
                    "{place} goes through the crate root (lib.rs re-exports it): import it from its defining module"
                ));
                continue;
            }
            if target == file.unit {
                continue;
            }
            let Some((target_level, target_name)) = layers.get(target) else { continue }; // unplaced: said above
            if target_level > level {
                problems.push(format!(
                    "{place} points up: `{}` is layer {level} ({level_name}), `{target}` is layer {target_level} \
                     ({target_name}); move the shared type or helper down, or the caller up",
                    file.unit
                ));
            }
            if let (Some(name), Some(names)) = (path.get(1), reexports.get(target)) {
                if names.contains(name) {
                    problems.push(format!(
                        "{place} goes through `{target}`'s re-export of another unit's `{name}`: import it from its \
                         defining module"
                    ));
                }
            }
            graph.entry(file.unit.as_str()).or_default().entry(target).or_insert(place);
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> = cycle.windows(2).map(|pair| graph[pair[0]][pair[1]].clone()).collect();
        problems.push(format!(
            "units import each other in a loop ({}); each import of it: {}",
            cycle.join(" -> "),
            steps.join("; ")
        ));
    }
    problems
}

/// A cycle of the unit graph, as the list of units with the first repeated at the end, if there is one.
fn find_cycle<'a>(graph: &BTreeMap<&'a str, BTreeMap<&'a str, String>>) -> Option<Vec<&'a str>> {
    fn visit<'a>(
        unit: &'a str,
        graph: &BTreeMap<&'a str, BTreeMap<&'a str, String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(at) = path.iter().position(|&u| u == unit) {
            let mut cycle = path[at..].to_vec();
            cycle.push(unit);
            return Some(cycle);
        }
        if !done.insert(unit) {
            return None;
        }
        path.push(unit);
        for &next in graph.get(unit).map(|m| m.keys().collect::<Vec<_>>()).unwrap_or_default() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|&unit| visit(unit, graph, &mut Vec::new(), &mut done))
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_import_of_the_core_points_down_its_layers() {
    let problems = violations(&repository_root());
    assert!(
        problems.is_empty(),
        "{} import(s) break the core's layers (docs/contributing/layout.md):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The guard itself fails on what it must catch: a copy of the tree with one upward import, one import through
/// the crate root and one through a compatibility re-export added.
#[test]
fn the_guard_names_an_upward_import_a_root_import_and_a_cycle() {
    let root = repository_root();
    let copy = std::env::temp_dir().join(format!("cuecard-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&copy);
    copy_tree(&root.join("core/src"), &copy.join("core/src"));
    fs::create_dir_all(copy.join("docs/contributing")).unwrap();
    fs::copy(root.join("docs/contributing/layout.md"), copy.join("docs/contributing/layout.md")).unwrap();
    let clock = copy.join("core/src/clock.rs");
    let mut text = fs::read_to_string(&clock).unwrap();
    text.push_str(
        "\n/// upward\npub fn upward() -> usize { crate::mock::MockModel::builder().build().map_or(0, |_| 1) }\n",
    );
    text.push_str("/// through the root\npub type Through = crate::Result<()>;\n");
    text.push_str("#[cfg(test)]\nmod tests { fn hidden() { let _ = crate::server::Server::start; } }\n");
    fs::write(&clock, text).unwrap();
    let problems = violations(&copy);
    let _ = fs::remove_dir_all(&copy);
    let upward = problems.iter().find(|p| p.contains("clock.rs") && p.contains("crate::mock::MockModel"));
    assert!(upward.is_some_and(|p| p.contains("points up")), "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("crate::Result") && p.contains("crate root")), "{problems:#?}");
    assert!(problems.iter().any(|p| p.starts_with("units import each other in a loop")), "{problems:#?}");
    assert!(!problems.iter().any(|p| p.contains("crate::server::Server")), "a test module was scanned: {problems:#?}");
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}
