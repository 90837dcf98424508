use super::super::protocol::EventKind;
use super::*;

#[test]
fn each_harness_input_is_read() {
    let claude = r#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/r","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"toolu_1","error":"Error: Exit code 2\nboom","is_interrupt":false,"agent_id":"a1","agent_type":"general-purpose"}"#;
    let e = HookEvent::parse(Harness::Claude, None, claude).unwrap();
    assert_eq!((e.kind, e.session.as_str()), (EventKind::PostTool, "s1"));
    let c = e.call.unwrap();
    assert!(c.failed);
    assert_eq!(c.agent.as_deref(), Some("general-purpose"));
    assert_eq!(c.id.as_deref(), Some("toolu_1"));
    assert!(c.outcome().failed);

    let copilot = r#"{"timestamp":1704614600000,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"npm test\"}"}"#;
    let e = HookEvent::parse(Harness::Copilot, Some("preToolUse"), copilot).unwrap();
    assert_eq!(e.kind, EventKind::PreTool);
    assert_eq!(e.call.unwrap().command().as_deref(), Some("npm test"));
    assert!(e.session.starts_with("copilot-"));

    let gemini = r#"{"session_id":"g","cwd":"/r","hook_event_name":"AfterAgent","prompt":"fix it","prompt_response":"Done, all tests pass.","stop_hook_active":true}"#;
    let e = HookEvent::parse(Harness::Gemini, None, gemini).unwrap();
    assert_eq!(e.kind, EventKind::Stop);
    assert!(e.stop_hook_active);
    assert_eq!(e.last_message.as_deref(), Some("Done, all tests pass."));

    for bad in [
        "",
        "[]",
        "{\"session_id\":\"s\"}",
        "{\"hook_event_name\":\"PreToolUse\"}",
    ] {
        assert!(
            HookEvent::parse(Harness::Claude, None, bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn an_event_is_judged_only_by_the_harness_that_has_it() {
    let input = |event: &str| {
        format!(
            r#"{{"session_id":"s","hook_event_name":"{event}","tool_name":"Bash","tool_input":{{}}}}"#
        )
    };
    let kind = |h, event: &str| HookEvent::parse(h, None, &input(event)).unwrap().kind;
    assert_eq!(kind(Harness::Gemini, "BeforeTool"), EventKind::PreTool);
    assert_eq!(kind(Harness::Claude, "BeforeTool"), EventKind::Other);
    assert_eq!(kind(Harness::Claude, "Notification"), EventKind::Other);
    assert_eq!(kind(Harness::Codex, "PostToolUseFailure"), EventKind::Other);
}

#[test]
fn answers_in_each_format_exit_zero() {
    let deny = Answer::Deny("stop".into());
    let c = deny.render(Harness::Claude, "PreToolUse");
    assert_eq!(
        c.stdout,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"stop"}}"#
    );
    assert_eq!(
        deny.render(Harness::Gemini, "BeforeTool").stdout,
        r#"{"decision":"deny","reason":"stop"}"#
    );
    assert_eq!(
        deny.render(Harness::Copilot, "preToolUse").stdout,
        r#"{"permissionDecision":"deny","permissionDecisionReason":"stop"}"#
    );
    let context = Answer::Context("careful".into());
    assert_eq!(
        context.render(Harness::Codex, "PostToolUse").stdout,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"careful"}}"#
    );
    assert_eq!(
        context.render(Harness::Claude, "Stop").stdout,
        r#"{"systemMessage":"careful"}"#
    );
    let copilot = context.render(Harness::Copilot, "postToolUse");
    assert_eq!(
        (copilot.stdout.as_str(), copilot.stderr.as_str()),
        ("", "careful\n")
    );
    for h in Harness::ALL.iter().copied() {
        for a in [Answer::Nothing, deny.clone(), Answer::Failed("x".into())] {
            assert_eq!(a.render(h, "PreToolUse").code, 0);
        }
        let said = Answer::Nothing.render(h, "PreToolUse").stdout;
        assert!(said.is_empty() || said == "{}", "{h}: {said}");
    }
}

