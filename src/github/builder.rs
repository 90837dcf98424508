//! Configuring a [`GitHubClient`]: from the Actions environment or by hand.

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use super::client::GitHubClient;
use super::retry::{Pacer, RetryPolicy};
use super::types::RepoId;
use crate::settings::{
    ClientSettings, DEFAULT_API_URL, DEFAULT_SERVER_URL, REQUEST_DEADLINE, RUN_DEADLINE,
    SettingsError, Token, parse_http_url,
};

/// Builds a [`GitHubClient`]; [`GitHubClientBuilder::from_settings`] takes what the
/// environment said.
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
    /// The client the settings describe (`GITHUB_API_URL`, `GITHUB_SERVER_URL`,
    /// `GITHUB_TOKEN`, `GITHUB_REPOSITORY` and the deadlines), its waits scaled by
    /// `time_scale` (a knob; 1.0 unless the tests set it).
    pub fn from_settings(settings: &ClientSettings, time_scale: Option<f64>) -> Self {
        GitHubClientBuilder {
            api_url: settings.api_url.clone(),
            server_url: settings.server_url.clone(),
            token: settings.token.clone(),
            repo: settings.repo.clone(),
            time_scale: time_scale.unwrap_or(1.0),
            request_deadline: settings.request_deadline,
            run_deadline: settings.run_deadline,
            ..GitHubClientBuilder::default()
        }
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

    pub fn build(self) -> Result<GitHubClient, SettingsError> {
        let api_url = self.api_url.trim().trim_end_matches('/').to_owned();
        let api_uri = parse_http_url("GITHUB_API_URL", &api_url)?;
        let server_url = self.server_url.trim().trim_end_matches('/').to_owned();
        parse_http_url("GITHUB_SERVER_URL", &server_url)?;
        let repo = self.repo.ok_or(SettingsError::Unset {
            name: "GITHUB_REPOSITORY",
            fix: "run inside GitHub Actions, or set it to `owner/name`",
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
            authorization: self
                .token
                .as_ref()
                .map(|t| format!("Bearer {}", t.secret())),
            api_uri,
            api_url,
            server_url,
            secret: self.token.map(|t| t.secret().to_owned()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_settings() {
        let (settings, _) = crate::settings::Settings::from_vars(
            [
                ("GITHUB_API_URL", "https://ghe.example.com/api/v3/"),
                ("GITHUB_SERVER_URL", "https://ghe.example.com"),
                ("GITHUB_TOKEN", "ghs_x\n"),
                ("GITHUB_REPOSITORY", "octo-org/widgets"),
            ],
            "/".into(),
        );
        let client =
            GitHubClientBuilder::from_settings(settings.github.client().unwrap(), Some(0.001))
                .build()
                .unwrap();
        assert_eq!(client.api_url(), "https://ghe.example.com/api/v3");
        assert_eq!(client.server_url(), "https://ghe.example.com");
        assert_eq!(client.repo().to_string(), "octo-org/widgets");
        assert_eq!(client.pacer.scale(), 0.001);
        assert_eq!(client.run_deadline, RUN_DEADLINE);
        assert_eq!(client.request_deadline, REQUEST_DEADLINE);

        let err = GitHubClientBuilder::default()
            .api_url("ftp://x")
            .repo(RepoId::new("a", "b"))
            .build()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("GITHUB_API_URL=`ftp://x`: is not an http(s) URL"),
            "{err}"
        );
        let err = GitHubClientBuilder::default().build().unwrap_err();
        assert_eq!(err.to_string(), "GITHUB_REPOSITORY is not set");
    }
}
