//! Opening trace files: transparent gzip and zstd (told apart by their magic
//! bytes, never by the file name), line reading with line numbers.

use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The compression a file's first bytes announce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    fn sniff(head: &[u8]) -> Self {
        if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// Words for error messages about offsets.
    pub(crate) fn offsets_note(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => " of the decompressed gzip data",
            Compression::Zstd => " of the decompressed zstd data",
        }
    }
}

/// A trace given as a stream (`-` for standard input, a pipe such as
/// `/dev/stdin` or a process substitution, any file that is not a regular
/// one) read once into a temporary file of its own, since a trace is read
/// more than once (its format sniffed, its byte ranges looked for, its
/// requests read); `None` for a regular file, read where it is.
pub(crate) fn spool(path: &Path) -> Result<Option<tempfile::NamedTempFile>> {
    let stdin = path.as_os_str() == "-";
    if !stdin {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() || m.is_dir() => return Ok(None),
            Ok(_) => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let mut tmp = tempfile::NamedTempFile::new().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let copied = if stdin {
        std::io::copy(&mut std::io::stdin().lock(), tmp.as_file_mut())
    } else {
        File::open(path).and_then(|mut f| std::io::copy(&mut f, tmp.as_file_mut()))
    };
    copied.map_err(|e| Error::io(path, e))?;
    Ok(Some(tmp))
}

/// Runs `read` on `path`, or on the copy of a stream ([`spool`]), its
/// errors naming `path` either way.
pub(crate) fn spooled<T>(path: &Path, read: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    match spool(path)? {
        None => read(path),
        Some(tmp) => read(tmp.path()).map_err(|e| e.renamed(tmp.path(), path)),
    }
}

/// The compression of `path`, from its first bytes alone.
pub(crate) fn compression(path: &Path) -> Result<Compression> {
    let mut head = [0u8; ZSTD_MAGIC.len()];
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(Compression::sniff(&head[..got]))
}

/// Opens `path` for buffered, streaming reading, decompressing gzip or zstd
/// when its magic bytes say so.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    Ok(open_sniffed(path)?.0)
}

/// Like [`open`], also telling which compression was found.
pub(crate) fn open_sniffed(path: &Path) -> Result<(Box<dyn BufRead>, Compression)> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut r = BufReader::with_capacity(1 << 20, f);
    let c = Compression::sniff(r.fill_buf().map_err(|e| Error::io(path, e))?);
    let out: Box<dyn BufRead> = match c {
        Compression::None => Box::new(r),
        Compression::Gzip => Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(r))),
        Compression::Zstd => {
            let d = zstd::stream::read::Decoder::with_buffer(r).map_err(|e| Error::io(path, e))?;
            Box::new(BufReader::with_capacity(1 << 20, d))
        }
    };
    Ok((out, c))
}

/// The first `n` bytes (decompressed), for format detection.
pub(crate) fn head(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    open(path)?
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(path, e))?;
    Ok(out)
}

/// Reads a text trace line by line; yields trimmed, non-empty lines with
/// their 1-based line numbers.
pub(crate) struct Lines {
    r: Box<dyn BufRead>,
    path: PathBuf,
    buf: Vec<u8>,
    line: u64,
}

impl Lines {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Ok(Lines {
            r: open(path)?,
            path: path.to_path_buf(),
            buf: Vec::with_capacity(256),
            line: 0,
        })
    }

    /// The next non-blank line (without its line end), or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>> {
        loop {
            self.buf.clear();
            let n = self
                .r
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| Error::io(&self.path, e))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let text = std::str::from_utf8(&self.buf)
                .map_err(|_| self.error(self.line, "expected UTF-8 text".into()))?;
            // A byte-order mark (spreadsheet exports) is not part of the text.
            let text = if self.line == 1 {
                text.strip_prefix('\u{feff}').unwrap_or(text)
            } else {
                text
            };
            let text = text.trim();
            if !text.is_empty() {
                // Re-borrow to tie the lifetime to self.buf.
                let start = text.as_ptr() as usize - self.buf.as_ptr() as usize;
                let end = start + text.len();
                let s = std::str::from_utf8(&self.buf[start..end]).expect("validated above");
                return Ok(Some((self.line, s)));
            }
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn error(&self, line: u64, msg: String) -> Error {
        parse_error(&self.path, line, msg)
    }
}

pub(crate) fn parse_error(path: &Path, line: u64, msg: String) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        line,
        msg,
    }
}

/// Splits a csv line into exactly `N` trimmed fields, or explains.
pub(crate) fn fields<'a, const N: usize>(
    line: &'a str,
    what: &str,
) -> std::result::Result<[&'a str; N], String> {
    let mut out = [""; N];
    let mut it = line.split(',');
    for (i, slot) in out.iter_mut().enumerate() {
        match it.next() {
            Some(f) => *slot = f.trim(),
            None => return Err(format!("expected {N} fields ({what}), found {i}")),
        }
    }
    if it.next().is_some() {
        let n = line.split(',').count();
        return Err(format!("expected {N} fields ({what}), found {n}"));
    }
    Ok(out)
}

/// Parses an unsigned integer field, or explains.
pub(crate) fn uint(field: &str, name: &str) -> std::result::Result<u64, String> {
    field.parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("{name} '{field}' is too large (at most {})", u64::MAX)
        }
        _ => format!("expected {name} as an unsigned integer, found '{field}'"),
    })
}

/// Where a binary record sits, for error messages that name the file and
/// the byte offset.
pub(crate) struct RecordAt<'a> {
    path: &'a Path,
    /// 0-based record index.
    pub(crate) index: u64,
    size: usize,
    compression: Compression,
}

impl RecordAt<'_> {
    /// A [`Error::Corrupt`] saying what is wrong with this record.
    pub(crate) fn bad(&self, msg: impl std::fmt::Display) -> Error {
        Error::Corrupt {
            path: self.path.to_path_buf(),
            msg: format!(
                "record {} at byte offset {}{}: {msg}",
                self.index + 1,
                self.index * self.size as u64,
                self.compression.offsets_note()
            ),
        }
    }
}

/// Reads fixed-size binary records; the callback gets the record's position
/// (to report a record that does not fit the format) and its bytes. A
/// trailing partial record is an error.
pub(crate) fn records<const N: usize>(
    path: &Path,
    mut f: impl FnMut(&RecordAt<'_>, &[u8; N]) -> Result<()>,
) -> Result<()> {
    let (mut r, compression) = open_sniffed(path)?;
    let mut rec = [0u8; N];
    let mut at = RecordAt {
        path,
        index: 0,
        size: N,
        compression,
    };
    loop {
        let mut got = 0;
        while got < N {
            match r.read(&mut rec[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        if got == 0 {
            return Ok(());
        }
        if got < N {
            return Err(at.bad(format_args!(
                "truncated: the file ends after {got} of the record's {N} bytes"
            )));
        }
        f(&at, &rec)?;
        at.index += 1;
    }
}
