//! [`Guarded`] patterns: a regex behind the texts each of its matches contains, and the
//! [`guarded!`] macro that declares one.

use regex::{Regex, Replacer};
use std::borrow::Cow;
use std::sync::LazyLock;

// Patterns use ASCII classes (`[0-9]`, `[0-9A-Za-z_]`, `(?-u:\b)`): with Unicode `\d`, `\w`
// and `\b` their automata took about 3 MiB more of the peak memory of every run that finds a
// failure, for numbers and names that are ASCII anyway. Whitespace is spelled ` `: every
// pattern runs on what `single_line` made (and replacements keep), where the only whitespace
// (Unicode's `\s`) left is the space; a Unicode `\s` took `ABSOLUTE_PATH` 0.17 ms longer to
// compile.

/// A pattern, and what every one of its matches contains: one of `needs`. A text with none
/// of them is left alone without the regex, which is then not even compiled: compiling the
/// normalisation's patterns was most of the time of a `fingerprint` that found a failure in a
/// small log (about 4 ms of 8), and a message needs few of them.
///
/// A need is a short text in which `#` stands for any ASCII digit and `%` for any ASCII hex
/// digit (no need has a literal `#` or `%`); with `any_case`, letters match in either ASCII
/// case. Each must be a necessary condition (a match without it is a bug: the pattern would
/// no longer apply); the tests check it on texts generated from the patterns.
pub(super) struct Guarded {
    pub(super) needs: &'static [&'static str],
    pub(super) any_case: bool,
    pub(super) re: LazyLock<Regex>,
}

impl Guarded {
    /// Whether `text` has one of the needs, that is, may have a match.
    pub(super) fn admits(&self, text: &str) -> bool {
        self.needs
            .iter()
            .any(|need| occurs(need, text, self.any_case))
    }

    pub(super) fn is_match(&self, text: &str) -> bool {
        self.admits(text) && self.re.is_match(text)
    }

    pub(super) fn replace<'h>(&self, text: &'h str, rep: impl Replacer) -> Cow<'h, str> {
        if self.admits(text) {
            self.re.replace(text, rep)
        } else {
            Cow::Borrowed(text)
        }
    }

    pub(super) fn replace_all<'h>(&self, text: &'h str, rep: impl Replacer) -> Cow<'h, str> {
        if self.admits(text) {
            self.re.replace_all(text, rep)
        } else {
            Cow::Borrowed(text)
        }
    }
}

/// Whether `need` (see [`Guarded`]) occurs in `text`. Candidates are found with `memchr`
/// on the need's first literal byte; a need of one wildcard only is a run of its class.
fn occurs(need: &str, text: &str, any_case: bool) -> bool {
    let (need, text) = (need.as_bytes(), text.as_bytes());
    let fits = |n: u8, t: u8| match n {
        b'#' => t.is_ascii_digit(),
        b'%' => t.is_ascii_hexdigit(),
        _ => n == t || any_case && n.eq_ignore_ascii_case(&t),
    };
    let at = |start: usize| {
        text.get(start..start + need.len())
            .is_some_and(|w| w.iter().zip(need).all(|(&t, &n)| fits(n, t)))
    };
    match need.iter().position(|&b| b != b'#' && b != b'%') {
        Some(k) if any_case && need[k].is_ascii_alphabetic() => {
            let (lower, upper) = (need[k].to_ascii_lowercase(), need[k].to_ascii_uppercase());
            memchr::memchr2_iter(lower, upper, text).any(|i| i >= k && at(i - k))
        }
        Some(k) => memchr::memchr_iter(need[k], text).any(|i| i >= k && at(i - k)),
        None if need.iter().all(|&n| n == need[0]) => {
            let mut run = 0;
            text.iter().any(|&t| {
                run = if fits(need[0], t) { run + 1 } else { 0 };
                run >= need.len()
            })
        }
        None => (0..text.len()).any(at),
    }
}

/// `guarded!(NAME, [needs..], pattern)`, or `guarded!(NAME, any_case [needs..], pattern)`.
macro_rules! guarded {
    ($name:ident, [$($need:expr),+ $(,)?], $re:expr) => {
        guarded!(@ $name, false, [$($need),+], $re);
    };
    ($name:ident, any_case [$($need:expr),+ $(,)?], $re:expr) => {
        guarded!(@ $name, true, [$($need),+], $re);
    };
    (@ $name:ident, $any_case:expr, [$($need:expr),+], $re:expr) => {
        pub(super) static $name: $crate::fingerprint::normalize::guarded::Guarded =
            $crate::fingerprint::normalize::guarded::Guarded {
                needs: &[$($need),+],
                any_case: $any_case,
                re: ::std::sync::LazyLock::new(|| {
                    ::regex::Regex::new($re).expect("because the pattern is a valid regex")
                }),
            };
    };
}
pub(super) use guarded;

