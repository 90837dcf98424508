//! The streaming front end: bytes in any chunking -> lines -> parsers, in bounded memory.
//!
//! Memory: one partial line (at most [`MAX_LINE_BYTES`]), each parser's small state, and
//! the failures found (at most [`super::collect::MAX_FAILURES`], each with one bounded
//! message). Nothing else of the input is kept.
//!
//! Speed: while no parser is inside a failure block, the front end does not look at lines
//! one by one: one Aho-Corasick scan over the chunk finds the next line that holds any
//! parser's trigger substring, and only that line is cleaned and parsed. Most lines of a
//! log are never decoded.
//!
//! Chunking never changes the result: whether a line is parsed depends only on the line
//! (its first [`MAX_LINE_BYTES`] bytes) and on the parsers' state, which only parsed lines
//! change.

use super::cargo::CargoParser;
use super::collect::{Collector, LineParser};
use super::generic::GenericParser;
use super::ghactions::clean_line;
use super::gotest::GoParser;
use super::jest::JestParser;
use super::junit::JunitParser;
use super::mocha::MochaParser;
use super::nextest::NextestParser;
use super::pytest::PytestParser;
use super::signature::Fingerprint;
use super::tsc::TscParser;
use super::vitest::VitestParser;
use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::LazyLock;

/// Longer lines are cut to this many bytes (a minified bundle, a base64 blob): what tells
/// failures apart sits at the start of a line.
pub(super) const MAX_LINE_BYTES: usize = 4096;

/// How many leading bytes decide between JUnit XML and text.
const SNIFF_BYTES: usize = 64;

static TRIGGERS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let patterns: Vec<&str> = [
        super::cargo::TRIGGERS,
        super::nextest::TRIGGERS,
        super::pytest::TRIGGERS,
        super::gotest::TRIGGERS,
        super::jest::TRIGGERS,
        super::vitest::TRIGGERS,
        super::mocha::TRIGGERS,
        super::tsc::TRIGGERS,
        super::generic::TRIGGERS,
    ]
    .concat();
    let patterns = minimal_triggers(&patterns);
    // Leftmost-first lets the SIMD (Teddy) prefilter run; any match will do.
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(patterns)
        .expect("because the trigger list is small and valid")
});

/// Drops every trigger that contains another one: a line holding it holds the shorter one
/// too, and fewer patterns scan faster.
fn minimal_triggers<'a>(patterns: &[&'a str]) -> Vec<&'a str> {
    let mut kept: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| !patterns.iter().any(|q| q != p && p.contains(q)))
        .collect();
    kept.sort_unstable();
    kept.dedup();
    kept
}

/// `true` when a line can matter to some parser while none is inside a failure block.
/// Triggers are matched on the raw bytes (timestamps and colour codes still in), so each
/// is a run of characters no colour code splits.
pub(crate) fn has_trigger(line: &[u8]) -> bool {
    TRIGGERS.is_match(line)
}

/// Streaming fingerprinter: [`feed`](Self::feed) chunks as they come (any boundaries),
/// then [`finish`](Self::finish).
pub struct Fingerprinter {
    mode: Mode,
    /// Bytes seen before the format was decided.
    sniffed: Vec<u8>,
    /// The start of a line whose end has not arrived yet (at most `MAX_LINE_BYTES`).
    carry: Vec<u8>,
    carrying: bool,
    parsers: Parsers,
    collector: Collector,
    junit: JunitParser,
    /// A byte other than whitespace was fed.
    printed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sniffing,
    Text,
    Junit,
}

#[derive(Default)]
struct Parsers {
    cargo: CargoParser,
    nextest: NextestParser,
    pytest: PytestParser,
    go: GoParser,
    jest: JestParser,
    vitest: VitestParser,
    mocha: MochaParser,
    tsc: TscParser,
    generic: GenericParser,
}

impl Parsers {
    fn all(&mut self) -> [&mut dyn LineParser; 9] {
        [
            &mut self.cargo,
            &mut self.nextest,
            &mut self.pytest,
            &mut self.go,
            &mut self.jest,
            &mut self.vitest,
            &mut self.mocha,
            &mut self.tsc,
            &mut self.generic,
        ]
    }

