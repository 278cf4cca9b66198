//! `flt`, flashlayer's native trace format: compact, streamable, and
//! directly usable by the simulator without decoding.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `b"FLTRACE\x01"` |
//! | 8 | 4 | format version, `1` |
//! | 12 | 4 | flags: bit 0 = a byte-range section follows the page ids; other bits 0 |
//! | 16 | 8 | `n_requests` |
//! | 24 | 8 | `n_pages` (distinct pages) |
//! | 32 | 4 | CRC-32 (IEEE) of everything after the header |
//! | 36 | 4 | reserved, `0` |
//! | 40 | 4 × `n_requests` | requests: bit 31 = write, bits 0..=30 dense page id |
//! | … | 8 × `n_pages` | original page id of each dense id, in order |
//! | … | rest of file | only with flag bit 0: per request, `count: u16` then `count` × (`offset: u16`, `len: u16`), the byte ranges a write changed (reads have count 0) |
//!
//! Dense ids are assigned in order of first appearance, so a reader can stream
//! the requests front to back; the original ids follow them so that a writer
//! can stream too (it patches the header when it finishes). A file is valid
//! only if its length matches the header, the CRC matches, and every dense id
//! is below `n_pages` (and, with byte ranges, the section parses exactly and
//! no read carries ranges); [`Flt::open`] checks all of it.

use super::Format;
use crate::error::{Error, Result};
use crate::types::{pack, unpack, ByteRange, DenseId, Op, PageId, MAX_DENSE};
use memmap2::Mmap;
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Flag bit: a byte-range section follows the page ids.
pub const FLAG_BYTES: u32 = 1;

/// File magic.
pub const MAGIC: &[u8; 8] = b"FLTRACE\x01";
/// Current format version.
pub const VERSION: u32 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 40;

/// Assigns dense ids to page ids in order of first appearance.
#[derive(Debug, Default)]
pub struct Remapper {
    map: FxHashMap<PageId, DenseId>,
    ids: Vec<PageId>,
}

impl Remapper {
    /// The dense id of `page`, assigning the next one if it is new.
    #[inline]
    pub fn dense(&mut self, page: PageId) -> Result<DenseId> {
        if let Some(&d) = self.map.get(&page) {
            return Ok(d);
        }
        let d = self.ids.len();
        if d > MAX_DENSE as usize {
            return Err(Error::invalid(format!(
                "more than {} distinct pages; the flt format holds at most that many",
                MAX_DENSE as u64 + 1
            )));
        }
        self.map.insert(page, d as DenseId);
        self.ids.push(page);
        Ok(d as DenseId)
    }

    /// Original ids in dense order.
    pub fn ids(&self) -> &[PageId] {
        &self.ids
    }
}

/// Streams requests into an `flt` file.
#[derive(Debug)]
pub struct FltWriter<W: Write + Seek> {
    out: BufWriter<W>,
    path: PathBuf,
    remap: Remapper,
    n: u64,
    crc: crc32fast::Hasher,
    /// Byte-range section, spooled to a temporary file until `finish`.
    bytes: Option<BufWriter<File>>,
}

impl FltWriter<File> {
    /// Creates (truncating) `path`.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = File::create(path).map_err(|e| Error::io(path, e))?;
        FltWriter::new(f, path)
    }
}

impl<W: Write + Seek> FltWriter<W> {
    /// A writer on `out`; `path` is used in error messages only.
    pub fn new(out: W, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let mut out = BufWriter::with_capacity(1 << 20, out);
        out.write_all(&[0u8; HEADER_LEN])
            .map_err(|e| Error::io(&path, e))?;
        Ok(FltWriter {
            out,
            path,
            remap: Remapper::default(),
            n: 0,
            crc: crc32fast::Hasher::new(),
            bytes: None,
        })
    }

    /// Also writes the byte ranges of every request ([`FltWriter::push_bytes`]).
    /// Must be called before the first request.
    pub fn with_bytes(mut self) -> Result<Self> {
        if self.n != 0 {
            return Err(Error::invalid("with_bytes must precede the first request"));
        }
        let f = tempfile::tempfile().map_err(|e| Error::io(std::env::temp_dir(), e))?;
        self.bytes = Some(BufWriter::with_capacity(1 << 20, f));
        Ok(self)
    }

    /// Gives `page` the next dense id without a request, if it has none
    /// yet (a trace whose pages are known before its requests: a
    /// request-at-a-time replay's universe).
    pub fn declare(&mut self, page: PageId) -> Result<DenseId> {
        self.remap.dense(page)
    }

