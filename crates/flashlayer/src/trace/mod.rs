//! Trace readers and writers (`docs/design/grammar.md`: inputs and their
//! errors; `docs/USAGE.md`: the formats).
//!
//! Formats in: `csv` (`page,op`, op `R`/`W`, gzip accepted), `flt` (native,
//! see [`flt`]), `vscsi` (VMware, 32-byte records), `msr` (MSR Cambridge csv),
//! `spc` (UMass/SPC csv), `oracle` (libCacheSim oracleGeneral, 24-byte
//! records). Formats out: `csv` and `flt`.
//!
//! Block traces (`vscsi`, `msr`, `spc`) name byte ranges on devices; they
//! become page references with a page size (default 4096 bytes): every page a
//! request touches is one reference, with page id `(device << 48) | page_no`.
//! Page size 0 keeps one reference per request keyed by `(device << 48) |
//! start_byte`. A request of size 0 touches the page at its offset.
//!
//! Every reader reports bad input as [`Error::Parse`] with the file and the
//! line (text) or record number (binary), and never panics on any bytes.

mod block;
mod csv;
mod csv_layout;
pub mod flt;
mod input;
mod msr;
mod oracle;
mod spc;
mod stats;
mod vscsi;

pub use block::{BlockMapper, Refs};
pub use csv::CsvWriter;
pub use csv_layout::{parse_format, Column, CsvLayout, Header, FORMAT_SPECS};
pub use flt::{Flt, FltWriter, Remapper};
pub use oracle::{object_sizes, ObjectSizes};
pub use stats::{hot_pages, hottest_requests, stats, TraceStats};

use crate::error::{Error, Result};
use crate::types::{ByteRange, Op, PageId};
use std::path::Path;

/// Default page size for block traces, in bytes.
pub const DEFAULT_PAGE_SIZE: u64 = 4096;

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `page,op` text, optionally gzip'd.
    Csv,
    /// flashlayer's native binary format.
    Flt,
    /// VMware vscsi binary block trace (version 1, 32-byte records).
    Vscsi,
    /// MSR Cambridge block trace csv.
    Msr,
    /// UMass / SPC block trace csv.
    Spc,
    /// libCacheSim oracleGeneral binary object trace.
    Oracle,
}

/// `(name, format, description)` for `--help` and errors.
pub const FORMATS: &[(&str, Format, &str)] = &[
    (
        "csv",
        Format::Csv,
        "text 'page,op' with op R or W (header optional, .gz accepted)",
    ),
    (
        "flt",
        Format::Flt,
        "flashlayer native binary (dense ids + original ids, CRC-checked)",
    ),
    (
        "vscsi",
        Format::Vscsi,
        "VMware vscsi v1 block trace, 32-byte records",
    ),
    (
        "msr",
        Format::Msr,
        "MSR Cambridge csv: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    ),
    (
        "spc",
        Format::Spc,
        "UMass/SPC csv: ASU,LBA,Size,Opcode,Timestamp (LBA in 512-byte sectors)",
    ),
    (
        "oracle",
        Format::Oracle,
        "libCacheSim oracleGeneral, 24-byte records (object ids, all reads)",
    ),
];

impl Format {
    /// Parses a format name.
    pub fn parse(name: &str) -> Result<Self> {
        let lower = name.trim().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|f| f.0 == lower)
            .map(|f| f.1)
            .ok_or_else(|| {
                let names: Vec<&str> = FORMATS.iter().map(|f| f.0).collect();
                Error::invalid(format!(
                    "unknown format '{}'; formats: {}",
                    name.trim(),
                    names.join(", ")
                ))
            })
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        FORMATS
            .iter()
            .find(|f| f.1 == self)
            .map(|f| f.0)
            .expect("listed")
    }

    /// Whether the format names byte ranges that a page size maps to pages.
    pub fn is_block(self) -> bool {
        matches!(self, Format::Vscsi | Format::Msr | Format::Spc)
    }

    /// Detects the format from the extension, magic bytes, or the first line.
    pub fn detect(path: &Path) -> Result<Self> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        // Compression is found from the magic bytes when the file is opened;
        // here its suffix only hides the format's own extension.
        let base = [".gz", ".zst", ".zstd"]
            .iter()
            .find_map(|c| name.strip_suffix(c))
            .unwrap_or(&name);
        if base.ends_with(".flt") {
            return Ok(Format::Flt);
        }
        if base.ends_with(".vscsi") {
            return Ok(Format::Vscsi);
        }
        if base.contains("oraclegeneral") || base.ends_with(".oracle") {
            return Ok(Format::Oracle);
        }
        if base.ends_with(".spc") {
            return Ok(Format::Spc);
        }
        if base.ends_with(".msr") {
            return Ok(Format::Msr);
        }
        let head = input::head(path, 4096)?;
        if head.starts_with(flt::MAGIC) {
            return Ok(Format::Flt);
        }
        if let Some(f) = sniff_text(&head) {
            return Ok(f);
        }
        if base.ends_with(".csv") {
            // A .csv that looks like no known layout is read as `page,op`, so
            // the csv reader can say which line is wrong.
            return Ok(Format::Csv);
        }
        Err(Error::invalid(format!(
            "{}: cannot tell the trace format; pass --format ({})",
            path.display(),
            FORMATS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
        )))
    }
}

