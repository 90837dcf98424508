//! What one attempt is, in the words the rules' reasons count it in: an *iteration* of a
//! branch or a PR (a commit, or a test run of the working tree), or a coding agent's *tool
//! call* in a session. The attempts' source decides it, once: a branch's and CI's config
//! counts iterations, [`Config::for_sessions`](super::Config::for_sessions) tool calls, and
//! every rule says `"{}"` of [`Unit::count`] instead of naming a unit of its own.

use std::fmt;

/// The unit a run's attempts are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unit {
    /// A commit or a test run of a branch, locally or in CI.
    #[default]
    Iteration,
    /// A completed tool call of a coding agent's session.
    ToolCall,
}

impl Unit {
    /// One of them: `iteration`, `tool call`.
    pub fn one(self) -> &'static str {
        match self {
            Unit::Iteration => "iteration",
            Unit::ToolCall => "tool call",
        }
    }

    /// More than one: `iterations`, `tool calls`.
    pub fn many(self) -> &'static str {
        match self {
            Unit::Iteration => "iterations",
            Unit::ToolCall => "tool calls",
        }
    }

    /// None so far, as a sentence: `No iterations yet.`, `No tool calls yet.`
    pub fn none_yet(self) -> &'static str {
        match self {
            Unit::Iteration => "No iterations yet.",
            Unit::ToolCall => "No tool calls yet.",
        }
    }

    /// As a heading: `Iterations`, `Tool calls`.
    pub fn heading(self) -> &'static str {
        match self {
            Unit::Iteration => "Iterations",
            Unit::ToolCall => "Tool calls",
        }
    }

    /// What names one in a report's table: the `commit` (or the tested tree's id), the
    /// session's `call` (`c12`).
    pub fn id_column(self) -> &'static str {
        match self {
            Unit::Iteration => "commit",
            Unit::ToolCall => "call",
        }
    }

    /// `n` of them: `1 iteration`, `3 tool calls`.
    pub fn count(self, n: impl Into<u64>) -> Counted {
        Counted {
            n: n.into(),
            unit: self,
        }
    }
}

/// A number of attempts with their unit, as a reason writes it (see [`Unit::count`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    n: u64,
    unit: Unit,
}

impl Counted {
    /// `3 iterations in a row`; one alone is no row: `1 iteration`.
    pub fn in_a_row(self) -> String {
        if self.n == 1 {
            self.to_string()
        } else {
            format!("{self} in a row")
        }
    }

    /// Whether it is one.
    pub fn is_one(self) -> bool {
        self.n == 1
    }
}

/// How often, in words: `once`, `twice`, `3 times`.
pub fn times(n: u64) -> String {
    match n {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

/// `n` of a thing whose plural is `many`: `1 test run`, `2 test runs`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = if self.n == 1 {
            self.unit.one()
        } else {
            self.unit.many()
        };
        write!(f, "{} {word}", self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::Unit;

    #[test]
    fn counts_read_as_the_attempts_are() {
        assert_eq!(Unit::Iteration.count(3u64).to_string(), "3 iterations");
        assert_eq!(Unit::Iteration.count(1u64).to_string(), "1 iteration");
        assert_eq!(Unit::ToolCall.count(2u64).to_string(), "2 tool calls");
        assert_eq!(Unit::ToolCall.count(1u64).to_string(), "1 tool call");
        assert_eq!(Unit::ToolCall.heading(), "Tool calls");
        assert_eq!(
            Unit::Iteration.count(3u64).in_a_row(),
            "3 iterations in a row"
        );
        assert_eq!(Unit::Iteration.count(1u64).in_a_row(), "1 iteration");
        assert_eq!(
            [1, 2, 3].map(super::times),
            ["once", "twice", "3 times"].map(String::from)
        );
        assert_eq!(super::plural(1, "test run", "test runs"), "1 test run");
        assert_eq!(Unit::Iteration.id_column(), "commit");
    }
}