    /// Whether byte ranges are written.
    pub fn has_bytes(&self) -> bool {
        self.bytes.is_some()
    }

    /// Appends one request with the byte ranges it changed (ignored unless
    /// the writer was made [`FltWriter::with_bytes`]; reads carry none).
    pub fn push_bytes(&mut self, page: PageId, op: Op, changed: &[ByteRange]) -> Result<()> {
        if let Some(b) = self.bytes.as_mut() {
            if !op.is_write() && !changed.is_empty() {
                return Err(Error::invalid(
                    "a read request cannot carry changed byte ranges",
                ));
            }
            let count = u16::try_from(changed.len())
                .map_err(|_| Error::invalid("more than 65535 byte ranges in one request"))?;
            let io = |e| Error::io(std::env::temp_dir(), e);
            b.write_all(&count.to_le_bytes()).map_err(io)?;
            for r in changed {
                b.write_all(&r.offset.to_le_bytes()).map_err(io)?;
                b.write_all(&r.len.to_le_bytes()).map_err(io)?;
            }
        }
        self.push_word(page, op)
    }

    /// Appends one request (with no byte ranges).
    #[inline]
    pub fn push(&mut self, page: PageId, op: Op) -> Result<()> {
        if self.bytes.is_some() {
            return self.push_bytes(page, op, &[]);
        }
        self.push_word(page, op)
    }

    #[inline]
    fn push_word(&mut self, page: PageId, op: Op) -> Result<()> {
        let d = self.remap.dense(page)?;
        let b = pack(d, op).to_le_bytes();
        self.crc.update(&b);
        self.out
            .write_all(&b)
            .map_err(|e| Error::io(&self.path, e))?;
        self.n += 1;
        Ok(())
    }

    /// Requests written so far.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// `true` before the first request.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Writes the page table and the header; returns the inner writer.
    pub fn finish(mut self) -> Result<W> {
        let path = self.path.clone();
        let io = |e| Error::io(&path, e);
        let tmp_io = |e| Error::io(std::env::temp_dir(), e);
        for id in self.remap.ids() {
            let b = id.to_le_bytes();
            self.crc.update(&b);
            self.out.write_all(&b).map_err(io)?;
        }
        let mut flags = 0;
        if let Some(spool) = self.bytes.take() {
            flags |= FLAG_BYTES;
            let mut f = spool.into_inner().map_err(|e| tmp_io(e.into_error()))?;
            f.seek(SeekFrom::Start(0)).map_err(tmp_io)?;
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let k = std::io::Read::read(&mut f, &mut buf).map_err(tmp_io)?;
                if k == 0 {
                    break;
                }
                self.crc.update(&buf[..k]);
                self.out.write_all(&buf[..k]).map_err(io)?;
            }
        }
        let header = header_bytes(
            self.n,
            self.remap.ids().len() as u64,
            flags,
            self.crc.clone().finalize(),
        );
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&header).map_err(io)?;
        self.out.flush().map_err(io)?;
        self.out
            .into_inner()
            .map_err(|e| Error::io(&self.path, e.into_error()))
    }
}

fn header_bytes(n_requests: u64, n_pages: u64, flags: u32, crc: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&flags.to_le_bytes());
    h[16..24].copy_from_slice(&n_requests.to_le_bytes());
    h[24..32].copy_from_slice(&n_pages.to_le_bytes());
    h[32..36].copy_from_slice(&crc.to_le_bytes());
    h
}

#[derive(Debug)]
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// Per dense id, the dense ids of the pages numbered one below and one
/// above (`u32::MAX` when absent), side by side: clustering asks for both,
/// and one cache line serves them.
type NumberOrder = Box<[[u32; 2]]>;

/// Page numbers spanning at most this many times the pages are ordered
/// through a table by number instead of a sort ([`Flt::direct_table`]).
const DIRECT_RANGE: u64 = 8;

/// A validated `flt` trace, memory-mapped (or owned) and ready to replay.
#[derive(Debug)]
pub struct Flt {
    bytes: Bytes,
    path: PathBuf,
    n_requests: usize,
    n_pages: usize,
    has_bytes: bool,
    /// Each page's numeric neighbours, built on first use by
    /// [`Flt::neighbour`] from the pages in number order.
    by_number: std::sync::OnceLock<NumberOrder>,
    sorted: std::sync::OnceLock<Box<[(PageId, DenseId)]>>,
}

