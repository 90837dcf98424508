//! The pure core of loopguard: what an agent's attempts are, how they are judged, and how
//! the verdict is shown. Values in, values out: no git, HTTP, file system, environment,
//! clock or process (`clippy.toml` in this crate forbids them; the `loopguard` crate is the
//! shell that does the I/O).
//!
//! - [`iteration`] — the record of one attempt, and the `replay` input format;
//! - [`first_parent`] — the branch's own line: attempts, and what merges brought in;
//! - [`config`] — `.loopguard.yml` parsed and resolved (profiles, rules, patterns);
//! - [`rules`] — one pure function per rule over the window of attempts;
//! - [`suite`] — what a test is per ecosystem, and which tests a change takes away;
//! - [`breaker`] — the circuit breaker and its transitions;
//! - [`run`] — a run of attempts and the one function that steps its breaker;
//! - [`preview`] — what a config would have done on windows of a history;
//! - [`report`] — the status document every renderer consumes;
//! - [`agent`] — a coding agent as its harness speaks (harnesses, tool calls, answers);
//!   [`session`] — its session judged tool call by tool call;
//! - [`fingerprint`] — failure fingerprints of test output;
//! - [`ci`] — CI mode's decisions; [`github`] — GitHub's payloads, typed;
//! - [`names`] — the text form of the runners', rules' and harnesses' names.

// The core never prints: output goes through values the shell renders.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
// A new variant (a rule, a state, an event) is decided wherever its enum is matched: no
// wildcard arm gives it a default.
#![deny(clippy::wildcard_enum_match_arm)]

pub mod agent;
pub mod breaker;
pub mod ci;
pub mod config;
pub mod documents;
pub mod error;
pub mod fingerprint;
pub mod first_parent;
pub mod github;
pub mod ids;
pub mod iteration;
pub mod names;
pub mod patch;
pub mod preview;
#[cfg(test)]
mod properties;
pub mod report;
pub mod rules;
pub mod run;
pub mod sanitize;
pub mod session;
pub mod suite;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
