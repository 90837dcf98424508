//! Repository contents and the token's identity.

use base64::Engine;

use super::client::{Call, GitHubClient};
use super::encode;
use super::error::GitHubError;
use super::permissions::Permission;
use super::types::{ContentFile, DirEntry, User};

impl GitHubClient {
    /// A file's bytes at `git_ref` (branch, tag or sha) — `GET /repos/{o}/{r}/contents/{path}
    /// ?ref=…`, 1 request (+1 for files over 1 MB, which GitHub only serves raw). `None`
    /// when the file or the ref does not exist.
    pub fn file_at(&self, path: &str, git_ref: &str) -> Result<Option<Vec<u8>>, GitHubError> {
        let call = self.contents_call(path, git_ref);
        let reply = self.send(&call, &[404])?;
        if reply.status == 404 {
            return Ok(None);
        }
        let value: serde_json::Value = self.decode(&call, &reply)?;
        if value.is_array() {
            return Err(GitHubError::NotAFile {
                path: path.to_owned(),
                git_ref: git_ref.to_owned(),
                kind: "directory".to_owned(),
            });
        }
        let file: ContentFile = self.decode(&call, &reply)?;
        if file.kind != "file" && !file.kind.is_empty() {
            return Err(GitHubError::NotAFile {
                path: path.to_owned(),
                git_ref: git_ref.to_owned(),
                kind: file.kind,
            });
        }
        if file.encoding == "base64" {
            let packed: String = file.content.split_whitespace().collect();
            return base64::engine::general_purpose::STANDARD
                .decode(packed)
                .map(Some)
                .map_err(|e| GitHubError::BadContent {
                    request: format!("GET {}/contents/{path}", self.repo_path()),
                    reason: e.to_string(),
                });
        }
        if file.size == 0 && file.content.is_empty() {
            return Ok(Some(Vec::new()));
        }
        // Over 1 MB the JSON carries no content (`encoding: none`): ask for the raw bytes.
        let raw = Call {
            accept: "application/vnd.github.raw+json",
            ..call
        };
        let reply = self.send(&raw, &[404])?;
        Ok((reply.status != 404).then(|| reply.body.to_vec()))
    }

    /// The paths of the files directly in directory `path` at `git_ref` — `GET
    /// /repos/{o}/{r}/contents/{path}?ref=…`, 1 request. Empty when the directory or the
    /// ref does not exist.
    pub fn files_in_dir(&self, path: &str, git_ref: &str) -> Result<Vec<String>, GitHubError> {
        let call = self.contents_call(path, git_ref);
        let reply = self.send(&call, &[404])?;
        if reply.status == 404 {
            return Ok(Vec::new());
        }
        let value: serde_json::Value = self.decode(&call, &reply)?;
        if !value.is_array() {
            return Ok(Vec::new()); // a file, not a directory
        }
        let entries: Vec<DirEntry> = self.decode(&call, &reply)?;
        Ok(entries
            .into_iter()
            .filter(|e| e.kind == "file")
            .map(|e| e.path)
            .collect())
    }

    /// `GET /repos/{o}/{r}/contents/{path}?ref={git_ref}`.
    fn contents_call(&self, path: &str, git_ref: &str) -> Call {
        let url = format!(
            "{}/contents/{}?ref={}",
            self.repo_path(),
            encode::file_path(path),
            encode::component(git_ref)
        );
        Call::get(url, Permission::ContentsRead)
    }

    /// The token's own login, for tokens that have one: comments written with a personal
    /// token are authored by its user. A workflow's installation token (`ghs_`) has none,
    /// and is not asked.
    pub fn own_login(&self) -> Result<Option<String>, GitHubError> {
        if self
            .secret
            .as_deref()
            .is_some_and(|t| t.starts_with("ghs_"))
        {
            return Ok(None);
        }
        self.authenticated_login()
    }

    /// The token's login — `GET /user`, 1 request. `None` for tokens that have no user
    /// (a workflow's installation token answers 403): their comments are authored by
    /// `github-actions[bot]`.
    pub fn authenticated_login(&self) -> Result<Option<String>, GitHubError> {
        let call = Call::get("/user", Permission::None);
        let reply = self.send(&call, &[401, 403, 404])?;
        if reply.status != 200 {
            return Ok(None);
        }
        let user: User = self.decode(&call, &reply)?;
        Ok(Some(user.login).filter(|l| !l.is_empty()))
    }
}
