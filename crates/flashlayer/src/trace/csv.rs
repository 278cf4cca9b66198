//! `page,op` text traces: one request a line, op `R` or `W` (lower case
//! accepted), an optional `page,op` header, blank lines ignored, gzip read
//! transparently. The writer emits the header and gzips when the output
//! name ends in `.gz`.
//!
//! Traces with byte ranges have the header `page,op,changed` and a third
//! field on every line: the ranges a write changed as space-separated
//! `offset:len` pairs (empty for reads), e.g. `42,W,16:4 100:8`.

use super::csv_layout::{Column, CsvLayout, Header};
use super::input::{fields, uint, Lines};
use crate::error::{Error, Result};
use crate::types::{ByteRange, Op, PageId};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub(crate) fn read(
    path: &Path,
    f: &mut impl FnMut(PageId, Op, &[ByteRange]) -> Result<()>,
) -> Result<()> {
    let mut lines = Lines::open(path)?;
    let mut first = true;
    let mut with_bytes = false;
    let mut ranges = Vec::new();
    while let Some((no, line)) = lines.next_line()? {
        if first {
            first = false;
            if line.eq_ignore_ascii_case("page,op") {
                continue;
            }
            if line.eq_ignore_ascii_case("page,op,changed") {
                with_bytes = true;
                continue;
            }
        }
        let (page, op) = parse(line, with_bytes, &mut ranges)
            .map_err(|m| super::input::parse_error(lines.path(), no, m))?;
        f(page, op, &ranges)?;
    }
    Ok(())
}

/// Reads a csv trace by `layout` (no byte ranges). An error names the
/// line and the column.
pub(crate) fn read_mapped(
    path: &Path,
    layout: &CsvLayout,
    f: &mut impl FnMut(PageId, Op, &[ByteRange]) -> Result<()>,
) -> Result<()> {
    let mut lines = Lines::open(path)?;
    let sep = char::from(layout.sep);
    let mut places: Option<(usize, Option<usize>)> = None;
    let mut names = Vec::new();
    while let Some((no, line)) = lines.next_line()? {
        // Spaces separate as a run, as in whitespace-aligned columns.
        let fields: Vec<&str> = if sep == ' ' {
            line.split_whitespace().collect()
        } else {
            line.split(sep).map(str::trim).collect()
        };
        let bad = |m: String| super::input::parse_error(path, no, m);
        let (page_at, op_at) = match places {
            Some(p) => p,
            None => {
                for (key, c) in [("page", Some(&layout.page)), ("op", layout.op.as_ref())] {
                    if let Some(&Column::At(i)) = c {
                        if i >= fields.len() {
                            return Err(bad(format!(
                                "{key}={}: the first line has {} fields",
                                i + 1,
                                fields.len()
                            )));
                        }
                    }
                }
                // A column named is a header's; else a page that is no
                // number is one.
                let named = matches!(layout.page, Column::Named(_))
                    || matches!(layout.op, Some(Column::Named(_)));
                let header = match (layout.header, &layout.page) {
                    (Header::On, _) => true,
                    (Header::Off, _) => false,
                    (Header::Auto, _) if named => true,
                    (Header::Auto, Column::At(i)) => {
                        fields.get(*i).is_some_and(|v| v.parse::<u64>().is_err())
                    }
                    (Header::Auto, Column::Named(_)) => true,
                };
                names = if header {
                    fields.iter().map(|n| n.to_ascii_lowercase()).collect()
                } else {
                    Vec::new()
                };
                let find = |c: &Column| -> std::result::Result<usize, String> {
                    match c {
                        Column::At(i) => Ok(*i),
                        Column::Named(n) => names
                            .iter()
                            .position(|h| *h == n.to_ascii_lowercase())
                            .ok_or_else(|| {
                                format!(
                                    "no column named '{n}' in the header (its columns: {})",
                                    fields.join(", ")
                                )
                            }),
                    }
                };
                let p = (
                    find(&layout.page).map_err(bad)?,
                    layout.op.as_ref().map(find).transpose().map_err(bad)?,
                );
                places = Some(p);
                if header {
                    continue;
                }
                p
            }
        };
        let name = |i: usize| {
            names
                .get(i)
                .map_or_else(|| format!("column {}", i + 1), |n| format!("column '{n}'"))
        };
        let field = |i: usize| {
            fields.get(i).copied().ok_or_else(|| {
                bad(format!(
                    "expected {} (the {}), found {} fields",
                    name(i),
                    if i == page_at { "page" } else { "op" },
                    fields.len()
                ))
            })
        };
        let page = uint(field(page_at)?, "a page id")
            .map_err(|m| bad(format!("{}: {m}", name(page_at))))?;
        let op = match op_at {
            Some(i) => layout
                .op(field(i)?)
                .map_err(|m| bad(format!("{}: {m}", name(i))))?,
            None => Op::Read,
        };
        f(page, op, &[])?;
    }
    Ok(())
}

