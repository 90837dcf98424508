//! Telling people a run tripped: a webhook (Slack/Discord-compatible JSON POST) and a
//! desktop notification. Both are best effort and bounded in time: a hook never waits on a
//! slow receiver longer than `webhook.timeout`.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::documents::WebhookFacts;

/// The message a trip sends.
#[derive(Debug, Clone)]
pub struct Notice {
    /// One line for people (`text` for Slack, `content` for Discord).
    pub text: String,
    /// The structured facts, under `loopguard` in the payload.
    pub facts: WebhookFacts,
}

/// The webhook's body: Slack's and Discord's fields, and loopguard's facts.
#[derive(Serialize)]
struct Payload<'a> {
    text: &'a str,
    content: &'a str,
    username: &'static str,
    loopguard: &'a WebhookFacts,
}

impl Notice {
    pub fn payload(&self) -> Value {
        serde_json::to_value(Payload {
            text: &self.text,
            content: &self.text,
            username: "loopguard",
            loopguard: &self.facts,
        })
        .expect("the webhook payload serialises")
    }
}

/// Why a webhook could not be delivered.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("the webhook answered {status} after {attempts} attempt(s)")]
    Status { status: u16, attempts: u32 },
    #[error("the webhook did not answer within {timeout:?} ({attempts} attempt(s)): {last}")]
    Unreachable {
        timeout: Duration,
        attempts: u32,
        last: String,
    },
}

/// POSTs the notice to `url`, retrying connection failures, 429 and 5xx, all within
/// `timeout` in total.
pub fn post_webhook(url: &str, notice: &Notice, timeout: Duration) -> Result<(), WebhookError> {
    let body = serde_json::to_vec(&notice.payload()).expect("a JSON value serialises");
    let start = Instant::now();
    let mut attempts = 0;
    let mut last = String::new();
    let mut backoff = Duration::from_millis(200);
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(WebhookError::Unreachable {
                timeout,
                attempts,
                last,
            });
        }
        attempts += 1;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(left))
            .http_status_as_error(false)
            .build()
            .into();
        let retry = match agent
            .post(url)
            .header("content-type", "application/json")
            .header(
                "user-agent",
                concat!("loopguard/", env!("CARGO_PKG_VERSION")),
            )
            .send(&body[..])
        {
            Ok(resp) => {
                let status = resp.status().as_u16();
                if (200..300).contains(&status) {
                    return Ok(());
                }
                if status != 429 && status < 500 {
                    return Err(WebhookError::Status { status, attempts });
                }
                last = format!("HTTP {status}");
                true
            }
            Err(e) => {
                last = e.to_string();
                true
            }
        };
        if !retry || attempts >= 3 {
            return Err(WebhookError::Unreachable {
                timeout,
                attempts,
                last,
            });
        }
        let left = timeout.saturating_sub(start.elapsed());
        std::thread::sleep(backoff.min(left));
        backoff *= 2;
    }
}

/// Shows a desktop notification where a desktop exists (`display`: `DISPLAY` or
/// `WAYLAND_DISPLAY` is set); does nothing (and says nothing)
/// elsewhere. Returns whether one was shown.
pub fn desktop(title: &str, text: &str, display: bool) -> bool {
    let spawn = |program: &str, args: &[&str]| {
        std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok()
    };
    if cfg!(target_os = "macos") {
        let script = format!(
            "display notification {:?} with title {:?}",
            text.replace('"', "'"),
            title.replace('"', "'")
        );
        return spawn("osascript", &["-e", &script]);
    }
    display && spawn("notify-send", &["--app-name=loopguard", title, text])
}
