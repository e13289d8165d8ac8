//! The passes crate's modules depend in one direction: no circle of modules, and no import from a
//! lower level of the pipeline to a higher one. The test reads the crate's sources (its `use`
//! lines and the paths its code names), so the rule stays true as the crate grows.
//!
//! Levels, from the top: `graph` (with `substitute`, MetaFlow's engine behind
//! `graph-substitute`), then `instance`, `conversion`, and `dsa` and `llvm`. A module may
//! import from its own level, from a lower one, and from the shared libraries (every other
//! top-level module: `ir`, `target`, `registry`, `graph_view`, `slicing`, `kernels`); a library
//! imports only libraries. The crate root and `pipelines`, which assemble passes, may import
//! anything. A child module naming its parent counts like any other import: a folder's
//! `mod.rs` declares its parts and may use them, and the parts import each other directly.

use petgraph::{algo::tarjan_scc, graph::DiGraph};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path within the crate (`["kernels", "conv"]`); the crate root is empty.
type Module = Vec<String>;

/// Pipeline levels of the top-level modules that hold passes; the others are libraries.
const LEVELS: &[(&str, usize)] = &[
    ("graph", 0),
    ("substitute", 0),
    ("instance", 1),
    ("conversion", 2),
    ("dsa", 3),
    ("llvm", 3),
];

/// Modules that assemble passes and may import from every level.
const DRIVERS: &[&str] = &["pipelines"];

/// Where a module sits: a driver, a library, or a pipeline level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Driver,
    Library,
    Level(usize),
}

fn place(module: &Module) -> Place {
    let Some(top) = module.first() else {
        return Place::Driver;
    };
    if DRIVERS.contains(&top.as_str()) && module.len() == 1 {
        return Place::Driver;
    }
    LEVELS
        .iter()
        .find(|(name, _)| name == top)
        .map_or(Place::Library, |&(_, level)| Place::Level(level))
}

/// Source text without comments, string and character literals (their contents could name
/// anything) and `#[cfg(test)]` items.
fn code_of(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1).copied()) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                let mut depth = 0;
                while i < chars.len() {
                    match (chars[i], chars.get(i + 1).copied()) {
                        ('/', Some('*')) => (depth, i) = (depth + 1, i + 2),
                        ('*', Some('/')) => (depth, i) = (depth - 1, i + 2),
                        _ => i += 1,
                    }
                    if depth == 0 {
                        break;
                    }
                }
            }
            ('r', Some('#' | '"')) if !chars[..i].last().is_some_and(|c| c.is_alphanumeric()) => {
                let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                if chars.get(i + 1 + hashes) != Some(&'"') {
                    code.push(chars[i]);
                    i += 1;
                    continue;
                }
                i += 2 + hashes;
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&close)
                {
                    i += 1;
                }
                i += close.len();
                code.push_str("\"\"");
            }
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                code.push_str("\"\"");
            }
            ('\'', Some(next)) => {
                // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
                let end = if next == '\\' {
                    chars[i + 2..]
                        .iter()
                        .position(|&c| c == '\'')
                        .map(|p| i + 2 + p)
                } else {
                    (chars.get(i + 2) == Some(&'\'')).then_some(i + 2)
                };
                match end {
                    Some(end) => (i, code) = (end + 1, code + "' '"),
                    None => (i, code) = (i + 1, code + "'"),
                }
            }
            (c, _) => {
                code.push(c);
                i += 1;
            }
        }
    }
    without_test_items(&code)
}

/// `code` without the items under `#[cfg(test)]`.
fn without_test_items(code: &str) -> String {
    let mut rest = code;
    let mut kept = String::new();
    while let Some(start) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..start]);
        let item = &rest[start..];
        let open = item.find(['{', ';']).unwrap_or(item.len());
        if item[open..].starts_with(';') {
            rest = &item[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = item.len();
        for (offset, c) in item[open..].char_indices() {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            if depth == 0 {
                end = open + offset + 1;
                break;
            }
        }
        rest = &item[end..];
    }
    kept + rest
}

/// The paths of a `use` tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`).
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        let path = tree
            .split(" as ")
            .next()
            .unwrap_or(tree)
            .trim_end_matches("::self");
        return vec![path.to_string()];
    };
    let (head, body) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (index, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    let parts = parts.into_iter().filter(|part| !part.is_empty());
    parts
        .flat_map(|part| expand(&format!("{head}{part}")))
        .collect()
}

/// The deepest module of `modules` that `path`, named in `module`, reaches.
fn resolve(modules: &BTreeSet<Module>, module: &Module, path: &str) -> Option<Module> {
    let mut segments = path.split("::").peekable();
    let mut base = match *segments.peek()? {
        "crate" => Vec::new(),
        "super" | "self" => module.clone(),
        child if modules.contains(&[module.clone(), vec![child.to_string()]].concat()) => {
            module.clone()
        }
        _ => return None,
    };
    while let Some(&segment) = segments.peek() {
        match segment {
            "crate" | "self" => {}
            "super" => {
                base.pop();
            }
            _ => break,
        }
        segments.next();
    }
    for segment in segments {
        let deeper = [base.clone(), vec![segment.to_string()]].concat();
        if !modules.contains(&deeper) {
            break;
        }
        base = deeper;
    }
    Some(base)
}

