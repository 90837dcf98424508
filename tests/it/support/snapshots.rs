//! Snapshot files under `tests/snapshots/`: what a test renders, compared with the file,
//! with what differs from machine to machine and run to run redacted.
//! `UPDATE_SNAPSHOTS=1 cargo test --test it <module>::` rewrites them; review the diff.

use std::path::PathBuf;

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// What differs from machine to machine and run to run: the run ids and event times
/// (the clock), and where this checkout lives (the runner logs' paths).
fn redact(text: &str) -> String {
    let run = regex::Regex::new(r"\b\d{8}T\d{6}(\.\d+)?Z").unwrap();
    let time = regex::Regex::new(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?Z?\b").unwrap();
    let text = text.replace(env!("CARGO_MANIFEST_DIR"), "CHECKOUT");
    let text = run.replace_all(&text, "RUN-ID");
    time.replace_all(&text, "TIME").into_owned()
}

/// Compares `actual` (redacted) with `tests/snapshots/<name>`.
#[track_caller]
pub(crate) fn assert_snapshot(name: &str, actual: &str) {
    let path = snapshot_dir().join(name);
    let actual = redact(actual);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a snapshot directory")).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; hint: UPDATE_SNAPSHOTS=1 cargo test --test it writes it",
            path.display()
        )
    });
    if expected != actual {
        let diff: Vec<String> = expected
            .lines()
            .zip(actual.lines())
            .enumerate()
            .filter(|(_, (e, a))| e != a)
            .take(5)
            .map(|(i, (e, a))| format!("line {}:\n  want: {e}\n  got:  {a}", i + 1))
            .collect();
        panic!(
            "{} differs ({} vs {} lines):\n{}\nhint: UPDATE_SNAPSHOTS=1 cargo test --test it, then review the diff",
            path.display(),
            expected.lines().count(),
            actual.lines().count(),
            diff.join("\n")
        );
    }
}