/// Guesses a text format from the first non-empty line.
fn sniff_text(head: &[u8]) -> Option<Format> {
    let text = std::str::from_utf8(head).ok().or_else(|| {
        // The head may end inside a multi-byte character.
        std::str::from_utf8(&head[..head.len().saturating_sub(3)]).ok()
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if line.eq_ignore_ascii_case("page,op") {
        return Some(Format::Csv);
    }
    match fields.len() {
        2 if fields[0].parse::<u64>().is_ok() => Some(Format::Csv),
        7 if fields[3].eq_ignore_ascii_case("read") || fields[3].eq_ignore_ascii_case("write") => {
            Some(Format::Msr)
        }
        5 if matches!(fields[3], "r" | "R" | "w" | "W") => Some(Format::Spc),
        _ => None,
    }
}

/// How to read a trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// The format; `None` detects it ([`Format::detect`]).
    pub format: Option<Format>,
    /// Page size for block traces; `None` means [`DEFAULT_PAGE_SIZE`].
    /// Giving one for a non-block format is an error.
    pub page_size: Option<u64>,
    /// A csv trace's column mapping ([`CsvLayout`]); `None`: `page,op`.
    pub csv: Option<&'static CsvLayout>,
}

impl ReadOptions {
    fn resolve(&self, path: &Path) -> Result<(Format, u64)> {
        let format = match self.format {
            Some(f) => f,
            None => Format::detect(path)?,
        };
        let page_size = match (format.is_block(), self.page_size) {
            (true, p) => p.unwrap_or(DEFAULT_PAGE_SIZE),
            (false, None) => 0,
            (false, Some(_)) => {
                return Err(Error::invalid(format!(
                    "{}: --page-size applies to block traces (vscsi, msr, spc), not {} traces",
                    path.display(),
                    format.name()
                )))
            }
        };
        Ok((format, page_size))
    }
}

/// Streams every request of a trace, with original page ids, to `f`.
/// Returns the format that was read.
pub fn for_each(
    path: &Path,
    opts: ReadOptions,
    mut f: impl FnMut(PageId, Op) -> Result<()>,
) -> Result<Format> {
    for_each_with_bytes(path, opts, |p, op, _| f(p, op))
}

/// Like [`for_each`], also passing the byte ranges each write changed (empty
/// for formats and traces without them).
pub fn for_each_with_bytes(
    path: &Path,
    opts: ReadOptions,
    mut f: impl FnMut(PageId, Op, &[ByteRange]) -> Result<()>,
) -> Result<Format> {
    let (format, page_size) = opts.resolve(path)?;
    let mut n: u64 = 0;
    let mut f = |p: PageId, op: Op, r: &[ByteRange]| {
        n += 1;
        f(p, op, r)
    };
    match opts.csv {
        Some(layout) => csv::read_mapped(path, layout, &mut f)?,
        None => read_format(path, format, page_size, &mut f)?,
    }
    if n == 0 {
        return Err(empty(path, format));
    }
    Ok(format)
}

/// A trace without requests is refused, never replayed as zero requests.
fn empty(path: &Path, format: Format) -> Error {
    no_requests(path, format.name())
}

/// The refusal of a trace named `path` of `kind` (a format's name, or
/// `in-memory`) that has no requests: read from a file or built in memory,
/// it is never replayed as zero requests.
pub fn no_requests(path: &Path, kind: &str) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        msg: format!("no requests: an empty {kind} trace"),
    }
}

