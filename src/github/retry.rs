//! When to retry a GitHub request, and how long to wait first.
//!
//! The decision is pure ([`RetryPolicy::decide`]): the facts of one response in, a verdict
//! out. Waiting goes through [`Pacer`], which scales sleeps (tests run the real code path
//! with `LOOPGUARD_GITHUB_TIME_SCALE=0.001`) and records what was asked for.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a response (or a failed connection) says about retrying.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseFacts {
    pub status: u16,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u64>,
    /// `x-ratelimit-remaining`.
    pub ratelimit_remaining: Option<u64>,
    /// `x-ratelimit-reset`, seconds since the epoch.
    pub ratelimit_reset: Option<u64>,
    /// The server's clock (`Date`) or ours, seconds since the epoch.
    pub now: u64,
    /// GitHub's `message`, lowercased.
    pub message: String,
}

impl ResponseFacts {
    /// GitHub's "secondary rate limit" (formerly "abuse detection") answer.
    pub fn is_secondary_rate_limit(&self) -> bool {
        matches!(self.status, 403 | 429)
            && (self.message.contains("secondary rate limit") || self.message.contains("abuse"))
    }

    /// The primary (hourly) limit is used up.
    pub fn is_primary_rate_limit(&self) -> bool {
        matches!(self.status, 403 | 429)
            && (self.ratelimit_remaining == Some(0)
                || self.message.contains("api rate limit exceeded"))
    }

    /// The workflow token lacks a permission for this endpoint.
    pub fn is_not_accessible_by_integration(&self) -> bool {
        self.status == 403
            && self
                .message
                .contains("resource not accessible by integration")
    }
}

/// Why a request is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryCause {
    ServerError,
    Connection,
    PrimaryRateLimit,
    SecondaryRateLimit,
    TooManyRequests,
}

impl RetryCause {
    pub fn describe(self) -> &'static str {
        match self {
            RetryCause::ServerError => "server error",
            RetryCause::Connection => "connection error",
            RetryCause::PrimaryRateLimit => "primary rate limit",
            RetryCause::SecondaryRateLimit => "secondary rate limit",
            RetryCause::TooManyRequests => "too many requests",
        }
    }

    /// Whether a write that failed this way may still have been applied by GitHub.
    /// A rate-limit answer is a refusal; a 5xx or a broken connection is not known.
    pub fn is_ambiguous_for_writes(self) -> bool {
        matches!(self, RetryCause::ServerError | RetryCause::Connection)
    }
}

/// The verdict on one failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Wait, then send again.
    Retry { wait: Duration, cause: RetryCause },
    /// Retrying would not help, or would wait longer than allowed.
    GiveUp(GiveUp),
}

/// Why the retry loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    /// The token lacks a permission: asking again changes nothing.
    MissingPermission,
    /// A status that is not retried (4xx other than the throttles).
    NotRetried { status: u16 },
    /// As many attempts as the policy allows failed this way.
    Exhausted { cause: RetryCause, attempts: u32 },
    /// GitHub asks to wait longer than loopguard waits.
    WaitTooLong {
        cause: RetryCause,
        wait: Duration,
        max: Duration,
    },
}

impl GiveUp {
    /// Whether a rate limit is why.
    pub fn is_rate_limit(self) -> bool {
        let cause = match self {
            GiveUp::Exhausted { cause, .. } | GiveUp::WaitTooLong { cause, .. } => cause,
            GiveUp::MissingPermission | GiveUp::NotRetried { .. } => return false,
        };
        matches!(
            cause,
            RetryCause::PrimaryRateLimit
                | RetryCause::SecondaryRateLimit
                | RetryCause::TooManyRequests
        )
    }
}

impl std::fmt::Display for GiveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GiveUp::MissingPermission => f.write_str("missing permission"),
            GiveUp::NotRetried { status } => write!(f, "status {status} is not retried"),
            GiveUp::Exhausted { cause, attempts } => {
                write!(f, "{} after {attempts} attempts", cause.describe())
            }
            GiveUp::WaitTooLong { cause, wait, max } => write!(
                f,
                "{}: GitHub asks to wait {}s, more than the {}s loopguard waits",
                cause.describe(),
                wait.as_secs(),
                max.as_secs()
            ),
        }
    }
}

