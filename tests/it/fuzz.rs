//! Mutations of the real inputs: the runner logs of `tests/fixtures/logs`, the event payloads
//! of `tests/fixtures/github/events`, the config blocks of README.md and docs/contract.md and
//! `examples/replay/iterations.jsonl`, read from the repository, mutated (bytes flipped, set,
//! inserted or repeated, cut short, lines duplicated, removed or swapped, other fixtures
//! spliced in) and fed to the entry points the commands use: `config_file::load`,
//! `parse_record` and `judge` as `replay` does, `github::context::ci_context` and the
//! fingerprinter. None may panic; each input is handled within a time and a memory bound
//! (the memory of this thread, counted by the allocator below); what is accepted is
//! well-formed, what is refused names its place.
//!
//! Each property runs `PROPTEST_CASES` cases, 64 when unset (`cargo test`); the fuzz step of
//! `.ci/run` raises it. Random (unmutated) inputs are the core's properties
//! (`crates/loopguard-core/src/properties.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use loopguard::config::Config;
use loopguard::fingerprint::{Fingerprinter, fingerprint_bytes};
use loopguard::iteration::parse_record;
use loopguard::report::{Status, markdown, text};
use loopguard::run::judge;
use loopguard_core::github::event::CiContext;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// ---------------------------------------------------------------------------------------
// The bounds.

/// Longer than any input takes on a loaded machine in a debug build by orders of magnitude:
/// a hang, not a slow case. (Speed is measured by the bench scripts, not here.)
const HANG: Duration = Duration::from_secs(10);

/// Most bytes one parse may hold at once on top of its input: the inputs are at most a few
/// hundred KiB, so this is a loop that allocates without end, an alias or a nesting that
/// expands, a log kept whole, not a parser's ordinary working memory.
const MEMORY: usize = 16 << 20;

/// Counts the bytes each thread holds (proptest runs each case on the test's thread), so
/// that one parse's peak can be bounded while the other tests run beside it.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    // `try_with`: a thread's last frees come after its locals are gone.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is passed on to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        track(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            track(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, failing the case when it takes longer than [`HANG`] or holds more than
/// [`MEMORY`] bytes at once (what it returns included).
fn bounded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    let held = usize::try_from(PEAK.with(Cell::get) - base).unwrap_or(0);
    if took > HANG {
        return Err(TestCaseError::fail(format!("{what} took {took:?}")));
    }
    if held > MEMORY {
        return Err(TestCaseError::fail(format!(
            "{what} held {} MiB at once",
            held >> 20
        )));
    }
    Ok(out)
}

#[test]
fn the_memory_bound_sees_what_a_parse_holds() {
    // The bound could fail: a parse that holds more than MEMORY is caught, one that holds
    // little is not.
    assert!(bounded("a small parse", || vec![0u8; 1 << 20].len()).is_ok());
    let err = bounded("a large parse", || vec![1u8; MEMORY + (1 << 20)].len()).unwrap_err();
    assert!(err.to_string().contains("held 17 MiB"), "{err}");
}

// ---------------------------------------------------------------------------------------
// The real inputs.

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every runner log (and JUnit report) under `tests/fixtures/logs`.
static LOGS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    let mut paths = Vec::new();
    files_under(&root().join("tests/fixtures/logs"), &mut paths);
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
});

/// The event payloads, each with its event name (the file name up to its first dot), their
/// placeholders filled as the CI scenarios fill them.
static EVENTS: LazyLock<Vec<(String, Vec<u8>)>> = LazyLock::new(|| {
    let mut paths = Vec::new();
    files_under(&root().join("tests/fixtures/github/events"), &mut paths);
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let file = p.file_name().unwrap().to_str().unwrap();
            let name = file.split('.').next().unwrap().to_owned();
            let text = crate::support::ci::payload(
                file,
                &[
                    ("{{HEAD_SHA}}", "1111111111111111111111111111111111111111"),
                    ("{{BASE_SHA}}", "2222222222222222222222222222222222222222"),
                    ("{{BEFORE}}", "2222222222222222222222222222222222222222"),
                    ("\"{{RUN_ID}}\"", "5002"),
                ],
            );
            assert!(!text.contains("{{"), "{file}: a placeholder left");
            (name, text.into_bytes())
        })
        .collect()
});

/// The config blocks (those with `rules:`) of the README and the contract.
static CONFIGS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    ["README.md", "docs/contract.md"]
        .iter()
        .flat_map(|doc| {
            let md = std::fs::read_to_string(root().join(doc)).unwrap();
            crate::support::fenced_blocks(&md, "yaml")
                .into_iter()
                .filter(|b| b.contains("rules:"))
                .map(|b| b.as_bytes().to_vec())
                .collect::<Vec<_>>()
        })
        .collect()
});

