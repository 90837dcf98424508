//! Failure fingerprints: parse runner output into failures, normalise them, and hash the
//! set into a signature that identifies *a failure*, not a log.
//!
//! The pipeline, for text logs (everything but XML test reports):
//!
//! 1. [`stream`] splits the input into lines with memchr, carries partial lines across
//!    chunks, caps each line's length, and skips every line that cannot matter with one
//!    multi-substring scan (most lines of a log are passing noise);
//! 2. [`ghactions`] turns a raw line into what a person sees: no BOM, GitHub Actions
//!    timestamp, `##[...]` marker, ANSI escape, `\r` progress or CRLF;
//! 3. [`parsers`] hands the line to the parsers whose trigger substrings it holds (or that
//!    are inside a block): one small state machine per runner (`cargo`, `nextest`,
//!    `pytest`, `gotest`, `jest`, `vitest`, `mocha`, `tsc`, `unittest`, `rspec`,
//!    `minitest`, `phpunit`, `exunit`, `ctest`, `tap`, `nodetest`, `playwright`, `bun`,
//!    `deno`, `dotnet`, `gtest`, `bats` (its pretty formatter; its TAP is `tap`'s), and
//!    `generic` as the fallback) recognises its own failures; several
//!    runners in one log are fine. Once a runner is inside its own run and says which
//!    bytes its remaining lines hold, the scan looks for those alone (`cargo`: `F ; #`,
//!    `pytest`: `F R = #`);
//! 4. [`normalize`] strips what changes between two runs of the same failure (temp paths of
//!    every OS and tool, workspace paths, line numbers, UUIDs, addresses, timestamps,
//!    durations, property-test seeds and counterexamples, values) and keeps what tells
//!    failures apart (test names, error types, message words, versions, error codes);
//! 5. [`signature`] hashes each failure under [`FINGERPRINT_VERSION`] and the sorted set
//!    into the signature.
//!
//! XML test reports go through [`report`], which picks the reader by the root element:
//! JUnit ([`junit`], any producer), TRX ([`trx`]), xUnit.net v2 and NUnit 3
//! ([`dotnet_xml`]), all on one push tokenizer with the same bounded memory. Nothing here
//! does I/O except [`fingerprint_reader`], which only reads.
//!
//! Decisions worth knowing:
//!
//! - A failure hashes `(kind, id, message)` under the version tag; the runner is not hashed,
//!   so `cargo test` and nextest, or a log and its JUnit report, agree on one failure. Ids
//!   are therefore built the way each runner's text log shows them (nextest: the test name
//!   without the binary id; jest: describe path and title joined by spaces, as jest-junit
//!   names cases; pytest: the node id, rebuilt from JUnit's classname).
//! - Retries: a test whose last attempt passed (nextest `TRY 2 PASS`/`FLAKY`, Surefire
//!   `<flakyFailure>` only) is flaky, not failing, and is left out.
//! - The generic fallback (error-looking lines) counts only when no runner recognised a
//!   failure, and never takes the runner's own `Process completed with exit code N`.
//! - Several runners in one log: the union of their failures; `runner` is the one with
//!   the most failures. A runner that withdrew a flaky failure said what happened: the
//!   fallback's error lines in its report are not a failure.
//! - A runner's console and its report name a failure alike (`dotnet test` and TRX, a
//!   testing framework's names), so they give one signature.
//! - A passing log gives `signature: None`; its `runner` is the runner recognised from its
//!   summary lines, if any.

mod bats;
mod bun;
mod bytes;
mod cargo;
mod collect;
mod ctest;
mod deno;
mod dotnet;
mod dotnet_xml;
mod exunit;
mod failure;
mod generic;
mod ghactions;
mod gotest;
mod gtest;
mod jest;
mod junit;
mod minitest;
mod mocha;
mod nextest;
mod nodetest;
mod normalize;
mod parsers;
mod phpunit;
mod playwright;
mod pytest;
mod report;
mod rspec;
mod signature;
mod stream;
mod tap;
mod trx;
mod tsc;
mod unittest;
mod vitest;
mod xml;

#[cfg(test)]
mod testing;

pub use failure::{Failure, FailureKind, Runner, UnknownRunner};
pub use normalize::{normalize_id, normalize_message};
pub use signature::{FINGERPRINT_VERSION, Fingerprint, failure_hash};
pub use stream::Fingerprinter;

/// Bytes read at a time: the chunk is scanned while it is in the CPU's cache.
const READ_BYTES: usize = 64 << 10;

/// The read buffer starts on a page: the kernel's copy into it and the scan's 32- and
/// 64-byte loads from it split no cache line (on a 1 GiB log a buffer 8 or 16 bytes off a
/// line took 10–15% longer, copy and scan alike).
const PAGE: usize = 4096;

/// Fingerprints everything `r` yields, JUnit XML or text (decided by the content), reading
/// in fixed-size chunks so memory stays bounded whatever the input's size.
pub fn fingerprint_reader(mut r: impl std::io::Read) -> std::io::Result<Fingerprint> {
    let mut fingerprinter = Fingerprinter::new();
    let mut block = vec![0u8; READ_BYTES + PAGE];
    let at = (PAGE - block.as_ptr().addr() % PAGE) % PAGE;
    let buf = &mut block[at..at + READ_BYTES];
    loop {
        match r.read(buf) {
            Ok(0) => break,
            Ok(n) => fingerprinter.feed(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(fingerprinter.finish())
}

/// Fingerprints one complete log or JUnit document held in memory.
pub fn fingerprint_bytes(bytes: &[u8]) -> Fingerprint {
    let mut fingerprinter = Fingerprinter::new();
    fingerprinter.feed(bytes);
    fingerprinter.finish()
}