fn read_format(
    path: &Path,
    format: Format,
    page_size: u64,
    f: &mut impl FnMut(PageId, Op, &[ByteRange]) -> Result<()>,
) -> Result<()> {
    if format == Format::Csv {
        return csv::read(path, f);
    }
    let mut plain = |p: PageId, op: Op| f(p, op, &[]);
    match format {
        Format::Csv => unreachable!("handled above"),
        Format::Flt => {
            let t = Flt::open(path)?;
            let ids = t.originals();
            let section = t.byte_section();
            let (mut pos, mut ranges) = (0, Vec::new());
            for (d, op) in t.requests() {
                if let Some(s) = section {
                    pos = flt::decode_ranges(s, pos, &mut ranges).expect("validated when opened");
                }
                f(ids[d as usize], op, &ranges)?;
            }
        }
        Format::Vscsi => vscsi::read(path, &mut BlockMapper::new(page_size), &mut plain)?,
        Format::Msr => msr::read(path, &mut BlockMapper::new(page_size), &mut plain)?,
        Format::Spc => spc::read(path, &mut BlockMapper::new(page_size), &mut plain)?,
        Format::Oracle => oracle::read(path, &mut plain)?,
    }
    Ok(())
}

/// Whether a trace carries byte ranges (an `flt` with the flag, or a csv
/// with the `page,op,changed` header).
pub fn has_bytes(path: &Path, opts: ReadOptions) -> Result<bool> {
    let (format, _) = opts.resolve(path)?;
    match format {
        Format::Flt => flt::declares_bytes(path),
        Format::Csv if opts.csv.is_some() => Ok(false),
        Format::Csv => csv::has_bytes(path),
        _ => Ok(false),
    }
}

/// Opens a trace for replay: an `flt` file is memory-mapped as it is; any
/// other format is converted once into an unnamed temporary `flt` file (gone
/// when the returned value is dropped), so memory stays O(distinct pages).
/// A stream (`-`, a pipe) is read once into a temporary file first.
pub fn load(path: &Path, opts: ReadOptions) -> Result<Flt> {
    input::spooled(path, |p| load_file(p, opts)).map(|t| t.named(path))
}

fn load_file(path: &Path, opts: ReadOptions) -> Result<Flt> {
    let (format, _) = opts.resolve(path)?;
    if format == Format::Flt {
        let t = Flt::open(path)?;
        if t.is_empty() {
            return Err(empty(path, format));
        }
        return Ok(t);
    }
    let opts = ReadOptions {
        format: Some(format),
        ..opts
    };
    let tmp = tempfile::tempfile().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let mut w = FltWriter::new(tmp, path)?;
    if has_bytes(path, opts)? {
        w = w.with_bytes()?;
    }
    for_each_with_bytes(path, opts, |p, op, r| w.push_bytes(p, op, r))?;
    let file = w.finish()?;
    Flt::from_file(&file, path)
}

/// The callback a producer feeds requests into (see [`write_all`]).
pub type Sink<'a> = dyn FnMut(PageId, Op, &[ByteRange]) -> Result<()> + 'a;

