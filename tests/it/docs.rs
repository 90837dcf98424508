//! The documentation tells the truth: its examples run as shown, its config parses, and
//! nothing in the repository points at files outside it.

use std::path::{Path, PathBuf};

use crate::support::{fenced_blocks as blocks, lg_at};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `loopguard replay --config FILE` of the sample, FILE (`name` in `dir`) holding `yaml`.
fn replay_with(dir: &Path, name: &str, yaml: &str) -> crate::support::Ran {
    let config = dir.join(name);
    std::fs::write(&config, yaml).unwrap();
    lg_at(dir)
        .arg("replay")
        .arg("--config")
        .arg(&config)
        .arg(root().join("examples/replay/iterations.jsonl"))
        .run()
}

#[test]
fn the_replay_sample_gives_what_the_contract_shows() {
    let contract = read("docs/contract.md");
    let console = blocks(&contract, "console")
        .into_iter()
        .find(|b| b.contains("loopguard replay examples/replay/iterations.jsonl"))
        .expect("the contract shows the sample's replay");
    let ran = lg_at(&root())
        .args(["replay", "examples/replay/iterations.jsonl"])
        .run()
        .code(1);
    // Every output line the contract shows (up to its ellipsis) is printed, in order.
    let shown: Vec<&str> = console.lines().skip(1).take_while(|l| *l != "…").collect();
    assert!(shown.len() >= 3, "{console}");
    let printed: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(&printed[..shown.len()], &shown[..], "{}", ran.stdout);

    let doc = lg_at(&root())
        .args(["replay", "--json", "examples/replay/iterations.jsonl"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["rule"], "same_error");
    assert_eq!(doc["history"].as_array().unwrap().len(), 4);
}

#[test]
fn the_config_examples_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for file in ["README.md", "docs/contract.md"] {
        for yaml in blocks(&read(file), "yaml") {
            // Workflow snippets are YAML too; the config blocks are the ones with rules.
            if !yaml.contains("rules:") {
                continue;
            }
            let ran = replay_with(tmp.path(), "config.yml", yaml);
            assert_ne!(ran.code, Some(2), "{file}: {}\n{yaml}", ran.stderr);
            checked += 1;
        }
    }
    assert!(checked >= 1, "no config example found");
}

#[test]
fn every_config_key_of_the_contract_is_accepted() {
    let contract = read("docs/contract.md");
    let tmp = tempfile::tempdir().unwrap();
    let section = contract
        .split("## Configuration")
        .nth(1)
        .and_then(|rest| rest.split("The profile tables").next())
        .expect("the contract has a configuration section");
    let mut keys = 0;
    for line in section.lines() {
        // Rows of the key table: | `a.b.c` | default | … |
        let Some(key) = line
            .strip_prefix("| `")
            .and_then(|l| l.split_once('`'))
            .map(|(k, _)| k)
        else {
            continue;
        };
        if !key.contains('.') || key.contains('<') || key.contains(' ') {
            continue;
        }
        let mut yaml = String::new();
        let parts: Vec<&str> = key.split('.').collect();
        for (depth, part) in parts.iter().enumerate() {
            yaml.push_str(&"  ".repeat(depth));
            yaml.push_str(part);
            yaml.push(':');
            yaml.push('\n');
        }
        // A null value parses for every optional key: the key itself must be known.
        let ran = replay_with(
            tmp.path(),
            "key.yml",
            &(yaml.trim_end().to_owned() + " null\n"),
        );
        assert!(
            !ran.stderr.contains("unknown field"),
            "{key} is in the contract but not accepted: {}",
            ran.stderr
        );
        keys += 1;
    }
    assert!(keys >= 25, "only {keys} keys found in the contract's table");
}