/// What the registry promises: names that round-trip, events named once each, an entry
/// that carries the command, guards that cover the config.
#[test]
fn every_descriptor_holds_together() {
    for h in Harness::ALL.iter().copied() {
        let d = h.descriptor();
        assert_eq!(d.name.parse::<Harness>(), Ok(h));
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            format!("\"{}\"", d.name)
        );
        for (i, e) in d.events.iter().enumerate() {
            assert!(
                d.events[..i].iter().all(|o| o.name != e.name),
                "{}: {} twice",
                d.name,
                e.name
            );
        }
        for kind in [EventKind::PreTool, EventKind::PostTool] {
            assert!(
                d.events.iter().any(|e| e.kind == kind),
                "{}: no {kind:?} event",
                d.name
            );
        }
        assert!(
            d.config.entry.iter().any(|(_, m)| *m == Member::Command),
            "{}: no command in its entry",
            d.name
        );
        let path = d.config.path;
        assert!(
            d.config
                .guards
                .iter()
                .any(|g| *g == path || (g.ends_with('/') && path.starts_with(g))),
            "{}: {path} is not guarded",
            d.name
        );
    }
    let unknown = "cline".parse::<Harness>().unwrap_err();
    assert!(
        unknown
            .to_string()
            .starts_with("unknown agent \"cline\" (expected one of claude, "),
        "{unknown}"
    );
    assert_eq!(
        "codx".parse::<Harness>().unwrap_err().nearest(),
        Some("codex")
    );
}

/// Cursor's hooks as its docs give them: `conversation_id` for the session, the first
/// workspace root without `cwd`, `tool_output` and `error_message`, `loop_count` at the
/// stop; a JSON object for every answer.
#[test]
fn cursor_is_read_and_answered_in_its_own_format() {
    let pre = r#"{"conversation_id":"conv-1","generation_id":"gen-1","model":"gpt-5","hook_event_name":"preToolUse","cursor_version":"1.7.2","workspace_roots":["/r"],"user_email":null,"transcript_path":null,"tool_name":"Shell","tool_input":{"command":"npm test"},"tool_use_id":"t1","cwd":"/r/sub"}"#;
    let e = HookEvent::parse(Harness::Cursor, None, pre).unwrap();
    assert_eq!((e.kind, e.session.as_str()), (EventKind::PreTool, "conv-1"));
    assert_eq!(e.cwd.as_deref(), Some("/r/sub"));
    let call = e.call.unwrap();
    assert_eq!(call.command().as_deref(), Some("npm test"));
    assert_eq!(call.id.as_deref(), Some("t1"));

    let failed = r#"{"conversation_id":"conv-1","hook_event_name":"postToolUseFailure","workspace_roots":["/r"],"tool_name":"Shell","tool_input":{"command":"make"},"tool_use_id":"t2","error_message":"make: *** [all] Error 2","failure_type":"error"}"#;
    let e = HookEvent::parse(Harness::Cursor, None, failed).unwrap();
    assert_eq!(e.cwd.as_deref(), Some("/r"), "the first workspace root");
    let call = e.call.unwrap();
    assert!(call.failed);
    assert!(call.outcome().failed);

    let stop = r#"{"conversation_id":"conv-1","hook_event_name":"stop","workspace_roots":["/r"],"status":"completed","loop_count":1}"#;
    let e = HookEvent::parse(Harness::Cursor, None, stop).unwrap();
    assert_eq!(e.kind, EventKind::Stop);
    assert!(e.stop_hook_active, "a hook already made it go on once");
    assert_eq!(e.last_message, None);

    let render = |a: &Answer, event| a.render(Harness::Cursor, event).stdout;
    assert_eq!(render(&Answer::Nothing, "preToolUse"), "{}");
    assert_eq!(
        render(&Answer::Nothing, "beforeSubmitPrompt"),
        r#"{"continue":true}"#
    );
    assert_eq!(
        render(&Answer::Deny("stop".into()), "preToolUse"),
        r#"{"permission":"deny","user_message":"stop","agent_message":"stop"}"#
    );
    assert_eq!(
        render(&Answer::Context("careful".into()), "postToolUse"),
        r#"{"additional_context":"careful"}"#
    );
    assert_eq!(
        render(&Answer::Block("go on".into()), "stop"),
        r#"{"followup_message":"go on"}"#
    );
    let prompt =
        Answer::Context("a new episode".into()).render(Harness::Cursor, "beforeSubmitPrompt");
    assert_eq!(
        (prompt.stdout.as_str(), prompt.stderr.as_str()),
        (r#"{"continue":true}"#, "a new episode\n")
    );
}
