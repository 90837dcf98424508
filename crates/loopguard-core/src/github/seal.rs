//! The seal on CI's state: an HMAC-SHA256 over the exact state line loopguard wrote, with
//! a key from a secret the agent's own workflows do not get (`LOOPGUARD_STATE_KEY`, see
//! docs/contract.md, "Signing the state"). A token that can edit loopguard's comment can
//! write any state; it cannot write one that this key seals. The seal binds the state to
//! its repository and PR, so a state sealed for another PR does not verify here.
//!
//! What is sealed is the state line's base64 payload as it stands in the comment: the
//! bytes are what was written, so nothing is serialised again to check them.

use sha2::{Digest, Sha256};

/// Fewest bytes a key may have: 32, what `openssl rand -hex 32` prints (64 characters).
pub const MIN_KEY_BYTES: usize = 32;
/// SHA-256's block size, which HMAC pads the key to.
const BLOCK: usize = 64;
/// What a seal is over, before the payload: the format and its version.
const DOMAIN: &str = "loopguard state seal v1";

/// The key. Never printed: its `Debug` says only that there is one.
#[derive(Clone, PartialEq, Eq)]
pub struct StateKey {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(…)")
    }
}

/// Why a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the key is {len} bytes, fewer than {MIN_KEY_BYTES}")]
    TooShort { len: usize },
}

impl StateKey {
    /// The key from its text (surrounding whitespace dropped: a secret pasted with a final
    /// newline is the same key). `Ok(None)` when there is none.
    pub fn from_text(text: &str) -> Result<Option<StateKey>, KeyError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if text.len() < MIN_KEY_BYTES {
            return Err(KeyError::TooShort { len: text.len() });
        }
        Ok(Some(StateKey {
            bytes: text.as_bytes().to_vec(),
        }))
    }
}

/// What a state is sealed for: its repository (`owner/name`, compared without case, as
/// GitHub names it) and its PR.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    pub repo: &'a str,
    pub pr: u64,
}

impl Binding<'_> {
    fn message(&self, payload: &str) -> String {
        format!(
            "{DOMAIN}\n{}\n{}\n{payload}",
            self.repo.to_ascii_lowercase(),
            self.pr
        )
    }
}

/// The seal of `payload` (the state line's base64) for `binding`: 64 hex digits.
pub fn seal(key: &StateKey, binding: Binding<'_>, payload: &str) -> String {
    hex(&hmac_sha256(
        &key.bytes,
        binding.message(payload).as_bytes(),
    ))
}

/// Whether `seal` is `payload`'s seal for `binding` (compared in constant time).
pub fn verifies(key: &StateKey, binding: Binding<'_>, payload: &str, seal_hex: &str) -> bool {
    let want = hmac_sha256(&key.bytes, binding.message(payload).as_bytes());
    match unhex(seal_hex) {
        Some(got) if got.len() == want.len() => {
            got.iter().zip(want).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
        }
        _ => false,
    }
}

/// HMAC (RFC 2104) with SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test cases 1, 2 and 6 of RFC 4231 (6: a key longer than the block).
        let cases: [(&[u8], &[u8], &str); 3] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, message, want) in cases {
            assert_eq!(hex(&hmac_sha256(key, message)), want);
        }
    }

    fn key(text: &str) -> StateKey {
        StateKey::from_text(text).unwrap().unwrap()
    }

    #[test]
    fn a_seal_verifies_for_its_state_repository_and_pr_only() {
        let k = key(&"k".repeat(64));
        let here = Binding {
            repo: "Octo-Org/widgets",
            pr: 7,
        };
        let s = seal(&k, here, "eyJwciI6N30=");
        assert_eq!(s.len(), 64);
        assert!(verifies(&k, here, "eyJwciI6N30=", &s));
        let same_repo = Binding {
            repo: "octo-org/WIDGETS",
            pr: 7,
        };
        assert!(verifies(&k, same_repo, "eyJwciI6N30=", &s));
        let other_pr = Binding { pr: 8, ..here };
        let other_repo = Binding {
            repo: "octo-org/gadgets",
            ..here
        };
        for (binding, payload) in [
            (here, "eyJwciI6OH0="),
            (other_pr, "eyJwciI6N30="),
            (other_repo, "eyJwciI6N30="),
        ] {
            assert!(!verifies(&k, binding, payload, &s));
        }
        assert!(!verifies(&key(&"j".repeat(64)), here, "eyJwciI6N30=", &s));
        for bad in [
            "",
            "zz",
            &s[..62],
            &format!("{s}00"),
            &s.to_uppercase()[..63],
        ] {
            assert!(!verifies(&k, here, "eyJwciI6N30=", bad), "{bad}");
        }
    }

    #[test]
    fn keys_are_long_enough_and_never_shown() {
        assert_eq!(StateKey::from_text("  \n"), Ok(None));
        assert_eq!(
            StateKey::from_text("short"),
            Err(KeyError::TooShort { len: 5 })
        );
        let k = key(&format!(" {}\n", "a".repeat(32)));
        assert_eq!(k, key(&"a".repeat(32)));
        assert_eq!(format!("{k:?}"), "StateKey(…)");
    }
}
