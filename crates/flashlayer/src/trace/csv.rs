//! `page,op` text traces: one request a line, op `R` or `W` (lower case
//! accepted), an optional `page,op` header, blank lines ignored, gzip read
//! transparently. The writer emits the header and gzips when the output
//! name ends in `.gz`.

use super::input::{fields, uint, Lines};
use crate::error::{Error, Result};
use crate::types::{Op, PageId};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub(crate) fn read(path: &Path, f: &mut impl FnMut(PageId, Op) -> Result<()>) -> Result<()> {
    let mut lines = Lines::open(path)?;
    let mut first = true;
    while let Some((no, line)) = lines.next_line()? {
        if first {
            first = false;
            if line.eq_ignore_ascii_case("page,op") {
                continue;
            }
        }
        let (page, op) = parse(line).map_err(|m| super::input::parse_error(lines.path(), no, m))?;
        f(page, op)?;
    }
    Ok(())
}

fn parse(line: &str) -> std::result::Result<(PageId, Op), String> {
    let [page, op] = fields::<2>(line, "page,op")?;
    let page = uint(page, "a page id")?;
    let op = match op {
        "R" | "r" => Op::Read,
        "W" | "w" => Op::Write,
        other => return Err(format!("expected op R or W, found '{other}'")),
    };
    Ok((page, op))
}

/// Writes `page,op` csv, gzip'd if the path ends in `.gz`.
#[derive(Debug)]
pub struct CsvWriter {
    out: Box<dyn WriteFinish>,
    path: PathBuf,
    n: u64,
    line: String,
}

trait WriteFinish: Write + std::fmt::Debug {
    fn finish_box(self: Box<Self>) -> std::io::Result<()>;
}

impl WriteFinish for BufWriter<File> {
    fn finish_box(mut self: Box<Self>) -> std::io::Result<()> {
        self.flush()?;
        self.get_ref().sync_data()
    }
}

impl WriteFinish for GzEncoder<BufWriter<File>> {
    fn finish_box(self: Box<Self>) -> std::io::Result<()> {
        let mut inner = (*self).finish()?;
        inner.flush()?;
        inner.get_ref().sync_data()
    }
}

impl CsvWriter {
    /// Creates `path` and writes the header.
    pub fn create(path: &Path) -> Result<Self> {
        let f = File::create(path).map_err(|e| Error::io(path, e))?;
        let buf = BufWriter::with_capacity(1 << 20, f);
        let mut out: Box<dyn WriteFinish> = if path.to_string_lossy().ends_with(".gz") {
            Box::new(GzEncoder::new(buf, Compression::default()))
        } else {
            Box::new(buf)
        };
        out.write_all(b"page,op\n")
            .map_err(|e| Error::io(path, e))?;
        Ok(CsvWriter {
            out,
            path: path.to_path_buf(),
            n: 0,
            line: String::with_capacity(32),
        })
    }

    /// Appends one request.
    pub fn push(&mut self, page: PageId, op: Op) -> Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        let _ = writeln!(self.line, "{page},{}", op.letter());
        self.out
            .write_all(self.line.as_bytes())
            .map_err(|e| Error::io(&self.path, e))?;
        self.n += 1;
        Ok(())
    }

    /// Flushes; returns the number of requests written.
    pub fn finish(self) -> Result<u64> {
        let path = self.path;
        self.out.finish_box().map_err(|e| Error::io(&path, e))?;
        Ok(self.n)
    }
}
