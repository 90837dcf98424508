//! The integration tests: one binary, so `tests/support` compiles once and a change in
//! `src/` relinks one test executable (ripgrep, just and nextest do the same).
//!
//! One module per area. Every test drives the real binary against real repositories made
//! by real `git`, real runner output and the fake GitHub of `support::github_fake`. The
//! slow ones (release archives, a dashboard over 1,000 PRs) are under [`slow`]:
//! `cargo test --test it slow::` runs them alone, `-- --skip slow::` leaves them out.

mod support;

mod agents_e2e;
mod baseline;
mod branch_evidence;
mod check;
mod ci;
mod ci_deadlines;
mod ci_forge;
mod code_shape;
mod dashboard;
mod differential;
mod docs;
mod documents;
mod errors;
mod evidence;
mod fingerprint;
mod fuzz;
mod git_evidence;
mod github_client;
mod guard_at_commit;
mod hard_to_fool;
mod harness;
mod hook_gates;
mod input_limits;
mod journey;
mod journey_ci;
mod keeps_its_word;
mod local_guard;
mod model;
mod neighbours;
mod pictures;
mod preview;
mod progress;
mod recovery;
mod reports;
mod session;
mod setup_edges;
mod shapes;
mod slow;
mod undo;
mod untrusted_text;
mod wording;
mod working_tree;
