//! Layers: each top-level module of a crate imports only from the modules below it, as
//! ARCHITECTURE.md's "Layers" section draws them. The imports are read from the code —
//! `use` items and paths (`crate::x`, `$crate::x`, `super::` up to the crate's root) —
//! with comments and strings blanked out; test code (`#[cfg(test)]` items and the files
//! they declare) may use anything and is left out.

use std::path::{Path, PathBuf};

use super::{blank_literals, rust_files};

/// Most modules one circle of a crate may hold, by its source directory: the core's rule
/// descriptor (config, rules and breaker) is one design; the shell has no circle.
const MAX_CIRCLE: &[(&str, usize)] = &[("crates/loopguard-core/src", 3), ("src", 1)];

/// The bound of [`MAX_CIRCLE`] for the crate in `dir`.
fn max_circle(dir: &str) -> usize {
    MAX_CIRCLE
        .iter()
        .find(|(d, _)| *d == dir)
        .map(|(_, n)| *n)
        .unwrap_or_else(|| panic!("{dir} has no bound in MAX_CIRCLE"))
}

/// One crate's layers as ARCHITECTURE.md draws them: its top-level modules by row, top
/// first. Modules on one row import nothing of each other, unless the row is one circle
/// (its names joined by `⇄`).
#[derive(Debug)]
struct Layers {
    /// The crate's source directory, from the root (`src`, `crates/loopguard-core/src`).
    dir: String,
    rows: Vec<Row>,
}

#[derive(Debug)]
struct Row {
    modules: Vec<String>,
    circle: bool,
}

impl Layers {
    fn row_of(&self, module: &str) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| r.modules.iter().any(|m| m == module))
    }
}

/// The layer diagrams of ARCHITECTURE.md's "Layers" section: a line with a source
/// directory ending in `/` starts a crate; each indented line under it is a row.
fn drawn_layers(architecture: &str) -> Vec<Layers> {
    let section = architecture
        .split("\n## Layers\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a \"## Layers\" section");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the Layers section draws them in a ```text block");
    let mut out: Vec<Layers> = Vec::new();
    for line in block.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            let dir = line
                .split_whitespace()
                .find(|w| w.ends_with('/'))
                .expect("a crate's line names its source directory");
            out.push(Layers {
                dir: dir.trim_end_matches('/').to_owned(),
                rows: Vec::new(),
            });
            continue;
        }
        let row = line.split(" -- ").next().expect("a row");
        let circle = row.contains('⇄');
        let modules = row
            .split(|c: char| c.is_whitespace() || c == '⇄')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        out.last_mut()
            .expect("a row under a crate's line")
            .rows
            .push(Row { modules, circle });
    }
    out
}

/// An import of one top-level module by another: where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Import {
    from: String,
    to: String,
    file: String,
    line: usize,
}

/// `code` (literals blanked) with every `#[cfg(test)]` item blanked too, and the names of
/// the modules it declares as test-only (`#[cfg(test)] mod tests;`).
fn without_tests(code: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut out = code.to_vec();
    let mut test_mods = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].windows(12).position(|w| w == b"#[cfg(test)]") {
        let start = from + n;
        let mut i = start + 12;
        // Further attributes, then the item: up to its `;` or its closing brace.
        loop {
            while i < code.len() && code[i].is_ascii_whitespace() {
                i += 1;
            }
            if code[i..].starts_with(b"#[") {
                i += code[i..].iter().position(|&b| b == b']').unwrap_or(0) + 1;
            } else {
                break;
            }
        }
        let item = i;
        let mut depth = 0i32;
        while i < code.len() {
            match code[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let end = (i + 1).min(code.len());
        let words: Vec<&[u8]> = code[item..end]
            .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .filter(|w| !w.is_empty())
            .collect();
        if code[end - 1] == b';'
            && let Some(p) = words.iter().position(|w| *w == b"mod")
            && let Some(name) = words.get(p + 1)
        {
            test_mods.push(String::from_utf8_lossy(name).into_owned());
        }
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end;
    }
    (out, test_mods)
}

/// A token of code: an identifier (with `$crate` as one) or one punctuation byte (`::` as
/// one), with its line.
fn tokens(code: &[u8]) -> Vec<(String, usize)> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < code.len() {
        let b = code[i];
        if b == b'\n' {
            line += 1;
            i += 1;
        } else if b.is_ascii_whitespace() {
            i += 1;
        } else if ident(b) || (b == b'$' && code.get(i + 1).is_some_and(|&c| ident(c))) {
            let end = i + 1 + code[i + 1..].iter().take_while(|&&c| ident(c)).count();
            out.push((String::from_utf8_lossy(&code[i..end]).into_owned(), line));
            i = end;
        } else if code[i..].starts_with(b"::") {
            out.push(("::".to_owned(), line));
            i += 2;
        } else {
            out.push(((b as char).to_string(), line));
            i += 1;
        }
    }
    out
}

/// The top-level modules a file's code names (`crate::x`, `$crate::x`, `super::…::x`
/// reaching the crate's root, `use crate::{x, y::z}`), with their lines. `module` is the
/// file's module path (`["rules", "facts"]`); inline modules are followed for `super`.
fn named_modules(code: &[u8], module: &[String]) -> Vec<(String, usize)> {
    let toks = tokens(code);
    let word = |i: usize| toks.get(i).map_or("", |(t, _)| t.as_str());
    let mut out = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let (t, line) = (&toks[i].0, toks[i].1);
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if word(i + 2) == "{" => inline.push((word(i + 1).to_owned(), depth)),
            _ => {}
        }
        let after_prefix = if (t == "crate" || t == "$crate")
            && word(i + 1) == "::"
            && (i == 0 || word(i - 1) != "::")
        {
            Some(i + 2)
        } else if t == "super" && word(i + 1) == "::" && (i == 0 || word(i - 1) != "::") {
            let mut j = i;
            let mut ups = 0;
            while word(j) == "super" && word(j + 1) == "::" {
                ups += 1;
                j += 2;
            }
            (ups >= module.len() + inline.len()).then_some(j)
        } else {
            None
        };
        if let Some(at) = after_prefix {
            if word(at) == "{" {
                // A group: the first name of each item at its own depth.
                let (mut k, mut d, mut first) = (at + 1, 1, true);
                while k < toks.len() && d > 0 {
                    match word(k) {
                        "{" => d += 1,
                        "}" => d -= 1,
                        "," if d == 1 => first = true,
                        w if d == 1 && first => {
                            if w != "self" {
                                out.push((w.to_owned(), toks[k].1));
                            }
                            first = false;
                        }
                        _ => {}
                    }
                    k += 1;
                }
            } else if !word(at).is_empty() {
                out.push((word(at).to_owned(), line));
            }
        }
        i += 1;
    }
    out
}