/// Every file of the source tree (not `target/`, `.git/` or the runner fixtures).
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !["target", ".git", "node_modules", "fixtures"].contains(&name.as_str()) {
                source_files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn nothing_in_the_repository_points_outside_it() {
    let mut files = Vec::new();
    source_files(&root(), &mut files);
    assert!(
        files.len() > 50,
        "the source tree has {} files",
        files.len()
    );
    // The project's design notes live outside the repository; its docs must not send a
    // reader there. (This file names them to look for them.)
    let outside = ["CONTRACT.md", "DESIGN.md", "STYLE.md"];
    for path in files {
        if path.ends_with("tests/it/docs.rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // binary
        };
        for name in outside {
            assert!(
                !text.contains(name),
                "{} refers to {name}, which is not in the repository",
                path.display()
            );
        }
    }
}

/// The backticked words of `text`.
fn code_words(text: &str) -> std::collections::BTreeSet<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The runners come from one table (`runners!` in the core's `fingerprint/mod.rs`): the
/// lists of them in the docs and the fixtures' directories are checked against it, so a
/// runner added there is one the docs name and the fixture tests read.
#[test]
fn every_runner_of_the_table_is_documented_and_has_fixtures() {
    use loopguard::fingerprint::Runner;
    let names: std::collections::BTreeSet<&str> = Runner::ALL.iter().map(|r| r.as_str()).collect();

    // docs/contract.md: "`runner` is one of `cargo`, ..., or `null`".
    let contract = read("docs/contract.md");
    let list = contract
        .split("`runner` is one of ")
        .nth(1)
        .and_then(|rest| rest.split("`null`").next())
        .expect("the contract lists the runners");
    assert_eq!(
        code_words(list),
        names,
        "docs/contract.md's list of runners"
    );

    // README.md, *Failure fingerprints*: the `runner` column of the table.
    let readme = read("README.md");
    let table = readme
        .split("| family | `runner` | what is read |")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .expect("README.md has the runners' table");
    let column: std::collections::BTreeSet<&str> = table
        .lines()
        .filter_map(|row| row.split('|').nth(2))
        .flat_map(code_words)
        .collect();
    assert_eq!(column, names, "README.md's table of runners");

    // tests/fixtures/logs/<runner>/: a passing run and at least one failure per runner
    // (`generic` has none of its own: it reads what no runner claims; `tsc`'s failures
    // are reported as `generic`, the held-out set is another layer).
    let logs = root().join("tests/fixtures/logs");
    for name in names.iter().filter(|n| **n != "generic") {
        let dir = logs.join(name);
        assert!(dir.join("passing").is_dir(), "no {}/passing", dir.display());
        let failures = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter(|e| {
                let path = e.as_ref().unwrap().path();
                path.is_dir() && !path.ends_with("passing")
            })
            .count();
        assert!(failures > 0, "{}: no failure", dir.display());
    }
    for entry in std::fs::read_dir(&logs).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && !["heldout", "tsc"].contains(&name.as_str()) {
            assert!(
                names.contains(name.as_str()),
                "{} is no runner's",
                path.display()
            );
        }
    }
}

/// The workflows of `examples/workflows/` work before the first release (issue 27): each
/// `uses: loopguard/loopguard@…` names a commit of this repository's history (no tag
/// exists yet), with the tag to use after the release in a comment, and the `action.yml`
/// of that commit takes every input the step passes.
#[test]
fn the_example_workflows_use_an_action_that_exists() {
    let dir = root().join("examples/workflows");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let doc: serde_json::Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("examples/workflows/{name}: {e}"));
        let steps = doc["jobs"]
            .as_object()
            .unwrap_or_else(|| panic!("{name}: no jobs"))
            .values()
            .flat_map(|job| job["steps"].as_array().cloned().unwrap_or_default());
        for step in steps {
            let Some(rest) = step["uses"]
                .as_str()
                .and_then(|u| u.strip_prefix("loopguard/loopguard@"))
            else {
                continue;
            };
            assert!(
                rest.len() == 40 && rest.bytes().all(|b| b.is_ascii_hexdigit()),
                "{name}: loopguard/loopguard@{rest}: no release exists yet, pin a commit"
            );
            assert!(
                text.contains("#   uses: loopguard/loopguard@v0.1.0"),
                "{name}: the tag to use after the release belongs in a comment beside the pin"
            );
            let action = std::process::Command::new("git")
                .current_dir(root())
                .args(["show", &format!("{rest}:action.yml")])
                .output()
                .unwrap();
            assert!(
                action.status.success(),
                "{name}: {rest} is not a commit of this repository with an action.yml: {}",
                String::from_utf8_lossy(&action.stderr)
            );
            let action: serde_json::Value =
                serde_saphyr::from_str(&String::from_utf8_lossy(&action.stdout)).unwrap();
            let inputs = action["inputs"].as_object().expect("the action's inputs");
            for key in step["with"].as_object().into_iter().flat_map(|w| w.keys()) {
                assert!(
                    inputs.contains_key(key),
                    "{name}: input `{key}` is not in the action.yml of {rest}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 3, "one loopguard step in each example");
}

/// A fresh machine (issue 27): every program the tests start is one `.ci/test-deps.sh`
/// installs when it is missing (its `need PACKAGE COMMAND...` lines), or one every Debian
/// has (bash's and the essential packages'), and README's "Test" names each.
#[test]
fn the_programs_the_tests_start_are_the_ones_test_deps_installs() {
    let deps = read(".ci/test-deps.sh");
    let installed: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.strip_prefix("need "))
        .flat_map(|l| l.split_whitespace().skip(1))
        .collect();
    assert!(installed.contains(&"chromium"), "{installed:?}");
    const ESSENTIAL: &[&str] = &["bash", "sh", "chmod", "id", "kill"];
    let mut files = Vec::new();
    source_files(&root().join("tests"), &mut files);
    let mut started = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        let text = std::fs::read_to_string(file).unwrap();
        let mut at = 0;
        while let Some(i) = text[at..].find("Command::new(\"") {
            let start = at + i + "Command::new(\"".len();
            let end = start + text[start..].find('"').expect("a closing quote");
            started.push((text[start..end].to_owned(), file.clone()));
            at = end;
        }
    }
    assert!(started.len() >= 10, "{started:?}");
    for (program, file) in &started {
        assert!(
            installed.contains(&program.as_str()) || ESSENTIAL.contains(&program.as_str()),
            "{}: starts `{program}`, which .ci/test-deps.sh does not install",
            file.display()
        );
    }
    let readme = read("README.md");
    let test = &readme[readme.find("\n## Test\n").expect("README's Test")..];
    let test = &test[..test[1..].find("\n## ").expect("the next section")];
    for program in installed.iter().filter(|p| !p.ends_with("-browser")) {
        assert!(
            test.contains(&format!("`{program}`")),
            "README's Test does not say the tests need `{program}`"
        );
    }
}
