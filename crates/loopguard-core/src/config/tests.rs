use super::*;

fn parse(text: &str) -> Result<Config, Error> {
    Config::parse(text, Path::new(".loopguard.yml"))
}

fn err(text: &str) -> (u32, String, String) {
    match parse(text) {
        Err(Error::Config {
            line, key, message, ..
        }) => (line, key, message),
        other => panic!("expected a config error for {text:?}, got {other:?}"),
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
  tests: ["tests/**", "test/**", "**/*_test.*", "**/test_*.py", "**/*.test.*", "**/*.spec.*"]
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
    assert_eq!(c.tests.patterns, d.tests.patterns);
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
            "unknown variant",
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
            "unknown variant",
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
    assert!(matches!(e, Error::Config { .. }), "{e:?}");
}

#[test]
fn invalid_utf8_is_a_config_error() {
    let e = Config::parse_bytes(b"window: 3\n\xff\xfe\n", Path::new("x.yml")).unwrap_err();
    assert!(matches!(e, Error::Config { line: 2, .. }), "{e:?}");
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