/// Every import between two top-level modules of the crate whose sources are under `dir`,
/// test code left out (the `#[cfg(test)]` items and the files they declare).
fn imports(root: &Path, dir: &str) -> (Vec<String>, Vec<Import>) {
    let src = root.join(dir);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let module_of = |file: &Path| -> Vec<String> {
        let rel = file.strip_prefix(&src).expect("under the source directory");
        let mut parts: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        parts
    };
    let mut tests: Vec<PathBuf> = Vec::new();
    let mut read = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let (code, test_mods) = without_tests(&blank_literals(&text));
        let here = module_of(file);
        let dir_of_children = if here.is_empty() {
            src.clone()
        } else {
            src.join(here.join("/"))
        };
        tests.extend(test_mods.iter().map(|m| dir_of_children.join(m)));
        read.push((file.clone(), here, code));
    }
    let is_test = |file: &Path| {
        tests
            .iter()
            .any(|t| file.starts_with(t) || file == t.with_extension("rs"))
    };
    let mut modules: Vec<String> = read
        .iter()
        .filter(|(f, here, _)| !here.is_empty() && !is_test(f))
        .map(|(_, here, _)| here[0].clone())
        .collect();
    modules.sort();
    modules.dedup();
    let mut out = Vec::new();
    for (file, here, code) in &read {
        if here.is_empty() || is_test(file) {
            continue;
        }
        let rel = file.strip_prefix(root).expect("under the root");
        for (to, line) in named_modules(code, here) {
            if to != here[0] && modules.contains(&to) {
                out.push(Import {
                    from: here[0].clone(),
                    to,
                    file: rel.display().to_string(),
                    line,
                });
            }
        }
    }
    (modules, out)
}

