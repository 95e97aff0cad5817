//! The shape of the crate: its layers import only downwards, and no
//! modules import each other in a cycle (ARCHITECTURE.md).
//!
//! Every `crate::` and `super::` path in the code of `src/` (comments and
//! test modules left out) is an edge from the module it is written in to
//! the module it names. A module is a layer's file or folder
//! (`input/claude`, `model/turns`); a layer's own `mod.rs` is its face, which
//! its modules may use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

/// The layers, bottom first: each may use only those before it.
const LAYERS: &[&str] = &[
    "core", "text", "model", "input", "rules", "lint", "room", "report", "app", "cli",
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// The code of a file without its comments and its test module.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("mod "))
        {
            break;
        }
        let line = match line.find("//") {
            // A `//` inside a string (a URL) is rare in paths' lines; cut
            // only where the line is a comment or ends in one.
            Some(k) if !line[..k].contains('"') => &line[..k],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The module a path of module names (`["input", "claude", ...]`) lies in.
fn module_of(src: &Path, path: &[&str]) -> Option<String> {
    let layer = *path.first()?;
    rank(layer)?;
    Some(match path.get(1) {
        Some(m)
            if src.join(layer).join(format!("{m}.rs")).is_file()
                || src.join(layer).join(m).is_dir() =>
        {
            format!("{layer}/{m}")
        }
        _ => format!("{layer}/mod"),
    })
}

/// Every edge between modules, from each file of `src/`.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let path_re = regex::Regex::new(r"\b(crate|super)((?:::[A-Za-z_]\w*)+)").unwrap();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().with_extension("");
        let mut here: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if here.last().is_some_and(|l| l == "mod") {
            here.pop();
        }
        let here_ref: Vec<&str> = here.iter().map(String::as_str).collect();
        let Some(me) = module_of(&src, &here_ref) else {
            continue; // lib.rs and main.rs tie everything together
        };
        let text = code(&std::fs::read_to_string(&file).unwrap());
        for m in path_re.captures_iter(&text) {
            let segs: Vec<&str> = m[2].split("::").skip(1).collect();
            let target: Vec<&str> = if &m[1] == "crate" {
                segs
            } else {
                let mut base: Vec<&str> = here_ref[..here_ref.len() - 1].to_vec();
                let mut rest = segs.as_slice();
                while rest.first() == Some(&"super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend_from_slice(rest);
                base
            };
            if let Some(to) = module_of(&src, &target) {
                if to != me {
                    edges.entry(me.clone()).or_default().insert(to);
                }
            }
        }
    }
    edges
}

fn layer(module: &str) -> &str {
    module.split('/').next().unwrap()
}

#[test]
fn layers_import_only_downwards() {
    let mut up = Vec::new();
    for (from, tos) in edges() {
        for to in tos {
            if rank(layer(&to)) > rank(layer(&from)) {
                up.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports that go up a layer ({}):\n{}",
        LAYERS.join(" < "),
        up.join("\n")
    );
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    let edges = edges();
    // A layer's face (`mod.rs`) is not a module of its own for cycles: its
    // modules may use what it declares.
    let next = |m: &str| -> Vec<String> {
        edges
            .get(m)
            .into_iter()
            .flatten()
            .filter(|t| !(t.ends_with("/mod") && layer(t) == layer(m)))
            .cloned()
            .collect()
    };
    // Depth-first search for a back edge, reporting the cycle it closes.
    fn visit(
        m: &str,
        next: &dyn Fn(&str) -> Vec<String>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<String>,
    ) {
        if let Some(k) = path.iter().position(|p| p == m) {
            found.push(format!("{} -> {m}", path[k..].join(" -> ")));
            return;
        }
        if !done.insert(m.to_string()) {
            return;
        }
        path.push(m.to_string());
        for t in next(m) {
            visit(&t, next, path, done, found);
        }
        path.pop();
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        visit(m, &next, &mut Vec::new(), &mut done, &mut found);
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_test_sees_the_edges_it_checks() {
    // A check that found no edges would pass on anything.
    let edges = edges();
    assert!(edges["rules/long_say"].contains("rules/mod"));
    assert!(edges["lint/engine"].contains("rules/mod"));
    assert!(edges["input/claude"].contains("model/mod"));
    assert!(edges["input/claude"].contains("input/session"));
    assert!(edges.len() > 80, "{} modules", edges.len());
}
