//! The API token, kept out of every output.

use crate::settings::SettingsError;

/// The API token. It is only ever sent to the API host, never to a redirect target; it
/// has no `Display`, its `Debug` is redacted, and error messages are scrubbed of it.
#[derive(Clone)]
pub struct Token(pub(super) String);

impl Token {
    /// Trims surrounding whitespace (secrets read from files end in a newline) and refuses
    /// characters that cannot be in a header, without echoing the value.
    pub fn new(raw: &str) -> Result<Self, SettingsError> {
        let token = raw.trim();
        if token.is_empty() {
            return Err(SettingsError::Secret {
                name: "GITHUB_TOKEN",
                problem: "is empty",
                fix: "set it from the action's `token` input (default `${{ github.token }}`)",
            });
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(SettingsError::Secret {
                name: "GITHUB_TOKEN",
                problem: "holds characters a token cannot have (inner whitespace or non-ASCII)",
                fix: "check the `token` input",
            });
        }
        Ok(Token(token.to_owned()))
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}
