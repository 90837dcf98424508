//! TypeScript `tsc` errors, plain (`file(line,col): error TS2322: ...`) and `--pretty`
//! (`file:line:col - error TS2322: ...`). Both give the same failure: a build failure of
//! the file. `tsc` is not a test runner, so these are reported as runner `generic`.

use super::collect::{Collector, LineParser};
use super::ghactions::CleanLine;
use super::{FailureKind, Runner};
use regex::Regex;
use std::sync::LazyLock;

// `error` alone: `--pretty` colours `error` and ` TS2322` separately.
pub(crate) const TRIGGERS: &[&str] = &["error"];

static PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?)\(\d+,\d+\): error (TS\d+: .*)$").expect("because it is valid")
});
static PRETTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?):\d+:\d+ - error (TS\d+: .*)$").expect("because it is valid")
});

#[derive(Debug, Default)]
pub(crate) struct TscParser;

impl LineParser for TscParser {
    fn line(&mut self, line: &CleanLine, out: &mut Collector) {
        let text = line.text.trim_end();
        if !text.contains("error TS") {
            return;
        }
        if let Some(c) = PLAIN.captures(text).or_else(|| PRETTY.captures(text)) {
            let message = format!("error {}", &c[2]);
            out.fail(Runner::Generic, FailureKind::Build, &c[1], Some(&message));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fingerprint::{FailureKind, fingerprint_bytes};

    #[test]
    fn plain_and_pretty_agree() {
        let plain = fingerprint_bytes(b"src/main.ts(3,7): error TS2322: Type 'string | null' is not assignable to type 'number'.\n");
        let pretty = fingerprint_bytes(b"src/main.ts:9:7 - error TS2322: Type 'string | null' is not assignable to type 'number'.\n\n9 const total: number = firstWord('x');\n");
        assert_eq!(plain.signature, pretty.signature);
        assert_eq!(plain.failures[0].kind, FailureKind::Build);
        assert_eq!(plain.failures[0].id, "src/main.ts");
        assert_eq!(
            plain.failures[0].message,
            "error TS2322: Type 'string | null' is not assignable to type 'number'."
        );
    }
}
