//! Paths and positions: temp directories of every OS and tool, the CI workspace, the
//! machine-specific head of absolute paths, `file:line:col`.

use super::guarded::guarded;
use regex::Captures;

// Temp directories first: the GitHub runner's temp lives under its work directory. A root
// counts only where a path starts (not inside `src/tmp/`); Windows separators may be
// doubled, as Python's repr shows them.
guarded!(
    TEMP_PATH,
    // One in every root: `/tmp` also in `/var/tmp`, `_temp` the runner's, `Temp` Windows',
    // `TEMP` and `TMP` in the variables.
    [
        "/tmp",
        "/dev/shm",
        "/var/folders/",
        "_temp",
        "Temp",
        "TEMP",
        "TMP"
    ],
    r#"(?x)
    (?P<lead>^|[^0-9A-Za-z_.~/\\$%-])
    (?:file://)?
    (?:
        (?:/private)?/(?:tmp|var/tmp|dev/shm|var/folders/[^/\x20]+/[^/\x20]+/T)
      | /(?:home|Users)/runner/work/_temp
      | [A-Za-z]:(?:\\{1,2}|/)
        (?:
            Users(?:\\{1,2}|/)[^\\/\x20'"]+(?:\\{1,2}|/)AppData(?:\\{1,2}|/)Local(?:\\{1,2}|/)Temp
          | Windows(?:\\{1,2}|/)Temp
          | a(?:\\{1,2}|/)_temp
        )
      | /[a-z]/Users/[^/\x20'"]+/AppData/Local/Temp
      | %(?:TEMP|TMP)%
      | \$\{?(?:TMPDIR|TEMP|TMP|RUNNER_TEMP)\}?
      | \$env:(?:TEMP|TMP)
    )
    (?P<rest>(?:[\\/][^\x20'"`,;:()\[\]{}<>|]*)?)
    "#
);
guarded!(
    WORKSPACE,
    // Each root, the drive's `:` and `a` with a separator of either kind between them.
    [
        "/home/runner/work",
        "/Users/runner/work",
        "/__w",
        r":\a",
        r":\\a",
        ":/a",
        "/github/workspace/"
    ],
    r"(?:/home/runner/work|/Users/runner/work|/__w|[A-Za-z]:(?:\\{1,2}|/)a)(?:\\{1,2}|/)[^\\/ ]+(?:\\{1,2}|/)[^\\/ ]+(?:\\{1,2}|/)|/github/workspace/"
);
guarded!(
    ABSOLUTE_PATH,
    // What starts a path.
    ["/"],
    r#"(^|[ '"`(\[=])/(?:[0-9A-Za-z_.@+~-]+/)+([0-9A-Za-z_.@+~-]+/[0-9A-Za-z_.@+~-]+)"#
);
guarded!(
    POSITION,
    // `:line` or `(line,`.
    [":#", "(#"],
    r"(\.[A-Za-z][A-Za-z0-9]{0,9})(?::[0-9]+){1,2}(?-u:\b)|(\.[A-Za-z][A-Za-z0-9]{0,9})\([0-9]+,[0-9]+\)"
);
guarded!(DOCTEST_LINE, ["(line #"], r"\(line [0-9]+\)");

pub(super) fn normalize_paths(s: &str) -> String {
    let s = TEMP_PATH.replace_all(s, |c: &Captures| {
        let whole = c.get(0).expect("because group 0 is the match");
        // `/tmpfiles` or `%TEMP%x`: the root is only the start of a longer name.
        let glued = c["rest"].is_empty()
            && s[whole.end()..]
                .chars()
                .next()
                .is_some_and(|ch| ch.is_alphanumeric() || matches!(ch, '_' | '-' | '.'));
        if glued {
            whole.as_str().to_string()
        } else {
            format!("{}{}", &c["lead"], temp_path(&c["rest"]))
        }
    });
    let s = WORKSPACE.replace_all(&s, "");
    let s = ABSOLUTE_PATH.replace_all(&s, "$1$2");
    let s = POSITION.replace_all(&s, |c: &Captures| {
        c.get(1).or(c.get(2)).map_or("", |m| m.as_str()).to_string()
    });
    s.into_owned()
}

/// A path under a temp directory, given what follows the temp root. Kept: the file and its
/// directory (`test/parse.test.js`, as a checkout-relative path would show them), unless
/// that directory is a made-up one (right under the temp root, as mkdtemp makes them, or
/// random-looking), then `<tmp>/file`; a file whose name is made up is `<tmp>` alone, and
/// long digit runs in a kept name (`words-3452603759.txt`) become `<n>`.
fn temp_path(rest: &str) -> String {
    let parts: Vec<&str> = rest.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some((&file, dirs)) = parts.split_last() else {
        return "<tmp>".to_string();
    };
    if is_random_name(file) {
        return "<tmp>".to_string();
    }
    let file = DIGIT_RUN_IN_NAME.replace_all(file, "<n>");
    match dirs {
        [.., dir] if dirs.len() > 1 && !is_made_up_dir(dir) => format!("{dir}/{file}"),
        _ => format!("<tmp>/{file}"),
    }
}

guarded!(DIGIT_RUN_IN_NAME, ["########"], r"[0-9]{8,}");
// tempfile's `.tmpAbC123`, mktemp's `tmp.AbCdEf1234`, Python's `tmpk3j_9x2a` (each with an
// optional suffix), pytest's `pytest-of-USER`, `pytest-12`, `popen-gw3`.
guarded!(
    TOOL_TEMP_NAME,
    // The start of every name.
    ["tmp", "pytest-", "popen-gw"],
    r"^(?:\.tmp[A-Za-z0-9]{6}|tmp\.[A-Za-z0-9]{10}|tmp[a-z0-9_]{8})(?:\..*)?$|^(?:pytest-of-.+|pytest-[0-9]+|popen-gw[0-9]+)$"
);

/// Directory names made up for one run: random names, and names with a digit run of 8 or
/// more (Go's `TestReadWords1234567`, `MkdirTemp`'s `wc-2326591137`, Java's
/// `wc8051597438817151410`).
fn is_made_up_dir(name: &str) -> bool {
    is_random_name(name) || DIGIT_RUN_IN_NAME.is_match(name)
}

/// Names that are random as a whole: the temp tools' own (see `TOOL_TEMP_NAME`), all digits
/// (Go's `001` under `t.TempDir()`), and names ending in a random-looking run like mkdtemp's
/// `wc-D3HGmW`. A file name with a random part in it (`words-3452603759.txt`) is not: its
/// digits go, its words stay.
fn is_random_name(name: &str) -> bool {
    if TOOL_TEMP_NAME.is_match(name) || name.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let tail = name.rsplit(['-', '_', '.']).next().unwrap_or(name);
    let upper = tail.bytes().any(|b| b.is_ascii_uppercase());
    let lower = tail.bytes().any(|b| b.is_ascii_lowercase());
    let digits = tail.bytes().filter(u8::is_ascii_digit).count();
    tail.len() >= 6 && ((upper && lower) || (digits >= 2 && digits < tail.len()))
}