/// `examples/replay/iterations.jsonl`.
static RECORDS: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| vec![std::fs::read(root().join("examples/replay/iterations.jsonl")).unwrap()]);

#[test]
fn the_inputs_are_the_repositorys() {
    // A fuzz suite over nothing passes; this one reads what the repository holds.
    assert!(LOGS.len() >= 100, "{} logs", LOGS.len());
    assert!(
        LOGS.iter().any(|l| l.starts_with(b"<?xml")),
        "no JUnit report"
    );
    let names: Vec<&str> = EVENTS.iter().map(|(n, _)| n.as_str()).collect();
    for event in ["pull_request", "push", "workflow_run"] {
        assert!(names.contains(&event), "{names:?}");
    }
    assert!(
        CONFIGS.iter().any(|c| c.len() > 1000),
        "the README's full config: {} blocks",
        CONFIGS.len()
    );
    assert!(RECORDS[0].split(|b| *b == b'\n').count() >= 4);
    // Unmutated, every one of them is accepted: what the mutations break is theirs.
    let dir = tempfile::tempdir().unwrap();
    for config in CONFIGS.iter() {
        load_config(dir.path(), config).unwrap();
    }
    for (name, payload) in EVENTS.iter() {
        ci_context(dir.path(), name, payload).unwrap();
    }
    let text = String::from_utf8(RECORDS[0].clone()).unwrap();
    assert_eq!(replay(&text).unwrap(), 4);
}

// ---------------------------------------------------------------------------------------
// Mutations.

/// One change to an input. Positions and lengths are taken modulo what the input has.
#[derive(Debug, Clone)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        byte: u8,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    /// A run of one byte, long enough to cross the line and size caps.
    Repeat {
        at: usize,
        byte: u8,
        times: usize,
    },
    Truncate {
        at: usize,
    },
    DuplicateLine {
        line: usize,
        times: u8,
    },
    RemoveLine {
        line: usize,
    },
    SwapLines {
        a: usize,
        b: usize,
    },
    /// Part of another input of the same kind, put in at `at`.
    Splice {
        other: usize,
        from: usize,
        len: usize,
        at: usize,
    },
}

fn mutation(tokens: &'static [&'static [u8]]) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        (
            any::<usize>(),
            prop_oneof![
                proptest::sample::select(tokens).prop_map(<[u8]>::to_vec),
                proptest::collection::vec(any::<u8>(), 1..16),
            ]
        )
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (
            any::<usize>(),
            proptest::sample::select(&b"a \n{[\"-:#\x1b\0\xff"[..]),
            1usize..200_000
        )
            .prop_map(|(at, byte, times)| Mutation::Repeat { at, byte, times }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), 1u8..4).prop_map(|(line, times)| Mutation::DuplicateLine { line, times }),
        any::<usize>().prop_map(|line| Mutation::RemoveLine { line }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
        (any::<usize>(), any::<usize>(), 0usize..2048, any::<usize>()).prop_map(
            |(other, from, len, at)| Mutation::Splice {
                other,
                from,
                len,
                at
            }
        ),
    ]
}

/// Line spans of `bytes`, each with its newline.
fn lines(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push(start..bytes.len());
    }
    out
}

fn apply(input: &mut Vec<u8>, m: &Mutation, corpus: &[&[u8]]) {
    let pos = |at: usize, len: usize| at % (len + 1);
    match m {
        Mutation::Flip { at, bit } if !input.is_empty() => {
            let i = at % input.len();
            input[i] ^= 1 << bit;
        }
        Mutation::Set { at, byte } if !input.is_empty() => {
            let i = at % input.len();
            input[i] = *byte;
        }
        Mutation::Insert { at, bytes } => {
            let i = pos(*at, input.len());
            input.splice(i..i, bytes.iter().copied());
        }
        Mutation::Repeat { at, byte, times } => {
            let i = pos(*at, input.len());
            input.splice(i..i, std::iter::repeat_n(*byte, *times));
        }
        Mutation::Truncate { at } => input.truncate(pos(*at, input.len())),
        Mutation::DuplicateLine { line, times } => {
            let spans = lines(input);
            if let Some(span) = spans.get(line % spans.len().max(1)) {
                let copy = input[span.clone()].to_vec();
                for _ in 0..*times {
                    input.splice(span.start..span.start, copy.iter().copied());
                }
            }
        }
        Mutation::RemoveLine { line } => {
            let spans = lines(input);
            if let Some(span) = spans.get(line % spans.len().max(1)) {
                input.drain(span.clone());
            }
        }
        Mutation::SwapLines { a, b } => {
            let spans = lines(input);
            if spans.len() >= 2 {
                let (a, b) = (a % spans.len(), b % spans.len());
                if a == b {
                    return;
                }
                let (first, second) = (spans[a.min(b)].clone(), spans[a.max(b)].clone());
                let mut out = input[..first.start].to_vec();
                out.extend_from_slice(&input[second.clone()]);
                out.extend_from_slice(&input[first.end..second.start]);
                out.extend_from_slice(&input[first.clone()]);
                out.extend_from_slice(&input[second.end..]);
                *input = out;
            }
        }
        Mutation::Splice {
            other,
            from,
            len,
            at,
        } => {
            let source = corpus[other % corpus.len()];
            let start = pos(*from, source.len());
            let piece = &source[start..(start + len).min(source.len())];
            let i = pos(*at, input.len());
            input.splice(i..i, piece.iter().copied());
        }
        Mutation::Flip { .. } | Mutation::Set { .. } => {}
    }
}