/// The circles of the import graph (strongly connected sets of two modules or more), the
/// largest first.
fn circles(modules: &[String], imports: &[Import]) -> Vec<Vec<String>> {
    let reach = |from: &str| -> Vec<String> {
        let mut seen = vec![from.to_owned()];
        let mut next = 0;
        while next < seen.len() {
            let at = seen[next].clone();
            for i in imports.iter().filter(|i| i.from == at) {
                if !seen.contains(&i.to) {
                    seen.push(i.to.clone());
                }
            }
            next += 1;
        }
        seen
    };
    let reached: Vec<Vec<String>> = modules.iter().map(|m| reach(m)).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (a, m) in modules.iter().enumerate() {
        let circle: Vec<String> = modules
            .iter()
            .enumerate()
            .filter(|(b, n)| reached[a].contains(n) && reached[*b].contains(m))
            .map(|(_, n)| n.clone())
            .collect();
        if circle.len() > 1 && !out.contains(&circle) {
            out.push(circle);
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out
}

#[test]
fn each_module_imports_only_from_the_rows_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let drawn = drawn_layers(&architecture);
    assert_eq!(
        drawn.iter().map(|l| l.dir.as_str()).collect::<Vec<_>>(),
        ["crates/loopguard-core/src", "src"],
        "the Layers section draws the core, then the shell"
    );
    let mut wrong = Vec::new();
    for layers in &drawn {
        let (modules, imports) = imports(root, &layers.dir);
        let bound = max_circle(&layers.dir);
        for row in &layers.rows {
            if row.circle && row.modules.len() > bound {
                wrong.push(format!(
                    "{}: the circle {} holds more than {bound} modules",
                    layers.dir,
                    row.modules.join(" ⇄ ")
                ));
            }
        }
        for m in &modules {
            if layers.row_of(m).is_none() {
                wrong.push(format!("{}: {m} is on no row of the drawing", layers.dir));
            }
        }
        for row in &layers.rows {
            for m in row.modules.iter().filter(|m| !modules.contains(m)) {
                wrong.push(format!(
                    "{}: the drawing has {m}, the code has not",
                    layers.dir
                ));
            }
        }
        for i in &imports {
            let (Some(from), Some(to)) = (layers.row_of(&i.from), layers.row_of(&i.to)) else {
                continue;
            };
            if to < from || (to == from && !layers.rows[from].circle) {
                wrong.push(format!(
                    "{}:{}: {} imports {}, which is not below it",
                    i.file, i.line, i.from, i.to
                ));
            }
        }
        let found = circles(&modules, &imports);
        println!(
            "{}: {} modules; circles: {:?}",
            layers.dir,
            modules.len(),
            found
        );
        for circle in found.iter().filter(|c| c.len() > bound) {
            wrong.push(format!(
                "{}: the imports make a circle of {} modules, more than {bound}: {}",
                layers.dir,
                circle.len(),
                circle.join(" ⇄ ")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the imports and ARCHITECTURE.md's Layers disagree (move the code, or the module \
         in the drawing when the arrow is right):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn imports_are_read_from_paths_not_from_text_that_looks_like_them() {
    let text = r#"
use crate::a::X;
use crate::{b, c::{D, E}, self};
use super::super::f;
/// crate::in_a_doc
fn g() {
    let s = "crate::in_a_string";
    crate::h::call();
    let y = other::crate_like::z;
}
mod inner {
    use super::super::super::i;
}
#[cfg(test)]
mod tests {
    use crate::only_a_test;
}
#[cfg(test)]
mod more_tests;
"#;
    let (code, test_mods) = without_tests(&blank_literals(text));
    assert_eq!(test_mods, ["more_tests"]);
    let named: Vec<String> = named_modules(&code, &["one".to_owned(), "two".to_owned()])
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(named, ["a", "b", "c", "f", "h", "i"]);
}

#[test]
fn a_circle_is_every_module_that_reaches_another_and_back() {
    let m = |s: &str| s.to_owned();
    let import = |from: &str, to: &str| Import {
        from: m(from),
        to: m(to),
        file: String::new(),
        line: 0,
    };
    let modules = ["a", "b", "c", "d", "e"].map(m);
    let imports = [
        import("a", "b"),
        import("b", "c"),
        import("c", "a"),
        import("c", "d"),
        import("d", "e"),
        import("e", "d"),
    ];
    assert_eq!(
        circles(&modules, &imports),
        [vec![m("a"), m("b"), m("c")], vec![m("d"), m("e")]]
    );
}
