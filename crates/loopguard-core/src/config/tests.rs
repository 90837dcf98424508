use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new(".loopguard.yml"))
}

/// The line, the key, and the problem with its hint on a line of its own.
fn err(text: &str) -> (u32, String, String) {
    let e = match parse(text) {
        Err(e) => e,
        other => panic!("expected a config error for {text:?}, got {other:?}"),
    };
    let hint = e.hint().map(|h| format!("\nhint: {h}")).unwrap_or_default();
    match &e {
        ConfigError::Key {
            line, key, problem, ..
        } => (*line, key.clone(), format!("{problem}{hint}")),
        ConfigError::TooLarge { .. } | ConfigError::NotUtf8 { .. } => {
            (1, "(file)".to_owned(), format!("{e}{hint}"))
        }
    }
}

#[test]
fn empty_and_comment_only_files_are_defaults() {
    for text in ["", "\n", "# nothing here\n", "---\n"] {
        let c = parse(text).unwrap();
        assert_eq!(c.profile, Profile::Balanced);
        assert_eq!(c.rules.stagnation.threshold, 3);
    }
}

#[test]
fn contract_example_parses_to_balanced_defaults() {
    let text = r#"
profile: balanced            # strict (more attempts) | balanced | yolo (fewer)
window: 10                   # iterations the rules look back over
rules:
  stagnation:       {threshold: 3}
  same_error:       {threshold: 3}
  oscillation:      {threshold: 2}
  repeated_patch:   {threshold: 2}
  false_completion: {threshold: 2}
  test_only:        {ratio: 0.3, min_iterations: 3, action: warn}
  budget:           {max_iterations: 50}
  constraint:       {protected: [".loopguard.yml", ".github/workflows/**"], forbid_test_skips: true}
  edge_loop:        {threshold: 5, edges: {planner_to_verifier: 3}}
agents: []
paths:
  tests: null
completion_patterns: ['(?i)\b(done|completed?|all tests pass(ing)?|fixed)\b']
on_trip:
  action: pause              # pause | alert | abort | escalate
  notify: [summary]          # summary, label, comment, issue, webhook, desktop
  cooldown: null             # e.g. "30m": open -> half_open by itself after that long
escalation: {models: [haiku, sonnet, opus]}
webhook: {url: null}         # Slack/Discord-compatible JSON POST
github: {label: "loopguard:stuck", issue_label: "loopguard"}
"#;
    let c = parse(text).unwrap();
    let d = Config::default();
    assert_eq!(c.window, d.window);
    assert_eq!(c.rules.stagnation, d.rules.stagnation);
    assert_eq!(c.rules.test_only, d.rules.test_only);
    assert_eq!(c.rules.budget, d.rules.budget);
    assert_eq!(c.rules.edge_loop, d.rules.edge_loop);
    assert!(matches!(c.tests, TestPaths::Discovered));
    assert!(matches!(d.tests, TestPaths::Discovered));
    assert_eq!(c.on_trip.action, TripAction::Pause);
    assert_eq!(c.on_trip.notify, vec![Notify::Summary]);
    assert_eq!(c.on_trip.cooldown, None);
    assert!(c.claims_done("All tests passing now"));
    assert!(!c.claims_done("Refactor the parser"));
    assert!(
        c.rules
            .constraint
            .protected
            .is_match(".github/workflows/ci.yml")
    );
}

#[test]
fn profiles_set_thresholds_and_keys_override_them() {
    let strict = parse("profile: strict\n").unwrap();
    assert_eq!(strict.rules.stagnation.threshold, 5);
    let yolo = parse("profile: yolo\nrules:\n  stagnation: {threshold: 4}\n").unwrap();
    assert_eq!(yolo.rules.stagnation.threshold, 4);
    assert_eq!(yolo.rules.same_error.threshold, 2);
}

#[test]
fn rule_actions() {
    let c = parse("rules:\n  oscillation: {action: off}\n  test_only: {action: trip}\n").unwrap();
    assert_eq!(c.rules.oscillation.action, RuleAction::Off);
    assert_eq!(c.rules.oscillation.threshold, 2);
    assert_eq!(c.rules.test_only.action, RuleAction::Trip);
}

