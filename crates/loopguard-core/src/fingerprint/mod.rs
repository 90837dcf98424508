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
//!    are inside a block): one small state machine per runner, each in its own module and
//!    listed once in `runners!` below (the [`Runner`] enum and the parser table are
//!    generated from that list; `generic` is the fallback, and `tsc` and `bats` read
//!    output whose failures are another runner's) recognises its own failures; several
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

mod bytes;
mod collect;
mod dotnet_xml;
mod failure;
mod ghactions;
mod normalize;
mod parsers;
mod report;
mod runner;
mod signature;
mod stream;
mod trx;
mod xml;

runner::runners! {
    /// `cargo test` / libtest, and rustc errors from any cargo command.
    Cargo => cargo: CargoParser,
    Nextest => nextest: NextestParser,
    Pytest => pytest: PytestParser,
    Jest => jest: JestParser,
    Vitest => vitest: VitestParser,
    Mocha => mocha: MochaParser,
    /// `go test` (plain, `-v`, `-json`), and go build errors.
    Go => gotest: GoParser,
    /// JUnit XML whose producer is not one of the runners above (Maven Surefire, Gradle...).
    Junit => junit,
    /// Error-looking lines of any other tool, the generic signature, and TypeScript's `tsc`.
    Generic => generic: GenericParser,
    /// `dotnet test` (VSTest and Microsoft.Testing.Platform), TRX, xUnit.net and NUnit XML.
    Dotnet => dotnet: DotnetParser,
    /// `node --test` (spec and TAP reporters).
    Node => nodetest: NodeTestParser,
    /// Playwright Test.
    Playwright => playwright: PlaywrightParser,
    /// `bun test`.
    Bun => bun: BunParser,
    /// `deno test`.
    Deno => deno: DenoParser,
    /// Python's `unittest`.
    Unittest => unittest: UnittestParser,
    Rspec => rspec: RspecParser,
    Minitest => minitest: MinitestParser,
    Phpunit => phpunit: PhpunitParser,
    /// Elixir's ExUnit (`mix test`).
    Exunit => exunit: ExunitParser,
    /// CMake's `ctest`.
    Ctest => ctest: CtestParser,
    /// TAP from `prove` (Perl's harness) or any TAP producer, and bats.
    Tap => tap: TapParser,
    /// GoogleTest's console.
    Gtest => gtest: GtestParser,
    ;
    tsc: TscParser,
    bats: BatsParser,
}

#[cfg(test)]
mod testing;

pub use failure::{Failure, FailureKind};
pub use normalize::{normalize_id, normalize_message};
pub use runner::Descriptor as RunnerDescriptor;
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
