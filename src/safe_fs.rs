//! Files in places an agent can write to: the store under the git dir and the config in the
//! working tree. Anything may be there instead of the file loopguard wrote: a symbolic link
//! out of the store, a FIFO (an `open` that waits forever), a device (`/dev/zero`, a read
//! that never ends), a file of gigabytes. So:
//!
//! - every read is bounded ([`read_bounded`]) and takes only regular files: the type is
//!   checked before opening, the open does not block (`O_NONBLOCK`) and the type is checked
//!   again on the open file (it may have been swapped in between);
//! - in the store nothing follows a symbolic link ([`Follow::No`]: `O_NOFOLLOW` on the
//!   last component, and directories that are links are refused); files are replaced by
//!   rename ([`write_atomic`]), which replaces a link instead of writing through it, and
//!   appended to only when they are regular files of the store's own ([`append`]);
//! - what is refused is a [`Refused`] error that says what was there, so the caller can set
//!   it aside and say so;
//! - what is written to last is made durable: [`write_atomic`] syncs the file before the
//!   rename and its directory after it, [`append`] syncs what it appended (and the
//!   directory of a file it created), [`ensure_dir_durably`] the parent of a directory it
//!   created. A state renamed into place survives a crash of the machine, not only of the
//!   process.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

/// Whether a path's last component may be a symbolic link to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// The store: a link is refused.
    No,
    /// The config in the working tree may be a link to a regular file elsewhere.
    Yes,
}

/// Why a file was not used (wrapped in an `io::Error` of kind `InvalidData`).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

fn refused(path: &Path, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        Refused(format!("{}: {why}; refused", path.display())),
    )
}