/// The `use` trees of `code` (whitespace removed), and the code without them.
fn split_uses(code: &str) -> (Vec<String>, String) {
    let (mut trees, mut rest) = (Vec::new(), String::new());
    let mut from = 0;
    let bytes = code.as_bytes();
    for (index, _) in code.match_indices("use") {
        let after = bytes.get(index + 3).copied().unwrap_or(b'x');
        let before = code[..index].trim_end();
        let starts_statement = before.is_empty()
            || before.ends_with([';', '{', '}', ']', ')'])
            || before.split_whitespace().next_back() == Some("pub");
        let word_start =
            index == 0 || !(bytes[index - 1].is_ascii_alphanumeric() || bytes[index - 1] == b'_');
        if index < from || !word_start || !after.is_ascii_whitespace() || !starts_statement {
            continue;
        }
        let end = code[index..]
            .find(';')
            .map_or(code.len(), |offset| index + offset);
        rest.push_str(&code[from..index]);
        trees.push(
            code[index + 3..end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect(),
        );
        from = end;
    }
    rest.push_str(&code[from..]);
    (trees, rest)
}

/// The modules each module names, with the paths that name them.
fn imports(sources: &BTreeMap<Module, String>) -> BTreeMap<(Module, Module), BTreeSet<String>> {
    let modules: BTreeSet<Module> = sources.keys().cloned().collect();
    let mut found: BTreeMap<(Module, Module), BTreeSet<String>> = BTreeMap::new();
    for (module, source) in sources {
        let (trees, rest) = split_uses(&code_of(source));
        let mut paths: Vec<String> = trees.iter().flat_map(|tree| expand(tree)).collect();
        let words = rest.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'));
        paths.extend(
            words
                .filter(|word| word.contains("::"))
                .map(|w| w.trim_matches(':').into()),
        );
        for path in paths {
            if let Some(target) = resolve(&modules, module, &path) {
                if &target != module {
                    found
                        .entry((module.clone(), target))
                        .or_default()
                        .insert(path);
                }
            }
        }
    }
    found
}

/// Every circle of modules and every import against the levels, as messages.
fn violations(sources: &BTreeMap<Module, String>) -> Vec<String> {
    let imports = imports(sources);
    let name = |module: &Module| format!("crate::{}", module.join("::"));
    let mut graph = DiGraph::<Module, ()>::new();
    let nodes: BTreeMap<&Module, _> = sources
        .keys()
        .map(|m| (m, graph.add_node(m.clone())))
        .collect();
    let mut problems = Vec::new();
    for ((from, to), paths) in &imports {
        graph.add_edge(nodes[from], nodes[to], ());
        let upward = match (place(from), place(to)) {
            (Place::Driver, _) => false,
            (Place::Library, to) => to != Place::Library,
            (Place::Level(_), Place::Driver) => true,
            (Place::Level(from), Place::Level(to)) => to < from,
            (Place::Level(_), Place::Library) => false,
        };
        if upward {
            problems.push(format!(
                "{} imports {} upward ({paths:?})",
                name(from),
                name(to)
            ));
        }
    }
    for component in tarjan_scc(&graph) {
        if component.len() > 1 {
            let members: BTreeSet<&Module> = component.iter().map(|&node| &graph[node]).collect();
            let edges: Vec<String> = imports
                .iter()
                .filter(|((from, to), _)| members.contains(from) && members.contains(to))
                .map(|((from, to), paths)| format!("  {} -> {} {paths:?}", name(from), name(to)))
                .collect();
            problems.push(format!("a circle of modules:\n{}", edges.join("\n")));
        }
    }
    problems
}

/// The sources of the crate whose `src` folder is `root`, by module.
fn read_crate(root: &Path) -> BTreeMap<Module, String> {
    let mut sources = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .with_extension("");
            let mut module: Module = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            sources.insert(
                module,
                std::fs::read_to_string(&path).expect("a source file"),
            );
        }
    }
    sources
}

fn crate_of(files: &[(&str, &str)]) -> BTreeMap<Module, String> {
    let module = |path: &str| {
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    files
        .iter()
        .map(|(path, source)| (module(path), source.to_string()))
        .collect()
}

#[test]
fn passes_modules_have_no_circle_and_no_upward_import() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../passes/src");
    let sources = read_crate(&root);
    assert!(
        sources.len() > 50,
        "read {} modules from {}",
        sources.len(),
        root.display()
    );
    let problems = violations(&sources);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_circle_through_a_parent_is_found() {
    let sources = crate_of(&[
        ("", "pub mod kernels;"),
        ("kernels", "mod conv;\npub struct Tiling;\nuse conv::plan;"),
        ("kernels::conv", "use super::Tiling;\npub fn plan() {}"),
    ]);
    let problems = violations(&sources);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("crate::kernels::conv -> crate::kernels"),
        "{problems:?}"
    );
}

#[test]
fn an_upward_import_is_found_and_comments_and_strings_are_not_imports() {
    let sources = crate_of(&[
        ("", "pub mod graph; pub mod conversion; pub mod kernels;"),
        (
            "graph",
            "// use crate::conversion::x;\nconst NAME: &str = \"crate::conversion\";",
        ),
        (
            "conversion",
            "use crate::{kernels::emit, graph::split};\nfn f() { emit(); split(); }",
        ),
        (
            "kernels",
            "pub fn emit() {}\nfn g() { crate::conversion::lower(); }",
        ),
    ]);
    let problems = violations(&sources);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].contains("crate::conversion imports crate::graph upward"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains("crate::kernels imports crate::conversion upward"),
        "{problems:?}"
    );
    assert!(problems[2].starts_with("a circle"), "{problems:?}");
}

#[test]
fn use_trees_expand_to_every_path() {
    let paths = expand("crate::{kernels::{emit::Body,conv},ir::Op as Handle,graph_view::self}");
    assert_eq!(
        paths,
        [
            "crate::kernels::emit::Body",
            "crate::kernels::conv",
            "crate::ir::Op",
            "crate::graph_view"
        ]
    );
}