    fn busy(&self) -> bool {
        self.cargo.wants_every_line()
            || self.nextest.wants_every_line()
            || self.pytest.wants_every_line()
            || self.go.wants_every_line()
            || self.jest.wants_every_line()
            || self.vitest.wants_every_line()
            || self.mocha.wants_every_line()
            || self.tsc.wants_every_line()
            || self.generic.wants_every_line()
    }
}

impl Default for Fingerprinter {
    fn default() -> Self {
        Self::new()
    }
}

impl Fingerprinter {
    pub fn new() -> Self {
        Fingerprinter {
            mode: Mode::Sniffing,
            sniffed: Vec::new(),
            carry: Vec::new(),
            carrying: false,
            parsers: Parsers::default(),
            collector: Collector::default(),
            junit: JunitParser::default(),
            printed: false,
        }
    }

    /// Feeds the next chunk of input.
    pub fn feed(&mut self, chunk: &[u8]) {
        if !self.printed {
            self.printed = chunk.iter().any(|b| !b.is_ascii_whitespace());
        }
        match self.mode {
            Mode::Text => self.feed_text(chunk),
            Mode::Junit => self.junit.feed(chunk),
            Mode::Sniffing => {
                self.sniffed.extend_from_slice(chunk);
                if let Some(mode) = sniff(&self.sniffed, false) {
                    self.start(mode);
                }
            }
        }
    }

    /// Ends the input and returns the fingerprint.
    pub fn finish(mut self) -> Fingerprint {
        if self.mode == Mode::Sniffing {
            let mode = sniff(&self.sniffed, true).unwrap_or(Mode::Text);
            self.start(mode);
        }
        let silent = !self.printed;
        let mut fp = match self.mode {
            Mode::Junit => self.junit.finish(),
            Mode::Sniffing | Mode::Text => {
                if self.carrying {
                    let line = std::mem::take(&mut self.carry);
                    self.carrying = false;
                    self.offer(&line);
                }
                for parser in self.parsers.all() {
                    parser.finish(&mut self.collector);
                }
                self.collector.into_fingerprint()
            }
        };
        fp.silent = silent;
        fp
    }

    fn start(&mut self, mode: Mode) {
        self.mode = mode;
        let sniffed = std::mem::take(&mut self.sniffed);
        match mode {
            Mode::Junit => self.junit.feed(&sniffed),
            Mode::Sniffing | Mode::Text => self.feed_text(&sniffed),
        }
    }

    fn feed_text(&mut self, chunk: &[u8]) {
        let mut data = chunk;
        if self.carrying {
            match memchr::memchr(b'\n', data) {
                None => {
                    self.extend_carry(data);
                    return;
                }
                Some(end) => {
                    self.extend_carry(&data[..end]);
                    let line = std::mem::take(&mut self.carry);
                    self.carrying = false;
                    self.offer(&line);
                    data = &data[end + 1..];
                }
            }
        }
        let mut pos = 0;
        while pos < data.len() {
            if self.parsers.busy() {
                match memchr::memchr(b'\n', &data[pos..]) {
                    Some(len) => {
                        self.handle(&data[pos..pos + len]);
                        pos += len + 1;
                    }
                    None => return self.start_carry(&data[pos..]),
                }
                continue;
            }
            let Some(found) = TRIGGERS.find(&data[pos..]) else {
                // No trigger in the rest: only the unfinished last line can still matter.
                let tail = memchr::memrchr(b'\n', &data[pos..]).map_or(pos, |i| pos + i + 1);
                return self.start_carry(&data[tail..]);
            };
            let at = pos + found.start();
            let start = memchr::memrchr(b'\n', &data[pos..at]).map_or(pos, |i| pos + i + 1);
            let Some(len) = memchr::memchr(b'\n', &data[at..]) else {
                return self.start_carry(&data[start..]);
            };
            let end = at + len;
            // As for a line that arrives in pieces (`offer`), a trigger must lie within the
            // part of the line that is kept.
            let kept = &data[start..end.min(start + MAX_LINE_BYTES)];
            if pos + found.end() <= start + MAX_LINE_BYTES || has_trigger(kept) {
                self.handle(&data[start..end]);
            }
            pos = end + 1;
        }
    }