/// Whether `e` is a refusal (something other than a regular file of a sane size was
/// there), as opposed to the file system failing.
pub fn is_refusal(e: &io::Error) -> bool {
    e.get_ref()
        .is_some_and(<dyn std::error::Error + Send + Sync + 'static>::is::<Refused>)
}

/// What is at a path, for messages.
fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

fn check_regular(path: &Path, meta: &fs::Metadata, follow: Follow) -> io::Result<()> {
    if meta.file_type().is_symlink() && follow == Follow::No {
        return Err(refused(
            path,
            "is a symbolic link (loopguard never follows links in its store)",
        ));
    }
    if !meta.is_file() {
        return Err(refused(
            path,
            format!("is not a regular file but {}", kind_of(meta)),
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn flags(follow: Follow) -> i32 {
    let nofollow = if follow == Follow::No {
        libc::O_NOFOLLOW
    } else {
        0
    };
    libc::O_NONBLOCK | nofollow
}

fn open_checked(path: &Path, options: &mut OpenOptions, follow: Follow) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(flags(follow));
    }
    let file = match options.open(path) {
        Ok(f) => f,
        // O_NOFOLLOW on a link: ELOOP.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) && follow == Follow::No => {
            return Err(refused(
                path,
                "is a symbolic link (loopguard never follows links in its store)",
            ));
        }
        // A FIFO opened for writing with no reader: ENXIO.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
            return Err(refused(path, "is not a regular file but a FIFO"));
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    check_regular(path, &meta, Follow::Yes)?;
    Ok(file)
}

/// Reads the regular file at `path`, at most `limit` bytes; `None` when nothing is there.
/// A link (with [`Follow::No`]), a FIFO, a device, a directory or a larger file is a
/// [`Refused`] error, and nothing blocks.
pub fn read_bounded(path: &Path, limit: u64, follow: Follow) -> io::Result<Option<Vec<u8>>> {
    let meta = match follow {
        Follow::No => fs::symlink_metadata(path),
        Follow::Yes => fs::metadata(path),
    };
    let meta = match meta {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A dangling link is something that is there.
            if follow == Follow::Yes && fs::symlink_metadata(path).is_ok() {
                return Err(refused(path, "is a symbolic link to nothing"));
            }
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    check_regular(path, &meta, follow)?;
    if meta.len() > limit {
        return Err(refused(
            path,
            format!(
                "is {} bytes, more than the {limit} loopguard reads",
                meta.len()
            ),
        ));
    }
    let file = match open_checked(path, OpenOptions::new().read(true), follow) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = file.metadata()?;
        if (now.dev(), now.ino()) != (meta.dev(), meta.ino()) {
            return Err(refused(path, "was replaced while it was opened"));
        }
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(refused(
            path,
            format!("grew past the {limit} bytes loopguard reads"),
        ));
    }
    Ok(Some(bytes))
}

/// The last `limit` bytes of the regular file at `path` (no link followed), starting at a
/// line; `None` when nothing is there. For logs that only grow.
pub fn read_tail(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    use std::io::Seek;
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    check_regular(path, &meta, Follow::No)?;
    let mut file = match open_checked(path, OpenOptions::new().read(true), Follow::No) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let start = len.saturating_sub(limit);
    file.seek(io::SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    if start > 0 {
        // Drop the partial first line.
        let cut = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
        bytes.drain(..cut);
    }
    Ok(Some(bytes))
}

/// Opens the regular file at `path` with `options`, never through a link, never blocking
/// on a FIFO; anything but a regular file is [`Refused`].
pub fn open_no_follow(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    open_checked(path, options, Follow::No)
}

/// `len` bytes of the regular file at `path` from `offset` (fewer at its end).
pub fn read_range(path: &Path, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    use std::io::Seek;
    let mut file = open_checked(path, OpenOptions::new().read(true), Follow::No)?;
    file.seek(io::SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Appends `bytes` to the regular file at `path` (created when missing), in one write, and
/// syncs it (and, when it created the file, its directory). A link or special file there
/// is [`Refused`], never written through.
pub fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    append_as(path, bytes, true)
}

/// [`append`] with nothing synced (after a crash of the machine the log may end before
/// `bytes`, or with part of them: its readers skip a line that does not parse).
pub fn append_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    append_as(path, bytes, false)
}

fn append_as(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    let created = fs::symlink_metadata(path).is_err();
    let mut file = open_checked(path, &mut options, Follow::No)?;
    file.write_all(bytes)?;
    if sync {
        file.sync_data()?;
        if created {
            sync_dir(path.parent().expect("a file path has a parent"))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to the regular file at `path`, created or truncated in place (for files
/// no reader needs whole, such as per-iteration artifacts): never through a link, never
/// into a FIFO.
pub fn write_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    let mut file = open_checked(path, &mut options, Follow::No)?;
    file.write_all(bytes)
}

/// The length of the regular file at `path` (no link followed); 0 when nothing is there.
pub fn len_of(path: &Path) -> io::Result<u64> {
    match fs::symlink_metadata(path) {
        Ok(m) => {
            check_regular(path, &m, Follow::No)?;
            Ok(m.len())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

/// Cuts the regular file at `path` back to `len` bytes (a torn append of our own).
pub fn truncate(path: &Path, len: u64) -> io::Result<()> {
    let file = open_checked(path, OpenOptions::new().write(true), Follow::No)?;
    file.set_len(len)?;
    file.sync_data()
}

/// Makes the entries of directory `dir` durable: a file renamed, created or removed in it
/// survives a crash of the machine once this returns.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Makes sure `dir` is a directory of its own: created when missing, refused when it is a
/// link or anything else.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(refused(
            dir,
            format!("is not a directory but {}", kind_of(&m)),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            match fs::symlink_metadata(dir) {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(m) => Err(refused(
                    dir,
                    format!("is not a directory but {}", kind_of(&m)),
                )),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// [`ensure_dir`], and each directory it created made durable in its parent (where state
/// is written: a file synced into a directory whose own entry is lost is lost too).
pub fn ensure_dir_durably(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut at = dir;
    while fs::symlink_metadata(at).is_err() {
        missing.push(at);
        match at.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => at = parent,
            _ => break,
        }
    }
    ensure_dir(dir)?;
    for created in missing.iter().rev() {
        if let Some(parent) = created.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

/// The prefix of loopguard's temporary files: a file with it that is there while the
/// store is locked was left by a writer that died.
pub const TEMP_PREFIX: &str = ".loopguard-tmp.";

/// Writes `bytes` to `path` so that readers see the old or the new file, never a mix: a
/// temporary file in the same directory, then a rename, which replaces whatever was at
/// `path` (a link included) instead of writing through it. `crash` is called between the
/// two (failpoints). Durable when it returns: the file is synced before the rename (else a
/// crash of the machine could leave the new name on empty content) and the directory
/// after it.
pub fn write_atomic(path: &Path, bytes: &[u8], crash: impl FnOnce()) -> io::Result<()> {
    write_synced(path, bytes, crash)?;
    sync_dir(path.parent().expect("a file path has a parent"))
}

/// [`write_atomic`] whose rename is left to the file system (the directory is not synced):
/// after a crash of the machine `path` holds the old content or the new, both whole.
pub fn write_atomic_unsynced_rename(
    path: &Path,
    bytes: &[u8],
    crash: impl FnOnce(),
) -> io::Result<()> {
    write_synced(path, bytes, crash)
}

/// [`write_atomic`] with nothing synced: readers see the old file or the new one, whole,
/// and a crash of loopguard leaves one or the other; after a crash of the machine `path`
/// may hold either, or be empty where the file system does not order a rename after its
/// data. For state that can be lost with the machine: what a reader rebuilds, or judges as
/// missing on the safe side (the caller says which, where it calls this).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8], crash: impl FnOnce()) -> io::Result<()> {
    write_renamed(path, bytes, false, crash)
}

/// The new content synced in a temporary file, then renamed to `path`.
fn write_synced(path: &Path, bytes: &[u8], crash: impl FnOnce()) -> io::Result<()> {
    write_renamed(path, bytes, true, crash)
}

/// The new content in a temporary file (synced when `sync`), then renamed to `path`.
fn write_renamed(path: &Path, bytes: &[u8], sync: bool, crash: impl FnOnce()) -> io::Result<()> {
    let dir = path.parent().expect("a file path has a parent");
    if sync {
        ensure_dir_durably(dir)?;
    } else {
        ensure_dir(dir)?;
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_data()?;
    }
    crash();
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to `path` in place, never through a link and never synced: for a hint
/// whose loss, or a reader seeing it half written, costs only work (a link or anything but
/// a regular file there is replaced).
pub fn write_hint(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        fs::remove_file(path)?;
    }
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_regular_files_within_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        assert!(read_bounded(&file, 10, Follow::No).unwrap().is_none());
        fs::write(&file, b"hello").unwrap();
        assert_eq!(
            read_bounded(&file, 10, Follow::No).unwrap().unwrap(),
            b"hello"
        );
        let e = read_bounded(&file, 3, Follow::No).unwrap_err();
        assert!(is_refusal(&e), "{e}");
        assert!(e.to_string().contains("more than the 3"), "{e}");
        let e = read_bounded(tmp.path(), 10, Follow::Yes).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_refused_in_the_store_and_followed_to_regular_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        fs::write(&target, b"x").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = read_bounded(&link, 10, Follow::No).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(read_bounded(&link, 10, Follow::Yes).unwrap().unwrap(), b"x");
        let e = append(&link, b"y").unwrap_err();
        assert!(is_refusal(&e), "{e}");
        assert_eq!(fs::read(&target).unwrap(), b"x", "not written through");

        let zero = tmp.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_bounded(&zero, 10, Follow::Yes).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");

        let e = write_in_place(&link, b"y").unwrap_err();
        assert!(is_refusal(&e), "{e}");
        assert_eq!(fs::read(&target).unwrap(), b"x", "not written through");

        // A rename replaces the link, never the file it points to.
        write_atomic(&link, b"new", || {}).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"x");
        assert_eq!(fs::read(&link).unwrap(), b"new");
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_never_blocks() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let e = read_bounded(&fifo, 10, Follow::Yes).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let e = append(&fifo, b"x").unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
    }

    #[test]
    fn the_tail_starts_at_a_line() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("log");
        fs::write(&file, b"one\ntwo\nthree\n").unwrap();
        assert_eq!(
            read_tail(&file, 100).unwrap().unwrap(),
            b"one\ntwo\nthree\n"
        );
        assert_eq!(read_tail(&file, 8).unwrap().unwrap(), b"three\n");
    }
}