/// Whether the file's first line is the `page,op,changed` header.
pub(crate) fn has_bytes(path: &Path) -> Result<bool> {
    let mut lines = Lines::open(path)?;
    Ok(lines
        .next_line()?
        .is_some_and(|(_, l)| l.eq_ignore_ascii_case("page,op,changed")))
}

fn parse(
    line: &str,
    with_bytes: bool,
    ranges: &mut Vec<ByteRange>,
) -> std::result::Result<(PageId, Op), String> {
    ranges.clear();
    let (page, op) = if with_bytes {
        let [page, op, changed] = fields::<3>(line, "page,op,changed")?;
        for tok in changed.split_whitespace() {
            let parsed = tok
                .split_once(':')
                .and_then(|(o, l)| Some((o.parse::<u16>().ok()?, l.parse::<u16>().ok()?)));
            match parsed {
                Some((offset, len)) if len > 0 => ranges.push(ByteRange { offset, len }),
                _ => {
                    return Err(format!(
                    "expected changed bytes as offset:len pairs (0-65535, len > 0), found '{tok}'"
                ))
                }
            }
        }
        (page, op)
    } else {
        let [page, op] = fields::<2>(line, "page,op")?;
        (page, op)
    };
    let page = uint(page, "a page id")?;
    let op = match op {
        "R" | "r" => Op::Read,
        "W" | "w" => Op::Write,
        other => return Err(format!("expected op R or W, found '{other}'")),
    };
    if op == Op::Read && !ranges.is_empty() {
        return Err("a read request cannot carry changed bytes".into());
    }
    Ok((page, op))
}

/// Writes `page,op` csv, gzip'd if the path ends in `.gz`.
#[derive(Debug)]
pub struct CsvWriter {
    out: Box<dyn WriteFinish>,
    path: PathBuf,
    n: u64,
    line: String,
    with_bytes: bool,
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
    /// Creates `path` and writes the header (`page,op`, or
    /// `page,op,changed` with byte ranges).
    pub fn create(path: &Path, with_bytes: bool) -> Result<Self> {
        let f = File::create(path).map_err(|e| Error::io(path, e))?;
        let buf = BufWriter::with_capacity(1 << 20, f);
        let mut out: Box<dyn WriteFinish> = if path.to_string_lossy().ends_with(".gz") {
            Box::new(GzEncoder::new(buf, Compression::default()))
        } else {
            Box::new(buf)
        };
        let header: &[u8] = if with_bytes {
            b"page,op,changed\n"
        } else {
            b"page,op\n"
        };
        out.write_all(header).map_err(|e| Error::io(path, e))?;
        Ok(CsvWriter {
            out,
            path: path.to_path_buf(),
            n: 0,
            line: String::with_capacity(32),
            with_bytes,
        })
    }

    /// Appends one request; `changed` is written only by a writer created
    /// with byte ranges.
    pub fn push(&mut self, page: PageId, op: Op, changed: &[ByteRange]) -> Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        let _ = write!(self.line, "{page},{}", op.letter());
        if self.with_bytes {
            self.line.push(',');
            for (i, r) in changed.iter().enumerate() {
                let sep = if i == 0 { "" } else { " " };
                let _ = write!(self.line, "{sep}{}:{}", r.offset, r.len);
            }
        }
        self.line.push('\n');
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
