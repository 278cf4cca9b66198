//! The persisted placement state of a hybrid store: one record per page
//! (where it is, which slot, what its placement algorithm has counted),
//! kept in a journal of two disks.
//!
//! A record is appended when a page moves (after its new copy is durable)
//! and, at `flush`, for every page whose record changed; the journal is
//! synced at the end of `flush`. Each disk starts with a header (magic,
//! generation, CRC); records carry the generation and a CRC, and replay
//! stops at the first record that is torn or from an older generation, so
//! a crash loses only records that were never synced. When the active disk
//! holds four times more records than there are pages (and at least 4,096),
//! the live records are written to the other disk under the next
//! generation, which is synced before its header is written and synced:
//! until then the old disk stays the valid one.
//!
//! The paper keeps 9 bytes a page (conservative) or 17 (hybrid) on the
//! magnetic disk; a record here is 56 bytes because it also names its page
//! and slot and carries its generation and checksum.

use super::placement::Counters;
use crate::error::{Error, Result};
use crate::store::Disk;
use crate::types::{DeviceId, PageId};

const MAGIC: &[u8; 8] = b"FLHYBRD1";
const HEADER: u64 = 64;
/// Bytes of one record.
pub const RECORD: usize = 56;

/// What is persisted for one page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    /// The page.
    pub page: PageId,
    /// The disk it is on.
    pub device: DeviceId,
    /// Whether it has been written (its slot holds its contents).
    pub written: bool,
    /// Whether its placement has started accounting.
    pub accounting: bool,
    /// Its slot on `device`.
    pub slot: u32,
    /// Its evictions so far (the optimal schedule's clock).
    pub evictions: u32,
    /// Its placement counters.
    pub counters: Counters,
}

impl Record {
    fn encode(&self, generation: u32) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[0..8].copy_from_slice(&self.page.to_le_bytes());
        b[8] = self.device.0;
        b[9] = u8::from(self.written) | u8::from(self.accounting) << 1;
        b[12..16].copy_from_slice(&self.slot.to_le_bytes());
        b[16..24].copy_from_slice(&self.counters.c.to_le_bytes());
        b[24..28].copy_from_slice(&self.counters.lr.to_le_bytes());
        b[28..32].copy_from_slice(&self.counters.lw.to_le_bytes());
        b[32..36].copy_from_slice(&self.counters.pr.to_le_bytes());
        b[36..40].copy_from_slice(&self.counters.pw.to_le_bytes());
        b[40..44].copy_from_slice(&self.evictions.to_le_bytes());
        b[44..48].copy_from_slice(&generation.to_le_bytes());
        let crc = crc32fast::hash(&b[..52]);
        b[52..56].copy_from_slice(&crc.to_le_bytes());
        b
    }

    fn decode(b: &[u8], generation: u32) -> Option<Record> {
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        if u32_at(52) != crc32fast::hash(&b[..52]) || u32_at(44) != generation || b[8] > 1 {
            return None;
        }
        let mut page = [0u8; 8];
        page.copy_from_slice(&b[0..8]);
        let mut c = [0u8; 8];
        c.copy_from_slice(&b[16..24]);
        Some(Record {
            page: PageId::from_le_bytes(page),
            device: DeviceId(b[8]),
            written: b[9] & 1 != 0,
            accounting: b[9] & 2 != 0,
            slot: u32_at(12),
            evictions: u32_at(40),
            counters: Counters {
                c: f64::from_le_bytes(c),
                lr: u32_at(24),
                lw: u32_at(28),
                pr: u32_at(32),
                pw: u32_at(36),
            },
        })
    }
}

/// A boxed disk, as the journal holds them.
pub type BoxDisk = Box<dyn Disk + Send>;

/// The two-disk journal.
pub struct Journal {
    disks: [BoxDisk; 2],
    active: usize,
    generation: u32,
    /// Records in the active disk.
    records: u64,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("active", &self.active)
            .field("generation", &self.generation)
            .field("records", &self.records)
            .finish()
    }
}

fn header(generation: u32) -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&generation.to_le_bytes());
    let crc = crc32fast::hash(&h[..12]);
    h[12..16].copy_from_slice(&crc.to_le_bytes());
    h
}

fn read_header(d: &mut BoxDisk) -> Result<Option<u32>> {
    let mut h = [0u8; HEADER as usize];
    d.read_at(&mut h, 0)?;
    if &h[0..8] != MAGIC {
        return Ok(None);
    }
    let generation = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    let crc = u32::from_le_bytes([h[12], h[13], h[14], h[15]]);
    Ok((crc == crc32fast::hash(&h[..12])).then_some(generation))
}

impl Journal {
    /// Opens the journal on `a` and `b` and returns it with every record
    /// replayed in order (a later record of a page replaces an earlier
    /// one). Two empty disks make a new journal.
    pub fn open(a: BoxDisk, b: BoxDisk, mut apply: impl FnMut(Record)) -> Result<Journal> {
        let mut disks = [a, b];
        let gens = [read_header(&mut disks[0])?, read_header(&mut disks[1])?];
        let (active, generation) = match gens {
            [None, None] => {
                if !disks[0].is_empty()? || !disks[1].is_empty()? {
                    return Err(Error::Store(
                        "hybrid store journal: neither disk has a valid header (not a \
                         flashlayer hybrid store, or damaged)"
                            .to_owned(),
                    ));
                }
                disks[0].write_at(&header(1), 0)?;
                disks[0].sync()?;
                (0, 1)
            }
            [Some(g), None] => (0, g),
            [None, Some(g)] => (1, g),
            [Some(g0), Some(g1)] => {
                if g0 >= g1 {
                    (0, g0)
                } else {
                    (1, g1)
                }
            }
        };
        let d = &mut disks[active];
        let len = d.len()?;
        let mut records = 0;
        let mut buf = [0u8; RECORD];
        let mut off = HEADER;
        while off + RECORD as u64 <= len {
            d.read_at(&mut buf, off)?;
            let Some(r) = Record::decode(&buf, generation) else {
                break;
            };
            apply(r);
            records += 1;
            off += RECORD as u64;
        }
        Ok(Journal {
            disks,
            active,
            generation,
            records,
        })
    }

    /// Appends `r` (durable at the next [`Journal::sync`]).
    pub fn append(&mut self, r: &Record) -> Result<()> {
        let off = HEADER + self.records * RECORD as u64;
        self.disks[self.active].write_at(&r.encode(self.generation), off)?;
        self.records += 1;
        Ok(())
    }

    /// Makes every appended record durable.
    pub fn sync(&mut self) -> Result<()> {
        self.disks[self.active].sync()
    }

    /// Whether the active disk has grown to four times `live` records.
    pub fn wants_compaction(&self, live: u64) -> bool {
        self.records >= 4096 && self.records > 4 * live
    }

    /// Writes `live` as the whole journal on the other disk, under the next
    /// generation, and makes that disk the active one.
    pub fn compact(&mut self, live: impl Iterator<Item = Record>) -> Result<()> {
        let next = 1 - self.active;
        let generation = self.generation + 1;
        let d = &mut self.disks[next];
        let mut off = HEADER;
        let mut n = 0;
        for r in live {
            d.write_at(&r.encode(generation), off)?;
            off += RECORD as u64;
            n += 1;
        }
        d.sync()?;
        d.write_at(&header(generation), 0)?;
        d.sync()?;
        self.active = next;
        self.generation = generation;
        self.records = n;
        Ok(())
    }
}