impl Flt {
    /// The trace under the name `path` (for errors and rows), as when it
    /// was read from a copy of it.
    pub fn named(mut self, path: &Path) -> Self {
        self.path = path.to_path_buf();
        self
    }

    /// Opens and validates an `flt` file (length, CRC, dense ids). A gzip or
    /// zstd compressed file (told by its magic bytes) is decompressed once
    /// into an unnamed temporary file, which is then mapped.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if super::input::compression(path)? == super::input::Compression::None {
            let f = File::open(path).map_err(|e| Error::io(path, e))?;
            return Self::from_file(&f, path);
        }
        let mut r = super::input::open(path)?;
        let mut tmp = tempfile::tempfile().map_err(|e| Error::io(std::env::temp_dir(), e))?;
        std::io::copy(&mut r, &mut tmp).map_err(|e| Error::io(path, e))?;
        Self::from_file(&tmp, path)
    }

    /// Maps an open `flt` file; `path` names it in errors.
    pub fn from_file(f: &File, path: &Path) -> Result<Self> {
        let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
        if len < HEADER_LEN as u64 {
            return Err(corrupt(
                path,
                format!("truncated: {len} bytes, shorter than the {HEADER_LEN}-byte flt header"),
            ));
        }
        // SAFETY: the map is read-only and flashlayer never writes a trace it
        // has open; a concurrent external writer could change the bytes, which
        // validation below would catch before use only if it happened first.
        // This is the documented contract of memmap2 for read-only maps.
        let map = unsafe { Mmap::map(f) }.map_err(|e| Error::io(path, e))?;
        Self::validate(Bytes::Mapped(map), path)
    }

    /// Validates an in-memory `flt` image.
    pub fn from_bytes(bytes: Vec<u8>, path: impl AsRef<Path>) -> Result<Self> {
        Self::validate(Bytes::Owned(bytes), path.as_ref())
    }

    fn validate(bytes: Bytes, path: &Path) -> Result<Self> {
        let b: &[u8] = match &bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        };
        if b.len() < HEADER_LEN {
            return Err(corrupt(
                path,
                format!(
                    "truncated: {} bytes, shorter than the {HEADER_LEN}-byte flt header",
                    b.len()
                ),
            ));
        }
        if &b[0..8] != MAGIC {
            return Err(corrupt(path, "not an flt trace (bad magic bytes)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(corrupt(
                path,
                format!("flt version {version}; this build reads version {VERSION}"),
            ));
        }
        let flags = u32_at(12);
        if flags & !FLAG_BYTES != 0 {
            return Err(corrupt(path, format!("unknown flt flags {flags:#x}")));
        }
        let has_bytes = flags & FLAG_BYTES != 0;
        let n_requests = u64_at(16);
        let n_pages = u64_at(24);
        let want = n_requests
            .checked_mul(4)
            .and_then(|r| n_pages.checked_mul(8).and_then(|p| r.checked_add(p)))
            .and_then(|x| x.checked_add(HEADER_LEN as u64));
        let fits = match want {
            Some(w) if has_bytes => w + 2 * n_requests <= b.len() as u64,
            Some(w) => w == b.len() as u64,
            None => false,
        };
        if !fits {
            return Err(corrupt(
                path,
                format!(
                    "truncated or damaged: header says {n_requests} requests and {n_pages} pages ({}{} bytes), file has {} bytes",
                    if has_bytes { "at least " } else { "" },
                    want.map_or_else(|| "too many".to_string(), |w| (w + if has_bytes { 2 * n_requests } else { 0 }).to_string()),
                    b.len()
                ),
            ));
        }
        if n_pages > u64::from(MAX_DENSE) + 1 {
            return Err(corrupt(
                path,
                format!("{n_pages} pages exceed the flt limit"),
            ));
        }
        let crc = crc32fast::hash(&b[HEADER_LEN..]);
        if crc != u32_at(32) {
            return Err(corrupt(
                path,
                format!(
                    "checksum mismatch (stored {:#010x}, computed {crc:#010x})",
                    u32_at(32)
                ),
            ));
        }
        let (n_requests, n_pages) = (n_requests as usize, n_pages as usize);
        let reqs = &b[HEADER_LEN..HEADER_LEN + 4 * n_requests];
        let max = reqs
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")) & MAX_DENSE)
            .max();
        if let Some(max) = max {
            if max as usize >= n_pages {
                return Err(corrupt(
                    path,
                    format!("request refers to dense page {max} but the trace has {n_pages} pages"),
                ));
            }
        }
        if has_bytes {
            let section = &b[HEADER_LEN + 4 * n_requests + 8 * n_pages..];
            let mut pos = 0;
            let mut scratch = Vec::new();
            for (i, w) in reqs.chunks_exact(4).enumerate() {
                let w = u32::from_le_bytes(w.try_into().expect("4 bytes"));
                pos = decode_ranges(section, pos, &mut scratch).ok_or_else(|| {
                    corrupt(
                        path,
                        format!("byte-range section ends inside request {}", i + 1),
                    )
                })?;
                if w >> 31 == 0 && !scratch.is_empty() {
                    return Err(corrupt(
                        path,
                        format!("read request {} carries byte ranges", i + 1),
                    ));
                }
            }
            if pos != section.len() {
                return Err(corrupt(
                    path,
                    format!(
                        "{} stray bytes after the byte-range section",
                        section.len() - pos
                    ),
                ));
            }
        }
        Ok(Flt {
            bytes,
            path: path.to_path_buf(),
            n_requests,
            n_pages,
            has_bytes,
            by_number: std::sync::OnceLock::new(),
            sorted: std::sync::OnceLock::new(),
        })
    }

    /// The dense id of the page numbered `delta` away from dense page `d`'s
    /// number, if the trace has it: one step is a precomputed link to the
    /// page numbered one below or one above (one lookup, not a search), as
    /// write clustering asks on its path; a longer one, which reading ahead
    /// asks, a search for the number itself ([`Flt::dense_of`]).
    pub fn neighbour(&self, d: DenseId, delta: i64) -> Option<DenseId> {
        match delta {
            -1 | 1 => {
                let p = self.number_order().get(d as usize)?[usize::from(delta > 0)];
                (p != u32::MAX).then_some(p)
            }
            0 => Some(d),
            _ if d as usize >= self.n_pages => None,
            _ => self.dense_of(self.original(d).checked_add_signed(delta)?),
        }
    }

    /// The dense id of the page numbered `number`, if the trace has it (a
    /// binary search in a table built on first use; for pages a store moved,
    /// not for the per-request path).
    pub fn dense_of(&self, number: PageId) -> Option<DenseId> {
        let sorted = self.by_original();
        sorted
            .binary_search_by_key(&number, |&(n, _)| n)
            .ok()
            .map(|i| sorted[i].1)
    }

    /// Starts loading `d`'s numeric links into the cache.
    pub fn prefetch_links(&self, d: DenseId) {
        if let Some(l) = self.number_order().get(d as usize) {
            crate::types::prefetch(l);
        }
    }

    fn number_order(&self) -> &NumberOrder {
        self.by_number.get_or_init(|| {
            let mut links = vec![[u32::MAX; 2]; self.n_pages];
            let mut link = |da: DenseId, db: DenseId| {
                links[da as usize][1] = db;
                links[db as usize][0] = da;
            };
            match self.direct_table() {
                // Neighbouring numbers are neighbouring cells.
                Some((_, table)) => {
                    for w in table.windows(2) {
                        if w[0] != u32::MAX && w[1] != u32::MAX {
                            link(w[0], w[1]);
                        }
                    }
                }
                None => {
                    for w in self.by_original().windows(2) {
                        let ((a, da), (b, db)) = (w[0], w[1]);
                        if a.checked_add(1) == Some(b) {
                            link(da, db);
                        }
                    }
                }
            }
            links.into_boxed_slice()
        })
    }

    /// Every (original id, dense id) pair in original-id order, built on
    /// first use: read off the [`Flt::direct_table`] where there is one,
    /// else sorted as pairs.
    fn by_original(&self) -> &[(PageId, DenseId)] {
        self.sorted.get_or_init(|| {
            if let Some((lo, table)) = self.direct_table() {
                return (lo..).zip(table).filter(|&(_, d)| d != u32::MAX).collect();
            }
            let mut v: Vec<(PageId, DenseId)> = (0..self.n_pages as DenseId)
                .map(|d| (self.original(d), d))
                .collect();
            v.sort_unstable();
            v.into_boxed_slice()
        })
    }

    /// When the page numbers lie close together (their range at most
    /// [`DIRECT_RANGE`] times the pages, as in every database file and
    /// generated trace): the lowest number and a table of each number's
    /// dense id from it on (`u32::MAX` for numbers the trace lacks), built in
    /// O(range) with no comparisons. `None` for sparse numbers (and, though
    /// validation keeps them distinct, for numbers that repeat).
    fn direct_table(&self) -> Option<(PageId, Vec<u32>)> {
        let numbers = || (0..self.n_pages as DenseId).map(|d| (self.original(d), d));
        let (lo, hi) = numbers().fold((PageId::MAX, 0), |(lo, hi), (n, _)| (lo.min(n), hi.max(n)));
        if lo > hi || hi - lo >= DIRECT_RANGE * self.n_pages as u64 {
            return None;
        }
        let mut table = vec![u32::MAX; (hi - lo + 1) as usize];
        for (n, d) in numbers() {
            let cell = &mut table[(n - lo) as usize];
            if *cell != u32::MAX {
                return None;
            }
            *cell = d;
        }
        Some((lo, table))
    }

    /// Whether the trace carries the byte ranges each write changed.
    pub fn has_bytes(&self) -> bool {
        self.has_bytes
    }

    /// The byte-range section (with [`Flt::has_bytes`]), to walk with
    /// [`decode_ranges`] request by request.
    pub fn byte_section(&self) -> Option<&[u8]> {
        self.has_bytes
            .then(|| &self.raw()[HEADER_LEN + 4 * self.n_requests + 8 * self.n_pages..])
    }

    fn raw(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    /// Where the trace came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of requests.
    pub fn len(&self) -> usize {
        self.n_requests
    }

    /// `true` for an empty trace.
    pub fn is_empty(&self) -> bool {
        self.n_requests == 0
    }

    /// Number of distinct pages (dense ids are `0..pages()`).
    pub fn pages(&self) -> usize {
        self.n_pages
    }

    /// The packed request words as little-endian bytes, 4 per request.
    pub fn request_bytes(&self) -> &[u8] {
        &self.raw()[HEADER_LEN..HEADER_LEN + 4 * self.n_requests]
    }

    /// Packed request words, decoded.
    pub fn words(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.request_bytes()
            .as_chunks::<4>()
            .0
            .iter()
            .map(|w| u32::from_le_bytes(*w))
    }

    /// Dense requests.
    pub fn requests(&self) -> impl ExactSizeIterator<Item = (DenseId, Op)> + '_ {
        self.words().map(unpack)
    }

    /// The original id of dense page `d`.
    pub fn original(&self, d: DenseId) -> PageId {
        let o = HEADER_LEN + 4 * self.n_requests + 8 * d as usize;
        u64::from_le_bytes(self.raw()[o..o + 8].try_into().expect("8 bytes"))
    }

    /// Starts loading dense id `d`'s original id into the cache.
    #[inline]
    pub fn prefetch_original(&self, d: DenseId) {
        let o = HEADER_LEN + 4 * self.n_requests + 8 * d as usize;
        if let Some(b) = self.raw().get(o) {
            crate::types::prefetch(b);
        }
    }

    /// All original ids in dense order.
    pub fn originals(&self) -> Vec<PageId> {
        let o = HEADER_LEN + 4 * self.n_requests;
        self.raw()[o..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }

    /// The format (always [`Format::Flt`]).
    pub fn format(&self) -> Format {
        Format::Flt
    }
}

/// Whether the `flt` file at `path` declares a byte-range section. Reads the
/// header only; [`Flt::open`] validates the rest.
pub fn declares_bytes(path: &Path) -> Result<bool> {
    let h = super::input::head(path, HEADER_LEN)?;
    match h.len() {
        HEADER_LEN if &h[..8] == MAGIC => {
            Ok(u32::from_le_bytes(h[12..16].try_into().expect("4 bytes")) & FLAG_BYTES != 0)
        }
        // A short or foreign file is reported by Flt::open with its reason.
        _ => Ok(false),
    }
}

/// Decodes the byte ranges of one request starting at `pos` of a byte-range
/// section into `out` (cleared first); returns the position of the next
/// request, or `None` if the section ends too early.
pub fn decode_ranges(section: &[u8], pos: usize, out: &mut Vec<ByteRange>) -> Option<usize> {
    out.clear();
    let u16_at = |o: usize| {
        section
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let count = usize::from(u16_at(pos)?);
    let mut p = pos + 2;
    for _ in 0..count {
        out.push(ByteRange {
            offset: u16_at(p)?,
            len: u16_at(p + 2)?,
        });
        p += 4;
    }
    Some(p)
}

fn corrupt(path: &Path, msg: String) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        msg,
    }
}
