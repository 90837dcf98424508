//! The streaming front end: bytes in any chunking -> lines -> parsers, in bounded memory.
//!
//! Memory: one partial line (at most [`MAX_LINE_BYTES`]), each parser's small state, and
//! the failures found (at most [`super::collect::MAX_FAILURES`], each with one bounded
//! message). Nothing else of the input is kept.
//!
//! Speed: while no parser is inside a failure block, the front end does not look at lines
//! one by one: one multi-literal scan (Teddy) over the chunk finds the next line that holds
//! any parser's trigger substring, and only that line is cleaned and handed to the parsers
//! whose triggers it holds ([`super::parsers`]). Inside a runner's own run, once the runner
//! is decided, the scan narrows to the few bytes its remaining lines hold ([`super::bytes`]). Most
//! lines of a log are never decoded.
//!
//! Chunking never changes the result: whether a line is parsed depends only on the line
//! (its first [`MAX_LINE_BYTES`] bytes) and on the parsers' state, which only parsed lines
//! change.

use super::collect::Collector;
use super::ghactions::CleanLine;
use super::parsers::{Parsers, Scan, TRIGGERS};
use super::report::ReportParser;
use super::signature::Fingerprint;

/// Longer lines are cut to this many bytes (a minified bundle, a base64 blob): what tells
/// failures apart sits at the start of a line.
pub(super) const MAX_LINE_BYTES: usize = 4096;

/// The output's last bytes kept, for the generic signature of a failing run that has no
/// failing-looking line: its last [`TAIL_LINES`] lines.
const TAIL_BYTES: usize = 1024;
const TAIL_LINES: usize = 3;

/// How many leading bytes decide between an XML report and text.
const SNIFF_BYTES: usize = 64;

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
    /// The scan the parsers' state asks for: it changes only when a line is handled.
    scan: Scan,
    collector: Collector,
    report: ReportParser,
    /// The line being handled, cleaned, and the buffer its ANSI escapes are stripped in:
    /// reused from line to line.
    line: CleanLine,
    ansi: Vec<u8>,
    /// A byte other than whitespace was fed.
    printed: bool,
    /// The last [`TAIL_BYTES`] bytes of text fed (or fewer).
    tail: Vec<u8>,
    /// Every line is handled, whatever the parsers' state (the reference the scans must
    /// agree with; tests only).
    every_line: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sniffing,
    Text,
    Report,
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
            scan: Scan::Triggers,
            collector: Collector::default(),
            report: ReportParser::default(),
            line: CleanLine::default(),
            ansi: Vec::new(),
            printed: false,
            tail: Vec::new(),
            every_line: false,
        }
    }

    /// A fingerprinter that skips no line: each one goes to the parsers whose triggers it
    /// holds and those inside a block, as the scans promise. What the scans skip must not
    /// change the result, so this one gives the same fingerprint, only slower.
    #[cfg(any(test, feature = "testing"))]
    pub fn reading_every_line() -> Self {
        Fingerprinter {
            scan: Scan::EveryLine,
            every_line: true,
            ..Self::new()
        }
    }

    /// Feeds the next chunk of input.
    pub fn feed(&mut self, chunk: &[u8]) {
        if !self.printed {
            self.printed = chunk.iter().any(|b| !b.is_ascii_whitespace());
        }
        match self.mode {
            Mode::Text => self.feed_text(chunk),
            Mode::Report => self.report.feed(chunk),
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
            Mode::Report => self.report.finish(),
            Mode::Sniffing | Mode::Text => {
                if self.carrying {
                    let line = std::mem::take(&mut self.carry);
                    self.carrying = false;
                    self.offer(&line);
                }
                self.parsers.finish(&mut self.collector);
                self.collector.last_lines(&last_lines(&self.tail));
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
            Mode::Report => self.report.feed(&sniffed),
            Mode::Sniffing | Mode::Text => self.feed_text(&sniffed),
        }
    }

    fn feed_text(&mut self, chunk: &[u8]) {
        keep_tail(&mut self.tail, chunk);
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
            // Where the next line that may matter starts, as the parsers' state asks.
            let found = match self.scan {
                Scan::EveryLine => {
                    match memchr::memchr(b'\n', &data[pos..]) {
                        Some(len) => {
                            self.handle(&data[pos..pos + len]);
                            pos += len + 1;
                        }
                        None => return self.start_carry(&data[pos..]),
                    }
                    continue;
                }
                Scan::Triggers => TRIGGERS
                    .scan
                    .find(&data[pos..])
                    .map(|(start, end)| (pos + start, pos + end)),
                Scan::Bytes(bytes, _) => bytes.find(&data[pos..]).map(|i| (pos + i, pos + i + 1)),
            };
            let Some((at, found_end)) = found else {
                // Nothing in the rest: only the unfinished last line can still matter.
                let tail = memchr::memrchr(b'\n', &data[pos..]).map_or(pos, |i| pos + i + 1);
                return self.start_carry(&data[tail..]);
            };
            let start = memchr::memrchr(b'\n', &data[pos..at]).map_or(pos, |i| pos + i + 1);
            let Some(len) = memchr::memchr(b'\n', &data[at..]) else {
                return self.start_carry(&data[start..]);
            };
            let end = at + len;
            // As for a line that arrives in pieces (`offer`), what was found must lie
            // within the part of the line that is kept.
            let kept = &data[start..end.min(start + MAX_LINE_BYTES)];
            if found_end <= start + MAX_LINE_BYTES || self.scan.wants(kept) {
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
        if self.scan.wants(line) {
            self.handle(line);
        }
    }

    fn handle(&mut self, raw: &[u8]) {
        let raw = &raw[..raw.len().min(MAX_LINE_BYTES)];
        self.line.set(raw, &mut self.ansi);
        self.parsers
            .line(raw, &self.line, self.scan, &mut self.collector);
        if !self.every_line {
            self.scan = self.parsers.scan();
        }
    }
}

/// Keeps the last [`TAIL_BYTES`] of what `tail` and `chunk` hold, in `tail`.
fn keep_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    if chunk.len() >= TAIL_BYTES {
        tail.clear();
        tail.extend_from_slice(&chunk[chunk.len() - TAIL_BYTES..]);
        return;
    }
    let drop = (tail.len() + chunk.len()).saturating_sub(TAIL_BYTES);
    tail.drain(..drop);
    tail.extend_from_slice(chunk);
}

