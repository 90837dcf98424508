//! Every text parser in one table, and which of them a line goes to.
//!
//! A parser is asked about a line only when the line holds one of *its* trigger substrings
//! ([`Triggers::owners_of`]), or while it is inside a block where every line matters
//! ([`LineParser::wants_every_line`]). A line of pytest's never reaches the RSpec parser:
//! adding a parser adds its triggers to the scan, not work to every other parser's lines.
//!
//! Inside a runner's own run the front end narrows the scan further ([`Scan`]): a parser
//! that knows its run's passing lines can name the few bytes that every line it still has
//! to see contains ([`LineParser::run_bytes`]), and the front end then looks for those
//! bytes alone ([`super::bytes`]: one SIMD pass) instead of every trigger of every runner.

use super::bytes::RunBytes;
use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{PARSERS, TRIGGER_LISTS, Table};
use aho_corasick::{AhoCorasick, MatchKind, packed};
use std::sync::LazyLock;

/// A set of parsers, one bit each in table order.
type Mask = u64;

const _: () = assert!(PARSERS <= Mask::BITS as usize);

/// The indexes of the parsers in `mask`, in table order.
fn bits(mut mask: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let i = mask.trailing_zeros() as usize;
        mask &= mask.checked_sub(1)?;
        Some(i)
    })
}

/// How the front end finds the next line that matters, given the parsers' state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// Some parser is inside a block: every line.
    EveryLine,
    /// Lines holding any parser's trigger.
    Triggers,
    /// One runner (the parser at this index) is inside its own run: lines holding one of
    /// its run bytes.
    Bytes(&'static RunBytes, usize),
}

impl Scan {
    /// Whether `line` (already cut to its kept length) is one this scan looks at.
    pub(crate) fn wants(self, line: &[u8]) -> bool {
        match self {
            Scan::EveryLine => true,
            Scan::Triggers => TRIGGERS.scan.find(line).is_some(),
            Scan::Bytes(bytes, _) => bytes.find(line).is_some(),
        }
    }
}

/// The trigger automata, built once.
pub(crate) struct Triggers {
    /// Finds the first trigger in a buffer: the fewest patterns (none containing another).
    pub(crate) scan: FirstTrigger,
    /// Every trigger of every parser, for the search of one line.
    every: Every,
}

/// Every trigger of every parser with the parsers it brings a line to, found in a line by
/// its first two bytes: one lookup in a table of two-byte pairs per byte of the line, and
/// a comparison only where a trigger may start (an overlapping Aho-Corasick search took
/// about 1.6 times as long on an Actions log's lines, and a 44 KB automaton).
struct Every {
    /// Bit `a << 8 | b` is set when some trigger starts with the bytes `a`, `b` (8 KiB).
    pairs: Box<[u64; PAIR_WORDS]>,
    /// Per word of `pairs`, the bits set in the words before it: with the bits before a
    /// pair's in its own word, the pair's rank among the pairs set.
    rank: Box<[u16; PAIR_WORDS]>,
    /// Per pair set, by rank, where its triggers start in `triggers` (and one more entry:
    /// the end).
    first: Vec<u16>,
    /// The triggers, sorted by their first two bytes, and whose they are.
    triggers: Vec<Trigger>,
}

/// Words of 64 bits in a table of every two-byte pair.
const PAIR_WORDS: usize = (1 << 16) / 64;

struct Trigger {
    bytes: &'static [u8],
    owners: Mask,
    /// The first four bytes (fewer for a shorter trigger, the rest zero), and the mask of
    /// those it has: most places a trigger's first two bytes stand are told apart by the
    /// next two (a rule's `= te` is no `= RU`, go's `= RUN`) without a call to compare.
    head: u32,
    head_mask: u32,
}

/// The first four bytes of `bytes`, fewer (and zeros) when it is shorter.
fn head(bytes: &[u8]) -> u32 {
    match bytes.first_chunk::<4>() {
        Some(four) => u32::from_le_bytes(*four),
        None => bytes
            .iter()
            .rev()
            .fold(0, |word, &b| word << 8 | u32::from(b)),
    }
}

