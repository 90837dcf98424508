//! How long the largest config within the limits takes to load (docs/contract.md,
//! "Limits"; `scripts/bench-config.sh` runs it in release):
//!
//!   cargo run --release -p loopguard-core --example config_load [RUNS]
//!
//! Builds, in memory, configs at every limit at once — the most entries in every list, each
//! glob, regex and name as long as allowed and as costly to compile as a glob or regex of
//! that length gets — and the 1 MiB config of 40,000 globs that must be refused, and prints
//! the median and slowest time of `Config::parse` on each. The example is the measurement,
//! so it may print and read the clock.
#![allow(clippy::print_stdout, clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use loopguard_core::config::{
    Config, MAX_COMPLETION_PATTERNS, MAX_CONFIG_BYTES, MAX_GLOB_BYTES, MAX_GLOBS, MAX_LIST_ENTRIES,
    MAX_NAME_BYTES, MAX_REGEX_BYTES,
};

/// A glob of exactly `MAX_GLOB_BYTES` with every costly construct (`**`, alternations,
/// classes, wildcards), distinct per `i` so none is deduplicated or a literal.
fn glob(i: usize) -> String {
    glob_of(i, MAX_GLOB_BYTES)
}

/// [`glob`] of `len` bytes.
fn glob_of(i: usize, len: usize) -> String {
    let mut g = format!("**/{i}-{{a,b,c}}*/");
    while g.len() + 24 <= len {
        g.push_str("[a-z]?x*{tests,spec}/**/");
    }
    while g.len() < len {
        g.push('z');
    }
    g
}

/// A regex of at most `MAX_REGEX_BYTES`, Unicode and case-insensitive, as costly as
/// one gets within the limits: as many Unicode word classes as still compile.
fn regex(i: usize) -> String {
    let build = |classes: usize| {
        let mut r = format!("(?i)\\b(?:done{i}");
        for w in 0.. {
            let part = if w < classes {
                format!("|fixed{w}\\w{{0,3}}")
            } else {
                format!("|complete[ds]?{w}")
            };
            if r.len() + part.len() + 3 > MAX_REGEX_BYTES {
                break;
            }
            r.push_str(&part);
        }
        r.push_str(")\\b");
        r
    };
    let compiles = |r: &str| {
        let yaml = format!("completion_patterns: ['{r}']\n");
        Config::parse(&yaml, Path::new("probe.yml")).is_ok()
    };
    (0..64)
        .rev()
        .map(build)
        .find(|r| compiles(r))
        .expect("a regex without classes compiles")
}

fn yaml_list(indent: &str, items: impl Iterator<Item = String>) -> String {
    items
        .map(|s| format!("{indent}- '{}'\n", s.replace('\'', "''")))
        .collect()
}

/// Every list at its limit, every entry at its longest.
fn largest_allowed() -> String {
    let (n, globs) = (MAX_LIST_ENTRIES, MAX_GLOBS);
    let mut y =
        String::from("profile: balanced\nwindow: 10\nrules:\n  constraint:\n    protected:\n");
    y.push_str(&yaml_list("      ", (0..globs).map(glob)));
    y.push_str("  edge_loop:\n    edges:\n");
    for i in 0..n {
        let name = format!("{i}_{}", "e".repeat(MAX_NAME_BYTES - 8));
        let _ = writeln!(y, "      '{name}': 3");
    }
    y.push_str("agents:\n");
    y.push_str(&yaml_list(
        "  ",
        (0..globs).map(|i| {
            let mut a = format!("Agent {i} <{}>", glob(i));
            a.truncate(MAX_GLOB_BYTES);
            a
        }),
    ));
    y.push_str("paths:\n  tests:\n");
    y.push_str(&yaml_list("    ", (0..globs).map(glob)));
    y.push_str("completion_patterns:\n");
    y.push_str(&yaml_list("  ", (0..MAX_COMPLETION_PATTERNS).map(regex)));
    y.push_str("on_trip:\n  action: escalate\n  notify:\n");
    y.push_str(&yaml_list("    ", (0..n).map(|_| "summary".to_owned())));
    y.push_str("escalation:\n  models:\n");
    y.push_str(&yaml_list(
        "    ",
        (0..n).map(|i| format!("{i}-{}", "m".repeat(MAX_NAME_BYTES - 8))),
    ));
    y
}

/// What a config file of the largest size can hold: 40,000 globs. Must be refused.
fn forty_thousand_globs() -> String {
    let mut y = String::from("paths:\n  tests:\n");
    let mut i = 0;
    loop {
        let line = format!("    - 'dir{i}/**/*.rs'\n");
        if y.len() + line.len() > MAX_CONFIG_BYTES {
            break;
        }
        y.push_str(&line);
        i += 1;
    }
    y
}

fn time(name: &str, text: &str, runs: usize, must_load: bool) {
    let path = Path::new(".loopguard.yml");
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let result = Config::parse(text, path);
        times.push(start.elapsed());
        match (result, must_load) {
            (Ok(_), true) | (Err(_), false) => {}
            (Ok(_), false) => panic!("{name}: loaded, but is past the limits"),
            (Err(e), true) => panic!("{name}: {e}"),
        }
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<40} {:>8} bytes  median {:>7.2} ms  slowest {:>7.2} ms  ({runs} runs)",
        text.len(),
        ms(times[runs / 2]),
        ms(times[runs - 1])
    );
}

fn main() {
    let runs = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(20usize)
        .max(1);
    let largest = largest_allowed();
    assert!(largest.len() <= MAX_CONFIG_BYTES, "{} bytes", largest.len());
    time("largest allowed config (loads)", &largest, runs, true);
    time(
        "1 MiB, 40,000 globs (refused)",
        &forty_thousand_globs(),
        runs,
        false,
    );
    if std::env::args().nth(2).as_deref() == Some("parts") {
        let tests = format!(
            "paths:\n  tests:\n{}",
            yaml_list("    ", (0..MAX_GLOBS).map(glob))
        );
        time("paths.tests alone", &tests, runs, true);
        let res = format!(
            "completion_patterns:\n{}",
            yaml_list("  ", (0..MAX_COMPLETION_PATTERNS).map(regex))
        );
        time("completion_patterns alone", &res, runs, true);
    }
}
