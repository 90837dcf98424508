//! Configuring a [`GitHubClient`]: from the Actions environment or by hand.

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use http::Uri;

use super::client::{
    DEFAULT_API_URL, DEFAULT_SERVER_URL, GitHubClient, REQUEST_DEADLINE, REQUEST_DEADLINE_ENV,
    RUN_DEADLINE, RUN_DEADLINE_ENV, TIME_SCALE_ENV,
};
use super::retry::{Pacer, RetryPolicy};
use super::token::Token;
use super::types::RepoId;
use crate::error::Error;

/// Builds a [`GitHubClient`]; [`GitHubClientBuilder::from_env`] reads the Actions variables.
#[derive(Debug, Clone)]
pub struct GitHubClientBuilder {
    api_url: String,
    server_url: String,
    token: Option<Token>,
    repo: Option<RepoId>,
    dry_run: bool,
    time_scale: f64,
    policy: RetryPolicy,
    page_cap: usize,
    request_deadline: Duration,
    run_deadline: Duration,
}

impl Default for GitHubClientBuilder {
    fn default() -> Self {
        GitHubClientBuilder {
            api_url: DEFAULT_API_URL.into(),
            server_url: DEFAULT_SERVER_URL.into(),
            token: None,
            repo: None,
            dry_run: false,
            time_scale: 1.0,
            policy: RetryPolicy::default(),
            page_cap: 50,
            request_deadline: REQUEST_DEADLINE,
            run_deadline: RUN_DEADLINE,
        }
    }
}

impl GitHubClientBuilder {
    /// `GITHUB_API_URL`, `GITHUB_SERVER_URL`, `GITHUB_TOKEN`, `GITHUB_REPOSITORY`,
    /// `LOOPGUARD_CI_DEADLINE`, `LOOPGUARD_GITHUB_REQUEST_DEADLINE` and
    /// `LOOPGUARD_GITHUB_TIME_SCALE`, read through `var`; unset ones keep their defaults.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Self, Error> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let mut builder = GitHubClientBuilder::default();
        if let Some(url) = set("GITHUB_API_URL") {
            builder.api_url = url;
        }
        if let Some(url) = set("GITHUB_SERVER_URL") {
            builder.server_url = url;
        }
        if let Some(raw) = var("GITHUB_TOKEN") {
            builder.token = Some(Token::new(&raw)?);
        }
        if let Some(repo) = set("GITHUB_REPOSITORY") {
            builder.repo = Some(
                repo.parse()
                    .map_err(|e| Error::input(format!("GITHUB_REPOSITORY: {e}")))?,
            );
        }
        if let Some(d) = set(RUN_DEADLINE_ENV) {
            builder.run_deadline = deadline(RUN_DEADLINE_ENV, &d, "10m")?;
        }
        if let Some(d) = set(REQUEST_DEADLINE_ENV) {
            builder.request_deadline = deadline(REQUEST_DEADLINE_ENV, &d, "30s")?;
        }
        if let Some(scale) = set(TIME_SCALE_ENV) {
            builder.time_scale = scale
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| {
                    Error::input(format!(
                        "{TIME_SCALE_ENV}: expected a number >= 0, got `{scale}`"
                    ))
                })?;
        }
        Ok(builder)
    }

    pub fn api_url(mut self, url: impl Into<String>) -> Self {
        self.api_url = url.into();
        self
    }

    pub fn server_url(mut self, url: impl Into<String>) -> Self {
        self.server_url = url.into();
        self
    }

    pub fn token(mut self, token: Token) -> Self {
        self.token = Some(token);
        self
    }

    pub fn repo(mut self, repo: RepoId) -> Self {
        self.repo = Some(repo);
        self
    }

    /// Record writes instead of sending them; reads still happen.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Multiplies every wait (retry backoff, rate-limit waits, write gap).
    pub fn time_scale(mut self, scale: f64) -> Self {
        self.time_scale = scale;
        self
    }

    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Longest one request may take, however slowly the answer comes.
    pub fn request_deadline(mut self, d: Duration) -> Self {
        self.request_deadline = d;
        self
    }

    /// Longest all requests and waits together may take.
    pub fn run_deadline(mut self, d: Duration) -> Self {
        self.run_deadline = d;
        self
    }

    /// Most pages read per listing.
    pub fn page_cap(mut self, pages: usize) -> Self {
        self.page_cap = pages.max(1);
        self
    }

    pub fn build(self) -> Result<GitHubClient, Error> {
        let api_url = self.api_url.trim().trim_end_matches('/').to_owned();
        let api_uri = parse_http_url("GITHUB_API_URL", &api_url)?;
        let server_url = self.server_url.trim().trim_end_matches('/').to_owned();
        parse_http_url("GITHUB_SERVER_URL", &server_url)?;
        let repo = self.repo.ok_or_else(|| {
            Error::input("GITHUB_REPOSITORY is not set\nhint: run inside GitHub Actions, or set it to `owner/name`")
        })?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed by hand: the token must not follow them off the API host.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_global(Some(self.request_deadline))
            .build()
            .into();
        Ok(GitHubClient {
            agent,
            authorization: self.token.as_ref().map(|t| format!("Bearer {}", t.0)),
            api_uri,
            api_url,
            server_url,
            secret: self.token.map(|t| t.0),
            repo,
            dry_run: self.dry_run,
            planned: Mutex::new(Vec::new()),
            policy: self.policy,
            pacer: Pacer::new(self.time_scale),
            page_cap: self.page_cap,
            requests: AtomicU64::new(0),
            deadline: Instant::now() + self.run_deadline,
            run_deadline: self.run_deadline,
            request_deadline: self.request_deadline,
        })
    }
}