/// Writes requests to `out` in `format` (`csv`, gzip'd if the name ends in
/// `.gz`, or `flt`), with byte ranges if `with_bytes`. Returns the number of
/// requests written.
pub fn write_all(
    out: &Path,
    format: Format,
    with_bytes: bool,
    produce: impl FnOnce(&mut Sink<'_>) -> Result<()>,
) -> Result<u64> {
    match format {
        Format::Flt => {
            let mut w = FltWriter::create(out)?;
            if with_bytes {
                w = w.with_bytes()?;
            }
            produce(&mut |p, op, r| w.push_bytes(p, op, r))?;
            let n = w.len();
            w.finish()?;
            Ok(n)
        }
        Format::Csv => {
            let mut w = CsvWriter::create(out, with_bytes)?;
            produce(&mut |p, op, r| w.push(p, op, r))?;
            w.finish()
        }
        other => Err(Error::invalid(format!(
            "cannot write {} traces; output formats: csv, flt",
            other.name()
        ))),
    }
}

/// The output format for a path: `flt` for `.flt`, `csv` for `.csv`/`.csv.gz`.
pub fn output_format(out: &Path, explicit: Option<Format>) -> Result<Format> {
    if let Some(f) = explicit {
        return Ok(f);
    }
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".flt") {
        Ok(Format::Flt)
    } else if name.ends_with(".csv") || name.ends_with(".csv.gz") {
        Ok(Format::Csv)
    } else {
        Err(Error::invalid(format!(
            "{}: cannot tell the output format from the name; use a .flt, .csv or .csv.gz name or pass --to",
            out.display()
        )))
    }
}

/// Converts `input` (any format, or a stream: [`load`]) into `output`
/// (`csv` or `flt`), keeping byte ranges if the input has them.
pub fn convert(input: &Path, opts: ReadOptions, output: &Path, to: Option<Format>) -> Result<u64> {
    let to = output_format(output, to)?;
    input::spooled(input, |input| convert_file(input, opts, output, to))
}

fn convert_file(input: &Path, opts: ReadOptions, output: &Path, to: Format) -> Result<u64> {
    let (format, _) = opts.resolve(input)?;
    let opts = ReadOptions {
        format: Some(format),
        ..opts
    };
    let bytes = has_bytes(input, opts)?;
    write_all(output, to, bytes, |emit| {
        for_each_with_bytes(input, opts, emit).map(|_| ())
    })
}

/// Joins traces one after another into `output`, like CASA's CONCAT
/// (OLTP, DSS, OLTP, DSS). With `disjoint`, each distinct input path gets its
/// own page-id space: ids of the k-th distinct input are tagged with `k` in
/// their top 8 bits (they must be below 2^56), so the same file named twice
/// refers to the same pages both times.
pub fn concat(inputs: &[(&Path, ReadOptions)], disjoint: bool, output: &Path) -> Result<u64> {
    if inputs.is_empty() {
        return Err(Error::invalid("concat needs at least one input trace"));
    }
    let to = output_format(output, None)?;
    let mut bytes = false;
    for (p, o) in inputs {
        bytes |= has_bytes(p, *o)?;
    }
    let mut distinct: Vec<&Path> = Vec::new();
    write_all(output, to, bytes, |emit| {
        for (path, opts) in inputs {
            let tag = match distinct.iter().position(|p| p == path) {
                Some(i) => i as u64,
                None => {
                    distinct.push(path);
                    distinct.len() as u64 - 1
                }
            };
            if disjoint && tag > 255 {
                return Err(Error::invalid(
                    "--disjoint supports at most 256 distinct inputs",
                ));
            }
            for_each_with_bytes(path, *opts, |p, op, r| {
                if !disjoint {
                    return emit(p, op, r);
                }
                if p >> 56 != 0 {
                    return Err(Error::invalid(format!(
                        "{}: page id {p} uses the top 8 bits, which --disjoint needs for the input tag",
                        path.display()
                    )));
                }
                emit(p | (tag << 56), op, r)
            })?;
        }
        Ok(())
    })
}