#[test]
fn errors_name_line_key_and_fix() {
    let table: &[(&str, u32, &str, &str)] = &[
        (
            "window: 10\nrules:\n  stagnation: {threshold: 3, bogus: 1}\n",
            3,
            "rules.stagnation.bogus",
            "unknown field `bogus`",
        ),
        ("windw: 3\n", 1, "windw", "unknown field `windw`"),
        ("window: ten\n", 1, "window", "expected a whole number"),
        (
            "rules:\n  stagnation:\n    threshold: -1\n",
            3,
            "rules.stagnation.threshold",
            "expected a whole number",
        ),
        (
            "rules:\n  stagnation:\n    threshold: 0\n",
            3,
            "rules.stagnation.threshold",
            "must be at least 1",
        ),
        (
            "rules:\n  same_error: {action: maybe}\n",
            2,
            "rules.same_error.action",
            "unknown value `maybe`",
        ),
        ("profile: lenient\n", 1, "profile", "unknown profile"),
        (
            "github:\n  dashboard_title: \"  \"\n",
            2,
            "github.dashboard_title",
            "must not be empty",
        ),
        (
            "github:\n  dashboard_title: \"a\\nb\"\n",
            2,
            "github.dashboard_title",
            "must be one line",
        ),
        (
            "paths:\n  tests: [\"tests/[\"]\n",
            2,
            "paths.tests[0]",
            "invalid glob",
        ),
        (
            "completion_patterns: ['(done']\n",
            1,
            "completion_patterns[0]",
            "invalid regex",
        ),
        (
            "on_trip:\n  cooldown: soon\n",
            2,
            "on_trip.cooldown",
            "invalid duration",
        ),
        (
            "rules:\n  test_only: {ratio: 1.5}\n",
            2,
            "rules.test_only.ratio",
            "(0, 1]",
        ),
        ("webhook:\n  url: ftp://x\n", 2, "webhook.url", "http"),
        (
            "window: 1\nwindow: 2\n",
            2,
            "(top level)",
            "duplicate mapping key: window",
        ),
        ("rules: [1]\n", 1, "rules", ""),
        (
            "on_trip: {notify: [pager]}\n",
            1,
            "on_trip.notify[0]",
            "unknown value `pager`",
        ),
    ];
    for (text, line, key, fragment) in table {
        let (l, k, m) = err(text);
        assert_eq!((l, k.as_str()), (*line, *key), "{text:?}: {m}");
        assert!(
            m.contains(fragment),
            "{text:?}: message {m:?} lacks {fragment:?}"
        );
    }
}

#[test]
fn error_display_starts_with_file_line_column() {
    let e = parse("windw: 3\n").unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with(".loopguard.yml:1:1: windw: unknown field"),
        "{shown}"
    );
    assert!(matches!(e, ConfigError::Key { .. }), "{e:?}");
    assert_eq!(
        e.hint(),
        Some("did you mean `window`? (README.md lists every key)")
    );
}

#[test]
fn errors_give_the_next_step() {
    // (the file, its error: the key's place and problem, then the hint)
    let table: &[(&str, &str)] = &[
        (
            "rules:\n  budget: {max_iterations: ten}\n",
            "2:28: rules.budget.max_iterations: invalid u32: expected a whole number, e.g. 3\n\
             hint: write a whole number in digits, e.g. `max_iterations: 10`",
        ),
        (
            "rules:\n  same_eror: {threshold: 3}\n",
            "2:3: rules: unknown field `same_eror`, expected one of constraint, same_error, repeated_patch, oscillation, false_completion, stagnation, edge_loop, test_only, budget\n\
             hint: did you mean `same_error`? (README.md lists every key)",
        ),
        (
            "rules:\n  stagnation: {threshhold: 4}\n",
            "2:16: rules.stagnation.threshhold: unknown field `threshhold`, expected one of threshold, action\n\
             hint: did you mean `threshold`? (README.md lists every key)",
        ),
        (
            "rules:\n  nonsense: {}\n",
            "2:3: rules: unknown field `nonsense`, expected one of constraint, same_error, repeated_patch, oscillation, false_completion, stagnation, edge_loop, test_only, budget\n\
             hint: remove the key or fix its spelling (README.md lists every key)",
        ),
        (
            "window: [\n",
            "1:9: window: expected one value, found the start of a list or a mapping\n\
             hint: `[` and `{` open a list and a mapping, and `window` takes one value: write it alone (quote text that starts with them)",
        ),
        (
            "on_trip: {action: pase}\n",
            "1:19: on_trip.action: unknown value `pase`, expected one of pause, alert, abort, escalate\n\
             hint: did you mean `pause`?",
        ),
        (
            "rules:\n  same_error: {action: maybe}\n",
            "2:24: rules.same_error.action: unknown value `maybe`, expected one of trip, warn, off\n\
             hint: write one of trip, warn, off",
        ),
    ];
    for (text, want) in table {
        let e = parse(text).unwrap_err();
        let shown = format!(
            "{e}{}",
            e.hint().map(|h| format!("\nhint: {h}")).unwrap_or_default()
        );
        assert_eq!(
            shown.strip_prefix(".loopguard.yml:"),
            Some(*want),
            "{text:?}"
        );
    }
}

