//! A branch's key in the store: its name's bytes as a file name.

use std::fmt::Write as _;

/// Longest key kept as the escaped name; a longer one is cut and hashed
/// ([`branch_key_bytes`]). File names hold 255 bytes, and the longest name the store
/// makes of a key adds under 60 (`.jsonl.corrupt-<time>`, a file set aside).
pub const MAX_KEY_BYTES: usize = 160;

/// A branch name as a file name: its bytes, safe ones kept, every other byte %-escaped
/// (`%` included), so the mapping is one-to-one: `feature/x` and `feature-x`, or two names
/// that differ only in bytes that are not UTF-8, stay distinct. `None` is a detached HEAD.
/// An escaped name longer than [`MAX_KEY_BYTES`] (a branch of 30 CJK characters, or of
/// many slashes) is its first 80 bytes (whole escapes), `~`, and the SHA-256 of the
/// name's bytes: every branch has a file, and `~` is never part of an escaped name.
pub fn branch_key_bytes(branch: Option<&[u8]>) -> String {
    let Some(branch) = branch else {
        return "(detached)".to_owned();
    };
    let mut out = String::with_capacity(branch.len());
    for &b in branch {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    if out.starts_with('.') {
        out.replace_range(0..1, "%2E");
    }
    if out.len() > MAX_KEY_BYTES {
        use sha2::{Digest, Sha256};
        let mut cut = 80;
        // Not inside an escape: `%` and its two digits stay together.
        while out[..cut].rfind('%').is_some_and(|p| p + 3 > cut) {
            cut -= 1;
        }
        let digest = Sha256::digest(branch);
        let mut key = out[..cut].to_owned();
        key.push('~');
        for b in digest {
            let _ = write!(key, "{b:02x}");
        }
        return key;
    }
    out
}

/// [`branch_key_bytes`] of a UTF-8 name.
pub fn branch_key(branch: Option<&str>) -> String {
    branch_key_bytes(branch.map(str::as_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_keys_are_one_to_one_and_safe() {
        assert_eq!(branch_key(Some("main")), "main");
        assert_eq!(branch_key(Some("feature/x")), "feature%2Fx");
        assert_ne!(branch_key(Some("feature/x")), branch_key(Some("feature-x")));
        assert_eq!(branch_key(Some("..")), "%2E.");
        assert_eq!(branch_key(Some("a%2Fb")), "a%252Fb");
        assert_eq!(branch_key(None), "(detached)");
        assert_eq!(branch_key(Some("(detached)")), "%28detached%29");
        let (a, b) = (b"side\xff".as_slice(), b"side\xfe".as_slice());
        assert_eq!(branch_key_bytes(Some(a)), "side%FF");
        assert_ne!(branch_key_bytes(Some(a)), branch_key_bytes(Some(b)));

        // Long names: one file each, within a file name's 255 bytes.
        let cjk = "分支".repeat(15);
        let slashes = format!("{}x", "a/".repeat(125));
        for name in [cjk.as_str(), slashes.as_str()] {
            let key = branch_key(Some(name));
            assert!(key.len() <= MAX_KEY_BYTES, "{key}");
            assert!(key.contains('~'), "{key}");
            assert_ne!(key, branch_key(Some(&format!("{name}y"))));
        }
        let short = "a".repeat(MAX_KEY_BYTES);
        assert_eq!(branch_key(Some(&short)), short);
        // A cut never splits an escape.
        let key = branch_key(Some(&"é".repeat(40)));
        let (head, _) = key.split_once('~').unwrap();
        assert!(head.ends_with("%A9") || head.ends_with("%C3"), "{key}");
    }
}
