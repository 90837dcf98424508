//! A hook's input read for its top-level fields only, with no recursion limit to trip
//! over (issue 25, item 3). A JSON parser that gives up on what the agent can put in a
//! call — a lone surrogate (`\ud800`) in a command, MCP arguments nested 200 deep — made
//! the hook fail, and a hook that fails lets the call through, unrecorded. So:
//!
//! - the object is walked byte by byte, nesting counted, never recursed into: each
//!   member's value is found as a span of the text;
//! - a value is parsed where it can be (serde_json, its depth limit kept); a lone
//!   surrogate escape becomes U+FFFD first; a value that still does not parse (too deep)
//!   is kept as its own text, a string, so it is judged by what it says (its digest)
//!   instead of failing the hook;
//! - what was read before a hopeless break (input cut short, not JSON past some point) is
//!   handed back with the reason, so the hook still knows the session and the event and
//!   can fail closed while a breaker is open.
//!
//! Invalid UTF-8 has been made lossy by the caller; input past [`super::protocol::MAX_INPUT`]
//! is noticed there.

use serde_json::{Map, Value};

/// Why the input is not a readable object, and the members read before that.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    pub why: String,
    pub partial: Map<String, Value>,
}

/// The top-level members of the JSON object `text`.
pub fn object(text: &str) -> Result<Map<String, Value>, Unreadable> {
    let b = text.as_bytes();
    let mut members = Map::new();
    let fail = |why: String, members: Map<String, Value>| {
        Err(Unreadable {
            why,
            partial: members,
        })
    };
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return fail("the hook input is not a JSON object".to_owned(), members);
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Ok(members);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return fail(
                format!("the hook input is not JSON (a key expected at byte {i})"),
                members,
            );
        }
        let (key, after) = match string(text, i) {
            Ok(k) => k,
            Err(why) => return fail(why, members),
        };
        i = skip_ws(b, after);
        if b.get(i) != Some(&b':') {
            return fail(
                format!("the hook input is not JSON (`:` expected at byte {i})"),
                members,
            );
        }
        let start = skip_ws(b, i + 1);
        let end = match value_end(b, start) {
            Ok(e) => e,
            Err(why) => return fail(why, members),
        };
        let raw = text[start..end].trim_end();
        if raw.is_empty() {
            return fail(
                format!("the hook input is not JSON (a value expected at byte {start})"),
                members,
            );
        }
        match value(raw) {
            Ok(v) => members.insert(key, v),
            Err(why) => return fail(why, members),
        };
        match b.get(end) {
            Some(b',') => i = skip_ws(b, end + 1),
            Some(b'}') => break,
            _ => return fail("the hook input is cut short".to_owned(), members),
        }
    }
    Ok(members)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// Where the value starting at `start` ends: the `,` or `}` of the object around it,
/// nesting counted.
fn value_end(b: &[u8], start: usize) -> Result<usize, String> {
    let mut depth: usize = 0;
    let mut i = start;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                i = string_end(b, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth == 0 => return Ok(i),
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => return Ok(i),
            _ => {}
        }
        i += 1;
    }
    Err("the hook input is cut short".to_owned())
}

/// The index after the string starting at `start` (its opening quote).
fn string_end(b: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start + 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err("the hook input is cut short (in a string)".to_owned())
}

/// The key (a JSON string) starting at `start`, decoded, and the index after it.
fn string(text: &str, start: usize) -> Result<(String, usize), String> {
    let end = string_end(text.as_bytes(), start)?;
    match value(&text[start..end]) {
        Ok(Value::String(s)) => Ok((s, end)),
        Ok(
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_),
        )
        | Err(_) => Err(format!(
            "the hook input is not JSON (a bad string at byte {start})"
        )),
    }
}

/// A member's value: parsed, lone surrogates made U+FFFD first where they were the
/// trouble; kept as its own text where it is nested too deep to parse; else why not.
fn value(raw: &str) -> Result<Value, String> {
    let e = match serde_json::from_str(raw) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let repaired = lone_surrogates_replaced(raw);
    match serde_json::from_str(&repaired) {
        Ok(v) => Ok(v),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            Ok(Value::String(raw.to_owned()))
        }
        Err(_) => Err(format!("the hook input is not JSON ({e})")),
    }
}

/// `raw` with each `\uXXXX` escape of a lone surrogate (a high one not followed by a low
/// one, a low one alone) written `\ufffd`; escaped backslashes are kept as they are.
fn lone_surrogates_replaced(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let unit = |at: usize| -> Option<u16> {
            (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
                .then(|| raw.get(at + 2..at + 6))
                .flatten()
                .and_then(|h| u16::from_str_radix(h, 16).ok())
        };
        match unit(i) {
            Some(u) if (0xD800..0xDC00).contains(&u) => {
                if unit(i + 6).is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                    i += 12;
                } else {
                    out.push_str(&raw[copied..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    copied = i;
                }
            }
            Some(u) if (0xDC00..0xE000).contains(&u) => {
                out.push_str(&raw[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            Some(_) => i += 6,
            None => i += 2,
        }
    }
    out.push_str(&raw[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn what_a_json_parser_gave_up_on_is_read() {
        // A lone surrogate in the command: U+FFFD, the rest as it is.
        let m = object(r#"{"session_id":"s","tool_input":{"command":"echo \ud800 \\ud800 \ud83d\ude00 \udc00"}}"#)
            .unwrap();
        assert_eq!(
            m["tool_input"]["command"],
            "echo \u{fffd} \\ud800 \u{1f600} \u{fffd}"
        );
        // Nested 200 deep (and 100,000 deep): kept as its text.
        for depth in [200, 100_000] {
            let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let text = format!(
                r#"{{"hook_event_name":"PreToolUse","tool_input":{{"args":{deep}}},"session_id":"s"}}"#
            );
            let m = object(&text).unwrap();
            assert_eq!(m["session_id"], "s");
            assert_eq!(m["hook_event_name"], "PreToolUse");
            assert!(
                m["tool_input"]
                    .as_str()
                    .is_some_and(|t| t.len() > 2 * depth)
            );
        }
        // Strings holding brackets, quotes and escapes do not move the nesting.
        let m = object(r#"{"a":"}]\"{","b":[1,{"c":"]"}],"d":null}"#).unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"a": "}]\"{", "b": [1, {"c": "]"}], "d": null})
        );
        assert_eq!(object(" {} ").unwrap().len(), 0);
    }

    #[test]
    fn a_hopeless_input_says_why_and_what_was_read() {
        let cut = object(
            r#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_input":{"command":"ls"#,
        )
        .unwrap_err();
        assert_eq!(cut.partial["session_id"], "s1");
        assert_eq!(cut.partial["hook_event_name"], "PreToolUse");
        assert!(cut.why.contains("cut short"), "{}", cut.why);
        for bad in [
            "",
            "[]",
            "nope",
            "{\"a\" 1}",
            "{\"a\":}",
            "{\"a\":1 \"b\":2}",
        ] {
            assert!(object(bad).is_err(), "{bad}");
        }
    }
}
