//! Opening trace files: transparent gzip, line reading with line numbers.

use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens `path` for buffered reading, decompressing gzip by its magic bytes.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut r = BufReader::with_capacity(1 << 20, f);
    let is_gz = r
        .fill_buf()
        .map_err(|e| Error::io(path, e))?
        .starts_with(&GZIP_MAGIC);
    if is_gz {
        Ok(Box::new(BufReader::with_capacity(
            1 << 20,
            MultiGzDecoder::new(r),
        )))
    } else {
        Ok(Box::new(r))
    }
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
    field
        .parse::<u64>()
        .map_err(|_| format!("expected {name} as an unsigned integer, found '{field}'"))
}

/// Reads fixed-size binary records; the callback gets the 1-based record
/// number and the bytes. A trailing partial record is an error.
pub(crate) fn records<const N: usize>(
    path: &Path,
    mut f: impl FnMut(u64, &[u8; N]) -> Result<()>,
) -> Result<()> {
    let mut r = open(path)?;
    let mut rec = [0u8; N];
    let mut n: u64 = 0;
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
        n += 1;
        if got < N {
            return Err(Error::Corrupt {
                path: path.to_path_buf(),
                msg: format!("truncated: record {n} has {got} of its {N} bytes"),
            });
        }
        f(n, &rec)?;
    }
}