impl Every {
    fn new(triggers: &[(&'static str, Mask)]) -> Every {
        let mut triggers: Vec<Trigger> = triggers
            .iter()
            .map(|&(p, owners)| Trigger {
                bytes: p.as_bytes(),
                owners,
                head: head(p.as_bytes()),
                head_mask: head(&[0xff; 4][..p.len().min(4)]),
            })
            .collect();
        assert!(
            triggers.iter().all(|t| t.bytes.len() >= 2),
            "a trigger has two bytes"
        );
        assert!(
            triggers.len() <= usize::from(u16::MAX),
            "trigger indexes fit in a u16"
        );
        triggers.sort_unstable_by_key(|t| Every::pair(t.bytes));
        let mut pairs = Box::new([0u64; PAIR_WORDS]);
        let mut first = Vec::new();
        for (i, t) in triggers.iter().enumerate() {
            let pair = Every::pair(t.bytes);
            if pairs[pair / 64] & (1 << (pair % 64)) == 0 {
                pairs[pair / 64] |= 1 << (pair % 64);
                first.push(i as u16);
            }
        }
        first.push(triggers.len() as u16);
        let mut rank = Box::new([0u16; PAIR_WORDS]);
        let mut before = 0u16;
        for (rank, word) in rank.iter_mut().zip(pairs.iter()) {
            *rank = before;
            before += word.count_ones() as u16;
        }
        Every {
            pairs,
            rank,
            first,
            triggers,
        }
    }

    fn pair(bytes: &[u8]) -> usize {
        usize::from(bytes[0]) << 8 | usize::from(bytes[1])
    }

    /// The parsers whose triggers `line` holds, in two passes per block of the line: the
    /// places where some trigger's first two bytes stand (a lookup per byte, no branch),
    /// then the triggers of each such place. Not inlined: inside the front end's handling
    /// of a line its loop ran out of registers and kept its state on the stack.
    #[inline(never)]
    fn owners_of(&self, line: &[u8]) -> Mask {
        let mut found = Found {
            mask: 0,
            last: usize::MAX,
            triggers: 0..0,
            missed: u64::MAX,
        };
        let mut places = [0u16; BLOCK];
        let mut from = 1;
        while from < line.len() {
            let to = line.len().min(from + BLOCK);
            let mut n = 0;
            for (i, pair) in (from..to).zip(line[from - 1..to].windows(2)) {
                let pair = usize::from(pair[0]) << 8 | usize::from(pair[1]);
                places[n % BLOCK] = i as u16;
                n += (self.pairs[pair / 64] >> (pair % 64) & 1) as usize;
            }
            for &i in &places[..n] {
                self.triggers_at(line, usize::from(i), &mut found);
            }
            from = to;
        }
        found.mask
    }

    /// Adds the owners of the triggers that start at `line[i - 1]`, where some trigger's
    /// first two bytes stand.
    fn triggers_at(&self, line: &[u8], i: usize, found: &mut Found) {
        let pair = usize::from(line[i - 1]) << 8 | usize::from(line[i]);
        // The first two bytes of `four` are the pair: the same four, the same misses.
        let four = head(&line[i - 1..]);
        if u64::from(four) == found.missed {
            return;
        }
        if pair != found.last {
            let word = self.pairs[pair / 64];
            let rank = usize::from(self.rank[pair / 64])
                + (word & ((1 << (pair % 64)) - 1)).count_ones() as usize;
            found.last = pair;
            found.triggers = usize::from(self.first[rank])..usize::from(self.first[rank + 1]);
        }
        found.missed = u64::from(four);
        for t in &self.triggers[found.triggers.clone()] {
            if four & t.head_mask == t.head {
                found.missed = u64::MAX;
                if line[i - 1..].starts_with(t.bytes) {
                    found.mask |= t.owners;
                }
            }
        }
    }
}

/// Bytes of a line whose trigger places are found before their triggers are compared.
const BLOCK: usize = 128;

/// What [`Every::owners_of`] found so far in a line.
struct Found {
    mask: Mask,
    /// The pair looked up last and its triggers, and the last four bytes no trigger's head
    /// matched (`u64::MAX`: none yet): a rule (`=====`, `-----`) repeats both at every byte.
    last: usize,
    triggers: std::ops::Range<usize>,
    missed: u64,
}

/// The search for the first trigger in a buffer (leftmost-first): Teddy, the SIMD search
/// of many short literals, where the CPU has it. Built without the pattern limit (64) that
/// an [`AhoCorasick`] puts on its Teddy prefilter: with 65 minimal triggers it fell back
/// to its DFA alone, a byte at a time (0.4 GB/s over passing test lines, where Teddy does
/// 0.5 to 0.8, and a 220 KB table). Elsewhere, the automaton.
pub(crate) enum FirstTrigger {
    Teddy(packed::Searcher),
    Automaton(AhoCorasick),
}

impl FirstTrigger {
    fn new(patterns: &[&str]) -> FirstTrigger {
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .heuristic_pattern_limits(false)
            .builder()
            .extend(patterns)
            .build();
        match teddy {
            Some(teddy) => FirstTrigger::Teddy(teddy),
            None => FirstTrigger::Automaton(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(patterns)
                    .expect("because the trigger list is small and valid"),
            ),
        }
    }

    /// Where the first trigger in `hay` starts and ends.
    pub(crate) fn find(&self, hay: &[u8]) -> Option<(usize, usize)> {
        let m = match self {
            FirstTrigger::Teddy(teddy) => teddy.find(hay),
            FirstTrigger::Automaton(ac) => ac.find(hay),
        };
        m.map(|m| (m.start(), m.end()))
    }
}

pub(crate) static TRIGGERS: LazyLock<Triggers> = LazyLock::new(|| {
    let every = every_trigger();
    let patterns: Vec<&str> = every.iter().map(|&(p, _)| p).collect();
    Triggers {
        scan: FirstTrigger::new(&minimal_triggers(&patterns)),
        every: Every::new(&every),
    }
});

/// Every trigger once, with the parsers it is a trigger of.
fn every_trigger() -> Vec<(&'static str, Mask)> {
    let mut every: Vec<(&'static str, Mask)> = Vec::new();
    for (i, list) in TRIGGER_LISTS.iter().enumerate() {
        for &p in *list {
            match every.iter_mut().find(|(q, _)| *q == p) {
                Some((_, owners)) => *owners |= 1 << i,
                None => every.push((p, 1 << i)),
            }
        }
    }
    every
}

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

impl Triggers {
    /// The parsers whose triggers `line` holds.
    fn owners_of(&self, line: &[u8]) -> Mask {
        self.every.owners_of(line)
    }
}

/// Every text parser, and which of them are inside a block or narrow the scan. A parser's
/// state changes only when a line goes to it, so after a line only the parsers it went to
/// are asked again.
#[derive(Default)]
pub(crate) struct Parsers {
    table: Table,
    /// The parsers inside a block ([`LineParser::wants_every_line`]).
    busy: Mask,
    /// The parsers inside a run they can narrow ([`LineParser::run_bytes`]).
    narrowing: Mask,
}

impl Parsers {
    /// Hands one line to the parsers it concerns: those whose triggers `raw` holds and
    /// those inside a block. A line the narrowed scan of a runner's run found goes to that
    /// runner first, and to the others only when it is not the runner's own.
    pub(crate) fn line(&mut self, raw: &[u8], line: &CleanLine, scan: Scan, out: &mut Collector) {
        let mut done: Mask = 0;
        if let Scan::Bytes(_, owner) = scan {
            done = 1 << owner;
            if self.table.get(owner).run_line(line, out) {
                return self.update(done);
            }
        }
        let mask = (self.busy | TRIGGERS.owners_of(&raw[line.stamp..])) & !done;
        for i in bits(mask) {
            self.table.get(i).line(line, out);
        }
        self.update(mask | done);
    }

    /// Asks the parsers a line went to (`asked`) whether they are inside a block or a run.
    fn update(&mut self, asked: Mask) {
        for i in bits(asked) {
            let parser = self.table.get_ref(i);
            let bit = 1 << i;
            self.busy = (self.busy & !bit) | if parser.wants_every_line() { bit } else { 0 };
            let narrows = parser.run_bytes().is_some();
            self.narrowing = (self.narrowing & !bit) | if narrows { bit } else { 0 };
        }
        debug_assert_eq!(
            (self.busy, self.narrowing),
            self.asking_every_parser(),
            "a parser's state changed without a line"
        );
    }

    /// `busy` and `narrowing` from every parser (debug builds check `update` with it).
    fn asking_every_parser(&self) -> (Mask, Mask) {
        let mask = |f: &dyn Fn(&dyn LineParser) -> bool| {
            (0..PARSERS)
                .filter(|&i| f(self.table.get_ref(i)))
                .fold(0, |m, i| m | 1 << i)
        };
        (
            mask(&|p| p.wants_every_line()),
            mask(&|p| p.run_bytes().is_some()),
        )
    }

    pub(crate) fn finish(&mut self, out: &mut Collector) {
        for i in 0..PARSERS {
            self.table.get(i).finish(out);
        }
    }

    /// The scan that finds every line the parsers need next: every line while one is in a
    /// block; the run's bytes while exactly one runner is inside a run it can narrow;
    /// otherwise the triggers.
    pub(crate) fn scan(&self) -> Scan {
        if self.busy != 0 {
            return Scan::EveryLine;
        }
        if self.narrowing.count_ones() != 1 {
            return Scan::Triggers;
        }
        let i = self.narrowing.trailing_zeros() as usize;
        match self.table.get_ref(i).run_bytes() {
            Some(bytes) => Scan::Bytes(bytes, i),
            None => unreachable!("a narrowing parser names its run bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_goes_to_the_parsers_whose_triggers_it_holds() {
        let bit = |triggers: &[&str]| {
            let i = TRIGGER_LISTS.iter().position(|l| *l == triggers);
            1 << i.expect("a parser of the table")
        };
        let cargo = bit(super::super::cargo::TRIGGERS);
        let go = bit(super::super::gotest::TRIGGERS);
        let owners = TRIGGERS.owners_of(b"--- FAIL: TestX (0.00s)");
        assert_ne!(owners & go, 0);
        assert_eq!(owners & cargo, 0, "FAIL is not cargo's: FAILED is");
        assert_eq!(TRIGGERS.owners_of(b"test a ... ok"), 0);
        // cargo's line between two test binaries is nobody's: it is not Playwright's header.
        assert_eq!(
            TRIGGERS.owners_of(b"     Running unittests src/lib.rs (target/debug/deps/a-0123)"),
            0
        );
    }

    /// What [`Every`] replaced, the overlapping Aho-Corasick search: the oracle.
    fn owners_by_automaton(line: &[u8]) -> Mask {
        static ORACLE: LazyLock<(Vec<(&str, Mask)>, AhoCorasick)> = LazyLock::new(|| {
            let every = every_trigger();
            let ac = AhoCorasick::new(every.iter().map(|&(p, _)| p)).expect("valid");
            (every, ac)
        });
        let (every, ac) = &*ORACLE;
        ac.find_overlapping_iter(line)
            .fold(0, |mask, m| mask | every[m.pattern().as_usize()].1)
    }

    #[test]
    fn no_trigger_starts_inside_an_actions_timestamp() {
        // The lines' owners are looked for after the stamp (`CleanLine::stamp`). A trigger
        // that started inside one would start with two of its bytes (or `Z `), or in a BOM.
        let stamp_byte = |b: u8| b.is_ascii_digit() || b"-T:.Z".contains(&b);
        for (t, _) in every_trigger() {
            let t = t.as_bytes();
            assert!(!(stamp_byte(t[0]) && stamp_byte(t[1])), "{t:?}");
            assert!(
                !t.starts_with(b"Z ") && !b"\xEF\xBB\xBF".contains(&t[0]),
                "{t:?}"
            );
        }
        let raw = b"\xEF\xBB\xBF2026-11-25T10:00:00.1234567Z  FAILED";
        let line = super::super::ghactions::clean_line(raw);
        assert_eq!(&raw[line.stamp..], b"  FAILED");
        let raw = b"2026-11-25T10:00:00Z Ran 3 tests";
        let line = super::super::ghactions::clean_line(raw);
        assert_eq!(&raw[line.stamp..], b" Ran 3 tests");
        // A Windows runner's line ends in `\r`: the stamp is counted from the front.
        let raw = b"2026-11-25T10:00:00.1234567Z Test #1: parse\r";
        let line = super::super::ghactions::clean_line(raw);
        assert_eq!(&raw[line.stamp..], b" Test #1: parse\r");
        assert_eq!(super::super::ghactions::clean_line(b"no stamp").stamp, 0);
        assert_eq!(super::super::ghactions::clean_line(b"no stamp\r").stamp, 0);
    }

    #[test]
    fn a_head_is_the_first_four_bytes_or_fewer() {
        assert_eq!(head(b"abcdef"), u32::from_le_bytes(*b"abcd"));
        assert_eq!(head(b"abc"), u32::from_le_bytes(*b"abc\0"));
        assert_eq!(head(b"a"), u32::from(b'a'));
        assert_eq!(head(b""), 0);
    }

    #[test]
    fn every_trigger_is_found_wherever_it_is() {
        let every = every_trigger();
        let mut lines: Vec<Vec<u8>> = vec![
            b"2026-11-25T10:00:00.0000000Z      Running unittests src/lib.rs (x)".to_vec(),
            b"test result: FAILED. 1 passed; 2 failed; 0 ignored".to_vec(),
            b"".to_vec(),
            b"e".to_vec(),
            // Rules repeat a pair at every byte, a trigger's start among them.
            b"============= test session starts =============".to_vec(),
            b"==== === ====".to_vec(),
            b"rrrrror errror".to_vec(),
        ];
        // Each trigger at the start, the end, inside, overlapping the next one, and cut.
        for (i, (p, _)) in every.iter().enumerate() {
            let next = every[(i + 1) % every.len()].0;
            let p = p.as_bytes();
            lines.push(p.to_vec());
            lines.push([b"x ", p].concat());
            lines.push([b"x ", p, b" y"].concat());
            lines.push([p, &next.as_bytes()[1..]].concat());
            lines.push([&p[..p.len() - 1], next.as_bytes()].concat());
            lines.push(p[1..].to_vec());
        }
        for line in &lines {
            assert_eq!(
                TRIGGERS.owners_of(line),
                owners_by_automaton(line),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn owners_are_the_automatons(
            parts in proptest::collection::vec(
                (0..every_trigger().len(), 0..4usize, proptest::collection::vec(proptest::num::u8::ANY, 0..4)),
                0..8,
            )
        ) {
            // Pieces of triggers (whole, or without their first or last bytes) and noise.
            let every = every_trigger();
            let mut line = Vec::new();
            for (i, cut, noise) in parts {
                let p = every[i].0.as_bytes();
                line.extend_from_slice(match cut {
                    0 | 1 => p,
                    2 => &p[1..],
                    _ => &p[..p.len() - 1],
                });
                line.extend_from_slice(&noise);
            }
            proptest::prop_assert_eq!(TRIGGERS.owners_of(&line), owners_by_automaton(&line));
        }
    }

    #[test]
    fn shorter_triggers_cover_longer_ones() {
        assert_eq!(
            minimal_triggers(&["FAILED", "FAIL", "pass"]),
            ["FAIL", "pass"]
        );
    }

    #[test]
    fn teddy_and_the_automaton_find_the_same_first_trigger() {
        let every: Vec<&str> = TRIGGER_LISTS
            .iter()
            .flat_map(|l| l.iter().copied())
            .collect();
        let minimal = minimal_triggers(&every);
        let teddy = FirstTrigger::new(&minimal);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            assert!(matches!(teddy, FirstTrigger::Teddy(_)));
        }
        let automaton = FirstTrigger::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(&minimal)
                .expect("valid"),
        );
        let mut hays: Vec<Vec<u8>> = vec![
            b"2026-11-25T10:00:00.0007919Z test module_1::case_0001 ... ok".to_vec(),
            b"".to_vec(),
            b"Ra".to_vec(),
        ];
        // Each trigger alone, at every offset of a short noise prefix, and two at once.
        for (i, p) in every.iter().enumerate() {
            for pad in 0..40 {
                let mut hay = b"x=1 y:2 ".repeat(5)[..pad].to_vec();
                hay.extend_from_slice(p.as_bytes());
                hays.push(hay.clone());
                hay.extend_from_slice(every[(i * 7 + pad) % every.len()].as_bytes());
                hays.push(hay);
            }
        }
        for hay in &hays {
            assert_eq!(
                teddy.find(hay),
                automaton.find(hay),
                "{:?}",
                String::from_utf8_lossy(hay)
            );
        }
    }

    #[test]
    fn bytes_scans_want_lines_with_any_of_their_bytes() {
        const HASH: RunBytes = RunBytes::new(b"#");
        const PYTEST: RunBytes = RunBytes::new(b"FR=#");
        assert!(Scan::Bytes(&HASH, 0).wants(b"##[group]"));
        assert!(!Scan::Bytes(&HASH, 0).wants(b"test a ... ok"));
        assert!(Scan::Bytes(&PYTEST, 0).wants(b"x ERROR"));
    }
}