impl GitHubClient {
    /// A builder with github.com defaults.
    pub fn builder() -> GitHubClientBuilder {
        GitHubClientBuilder::default()
    }
}

/// A deadline from the environment: a duration such as `90s`, `10m` or `1h`, more than 0.
fn deadline(name: &str, text: &str, example: &str) -> Result<Duration, Error> {
    let parsed = crate::config::parse_duration(text)
        .and_then(|d| {
            Duration::try_from(d)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| "must be more than 0".to_owned())
        })
        .map_err(|why| {
            Error::input(format!(
                "{name}: `{text}`: {why}\nhint: write a duration such as {example}, 90s or 1h"
            ))
        })?;
    Ok(parsed)
}

fn parse_http_url(name: &str, url: &str) -> Result<Uri, Error> {
    let uri: Uri = url
        .parse()
        .map_err(|_| Error::input(format!("{name}: not a URL: `{url}`")))?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("http" | "https"), Some(_)) => Ok(uri),
        _ => Err(Error::input(format!(
            "{name}: expected an http(s) URL such as https://api.github.com, got `{url}`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn environment() {
        let client = GitHubClientBuilder::from_lookup(lookup(&[
            ("GITHUB_API_URL", "https://ghe.example.com/api/v3/"),
            ("GITHUB_SERVER_URL", "https://ghe.example.com"),
            ("GITHUB_TOKEN", "ghs_x\n"),
            ("GITHUB_REPOSITORY", "octo-org/widgets"),
            (TIME_SCALE_ENV, "0.001"),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(client.api_url(), "https://ghe.example.com/api/v3");
        assert_eq!(client.server_url(), "https://ghe.example.com");
        assert_eq!(client.repo().to_string(), "octo-org/widgets");
        assert_eq!(client.pacer.scale(), 0.001);

        let defaults = GitHubClientBuilder::from_lookup(lookup(&[("GITHUB_REPOSITORY", "a/b")]))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(defaults.api_url(), DEFAULT_API_URL);
        assert_eq!(defaults.pacer.scale(), 1.0);
        assert_eq!(defaults.run_deadline, RUN_DEADLINE);
        assert_eq!(defaults.request_deadline, Duration::from_secs(30));

        let slow = GitHubClientBuilder::from_lookup(lookup(&[
            ("GITHUB_REPOSITORY", "a/b"),
            (RUN_DEADLINE_ENV, "20m"),
            (REQUEST_DEADLINE_ENV, "90"),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(slow.run_deadline, Duration::from_secs(1200));
        assert_eq!(slow.request_deadline, Duration::from_secs(90));

        let errors = [
            (
                vec![(TIME_SCALE_ENV, "fast")],
                "LOOPGUARD_GITHUB_TIME_SCALE: expected a number",
            ),
            (
                vec![("GITHUB_REPOSITORY", "nope")],
                "GITHUB_REPOSITORY: expected `owner/name`",
            ),
            (vec![("GITHUB_TOKEN", "")], "GITHUB_TOKEN is empty"),
            (
                vec![(RUN_DEADLINE_ENV, "soon")],
                "LOOPGUARD_CI_DEADLINE: `soon`: invalid duration",
            ),
            (
                vec![(REQUEST_DEADLINE_ENV, "0s")],
                "LOOPGUARD_GITHUB_REQUEST_DEADLINE: `0s`: must be more than 0",
            ),
        ];
        for (vars, want) in errors {
            let err = GitHubClientBuilder::from_lookup(lookup(&vars)).unwrap_err();
            assert!(err.to_string().starts_with(want), "{err}");
            assert_eq!(err.exit_code(), 2);
        }
        let err = GitHubClientBuilder::default()
            .api_url("ftp://x")
            .repo(RepoId::new("a", "b"))
            .build()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("GITHUB_API_URL: expected an http(s) URL"),
            "{err}"
        );
        let err = GitHubClientBuilder::default().build().unwrap_err();
        assert!(
            err.to_string().starts_with("GITHUB_REPOSITORY is not set"),
            "{err}"
        );
    }
}