#[test]
fn invalid_utf8_is_a_config_error() {
    let e = Config::parse_bytes(b"window: 3\n\xff\xfe\n", Path::new("x.yml")).unwrap_err();
    assert!(matches!(e, ConfigError::NotUtf8 { line: 2, .. }), "{e:?}");
}

#[test]
fn the_default_completion_pattern_matches_like_the_contract_says() {
    let ascii = Config::default();
    let unicode = regex::Regex::new(DEFAULT_COMPLETION).unwrap();
    for m in [
        "Done",
        "all tests passing",
        "ALL TESTS PASS now",
        "Completed the parser",
        "complete",
        "Fixed #12",
        "fix the parser",
        "undone work",
        "prefixed names",
        "doneness",
        "Fixé",
        "tests pass",
    ] {
        assert_eq!(ascii.claims_done(m), unicode.is_match(m), "{m}");
    }
}

#[test]
fn agents_globs_are_case_insensitive() {
    let c = parse("agents: ['*[[]bot]*', '* <noreply@anthropic.com>']\n").unwrap();
    assert!(
        c.agents
            .is_match("copilot-swe-agent[bot] <1+Copilot@users.noreply.github.com>")
    );
    assert!(c.agents.is_match("Claude <NOREPLY@anthropic.com>"));
    assert!(!c.agents.is_match("Jane Doe <jane@example.com>"));
}

#[test]
fn edge_thresholds() {
    let c = parse("rules:\n  edge_loop: {threshold: 4, edges: {coder_to_tests: 2}}\n").unwrap();
    assert_eq!(c.rules.edge_loop.threshold_for("coder_to_tests"), 2);
    assert_eq!(c.rules.edge_loop.threshold_for("planner_to_verifier"), 3);
    assert_eq!(c.rules.edge_loop.threshold_for("anything"), 4);
}

#[test]
fn the_dashboard_title_is_configurable() {
    assert_eq!(
        parse("").unwrap().github.dashboard_title,
        "loopguard dashboard"
    );
    let c = parse("github: {dashboard_title: \"Agent PRs\"}\n").unwrap();
    assert_eq!(c.github.dashboard_title, "Agent PRs");
    let long = format!("github: {{dashboard_title: \"{}\"}}\n", "x".repeat(300));
    assert!(err(&long).2.contains("256 characters"));
}

/// `n` entries of a YAML block list, each `item(i)` quoted, at `indent`.
fn block(indent: &str, n: usize, item: impl Fn(usize) -> String) -> String {
    (0..n)
        .map(|i| format!("{indent}- '{}'\n", item(i)))
        .collect()
}