    fn start_carry(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.carrying = true;
        self.carry.clear();
        self.extend_carry(bytes);
    }

    fn extend_carry(&mut self, bytes: &[u8]) {
        self.carrying = true;
        let room = MAX_LINE_BYTES.saturating_sub(self.carry.len());
        self.carry
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// A complete line that arrived in pieces (already cut to `MAX_LINE_BYTES`).
    fn offer(&mut self, line: &[u8]) {
        if self.parsers.busy() || has_trigger(line) {
            self.handle(line);
        }
    }

    fn handle(&mut self, raw: &[u8]) {
        let raw = &raw[..raw.len().min(MAX_LINE_BYTES)];
        let line = clean_line(raw);
        for parser in self.parsers.all() {
            parser.line(&line, &mut self.collector);
        }
    }
}

/// Decides the format from the first bytes: JUnit XML starts (after a BOM and blank space)
/// with `<?xml`, `<testsuites` or `<testsuite`; anything else is a text log.
fn sniff(bytes: &[u8], at_end: bool) -> Option<Mode> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return (at_end || bytes.len() >= SNIFF_BYTES).then_some(Mode::Text);
    };
    let head = &bytes[start..];
    let xml_starts: [&[u8]; 4] = [b"<?xml", b"<testsuites", b"<testsuite", b"<!--"];
    if xml_starts.iter().any(|p| head.starts_with(p)) {
        return Some(Mode::Junit);
    }
    let undecided = xml_starts.iter().any(|p| p.starts_with(head));
    if undecided && !at_end && head.len() < SNIFF_BYTES {
        return None;
    }
    Some(Mode::Text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_xml_and_text() {
        assert_eq!(
            sniff(b"\xEF\xBB\xBF  <?xml version", false),
            Some(Mode::Junit)
        );
        assert_eq!(sniff(b"<testsuites>", false), Some(Mode::Junit));
        assert_eq!(sniff(b"<test", false), None);
        assert_eq!(sniff(b"<test", true), Some(Mode::Text));
        assert_eq!(sniff(b"running 3 tests", false), Some(Mode::Text));
        assert_eq!(sniff(b"   ", false), None);
        assert_eq!(sniff(b"", true), Some(Mode::Text));
    }

    #[test]
    fn empty_input_is_a_pass() {
        let fp = Fingerprinter::new().finish();
        assert_eq!(fp.signature, None);
        assert_eq!(fp.runner, None);
    }

    #[test]
    fn long_lines_are_cut_the_same_way_in_any_chunking() {
        let mut log = Vec::new();
        log.extend_from_slice(b"running 1 test\n");
        log.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES - 3]);
        log.extend_from_slice(b" error: cut\n");
        log.extend_from_slice(&vec![b'y'; MAX_LINE_BYTES * 3]);
        log.extend_from_slice(b"error: kept\n");
        log.extend_from_slice(b"error: last line without newline");
        let whole = super::super::fingerprint_bytes(&log);
        for size in [1, 7, 100, MAX_LINE_BYTES - 1, MAX_LINE_BYTES + 1] {
            let mut f = Fingerprinter::new();
            for chunk in log.chunks(size) {
                f.feed(chunk);
            }
            assert_eq!(f.finish(), whole, "chunk size {size}");
        }
        let messages: Vec<&str> = whole.failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(messages, ["error: last line without newline"], "{whole:?}");
    }

    #[test]
    fn failures_kept_are_bounded() {
        let mut f = Fingerprinter::new();
        for i in 0..(crate::fingerprint::collect::MAX_FAILURES + 500) {
            f.feed(format!("test t{i} ... FAILED\n").as_bytes());
        }
        let fp = f.finish();
        assert_eq!(fp.failures.len(), crate::fingerprint::collect::MAX_FAILURES);
        assert!(fp.signature.is_some());
    }
}
