//! loopguard: stops autonomous coding agents from looping.
//!
//! A functional core (config, iteration, rules, breaker, fingerprint, report: no I/O) and a
//! thin shell (git, store, hooks, github, notify, cli). See ARCHITECTURE.md.
//!
//! # As a library
//!
//! A Rust harness can use the same rules and breaker as the CLI, as plain values: feed a
//! [`run::Run`] iterations, test evidence and graph transitions, and act on what comes back.
//!
//! ```
//! use jiff::Timestamp;
//! use loopguard::config::Config;
//! use loopguard::fingerprint::fingerprint_bytes;
//! use loopguard::iteration::{CommitId, Iteration, Outcome, TestEvidence};
//! use loopguard::rules::RuleName;
//! use loopguard::run::{EdgeInput, Run};
//!
//! let config = Config::default(); // or Config::parse(yaml, path)
//! let mut run = Run::new("my-session", None, Timestamp::now(), None);
//!
//! // A graph transition: planner -> researcher, asking something.
//! let step = run.event(
//!     &config,
//!     EdgeInput { edge: "planner_to_researcher".into(), query: Some("parser bug?".into()), ..Default::default() },
//!     Timestamp::now(),
//! );
//! assert!(step.new_information);
//!
//! // An attempt with its test evidence (the same failure three times trips `same_error`).
//! let log = b"---- tests::counts stdout ----\nthread 'tests::counts' panicked at src/lib.rs:9:5:\nassertion failed: ok\n\nfailures:\n    tests::counts\n\ntest result: FAILED. 0 passed; 1 failed\n";
//! let fp = fingerprint_bytes(log);
//! for n in 0..3 {
//!     let id: CommitId = format!("attempt-{n}").parse().expect("a valid id");
//!     let mut it = Iteration::new(id);
//!     it.tree = Some(format!("tree-{n}"));
//!     it.test = Some(TestEvidence::from_fingerprint(Outcome::Fail, &fp, Some("cargo test".into())));
//!     run.record(&config, it, Timestamp::now());
//! }
//! assert!(run.is_open());
//! assert_eq!(run.breaker().rule(), Some(RuleName::SameError));
//! ```

// The shell's own printing goes through `commands`.
#![warn(clippy::print_stdout, clippy::print_stderr)]

// The pure core, re-exported under the names the library has always had.
pub use loopguard_core::config::agents;
pub use loopguard_core::{
    breaker, ci, config, documents, fingerprint, iteration, patch, preview, report, rules, run,
    sanitize, session,
};

pub mod agents_config;
pub mod cli;
pub mod commands;
pub mod config_file;
pub mod error;
pub mod git;
pub mod github;
pub mod guard_surface;
pub mod hooks;
pub mod notify;
pub mod ordered_json;
pub mod safe_fs;
pub mod settings;
pub mod store;
