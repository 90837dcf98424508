//! `loopguard ci` against an API that never finishes answering: a tiny local server that
//! trickles its answer a byte at a time (each byte would reset a read timeout). Every
//! request gives up at its deadline (`LOOPGUARD_GITHUB_REQUEST_DEADLINE`), is retried
//! within the run's (`LOOPGUARD_CI_DEADLINE`), and the command exits 3 naming the request.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::ci::*;
use crate::support::github_fake::FakeGitHub;

/// A server that answers every request with a valid response, one byte every `gap`.
struct Trickle {
    url: String,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Trickle {
    fn start(gap: Duration) -> Trickle {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (count, seen) = (connections.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                count.fetch_add(1, Ordering::SeqCst);
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let mut head = [0u8; 4096];
                    let n = stream.read(&mut head).unwrap_or(0);
                    let line = String::from_utf8_lossy(&head[..n])
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                    seen.lock().unwrap().push(line);
                    let body = format!("{{\"pad\": \"{}\"}}", " ".repeat(10_000));
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    for b in answer.bytes() {
                        if stream.write_all(&[b]).is_err() {
                            return;
                        }
                        std::thread::sleep(gap);
                    }
                });
            }
        });
        Trickle {
            url,
            connections,
            requests,
        }
    }
}

/// `loopguard ci` on a PR event with the API at the trickling server.
fn ci_against(server: &Trickle, env: &[(&str, &str)]) -> Outcome {
    let mut p = Project::new(CONFIG);
    let head = p.attempt("s.len()", "Try 1");
    let gh = FakeGitHub::start_blocking();
    let mut step = CiStep::new(&gh, &p.repo)
        .api(&server.url)
        .event("pull_request", &p.sync_event(&head))
        .args(["ci", "--log", &log_path(SAME_LOGS[0])])
        // Far beyond every deadline of these tests: only a hang reaches it.
        .kill_after(Duration::from_secs(90));
    for (k, v) in env {
        step = step.env(k, v);
    }
    step.run()
}

/// [`ci_against`] with the two deadlines, which must end it: by itself (not killed), with
/// exit 3, naming the request it gave up on.
fn given_up(server: &Trickle, request_deadline: &str, run_deadline: &str) -> Outcome {
    let out = ci_against(
        server,
        &[
            ("LOOPGUARD_GITHUB_REQUEST_DEADLINE", request_deadline),
            ("LOOPGUARD_CI_DEADLINE", run_deadline),
        ],
    );
    assert!(
        !out.killed,
        "still running after {:?}: {out:#?}",
        out.elapsed
    );
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(
        out.stderr
            .contains("github api: GET /repos/octo-org/widgets/pulls/7"),
        "names the request: {}",
        out.stderr
    );
    out
}

#[test]
fn a_trickling_answer_gives_up_at_the_request_deadline_and_is_retried() {
    let server = Trickle::start(Duration::from_millis(200));
    let out = given_up(&server, "1s", "60s");
    let (error, hint) = crate::errors::error_and_hint(&out.stderr);
    assert_eq!(
        error,
        "loopguard: error: github api: GET /repos/octo-org/widgets/pulls/7: connection error after 5 attempts: no complete answer within 1s"
    );
    assert_eq!(
        hint,
        "each attempt has 1s (LOOPGUARD_GITHUB_REQUEST_DEADLINE); the API did not finish answering in it"
    );
    // Five attempts of about a second each (the retry waits are scaled to nothing).
    assert_eq!(server.connections.load(Ordering::SeqCst), 5, "{out:#?}");
    assert!(
        server
            .requests
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.starts_with("GET /repos/octo-org/widgets/pulls/7 ")),
        "{:?}",
        server.requests.lock().unwrap()
    );
    assert!(out.elapsed < Duration::from_secs(30), "{:?}", out.elapsed);
}

#[test]
fn the_run_stops_at_its_deadline_with_exit_3() {
    let server = Trickle::start(Duration::from_millis(200));
    let out = given_up(&server, "2s", "3s");
    let (error, hint) = crate::errors::error_and_hint(&out.stderr);
    assert!(
        error.contains("the run's deadline (3s, LOOPGUARD_CI_DEADLINE)"),
        "{error}"
    );
    assert_eq!(
        hint,
        "raise LOOPGUARD_CI_DEADLINE (e.g. 20m) when the API is only slow"
    );
    // Two attempts fit in three seconds: the second one cut short by the run's deadline.
    assert_eq!(server.connections.load(Ordering::SeqCst), 2, "{out:#?}");
    assert!(out.elapsed < Duration::from_secs(20), "{:?}", out.elapsed);
}

#[test]
fn a_deadline_that_is_not_a_duration_is_bad_input() {
    let server = Trickle::start(Duration::from_millis(200));
    for var in ["LOOPGUARD_CI_DEADLINE", "LOOPGUARD_GITHUB_REQUEST_DEADLINE"] {
        let out = ci_against(&server, &[(var, "soon")]);
        assert_eq!(out.code, 2, "{out:#?}");
        let (error, hint) = crate::errors::error_and_hint(&out.stderr);
        assert!(error.contains(&format!("{var}=`soon`")), "{error}");
        assert!(hint.starts_with("write a duration such as"), "{hint}");
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}
