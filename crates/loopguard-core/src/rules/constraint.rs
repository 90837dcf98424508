//! `constraint`: an attempt touched a protected path, added a test skip or deleted a test
//! file. Trips at the first, with `aborted_constraint`.

use super::{Count, Counter, Window};

pub fn count(w: &Window<'_>) -> Count {
    let violating: Vec<_> = w
        .since
        .iter()
        .filter(|f| !f.violations.is_empty())
        .collect();
    Count::new(Counter::at_least(violating.len() as u64, 1), || {
        let f = violating[violating.len() - 1];
        format!("{} {}", w.label(f.index), f.violations.join("; "))
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::Constraint;
    use crate::testing::History;

    #[test]
    fn trips_at_once_on_each_kind_of_violation() {
        let cases: &[(History, &str)] = &[
            (
                History::new()
                    .fresh()
                    .fresh()
                    .files(&["src/a.rs", ".loopguard.yml"]),
                "touched the protected path .loopguard.yml",
            ),
            (
                History::new().fresh().skip("src/lib.rs", "#[ignore]"),
                "added a test skip in src/lib.rs: #[ignore]",
            ),
            (
                History::new().fresh().deleted("tests/parser.rs"),
                "deleted the test file tests/parser.rs",
            ),
        ];
        for (h, want) in cases {
            let e = h.eval();
            assert_eq!(e.trip().map(|f| f.rule), Some(Constraint), "{want}");
            assert!(e.fired[0].reason.contains(want), "{}", e.fired[0].reason);
        }
        assert_eq!(History::new().fresh().fresh().count(Constraint), 0);
    }
}
