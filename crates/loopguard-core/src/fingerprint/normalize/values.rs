//! Values: UUIDs, property-test seeds and counterexamples, dates and times, addresses,
//! hashes, durations, numbers.

use super::guarded::guarded;

// Eight hex digits and a dash start every UUID.
guarded!(
    UUID,
    ["%%%%%%%%-"],
    r"(?-u:\b)[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?-u:\b)"
);
// The counterexample a property-testing tool found: it depends on the random seed (and the
// shrinker's luck), so everything after the tool's marker goes. Hypothesis' example keeps
// the test's name; its arguments follow on the next lines.
guarded!(
    COUNTEREXAMPLE,
    [
        "minimal failing input:",
        "Counterexample:",
        "failed on input",
        "[quickcheck] TEST FAILED",
        "Falsifying example:",
        "Failing test case:",
        "Falsifying explicit example:",
    ],
    r"(?:(?P<marker>minimal failing input:|Counterexample:|failed on input|\[quickcheck\] TEST FAILED(?: \([^)]*\))?\. Arguments:)|(?P<example>Falsifying example:|Failing test case:|Falsifying explicit example:) ?(?P<test>[0-9A-Za-z_.]*)\()(?s:.*)$"
);
// `seed: -123`, `seed=42`, `(seed 42)`, `@seed(42)`, `--hypothesis-seed=42`,
// `QUICKCHECK_SEED=42`: the sign goes too, fast-check's seeds are signed. In any case,
// spelled out: the classes are what Unicode's `(?i)` makes of `seed`, `0x` and `[0-9a-f]`,
// where the long s `ſ` is an `s` too. Written as an alternative, `ſ` keeps the classes
// ASCII: `(?i)`'s tables and a non-ASCII class each cost about 0.2 ms of compiling.
guarded!(
    SEED,
    any_case["seed", "ſeed"],
    r"((?:[sS]|ſ)[eE][eE][dD][ \t]*[:=(]?[ \t]*)-?(?:0[xX][0-9a-fA-F]+|[0-9]+)(?-u:\b)"
);
// fast-check's replay path (`path: "6:2:0:1:8"`) grows with the shrink steps.
guarded!(REPLAY_PATH, ["path:"], r#"(?-u:\b)path: ?"[0-9:]*""#);
// Hypothesis' `@reproduce_failure('6.170.17', b'AXicY2BkAAAABgAC')`: the blob encodes the
// example.
guarded!(
    REPRODUCE_BLOB,
    ["@reproduce_failure("],
    r#"@reproduce_failure\([^)]*\)"#
);
// (In `(?x)` patterns a space is `\x20`: whitespace is ignored even inside classes.)
// Dates with month names: HTTP / RFC 2822 (`Sun, 07 May 2028 06:51:57 GMT`), syslog
// (`Nov 26 06:41:02`), C's ctime and Java's `Date` (`Thu Nov 26 06:41:02 UTC 2026`),
// JavaScript's `Date.toString` (`Thu Nov 26 2026 06:41:02 GMT+0000 (Coordinated Universal
// Time)`), and a month-name date with a year (`Nov 26, 2026`). A month word alone is a word:
// it counts as a date only next to a day and a time or a year.
guarded!(
    CALENDAR_DATE,
    // Each form has a month.
    [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
    ],
    r"(?x)
    (?-u:\b)(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\x20+)?
    (?:
        [0-9]{1,2}\x20+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\x20+[0-9]{4}
            (?:\x20+[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?)?
      | (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\x20+[0-9]{1,2}
            (?:
                (?:,?\x20+[0-9]{4})?\x20+[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?
              | ,?\x20+[0-9]{4}
            )
    )
    (?:\x20+(?:GMT|UTC|Z|[A-Z][SD]T|CES?T)(?:[+-][0-9]{2}:?[0-9]{2})?(?-u:\b))?
    (?:\x20+[0-9]{4}(?-u:\b))?
    (?:\x20+\([A-Z][A-Za-z\x20]+\))?
    "
);
// ISO 8601 / RFC 3339 and their relatives: `2026-11-26T06:41:02.123Z`, Python logging's
// `2026-11-26 06:41:02,123`, Go's log `2026/11/26 06:41:02` and `time.Time` strings
// (`... +0000 UTC m=+0.0012`), basic `20261126T064102Z`; and a bare time of day.
guarded!(
    TIMESTAMP,
    // A date's year and month, a basic date's `T`, or a time's minutes and seconds.
    ["####-##", "####/##", "########T", "#:##:##"],
    r"(?x)
    (?-u:\b)[0-9]{4}[-/][0-9]{2}[-/][0-9]{2}
        (?:[T\x20][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?
            (?:\x20?(?:Z|[+-][0-9]{2}:?[0-9]{2})(?-u:\b))?
            (?:\x20(?:UTC|GMT|[A-Z][SD]T|CES?T)(?-u:\b))?
            (?:\x20m=[+-][0-9]+\.[0-9]+)?
        )?(?-u:\b)
    | (?-u:\b)[0-9]{8}T[0-9]{6}(?:\.[0-9]+)?Z?(?-u:\b)
    | (?-u:\b)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?-u:\b)
    "
);
guarded!(HEX_ADDRESS, ["0x%"], r"(?-u:\b)0x[0-9a-fA-F]+(?-u:\b)");
// Java's default `toString`: class name, `@`, identity hash (`java.lang.Object@1b6d3586`,
// `[I@6d06d69c`).
guarded!(
    JAVA_IDENTITY,
    ["@%%%%"],
    r"((?-u:\b)[A-Za-z_$][0-9A-Za-z_$]*|\[+[A-Z][0-9A-Za-z_.$]*;?)@([0-9a-f]{4,8})(?-u:\b)"
);
guarded!(HEX_WORD, ["%%%%%%%%"], r"(?-u:\b)[0-9a-fA-F]{8,}(?-u:\b)");
// A digit and its unit, or ISO 8601's `T` and a digit (a digit follows the `T` in both of its
// forms).
guarded!(
    DURATION,
    ["#ns", "#µs", "#us", "#m", "#s", "# s", "# m", "T#"],
    r"(?-u:\b)(?:[0-9]+h)?(?:[0-9]+m)?[0-9]+(?:\.[0-9]+)?(?:ns|µs|us|ms|s)(?-u:\b)|(?-u:\b)[0-9]+(?:\.[0-9]+)? ?(?:sec|secs|seconds?|minutes?|mins?)(?-u:\b)|(?-u:\b)P(?:[0-9]+D)?T(?:[0-9]+H)?(?:[0-9]+M)?[0-9]+(?:\.[0-9]+)?S(?-u:\b)|(?-u:\b)P(?:[0-9]+D)?T(?:(?:[0-9]+H)?[0-9]+M|[0-9]+H)(?-u:\b)"
);
// Unix epoch seconds (10 digits) and milliseconds (13) from 2017 to 2033, also where they
// are glued into a name (`upload_1764108000123.tmp`), where the number rule below does not
// reach.
guarded!(DIGIT_RUN, ["##########"], r"[0-9]{10,}");
// Words with a digit in them; only those that are numbers (`4`, `4.25`, `127.0.0.1`) are
// values. `v1.2.3`, `E0308`, `x86_64` and `test_port_8080_config` are names.
guarded!(NUMBER_WORD, ["#"], r"[0-9A-Za-z_.]*[0-9][0-9A-Za-z_.]*");
/// Long hex runs with a digit are hashes (build hashes, commits); all-digit runs are left
/// to the number rule; long all-letter runs are hashes that happen to have no digit.
pub(super) fn hash_or_word(word: &str) -> String {
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    if digits == word.len() || (digits == 0 && word.len() < 12) {
        word.to_string()
    } else {
        "<hash>".to_string()
    }
}

/// A word made of digits and dots (a value, a version without its `v`, an IPv4 address, a
/// float with an exponent) is
/// `<n>`, with the dots around it kept (`got 4.` ends a sentence); a word with another letter
/// or an underscore is a name and stays.
pub(super) fn number_or_name(word: &str) -> String {
    let core = word.trim_matches('.');
    let numeric = |part: &str| part.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    // `4.25e10`: a value in scientific notation.
    let is_number = match core.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => {
            !mantissa.is_empty()
                && numeric(mantissa)
                && !exponent.is_empty()
                && exponent.bytes().all(|b| b.is_ascii_digit())
        }
        None => numeric(core),
    };
    if is_number {
        let lead = &word[..word.len() - word.trim_start_matches('.').len()];
        let trail = &word[word.trim_end_matches('.').len()..];
        format!("{lead}<n>{trail}")
    } else {
        word.to_string()
    }
}

/// A digit run that reads as Unix time (seconds or milliseconds, 2017..2033) is `<n>`;
/// other runs are left to the number rule.
pub(super) fn epoch_or_digits(run: &str) -> String {
    let epoch_like = matches!(run.len(), 10 | 13)
        && run.starts_with('1')
        && (b'5'..=b'9').contains(&run.as_bytes()[1]);
    if epoch_like {
        "<n>".to_string()
    } else {
        run.to_string()
    }
}