/// Bounds on retrying.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts per request, the first included.
    pub max_attempts: u32,
    /// First backoff for 5xx and connection errors; doubled per attempt.
    pub base_backoff: Duration,
    /// Largest backoff for 5xx and connection errors.
    pub max_backoff: Duration,
    /// Least wait after a secondary rate limit without `Retry-After` (GitHub: one minute).
    pub secondary_wait: Duration,
    /// Longest single wait; a rate limit that resets later than this fails at once
    /// instead of holding the CI job.
    pub max_wait: Duration,
    /// Least gap between two writes (GitHub's advice against secondary limits).
    pub write_gap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            secondary_wait: Duration::from_secs(60),
            max_wait: Duration::from_secs(300),
            write_gap: Duration::from_secs(1),
        }
    }
}

impl RetryPolicy {
    /// Exponential backoff with jitter for the `attempt`-th failure (1-based); `jitter`
    /// in `[0, 1)` spreads the wait over its upper half.
    pub fn backoff(&self, attempt: u32, jitter: f64) -> Duration {
        let exp = attempt.saturating_sub(1).min(16);
        let full = self
            .base_backoff
            .saturating_mul(1u32 << exp)
            .min(self.max_backoff);
        full.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    /// What to do after the `attempt`-th response (1-based) failed with `facts`.
    pub fn decide(&self, facts: &ResponseFacts, attempt: u32, jitter: f64) -> Verdict {
        let (wait, cause) = if facts.is_not_accessible_by_integration() {
            return Verdict::GiveUp(GiveUp::MissingPermission);
        } else if facts.is_primary_rate_limit() && facts.retry_after.is_none() {
            // The reset is when the hourly budget refills; one second of slack for clock
            // drift between GitHub and the `Date` we read.
            let wait = match facts.ratelimit_reset {
                Some(reset) => Duration::from_secs(reset.saturating_sub(facts.now) + 1),
                None => self.secondary_wait,
            };
            (wait, RetryCause::PrimaryRateLimit)
        } else if facts.is_secondary_rate_limit() {
            // At least the header's wait, else a minute, growing if it persists.
            let floor = match facts.retry_after {
                Some(secs) => Duration::from_secs(secs),
                None => self
                    .secondary_wait
                    .saturating_mul(1u32 << attempt.saturating_sub(1).min(4)),
            };
            (floor, RetryCause::SecondaryRateLimit)
        } else if let (403 | 429, Some(secs)) = (facts.status, facts.retry_after) {
            (Duration::from_secs(secs), RetryCause::TooManyRequests)
        } else if facts.status == 429 {
            (self.secondary_wait, RetryCause::TooManyRequests)
        } else if facts.status >= 500 {
            let backoff = self.backoff(attempt, jitter);
            let wait = facts
                .retry_after
                .map_or(backoff, |secs| Duration::from_secs(secs).max(backoff));
            (wait, RetryCause::ServerError)
        } else {
            return Verdict::GiveUp(GiveUp::NotRetried {
                status: facts.status,
            });
        };
        if attempt >= self.max_attempts {
            return Verdict::GiveUp(GiveUp::Exhausted {
                cause,
                attempts: attempt,
            });
        }
        if wait > self.max_wait {
            return Verdict::GiveUp(GiveUp::WaitTooLong {
                cause,
                wait,
                max: self.max_wait,
            });
        }
        Verdict::Retry { wait, cause }
    }

    /// What to do after the `attempt`-th connection failure.
    pub fn decide_connection(&self, attempt: u32, jitter: f64) -> Verdict {
        if attempt >= self.max_attempts {
            Verdict::GiveUp(GiveUp::Exhausted {
                cause: RetryCause::Connection,
                attempts: attempt,
            })
        } else {
            Verdict::Retry {
                wait: self.backoff(attempt, jitter),
                cause: RetryCause::Connection,
            }
        }
    }
}

/// Sleeps for the retry loop: scaled by a factor (1.0 in production) and recorded, so tests
/// can run the real waits in milliseconds and assert the waits that were asked for.
#[derive(Debug)]
pub struct Pacer {
    scale: f64,
    waits: Mutex<Vec<Duration>>,
    last_write: Mutex<Option<Instant>>,
}

impl Pacer {
    pub fn new(scale: f64) -> Self {
        Pacer {
            scale: if scale.is_finite() && scale >= 0.0 {
                scale
            } else {
                1.0
            },
            waits: Mutex::new(Vec::new()),
            last_write: Mutex::new(None),
        }
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Waits `wait` (scaled) and records it unscaled.
    pub fn sleep(&self, wait: Duration) {
        self.waits
            .lock()
            .expect("no thread panics while holding the waits lock")
            .push(wait);
        let scaled = wait.mul_f64(self.scale);
        if !scaled.is_zero() {
            std::thread::sleep(scaled);
        }
    }

    /// Holds a write back until `gap` (scaled) has passed since the previous write.
    pub fn before_write(&self, gap: Duration) {
        let mut last = self
            .last_write
            .lock()
            .expect("no thread panics while holding the write lock");
        if let Some(previous) = *last {
            let gap = gap.mul_f64(self.scale);
            let since = previous.elapsed();
            if since < gap {
                std::thread::sleep(gap - since);
            }
        }
        *last = Some(Instant::now());
    }

    /// The waits asked for so far, unscaled, oldest first (write gaps not included).
    pub fn waits(&self) -> Vec<Duration> {
        self.waits
            .lock()
            .expect("no thread panics while holding the waits lock")
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(status: u16) -> ResponseFacts {
        ResponseFacts {
            status,
            now: 1_000_000,
            ..ResponseFacts::default()
        }
    }

    fn wait_of(v: Verdict) -> Duration {
        match v {
            Verdict::Retry { wait, .. } => wait,
            Verdict::GiveUp(why) => panic!("expected a retry, got give-up: {why}"),
        }
    }

    #[test]
    fn decisions() {
        let p = RetryPolicy::default();
        let secs = Duration::from_secs;
        // 5xx: exponential backoff; jitter 0.0 gives the lower half bound.
        assert_eq!(
            wait_of(p.decide(&facts(502), 1, 0.0)),
            Duration::from_millis(500)
        );
        let third = wait_of(p.decide(&facts(502), 3, 0.999));
        assert!(
            third > Duration::from_millis(3990) && third <= secs(4),
            "{third:?}"
        );
        // 429 with Retry-After honours it exactly.
        let f = ResponseFacts {
            retry_after: Some(7),
            ..facts(429)
        };
        assert_eq!(
            p.decide(&f, 1, 0.5),
            Verdict::Retry {
                wait: secs(7),
                cause: RetryCause::TooManyRequests
            }
        );
        // 429 without headers: a minute.
        assert_eq!(wait_of(p.decide(&facts(429), 1, 0.5)), secs(60));
        // Primary: until the reset, plus a second of slack.
        let f = ResponseFacts {
            ratelimit_remaining: Some(0),
            ratelimit_reset: Some(1_000_042),
            ..facts(403)
        };
        assert_eq!(
            p.decide(&f, 1, 0.5),
            Verdict::Retry {
                wait: secs(43),
                cause: RetryCause::PrimaryRateLimit
            }
        );
        // Secondary without Retry-After: at least a minute, growing.
        let f = ResponseFacts {
            message: "you have exceeded a secondary rate limit".into(),
            ..facts(403)
        };
        assert_eq!(
            p.decide(&f, 1, 0.5),
            Verdict::Retry {
                wait: secs(60),
                cause: RetryCause::SecondaryRateLimit
            }
        );
        assert_eq!(wait_of(p.decide(&f, 2, 0.5)), secs(120));
        // Secondary with Retry-After: the header rules.
        let f = ResponseFacts {
            retry_after: Some(3),
            ..f
        };
        assert_eq!(wait_of(p.decide(&f, 1, 0.5)), secs(3));
        // Plain 403, 404, 422: not retried.
        for status in [400, 401, 403, 404, 410, 422] {
            assert!(
                matches!(p.decide(&facts(status), 1, 0.5), Verdict::GiveUp(_)),
                "{status}"
            );
        }
        // Permission problem: never retried.
        let f = ResponseFacts {
            message: "resource not accessible by integration".into(),
            ..facts(403)
        };
        assert!(matches!(p.decide(&f, 1, 0.5), Verdict::GiveUp(_)));
        // Out of attempts.
        assert!(matches!(p.decide(&facts(503), 5, 0.5), Verdict::GiveUp(_)));
        // A reset an hour away is not waited for.
        let f = ResponseFacts {
            ratelimit_remaining: Some(0),
            ratelimit_reset: Some(1_003_600),
            ..facts(403)
        };
        match p.decide(&f, 1, 0.5) {
            Verdict::GiveUp(why) => assert_eq!(
                why,
                GiveUp::WaitTooLong {
                    cause: RetryCause::PrimaryRateLimit,
                    wait: Duration::from_secs(3601),
                    max: p.max_wait
                }
            ),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn backoff_is_capped() {
        let p = RetryPolicy::default();
        let capped = p.backoff(30, 0.999);
        assert!(capped > Duration::from_millis(29_900) && capped <= Duration::from_secs(30));
        assert_eq!(p.backoff(30, 0.0), Duration::from_secs(15));
    }

    #[test]
    fn pacer_records_unscaled_waits() {
        let pacer = Pacer::new(0.0);
        pacer.sleep(Duration::from_secs(60));
        assert_eq!(pacer.waits(), vec![Duration::from_secs(60)]);
    }
}
