//! A file store's database file, taken for one run: a run writes only a
//! file it creates, one an earlier run created, or one the user said to
//! replace (`replace=on`, the CLI's `--force`); never the trace it reads.
//!
//! A file is known as a flashlayer database by the extended attribute
//! [`MARK`] a run sets on it, holding the file's size and modification
//! time as the run left them. A file changed since (another program wrote
//! it, a user copied their data over it) no longer matches its mark and is
//! not flashlayer's any more; on a file system without extended attributes
//! no file is recognised, so an existing one needs `replace=on`. Runs on
//! one file take turns: each holds an exclusive `flock` on it, so runs of
//! a sweep (threads or processes) never share a file at once.

use crate::error::{Error, Result};
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The extended attribute that marks a database file a run wrote.
pub const MARK: &str = "user.flashlayer.database";

/// A database file held for one run.
#[derive(Debug)]
pub(super) struct Claim {
    /// Open for the lock (and the mark); closing it releases the lock.
    lock: File,
    path: PathBuf,
    created: bool,
}

impl Claim {
    /// Takes `path` for a run reading the trace at `trace`: creates it, or
    /// waits for the runs holding it and then checks it is flashlayer's
    /// (or that `replace` says to write over it).
    pub(super) fn take(path: &Path, trace: &Path, replace: bool) -> Result<Claim> {
        if same_file(path, trace) {
            return Err(Self::is_trace(path));
        }
        let (lock, created) = match create_marked(path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                (File::open(path).map_err(|e| Error::io(path, e))?, false)
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        // SAFETY: flock on a descriptor this function owns (a file just
        // created holds the lock already: taking it again changes nothing).
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(Error::io(path, std::io::Error::last_os_error()));
        }
        if !created && !replace && !is_marked(&lock) {
            return Err(Self::not_ours(path));
        }
        Ok(Claim {
            lock,
            path: path.to_path_buf(),
            created,
        })
    }

    /// Whether [`Claim::take`] would take `path`, changing nothing (it
    /// does not wait for runs holding it).
    pub(super) fn check(path: &Path, trace: &Path, replace: bool) -> Result<()> {
        if same_file(path, trace) {
            return Err(Self::is_trace(path));
        }
        match File::open(path) {
            Ok(f) if !replace && !is_marked(&f) => Err(Self::not_ours(path)),
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    fn is_trace(path: &Path) -> Error {
        Error::invalid(format!(
            "file:path={}: is the trace this run reads; name another file for the database",
            path.display()
        ))
    }

    fn not_ours(path: &Path) -> Error {
        Error::invalid(format!(
            "file:path={}: exists and is not a database file flashlayer wrote (it carries no \
             matching {MARK} attribute: another program wrote it, or it changed since); name \
             another file, or replace it with the store's replace=on (sim's --force sets it)",
            path.display()
        ))
    }

    /// Ends the run: a file this run created and failed on holds nothing
    /// of anyone's and is removed; any other is marked as the run left it.
    pub(super) fn release(self, ok: bool) {
        if !ok && self.created {
            let _ = std::fs::remove_file(&self.path);
        } else {
            set_mark(&self.lock);
        }
    }
}

/// Creates `path`, new, marked and locked before it can be seen: made under
/// a temporary name beside it and linked into place, so a run that finds
/// the file and waits for its lock finds it flashlayer's. Where links
/// cannot be made, creates it in place and marks it at once.
fn create_marked(path: &Path) -> std::io::Result<File> {
    let create = |p: &Path| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(p)
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = path.with_file_name(format!(
        ".{name}.{}.{stamp}.flashlayer-new",
        std::process::id()
    ));
    let Ok(f) = create(&tmp) else {
        let f = create(path)?;
        set_mark(&f);
        return Ok(f);
    };
    set_mark(&f);
    // SAFETY: flock on a descriptor this function owns.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            let f = create(path)?;
            set_mark(&f);
            Ok(f)
        }
    }
}

/// Whether `a` and `b` name one file (by device and inode, through links).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// What the mark of `f` must say: its size and modification time, ns.
fn stamp(f: &File) -> Option<String> {
    let m = f.metadata().ok()?;
    Some(format!(
        "{} {}",
        m.len(),
        m.mtime() as i128 * 1_000_000_000 + i128::from(m.mtime_nsec())
    ))
}

fn attr_name() -> CString {
    CString::new(MARK).expect("no NUL in the mark's name")
}

/// Marks `f` as flashlayer's as it is now. A file system without extended
/// attributes keeps no mark: the file is then not recognised later.
fn set_mark(f: &File) {
    let Some(s) = stamp(f) else { return };
    let name = attr_name();
    // SAFETY: a valid descriptor, a NUL-terminated name and a value of the
    // length given.
    unsafe {
        libc::fsetxattr(f.as_raw_fd(), name.as_ptr(), s.as_ptr().cast(), s.len(), 0);
    }
}

/// Whether `f` carries a mark matching its size and time.
fn is_marked(f: &File) -> bool {
    let Some(want) = stamp(f) else { return false };
    let name = attr_name();
    let mut buf = [0u8; 64];
    // SAFETY: a valid descriptor and name; the buffer's length is given.
    let n = unsafe {
        libc::fgetxattr(
            f.as_raw_fd(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    n > 0 && &buf[..n as usize] == want.as_bytes()
}

/// Whether the file at `path` is a database file flashlayer wrote, as its
/// mark says (tests and tools ask; a run takes the file as the module
/// docs say).
pub fn is_database_file(path: &Path) -> bool {
    File::open(path).map(|f| is_marked(&f)).unwrap_or(false)
}