#[cfg(test)]
mod tests {
    use super::super::paths::*;
    use super::super::single_line;
    use super::super::values::*;
    use super::*;
    use proptest::strategy::Strategy;

    fn all_guarded() -> [(&'static str, &'static Guarded); 20] {
        [
            ("UUID", &UUID),
            ("COUNTEREXAMPLE", &COUNTEREXAMPLE),
            ("SEED", &SEED),
            ("REPLAY_PATH", &REPLAY_PATH),
            ("REPRODUCE_BLOB", &REPRODUCE_BLOB),
            ("CALENDAR_DATE", &CALENDAR_DATE),
            ("TIMESTAMP", &TIMESTAMP),
            ("TEMP_PATH", &TEMP_PATH),
            ("WORKSPACE", &WORKSPACE),
            ("ABSOLUTE_PATH", &ABSOLUTE_PATH),
            ("POSITION", &POSITION),
            ("DOCTEST_LINE", &DOCTEST_LINE),
            ("HEX_ADDRESS", &HEX_ADDRESS),
            ("JAVA_IDENTITY", &JAVA_IDENTITY),
            ("HEX_WORD", &HEX_WORD),
            ("DURATION", &DURATION),
            ("DIGIT_RUN", &DIGIT_RUN),
            ("NUMBER_WORD", &NUMBER_WORD),
            ("DIGIT_RUN_IN_NAME", &DIGIT_RUN_IN_NAME),
            ("TOOL_TEMP_NAME", &TOOL_TEMP_NAME),
        ]
    }

    /// A pattern without its assertions (`(?-u:\b)`, and `^` and `$` outside classes), for
    /// proptest's generator, which has none: what it generates is what the pattern matches
    /// where the assertions hold.
    fn without_assertions(pattern: &str) -> String {
        let (pattern, mut in_class) = (pattern.replace(r"(?-u:\b)", ""), false);
        let (mut out, mut it) = (String::new(), pattern.chars().peekable());
        while let Some(c) = it.next() {
            match c {
                '\\' => {
                    out.push(c);
                    out.extend(it.next());
                }
                '[' if !in_class => {
                    in_class = true;
                    out.push(c);
                    // A `]` right after `[` or `[^` is a member.
                    if it.peek() == Some(&'^') {
                        out.extend(it.next());
                    }
                    if it.peek() == Some(&']') {
                        out.extend(it.next());
                    }
                }
                ']' if in_class => {
                    in_class = false;
                    out.push(c);
                }
                '^' | '$' if !in_class => {}
                _ => out.push(c),
            }
        }
        out
    }

    /// Texts made to match `pattern`: a text it matches, between a little random text.
    fn near(pattern: &str) -> impl Strategy<Value = String> {
        let inner = proptest::string::string_regex(&without_assertions(pattern))
            .expect("because it generates");
        (
            generated(r"[ -~µſ\u{a0}]{0,3}"),
            inner,
            generated(r"[ -~µſ\u{a0}]{0,3}"),
        )
            .prop_map(|(a, b, c)| format!("{a}{b}{c}"))
    }

    fn generated(pattern: &str) -> proptest::string::RegexGeneratorStrategy<String> {
        proptest::string::string_regex(pattern).expect("because it is valid")
    }

    /// Texts from pieces of every pattern: needs (their wildcards filled in), digits,
    /// punctuation, words.
    fn pieces() -> impl Strategy<Value = String> {
        use proptest::prop_oneof;
        let mut needs: Vec<&'static str> = all_guarded()
            .iter()
            .flat_map(|(_, g)| g.needs.iter().copied())
            .collect();
        needs.extend([
            "seed", "SEED", "Seed", "ſ", "µ", "0x", "T", "P", "H", "M", "S",
        ]);
        let need = proptest::sample::select(needs).prop_flat_map(|need| {
            let filled: Vec<_> = need
                .chars()
                .map(|c| match c {
                    '#' => "[0-9]".to_string(),
                    '%' => "[0-9a-fA-F]".to_string(),
                    c => regex::escape(&c.to_string()),
                })
                .collect();
            proptest::string::string_regex(&filled.concat()).expect("because it is valid")
        });
        let other = proptest::string::string_regex(r"[0-9]{1,14}|[ -~]{1,3}|[a-z]{1,6}|\.[0-9]+")
            .expect("because it is valid");
        proptest::collection::vec(prop_oneof![need, other], 1..10).prop_map(|v| v.concat())
    }

    fn texts<S: Strategy<Value = String>>(strategy: S, n: usize) -> Vec<String> {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        (0..n)
            .map(|_| {
                strategy
                    .new_tree(&mut runner)
                    .expect("because it generates")
                    .current()
            })
            .collect()
    }