#[test]
fn lists_past_their_limit_are_refused_naming_the_key_and_line() {
    let glob = |i: usize| format!("dir{i}/**/*.rs");
    let name = |i: usize| format!("model-{i}");
    // (the config with `n` entries, its key, the line the list starts on, the limit)
    type Case = (Box<dyn Fn(usize) -> String>, &'static str, u32, usize);
    let cases: Vec<Case> = vec![
        (
            Box::new(move |n| format!("window: 5\npaths:\n  tests:\n{}", block("    ", n, glob))),
            "paths.tests",
            4,
            MAX_GLOBS,
        ),
        (
            Box::new(move |n| {
                format!(
                    "rules:\n  constraint:\n    protected:\n{}",
                    block("      ", n, glob)
                )
            }),
            "rules.constraint.protected",
            4,
            MAX_GLOBS,
        ),
        (
            Box::new(move |n| format!("agents:\n{}", block("  ", n, |i| format!("bot{i} <*>")))),
            "agents",
            2,
            MAX_GLOBS,
        ),
        (
            Box::new(move |n| {
                format!(
                    "completion_patterns:\n{}",
                    block("  ", n, |i| format!("done{i}"))
                )
            }),
            "completion_patterns",
            2,
            MAX_COMPLETION_PATTERNS,
        ),
        (
            Box::new(move |n| format!("escalation:\n  models:\n{}", block("    ", n, name))),
            "escalation.models",
            3,
            MAX_LIST_ENTRIES,
        ),
        (
            Box::new(move |n| {
                format!(
                    "on_trip:\n  notify:\n{}",
                    block("    ", n, |_| "summary".into())
                )
            }),
            "on_trip.notify",
            3,
            MAX_LIST_ENTRIES,
        ),
        (
            Box::new(move |n| {
                let edges: String = (0..n).map(|i| format!("      e{i}: 2\n")).collect();
                format!("rules:\n  edge_loop:\n    edges:\n{edges}")
            }),
            "rules.edge_loop.edges",
            4,
            MAX_LIST_ENTRIES,
        ),
    ];
    for (config, key, line, limit) in cases {
        parse(&config(limit)).unwrap_or_else(|e| panic!("{key} at its limit: {e}"));
        let (at, k, message) = err(&config(limit + 1));
        assert_eq!((k.as_str(), at), (key, line), "{message}");
        assert!(
            message.contains(&format!("more than {limit} entries")) && message.contains("hint:"),
            "{key}: {message}"
        );
    }
}

#[test]
fn patterns_and_names_past_their_size_are_refused_naming_the_entry() {
    let long_glob = format!("src/{}", "a".repeat(MAX_GLOB_BYTES));
    let text = format!("paths:\n  tests:\n    - 'tests/**'\n    - '{long_glob}'\n");
    let (line, key, message) = err(&text);
    assert_eq!((line, key.as_str()), (4, "paths.tests[1]"), "{message}");
    assert!(
        message.contains(&format!("more than the {MAX_GLOB_BYTES}")),
        "{message}"
    );

    let long_re = format!("done|{}", "x".repeat(MAX_REGEX_BYTES));
    let (line, key, _) = err(&format!("completion_patterns:\n  - '{long_re}'\n"));
    assert_eq!((line, key.as_str()), (2, "completion_patterns[0]"));

    // Short, but compiled too large: refused by the regex size limit, with its own hint.
    let (line, key, message) = err("window: 3\ncompletion_patterns: ['(?i)\\w{100}']\n");
    assert_eq!(
        (line, key.as_str()),
        (2, "completion_patterns[0]"),
        "{message}"
    );
    assert!(message.contains("limit"), "{message}");
    assert!(message.contains("hint: it compiles too large"), "{message}");
    // The contract's example pattern and a few Unicode classes stay well within it.
    parse(&format!(
        "completion_patterns:\n  - '{DEFAULT_COMPLETION}'\n  - '(?i)\\b(done|fixed)\\s+\\w+\\s+\\w+\\b'\n"
    ))
    .unwrap();

    let model = "m".repeat(MAX_NAME_BYTES + 1);
    let (line, key, _) = err(&format!("escalation:\n  models: [haiku, '{model}']\n"));
    assert_eq!((line, key.as_str()), (2, "escalation.models[1]"));
    let edge = "e".repeat(MAX_NAME_BYTES + 1);
    let (line, key, _) = err(&format!(
        "rules:\n  edge_loop:\n    edges:\n      {edge}: 2\n"
    ));
    assert_eq!((line, key.as_str()), (4, "rules.edge_loop.edges"));
}

#[test]
fn a_file_past_the_size_limit_is_refused_before_it_is_parsed() {
    let mut text = String::from("window: 5\n");
    while text.len() <= MAX_CONFIG_BYTES {
        text.push_str("# padding\n");
    }
    let (line, key, message) = err(&text);
    assert_eq!((line, key.as_str()), (1, "(file)"));
    assert!(message.contains("more than the 1048576"), "{message}");
    let bytes = Config::parse_bytes(text.as_bytes(), Path::new("x.yml"));
    assert!(matches!(bytes, Err(ConfigError::TooLarge { .. })));
}