/// The last [`TAIL_LINES`] lines of `tail` a person reads as the output's (cleaned, not
/// blank, not the Actions runner's own), first to last; the first, maybe cut, is left out.
fn last_lines(tail: &[u8]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut scratch = Vec::new();
    let mut line = CleanLine::default();
    let whole = tail.len() < TAIL_BYTES;
    let raws: Vec<&[u8]> = tail.split(|&b| b == b'\n').collect();
    for (i, raw) in raws.into_iter().enumerate().rev() {
        if lines.len() == TAIL_LINES || (i == 0 && !whole) {
            break;
        }
        line.set(raw, &mut scratch);
        let text = line.text.trim();
        let runners = text.starts_with("Post job cleanup")
            || text.contains("Process completed with exit code");
        if !text.is_empty() && line.marker == super::ghactions::Marker::None && !runners {
            lines.push(text.to_string());
        }
    }
    lines.reverse();
    lines
}

/// Decides the format from the first bytes: an XML report (JUnit, TRX, xUnit, NUnit) starts,
/// after a BOM and blank space, with `<?xml`, a comment or its root element; anything else
/// is a text log.
fn sniff(bytes: &[u8], at_end: bool) -> Option<Mode> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return (at_end || bytes.len() >= SNIFF_BYTES).then_some(Mode::Text);
    };
    let head = &bytes[start..];
    let xml_starts: [&[u8]; 8] = [
        b"<?xml",
        b"<!--",
        b"<testsuites",
        b"<testsuite",
        b"<TestRun",
        b"<assemblies",
        b"<assembly",
        b"<test-run",
    ];
    if xml_starts.iter().any(|p| head.starts_with(p)) {
        return Some(Mode::Report);
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
            Some(Mode::Report)
        );
        assert_eq!(sniff(b"<testsuites>", false), Some(Mode::Report));
        assert_eq!(sniff(b"<TestRun id=", false), Some(Mode::Report));
        assert_eq!(sniff(b"<assemblies>", false), Some(Mode::Report));
        assert_eq!(sniff(b"<test-run id=", false), Some(Mode::Report));
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

    #[track_caller]
    fn same_in_any_chunking(log: &[u8]) -> Fingerprint {
        let whole = super::super::fingerprint_bytes(log);
        for size in [1, 7, 100, MAX_LINE_BYTES - 1, MAX_LINE_BYTES + 1] {
            let mut f = Fingerprinter::new();
            for chunk in log.chunks(size) {
                f.feed(chunk);
            }
            assert_eq!(f.finish(), whole, "chunk size {size}");
        }
        whole
    }

    #[test]
    fn long_lines_are_cut_the_same_way_in_any_chunking() {
        let mut log = Vec::new();
        log.extend_from_slice(b"building\n");
        log.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES - 3]);
        log.extend_from_slice(b" error: cut\n");
        log.extend_from_slice(&vec![b'y'; MAX_LINE_BYTES * 3]);
        log.extend_from_slice(b"error: kept\n");
        log.extend_from_slice(b"error: last line without newline");
        let whole = same_in_any_chunking(&log);
        let messages: Vec<&str> = whole.failures.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(messages, ["error: last line without newline"], "{whole:?}");
    }

    #[test]
    fn a_narrowed_scan_cuts_long_lines_the_same_way_in_any_chunking() {
        // Inside cargo's run the scan looks for `F`, `;` and `#` only.
        let mut log = Vec::new();
        log.extend_from_slice(b"running 3 tests\n");
        log.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES - 3]);
        log.extend_from_slice(b" test cut ... FAILED\n");
        log.extend_from_slice(b"test kept ... FAILED\n");
        log.extend_from_slice(b"test last ... FAILED");
        let whole = same_in_any_chunking(&log);
        let ids: Vec<&str> = whole.failures.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["kept", "last"], "{whole:?}");
    }

    #[test]
    fn inside_a_passing_run_only_the_runners_lines_are_read() {
        // A passing test's captured chatter is not the run failing.
        let log = b"running 2 tests\ntest a ... ok\nerror: a test printed this\ntest b ... ok\n\n\
            test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let fp = same_in_any_chunking(log);
        assert_eq!(fp.signature, None, "{fp:?}");
        assert_eq!(fp.runner, Some(super::super::Runner::Cargo));
        // Outside a run the same line is the fallback's.
        let fp = super::super::fingerprint_bytes(b"error: a test printed this\n");
        assert_eq!(fp.failures.len(), 1);
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
