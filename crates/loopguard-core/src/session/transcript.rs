//! Recorded sessions: a harness's transcript (JSON lines: a Claude Code transcript, a Codex
//! rollout), recognised by its content and turned back into the hook events the harness
//! would have sent: a person's prompt, each tool call before and after it runs, and the
//! agent's stop at the end of each turn. How each format is read is its harness's
//! descriptor ([`super::harness::Transcript`]); `replay` feeds the events through the same
//! functions as the live hooks, so a replay judges a session as the hooks did.

use serde_json::Value;

use super::harness::Harness;
use super::harness::turns::{self, Turns};
use super::protocol::EventKind;

pub use super::harness::turns::Recorded;

/// Whose transcript `text` is, from its first JSON lines; `None` for anything else.
pub fn recognise(text: &str) -> Option<Harness> {
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(5) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return None;
        };
        let found = Harness::ALL
            .iter()
            .copied()
            .find(|h| h.descriptor().transcript.is_some_and(|t| (t.recognise)(&v)));
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Why a transcript could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTranscript {
    pub line: usize,
    pub why: String,
}

/// The hook events of `harness`'s transcript, in order.
pub fn events(harness: Harness, text: &str) -> Result<Vec<Recorded>, BadTranscript> {
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| BadTranscript {
            line: n + 1,
            why: format!("not JSON ({e})"),
        })?;
        lines.push(v);
    }
    Ok(read(harness, &lines, false))
}

/// The agent's last words in `tail`, the end of `harness`'s transcript (the hooks' stop,
/// where the harness does not give them), read as [`events`] reads them: the turn they
/// end may have begun before the tail, and its last line may still be being written (a
/// line that is not JSON is skipped).
pub fn last_said(harness: Harness, tail: &str) -> Option<String> {
    let lines: Vec<Value> = tail
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    read(harness, &lines, true)
        .into_iter()
        .rev()
        .find(|r| r.event.kind == EventKind::Stop)?
        .event
        .last_message
}

/// The exit status `harness`'s transcript recorded for the call `id`, read from `tail`, its
/// end: where the hook's input reports a shell call's output only (Codex, whose rollout
/// keeps `metadata.exit_code` or `Exit code: N`).
pub fn exit_status(harness: Harness, tail: &str, id: &str) -> Option<i32> {
    let t = harness.descriptor().transcript?;
    tail.lines()
        .rev()
        .filter(|l| l.contains(id))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| (t.exit_status)(&v, id))
}

/// Tokens the model used in `lines`, new lines of `harness`'s transcript, since the last
/// count (`counted`: the last message counted; `recorded`: the tokens recorded so far);
/// `None` for a harness whose transcript loopguard does not read.
pub fn tokens(
    harness: Harness,
    lines: &[Value],
    counted: &mut Option<String>,
    recorded: u64,
) -> Option<u64> {
    let t = harness.descriptor().transcript?;
    Some((t.tokens)(lines, counted, recorded))
}

/// `lines` through `harness`'s reader (`in_turn`: they begin inside a turn).
fn read(harness: Harness, lines: &[Value], in_turn: bool) -> Vec<Recorded> {
    let Some(t) = harness.descriptor().transcript else {
        return Vec::new();
    };
    let mut turns = Turns::new(harness, in_turn);
    (t.read)(lines, &mut turns);
    turns.end(lines.last().and_then(turns::at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_words_from_a_tail_that_begins_inside_the_turn() {
        // The turn's prompt is before the tail; the last line is still being written.
        let claude = [
            r#"{"type":"user","sessionId":"s","uuid":"r1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1 failed"}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Done, all tests pass."}]}}"#,
            r#"{"type":"assistant","sessionId":"s","uuid":"a2","mess"#,
        ]
        .join("\n");
        assert_eq!(
            last_said(Harness::Claude, &claude).as_deref(),
            Some("Done, all tests pass.")
        );
        // A whole transcript, from its prompt: the same words.
        let whole = format!(
            "{}\n{claude}",
            r#"{"type":"user","sessionId":"s","uuid":"p1","message":{"role":"user","content":"fix it"}}"#
        );
        assert_eq!(
            last_said(Harness::Claude, &whole).as_deref(),
            Some("Done, all tests pass.")
        );
        let codex = r#"{"timestamp":"2026-11-26T10:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed."}}"#;
        assert_eq!(last_said(Harness::Codex, codex).as_deref(), Some("Fixed."));
        assert_eq!(last_said(Harness::Claude, ""), None);
    }

    #[test]
    fn a_codex_shell_calls_exit_status_from_its_rollout() {
        let rollout = [
            r#"{"timestamp":"2026-11-26T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls data/\"}","call_id":"call_1"}}"#,
            r#"{"timestamp":"2026-11-26T10:00:01Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 2\nOutput:\nls: cannot access 'data/': No such file or directory\n"}}"#,
            r#"{"timestamp":"2026-11-26T10:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"true\"}","call_id":"call_2"}}"#,
            r#"{"timestamp":"2026-11-26T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_2","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":0}}"}}"#,
        ]
        .join("\n");
        assert_eq!(exit_status(Harness::Codex, &rollout, "call_1"), Some(2));
        assert_eq!(exit_status(Harness::Codex, &rollout, "call_2"), Some(0));
        assert_eq!(exit_status(Harness::Codex, &rollout, "call_3"), None);
        // Codex 0.171 at its PostToolUse hooks: the command's `item_completed`, no output yet.
        let at_hook = r#"{"timestamp":"2026-11-28T16:36:53.011Z","ordinal":11,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_9","command":["/bin/bash","-lc","test -d data"],"status":"failed","aggregated_output":"","exit_code":1}}}"#;
        assert_eq!(exit_status(Harness::Codex, at_hook, "call_9"), Some(1));
        assert_eq!(exit_status(Harness::Claude, &rollout, "call_1"), None);
    }
}
