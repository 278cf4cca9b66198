//! The crate's error type. Every user mistake (bad trace line, unknown policy,
//! impossible size) is an [`Error`] with enough context to fix it; the engine
//! never panics on input.

use std::path::PathBuf;

/// Result alias for the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in flashlayer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A trace file is malformed: `file:line: what was expected`.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line for text formats, 1-based record number for binary ones.
        line: u64,
        /// What was expected and what was found.
        msg: String,
    },
    /// A binary file is damaged or cut short.
    #[error("{path}: {msg}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// An operating-system error, with the file it concerns.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An argument is outside what the operation can do.
    #[error("{0}")]
    Invalid(String),
    /// Every frame of a buffer pool is pinned; nothing can be evicted.
    #[error("all {0} buffer frames are pinned; no page can be evicted")]
    AllPinned(usize),
    /// A timed fix ([`crate::buffer::BufferPool::fix_read_timeout`]) waited
    /// its whole timeout for the page (its load, its latch, or a write
    /// that frees a frame) and gave up, holding nothing.
    #[error("timed out waiting for the page (its load, its latch, the pool or a frame)")]
    TimedOut,
    /// A progress callback asked a long run to stop.
    #[error("cancelled")]
    Cancelled,
    /// An emulated device lost power during, or before, the operation (a
    /// NAND chip, `nand::Chip::power_cut_after`, or a crash-injecting disk,
    /// `store::CrashLab::power_cut_after`); nothing works until power is back.
    #[error("power cut: the device is off")]
    PowerCut,
    /// A store-level I/O failure without a path (memory or emulated devices).
    #[error("store: {0}")]
    Store(String),
}

impl Error {
    /// The error with the file `from` named `to` (a trace read through a
    /// temporary copy names the trace).
    pub(crate) fn renamed(self, from: &std::path::Path, to: &std::path::Path) -> Self {
        let swap = |p: PathBuf| if p == from { to.to_path_buf() } else { p };
        match self {
            Error::Parse { path, line, msg } => Error::Parse {
                path: swap(path),
                line,
                msg,
            },
            Error::Corrupt { path, msg } => Error::Corrupt {
                path: swap(path),
                msg,
            },
            Error::Io { path, source } => Error::Io {
                path: swap(path),
                source,
            },
            // A message that names the file in its text (the format could not
            // be told) names it as the user gave it.
            Error::Invalid(msg) => {
                Error::Invalid(msg.replace(&from.display().to_string(), &to.display().to_string()))
            }
            e => e,
        }
    }

    /// Wraps an `io::Error` with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// An [`Error::Invalid`] from anything printable.
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }
}