/// One input of `corpus` (its index, and its bytes mutated one to four times).
fn mutated(
    corpus: &'static [Vec<u8>],
    tokens: &'static [&'static [u8]],
) -> impl Strategy<Value = (usize, Vec<u8>)> {
    (
        0..corpus.len(),
        proptest::collection::vec(mutation(tokens), 1..5),
    )
        .prop_map(move |(i, ms)| {
            let all: Vec<&[u8]> = corpus.iter().map(Vec::as_slice).collect();
            let mut input = corpus[i].clone();
            for m in &ms {
                apply(&mut input, m, &all);
            }
            (i, input)
        })
}

const YAML_TOKENS: &[&[u8]] = &[
    b": ",
    b"- ",
    b"\n",
    b"\n  ",
    b"\t",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"'",
    b"\"",
    b"#",
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!binary ",
    b"!!str ",
    b"? ",
    b"|\n",
    b">-\n",
    b"---\n",
    b"...\n",
    b"~",
    b"null",
    b"-1",
    b"1e999",
    b"99999999999999999999",
    b"0x10",
    b".inf",
    b"\"\\u0000\"",
    b"\xef\xbb\xbf",
    b"\xff",
    b"(?i)",
    b"(a+)+$",
    b"[[:alpha:]",
    b"\\p{L}",
    b"**/*",
    b"{a,b}",
    b"[!a]",
    b"30m",
    b"9999999h",
    b"-5s",
    b"\x1b[2K",
];

const JSON_TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"null",
    b"true",
    b"-0",
    b"1e400",
    b"18446744073709551616",
    b"-1",
    b"\"\\u0000\"",
    b"\"\\ud800\"",
    b"\"\"",
    b"{}",
    b"[]",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"\"a/b/c\"",
    b"\"/\"",
    b"\"not-a-sha\"",
    b"\"2026-13-45T99:00:00Z\"",
    b"\xff",
    b"\\",
    b"\n",
];

const LOG_TOKENS: &[&[u8]] = &[
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\x1b[31m",
    b"\x1b[0m",
    b"2026-11-25T10:00:00.1234567Z ",
    b"##[group]",
    b"##[endgroup]\n",
    b"##[error]",
    b"test result: FAILED. 0 passed; 1 failed\n",
    b"---- t stdout ----\n",
    b"thread 't' panicked at src/lib.rs:1:1:\n",
    b"failures:\n",
    b"--- FAIL: TestX (0.00s)\n",
    b"FAILED tests/test_x.py::test_y - AssertionError\n",
    b"=== FAILURES ===\n",
    b"\xe2\x97\x8f ",
    b"  1) ",
    b"error TS2322: ",
    b"error[E0308]: ",
    b"<testsuite>",
    b"<testcase name=\"t\">",
    b"<failure message=\"m\">",
    b"</testcase>",
    b"<![CDATA[",
    b"]]>",
    b"<!--",
    b"&amp;",
    b"&#0;",
    b"&#xFFFFFFFF;",
    b"<",
    b">",
];

// ---------------------------------------------------------------------------------------
// The entry points, as the commands call them.

static CONFIG_DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

fn load_config(dir: &Path, bytes: &[u8]) -> anyhow::Result<Config> {
    // One file per thread: the tests of this binary run side by side.
    let path = dir.join(format!("{:?}.yml", std::thread::current().id()));
    std::fs::write(&path, bytes).unwrap();
    Ok(loopguard::config_file::load(&path)?)
}

fn ci_context(dir: &Path, event: &str, payload: &[u8]) -> anyhow::Result<CiContext> {
    let path = dir.join(format!("{:?}.json", std::thread::current().id()));
    std::fs::write(&path, payload).unwrap();
    let vars = loopguard::github::event::ActionsVars::from_lookup(|name| match name {
        "GITHUB_EVENT_NAME" => Some(event.to_owned()),
        "GITHUB_EVENT_PATH" => Some(path.display().to_string()),
        "GITHUB_REPOSITORY" => Some("octo-org/widgets".to_owned()),
        "GITHUB_SHA" => Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
        _ => None,
    });
    Ok(loopguard::github::context::ci_context(&vars)?)
}

/// What `replay` does with a records file: each non-blank line parsed, the history judged
/// and shown. The number of records, or the error.
fn replay(text: &str) -> anyhow::Result<usize> {
    let mut history = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if !line.trim().is_empty() {
            history.push(parse_record(line, "iterations.jsonl", n + 1)?);
        }
    }
    let records = history.len();
    let config = Config::default();
    let now = Timestamp::from_second(1_800_000_000).unwrap();
    let j = judge(&config, history, "replay", now);
    let status = Status::of_judgement(&config, &j);
    let _ = text::verdict(&status);
    let _ = markdown::report(&status);
    let _ = status.with_history(j.run.iterations()).to_json();
    Ok(records)
}

