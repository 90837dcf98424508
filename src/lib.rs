//! loopguard: stops autonomous coding agents from looping.
//!
//! A functional core (config, iteration, rules, breaker, fingerprint, report: no I/O) and a
//! thin shell (git, store, hooks, github, notify, cli). See ARCHITECTURE.md.

// The core never prints: output goes through values the shell renders.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod agents;
pub mod breaker;
pub mod cli;
pub mod commands;
pub mod config;
pub mod error;
pub mod fingerprint;
pub mod git;
pub mod github;
pub mod hooks;
pub mod iteration;
pub mod report;
pub mod rules;
pub mod run;
pub mod store;