    #[test]
    fn needs_are_wildcards_and_text() {
        for (name, g) in all_guarded() {
            for need in g.needs {
                assert!(!need.is_empty(), "{name}");
                assert!(
                    g.admits(&need.replace('#', "1").replace('%', "a")),
                    "{name} {need}"
                );
                assert!(
                    !occurs(need, &need[..need.len() - 1], g.any_case),
                    "{name} {need}"
                );
            }
        }
        assert!(occurs("#:##:##", "at 6:41:02", false));
        assert!(!occurs("#:##:##", "at 6:41:0x", false));
        assert!(occurs("%%%%%%%%-", "b06b9fdf-fd42", false));
        assert!(occurs("seed", "a SeEd", true));
        assert!(!occurs("seed", "a SeEd", false));
        assert!(occurs("##########", "1234567890", false));
        assert!(!occurs("##########", "123456789 0", false));
    }

    /// Every guard is a necessary condition: no text that a pattern matches lacks its needs.
    #[test]
    fn guards_never_hide_a_match() {
        let shared = texts(pieces(), 5_000);
        for (name, g) in all_guarded() {
            let made = texts(near(g.re.as_str()), 1_000);
            let matched = made.iter().filter(|t| g.re.is_match(t)).count();
            assert!(
                matched >= 100,
                "{name}: only {matched} of the texts made to match do"
            );
            for text in made.iter().chain(&shared) {
                assert!(
                    !g.re.is_match(text) || g.admits(text),
                    "{name} matches {text:?}, which its guard turns away"
                );
            }
        }
    }

    /// The respelled patterns match as the old spellings did: `seed`'s everywhere, the
    /// others on what `single_line` leaves (where the only whitespace is the space).
    #[test]
    fn respelled_patterns_match_as_before() {
        let before = [
            (
                &SEED,
                r"(?i)(seed[ \t]*[:=(]?[ \t]*)-?(?:0x[0-9a-f]+|[0-9]+)(?-u:\b)",
                false,
            ),
            (
                &ABSOLUTE_PATH,
                r#"(^|[\s'"`(\[=])/(?:[0-9A-Za-z_.@+~-]+/)+([0-9A-Za-z_.@+~-]+/[0-9A-Za-z_.@+~-]+)"#,
                true,
            ),
            (
                &WORKSPACE,
                r"(?:/home/runner/work|/Users/runner/work|/__w|[A-Za-z]:(?:\\{1,2}|/)a)(?:\\{1,2}|/)[^\\/\s]+(?:\\{1,2}|/)[^\\/\s]+(?:\\{1,2}|/)|/github/workspace/",
                true,
            ),
            (
                &TEMP_PATH,
                &TEMP_PATH
                    .re
                    .as_str()
                    .replace(r"[^/\x20]", r"[^/\s]")
                    .replace(r"[^\\/\x20'", r"[^\\/\s'")
                    .replace(r"[^/\x20'", r"[^/\s'")
                    .replace(r"[^\x20'", r"[^\s'"),
                true,
            ),
        ];
        let spaces = r"[ \t\r\n\u{a0}\u{2028}\u{3000}\u{7}sSſeEdD0-9:=(x/a-]{0,4}";
        for (g, old, one_line) in before {
            assert!(!old.contains(r"\x20") || !old.contains(r"\s"), "{old}");
            let old_re = Regex::new(old).expect("because it is valid");
            let made = texts(
                (generated(spaces), near(old), generated(spaces), near(old))
                    .prop_map(|(a, b, c, d)| format!("{a}{b}{c}{d}")),
                1_000,
            );
            for text in &made {
                let text = if one_line {
                    single_line(text)
                } else {
                    Cow::Borrowed(&text[..])
                };
                let spans = |re: &Regex| -> Vec<Vec<Option<(usize, usize)>>> {
                    re.captures_iter(&text)
                        .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
                        .collect()
                };
                assert_eq!(spans(&old_re), spans(&g.re), "{old} on {text:?}");
            }
        }
    }

    /// `(?i)`'s `s`, `e`, `d`, `x` and `[a-f]`, all of them, as `SEED` spells them.
    #[test]
    fn seed_spells_unicode_case_folding() {
        for (folded, spelled) in [
            ("(?i)^s$", "^(?:[sS]|ſ)$"),
            ("(?i)^e$", "^[eE]$"),
            ("(?i)^d$", "^[dD]$"),
            ("(?i)^x$", "^[xX]$"),
            ("(?i)^[0-9a-f]$", "^[0-9a-fA-F]$"),
        ] {
            let (folded, spelled) = (Regex::new(folded).unwrap(), Regex::new(spelled).unwrap());
            for c in (0..=0x10_ffff).filter_map(char::from_u32) {
                let c = c.to_string();
                assert_eq!(folded.is_match(&c), spelled.is_match(&c), "{c:?}");
            }
        }
    }
}