/// The 1-based line a refusal names, `name:LINE:` at its start.
fn line_named(message: &str, name: &str) -> Option<usize> {
    let rest = message.split_once(name)?.1.strip_prefix(':')?;
    rest.split(':').next()?.parse().ok()
}

// ---------------------------------------------------------------------------------------
// The properties.

proptest! {
    // `PROPTEST_CASES` overrides this (proptest reads it over a configured count).
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_mutated_config_is_loaded_or_refused_at_a_line_of_it(
        (_, bytes) in mutated(&CONFIGS, YAML_TOKENS),
    ) {
        let loaded = bounded("config_file::load", || load_config(CONFIG_DIR.path(), &bytes))?;
        match loaded {
            Ok(config) => {
                // What was accepted is usable.
                let _ = config.claims_done("All tests pass");
                let _ = config.is_test_path("tests/it.rs");
            }
            Err(e) => {
                // A refusal is the user's to fix (exit 2) and names a line the file has.
                let message = e.to_string();
                prop_assert_eq!(loopguard::error::exit_code_of(&e), 2, "{}", message);
                let lines = bytes.split(|b| *b == b'\n').count();
                let line = line_named(&message, ".yml");
                prop_assert!(
                    line.is_some_and(|l| (1..=lines).contains(&l)),
                    "{} lines: {}", lines, message
                );
            }
        }
    }

    #[test]
    fn a_mutated_records_file_is_replayed_or_refused_at_a_line_of_it(
        (_, bytes) in mutated(&RECORDS, JSON_TOKENS),
    ) {
        // `replay` reads text: what is not UTF-8 is refused before a record is parsed.
        let text = String::from_utf8_lossy(&bytes);
        match bounded("replay", || replay(&text))? {
            Ok(records) => prop_assert!(records <= text.lines().count()),
            Err(e) => {
                let message = e.to_string();
                let line = line_named(&message, "iterations.jsonl");
                prop_assert!(
                    line.is_some_and(|l| (1..=text.lines().count()).contains(&l)),
                    "{}", message
                );
            }
        }
    }

    #[test]
    fn a_mutated_event_payload_gives_a_whole_context_or_an_input_error(
        (i, bytes) in mutated(&PAYLOADS, JSON_TOKENS),
    ) {
        // The event the payload was GitHub's for.
        let event = &EVENTS[i].0;
        let read = bounded("ci_context", || ci_context(CONFIG_DIR.path(), event, &bytes))?;
        match read {
            Ok(ctx) => {
                prop_assert_eq!(ctx.repo.to_string(), "octo-org/widgets");
                prop_assert!(!ctx.head_sha.as_str().is_empty());
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert_eq!(loopguard::error::exit_code_of(&e), 2, "{}", message);
            }
        }
    }

    #[test]
    fn a_mutated_log_fingerprints_the_same_in_any_chunks(
        (_, bytes) in mutated(&LOGS, LOG_TOKENS),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let whole = bounded("fingerprint_bytes", || fingerprint_bytes(&bytes))?;
        prop_assert_eq!(whole.signature.is_none(), whole.failures.is_empty());
        prop_assert!(!(whole.silent && whole.recognised));
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        at.sort_unstable();
        let chunked = bounded("Fingerprinter::feed", || {
            let mut fp = Fingerprinter::new();
            let mut from = 0;
            for to in at.into_iter().chain([bytes.len()]) {
                fp.feed(&bytes[from..to]);
                from = to;
            }
            fp.finish()
        })?;
        prop_assert_eq!(chunked, whole);
    }
}

/// The payloads alone, to mutate and splice.
static PAYLOADS: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| EVENTS.iter().map(|(_, p)| p.clone()).collect());
