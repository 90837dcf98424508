//! What one watched path holds ([`Seen`]), read at most once per change of its metadata
//! ([`Stat`]): the fast path of every snapshot after the first.

use std::fs::{self, Metadata};
use std::io::ErrorKind;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::safe_fs::{self, Follow};

/// Most bytes of a watched file read for its digest: a hook, a config, an agent's
/// settings are small; a larger one is digested by its first bytes and its size (the
/// size is in its [`Stat`], which a change of it changes).
const READ_LIMIT: u64 = 1 << 20;

/// A path's metadata, compared to tell that the path did not change since it was read.
/// `ctime` is the kernel's (no process sets it back), so a write that keeps the size and
/// puts the modification time back still changes it; an inode number tells a file
/// replaced by a rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    /// Seconds and nanoseconds.
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    pub(super) fn of(meta: &Metadata) -> Stat {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stat {
                dev: meta.dev(),
                ino: meta.ino(),
                mode: meta.mode(),
                size: meta.size(),
                mtime: (meta.mtime(), meta.mtime_nsec()),
                ctime: (meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let at = |t: std::io::Result<std::time::SystemTime>| {
                t.ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or((0, 0), |d| {
                        (d.as_secs() as i64, i64::from(d.subsec_nanos()))
                    })
            };
            Stat {
                dev: 0,
                ino: 0,
                mode: u32::from(meta.permissions().readonly()),
                size: meta.len(),
                mtime: at(meta.modified()),
                ctime: at(meta.created()),
            }
        }
    }

    /// Whether what was read with this metadata may be trusted while the metadata stays
    /// the same: not when the path changed within `margin` seconds of `taken` (the
    /// snapshot's time), since file times tick coarsely and a write in the same tick as
    /// the read would keep them (git's "racy" entries).
    pub(super) fn settled(&self, taken: (i64, i64), margin: i64) -> bool {
        let before = (taken.0 - margin, taken.1);
        self.mtime < before && self.ctime < before
    }
}

/// What a watched path holds, as far as guarding goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Seen {
    /// Nothing there.
    Absent,
    /// A regular file: the SHA-256 of its content (of its first MiB when larger), and
    /// whether anyone may run it.
    File { sha256: String, executable: bool },
    /// A symbolic link, and what is at its end.
    Link { target: String, to: Box<Seen> },
    /// A directory (where a directory is what the store keeps there).
    Dir,
    /// A FIFO, a device or a socket: never opened.
    Special,
    /// The names in a directory (the store's markers), sorted.
    Names { names: Vec<String> },
    /// The keys of a git config file that decide which hooks run, in the file's order
    /// (lower-case section and key, the subsection as written: `core.hookspath`,
    /// `includeif.gitdir:~/work/.path`), with their values.
    Keys { keys: Vec<(String, String)> },
    /// A file that is there and could not be read: why.
    Unreadable { why: String },
}

impl Seen {
    /// A short word for what is there, for people.
    pub fn word(&self) -> &'static str {
        match self {
            Seen::Absent => "absent",
            Seen::File { .. } | Seen::Keys { .. } => "a file",
            Seen::Link { .. } => "a symbolic link",
            Seen::Dir | Seen::Names { .. } => "a directory",
            Seen::Special => "a FIFO, device or socket",
            Seen::Unreadable { .. } => "unreadable",
        }
    }
}

/// How a path is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// Its content digest (through a symbolic link, which is said).
    Digest,
    /// The names of its entries (a directory of markers).
    Names,
    /// A directory of the store: there, and a directory of its own (not a link).
    Dir,
    /// The keys of a git config file that decide which hooks run (a file that is not
    /// there has none).
    GitConfig,
}

/// The metadata of what `how` reads at `path` (`None`: nothing there): a file's through
/// a symbolic link (its content is what is read, and a link pointed elsewhere ends at
/// another inode), a directory's own.
pub(super) fn stat(path: &Path, how: Read) -> Option<Stat> {
    let meta = match how {
        Read::GitConfig | Read::Digest => fs::metadata(path),
        Read::Names | Read::Dir => fs::symlink_metadata(path),
    };
    meta.ok().map(|m| Stat::of(&m))
}

/// Reads `path` as `how` says.
pub(super) fn read(path: &Path, how: Read) -> Seen {
    let meta = match how {
        Read::GitConfig => fs::metadata(path),
        Read::Digest | Read::Names | Read::Dir => fs::symlink_metadata(path),
    };
    let meta = match meta {
        Ok(m) => m,
        // Nothing there, or a path through a file (`core.hooksPath=/dev/null`).
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return match how {
                Read::GitConfig => Seen::Keys { keys: Vec::new() },
                Read::Digest | Read::Names | Read::Dir => Seen::Absent,
            };
        }
        Err(e) => return Seen::Unreadable { why: e.to_string() },
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target =
            fs::read_link(path).map_or_else(|e| e.to_string(), |t| t.display().to_string());
        let to = match how {
            Read::Digest => digest(path, Follow::Yes, fs::metadata(path)),
            Read::Names | Read::Dir | Read::GitConfig => Seen::Special,
        };
        return Seen::Link {
            target,
            to: Box::new(to),
        };
    }
    match how {
        Read::Digest => digest(path, Follow::No, Ok(meta)),
        Read::GitConfig if kind.is_file() => {
            match safe_fs::read_bounded(path, READ_LIMIT, Follow::Yes) {
                Ok(Some(bytes)) => super::gitconfig::keys_of(&bytes),
                Ok(None) => Seen::Keys { keys: Vec::new() },
                Err(e) => Seen::Unreadable { why: e.to_string() },
            }
        }
        Read::Names if kind.is_dir() => names(path),
        Read::Dir if kind.is_dir() => Seen::Dir,
        // Not what is expected there: said by its kind (a file by its digest).
        Read::GitConfig | Read::Names | Read::Dir => {
            if kind.is_dir() {
                Seen::Dir
            } else if kind.is_file() {
                digest(path, Follow::No, Ok(meta))
            } else {
                Seen::Special
            }
        }
    }
}

/// The digest of a regular file (bounded; a FIFO or device is never opened).
fn digest(path: &Path, follow: Follow, meta: std::io::Result<Metadata>) -> Seen {
    let meta = match meta {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Seen::Absent;
        }
        Err(e) => return Seen::Unreadable { why: e.to_string() },
    };
    if !meta.is_file() {
        return if meta.is_dir() {
            Seen::Dir
        } else {
            Seen::Special
        };
    }
    let bytes = if meta.len() > READ_LIMIT {
        safe_fs::read_range(path, 0, READ_LIMIT).map(Some)
    } else {
        safe_fs::read_bounded(path, READ_LIMIT, follow)
    };
    match bytes {
        Ok(Some(bytes)) => Seen::File {
            sha256: hex(&Sha256::digest(&bytes)),
            executable: executable(&meta),
        },
        Ok(None) => Seen::Absent,
        Err(e) => Seen::Unreadable { why: e.to_string() },
    }
}

fn executable(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

/// The names in a directory, sorted (those starting with `.` too: a marker kept aside is
/// named so).
fn names(dir: &Path) -> Seen {
    match fs::read_dir(dir) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            Seen::Names { names }
        }
        Err(e) => Seen::Unreadable { why: e.to_string() },
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
