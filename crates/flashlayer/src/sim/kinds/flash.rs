//! The flash store: a real buffer pool over a [`FlashStore`] on an
//! in-memory chip of PDL Table 1's geometry (2,048 + 64-byte pages, 64 a
//! block, 16 partial programs a page for IPL's sectors) of `blocks`
//! blocks (by default twice the trace's pages), one logical page per page
//! of the trace. A database's pages exist before it runs: every page is
//! programmed once before the run, and that load is not counted. Each `W` is a
//! `fix_write` that changes the bytes the trace's byte-range section says
//! it changed (on a trace without one, the page's first `changed` bytes),
//! so the pool hands those ranges to the store at write-back and a
//! differential or a log holds just them. The run's time is the chip's.

use super::fields::{kind_row, Field};
use super::{Kind, Opens, Pooled, Run};
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::flash::{FlashStore, FlashStoreBuilder, Method, METHODS};
use crate::nand::{Chip, Geometry};
use crate::spec::{Entry, Given, Param, Ty};
use crate::store::PageStore;
use crate::trace::Flt;
use crate::types::{Fields, Metrics, PageId};

/// Bytes per page of the chip a flash store is built on (PDL Table 1).
pub const FLASH_PAGE: usize = 2048;

/// A replay through a buffer pool over a flash store.
#[derive(Clone, Debug, PartialEq)]
pub struct FlashKind {
    /// The update method.
    pub method: Method,
    /// Obsolete marks in memory (OPU, PDL).
    pub obsolete_in_memory: bool,
    /// On a trace without byte ranges: the bytes at the start of the page
    /// each write changes.
    pub changed: Option<usize>,
    /// Erase blocks of the chip; `None`: [`FlashKind::default_blocks`].
    pub blocks: Option<u32>,
}

/// Pages per block of the chip (PDL Table 1).
const BLOCK_PAGES: u32 = 64;

impl FlashKind {
    fn geometry(blocks: u32) -> Geometry {
        Geometry {
            blocks,
            pages_per_block: BLOCK_PAGES,
            page_size: FLASH_PAGE,
            spare_size: 64,
        }
    }

    /// The fewest blocks that hold `pages` logical pages under `store`'s
    /// method.
    fn fewest_blocks(store: &FlashStoreBuilder, pages: u32) -> u32 {
        let mut b = pages.div_ceil(BLOCK_PAGES).max(1);
        while store.most_logical(Self::geometry(b)) < pages {
            b += 1;
        }
        b
    }

    /// The chip's blocks when none are given: twice the pages (the PDL
    /// paper's 1 GB relation on a 2 GB chip) and 4 blocks more, so that
    /// small traces keep collection room; at least what the method needs.
    pub fn default_blocks(&self, pages: u32) -> u32 {
        let store = FlashStoreBuilder::new(self.method);
        ((2 * pages).div_ceil(BLOCK_PAGES) + 4).max(Self::fewest_blocks(&store, pages))
    }
}

impl Opens for FlashKind {
    type Store = FlashStore;
    type Via = Pooled;
    const DENSE: bool = true;

    fn open(&self, run: &mut Run<'_>) -> Result<FlashStore> {
        let trace = run.trace;
        match (trace.byte_section().is_some(), self.changed) {
            (false, None) => {
                return Err(Error::invalid(
                    "the trace has no byte ranges, so the flash store cannot tell what a \
                     write changes: generate it with them ('flashlayer trace gen WORKLOAD \
                     --with-bytes'), or say it with the store's changed=BYTES (each write \
                     changes the page's first BYTES bytes)",
                ))
            }
            (true, Some(_)) => {
                return Err(Error::invalid(
                    "the trace's byte ranges say what each write changes; changed=BYTES \
                     applies to a trace without them",
                ))
            }
            _ => {}
        }
        let pages = u32::try_from(trace.pages())
            .ok()
            .filter(|p| p.checked_mul(2).is_some())
            .ok_or_else(|| Error::invalid("too many pages for a flash chip"))?;
        let builder = FlashStoreBuilder::new(self.method)
            .logical_pages(pages)
            .obsolete_in_memory(self.obsolete_in_memory);
        let blocks = match self.blocks {
            None => self.default_blocks(pages),
            Some(b) => {
                let need = Self::fewest_blocks(&builder, pages);
                if b < need {
                    return Err(Error::invalid(format!(
                        "flash: blocks={b} is too few for the trace's {pages} pages under {}: it needs at least blocks={need} (the default here is {})",
                        self.method,
                        self.default_blocks(pages)
                    )));
                }
                b
            }
        };
        let chip = Chip::builder(blocks).data_programs(16).build()?;
        let mut store = builder.create(chip)?;
        let page = vec![0u8; FLASH_PAGE];
        for p in 0..pages {
            store.write(PageId::from(p), &page)?;
        }
        store.flush()?;
        store.reset_stats();
        Ok(store)
    }

    /// Every byte a write is said to change does change: one more than it
    /// held.
    fn writes<'a>(&'a self, trace: &'a Flt) -> super::Writes<'a> {
        let section = trace.byte_section();
        let (mut pos, mut ranges) = (0usize, Vec::new());
        let changed = self.changed.unwrap_or(0);
        Box::new(move |i, page| {
            if let Some(sec) = section {
                pos = crate::trace::flt::decode_ranges(sec, pos, &mut ranges)
                    .expect("validated when opened");
            }
            let Some(g) = page else { return Ok(()) };
            if section.is_none() {
                for b in &mut g[..changed] {
                    *b = b.wrapping_add(1);
                }
            }
            for r in &ranges {
                let (at, len) = (usize::from(r.offset), usize::from(r.len));
                if at + len > FLASH_PAGE {
                    return Err(Error::invalid(format!(
                        "request {}: byte range {at}+{len} is beyond the flash chip's \
                         {FLASH_PAGE}-byte pages",
                        i + 1
                    )));
                }
                for b in &mut g[at..at + len] {
                    *b = b.wrapping_add(1);
                }
            }
            Ok(())
        })
    }
}

kind_row! {
    /// A flash store's own fields.
    struct FlashRow {
        flash_method: String = Text, "", "method", "the page update method's canonical spec";
        flash_blocks: u64 = Count, "blocks", "blocks", "erase blocks of the chip";
        flash_changed: Option<usize> = MaybeCount, "bytes", "changed", "the bytes at the start of its page each write changed; none where the trace's byte ranges said";
        chip_reads: u64 = Count, "", "chip reads", "page reads on the chip (data and spare)";
        chip_spare_reads: u64 = Count, "", "spare reads", "reads of a spare area alone";
        chip_programs: u64 = Count, "", "chip programs", "page programs";
        chip_spare_programs: u64 = Count, "", "spare programs", "re-programs of a spare area (obsolete marks)";
        chip_erases: u64 = Count, "", "erases", "block erases";
        chip_time_us: f64 = Number, "us", "chip time", "the chip's time for every operation";
        chip_max_erase_count: u64 = Count, "", "max erases", "the most erases any block has had";
        flash_page_reads: u64 = Count, "", "page reads", "logical pages the method read";
        flash_page_writes: u64 = Count, "", "page writes", "logical pages the method wrote";
        flash_flushes: u64 = Count, "", "flushes", "flushes of the method's write buffer";
        flash_gc_runs: u64 = Count, "", "gc runs", "garbage collections";
        flash_gc_time_us: f64 = Number, "us", "gc time", "the chip's time spent collecting";
        flash_differentials: u64 = Count, "", "differentials", "differentials written (PDL)";
        flash_new_base_pages: u64 = Count, "", "new base pages", "base pages rewritten because a differential outgrew its room (PDL)";
        flash_folds: u64 = Count, "", "folds", "collections forced by space pressure that found no block worth reclaiming";
    }
}

impl Kind for FlashKind {
    const FIELDS: &'static [Field] = FlashRow::FIELDS;

    const ENTRY: Entry = Entry {
        name: "flash",
        description: "a real buffer pool over a NAND flash store (PDL Table 1's chip): every page of the trace is programmed once before the run (not counted); a write changes the bytes the trace's byte ranges say, or the page's first 'changed' bytes on a trace without them; the time is the chip's",
        params: &[
            Param::new("method", Ty::Spec(&METHODS), "pdl:256", "the page update method"),
            Param::new("obsolete", Ty::Switch, "off", "obsolete marks in memory instead of on flash (OPU, PDL)"),
            Param::new("blocks", Ty::Int(1, 1 << 20), "", "erase blocks of 64 pages on the chip (default: twice the trace's pages and 4 blocks more, at least what the method needs)"),
            Param::new("changed", Ty::Int(1, FLASH_PAGE as u64), "", "on a trace without byte ranges: each write changes the page's first this many bytes (a trace with byte ranges says what each write changes, and takes no 'changed')"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        Ok(FlashKind {
            method: Method::parse(&g.value("method"))
                .map_err(|e| g.error(format!("method: {e}")))?,
            obsolete_in_memory: g.switch("obsolete"),
            changed: g.int_given("changed").map(|b| b as usize),
            blocks: g.int_given("blocks").map(|b| b as u32),
        })
    }

    /// The chip's unit, named by its timing preset.
    fn priced(&self) -> (String, CostUnit) {
        let chip = DeviceModel::preset(crate::nand::DEFAULT_PRESET).expect("a preset");
        (chip.name, chip.unit)
    }

    /// The method, the chip's operations and the method's own counters.
    /// (The run's time is the chip's already: the store's I/O statistics
    /// are its chip's, collection included.)
    fn report(&self, _: &Run<'_>, store: &mut FlashStore, _: &mut Metrics) -> Result<Fields> {
        let (c, f) = (store.chip().stats(), store.flash_stats());
        Ok(FlashRow {
            flash_method: self.method.to_string(),
            flash_blocks: store.chip().geometry().blocks.into(),
            // None: each write changed the bytes of the trace's ranges.
            flash_changed: self.changed,
            chip_reads: c.reads,
            chip_spare_reads: c.spare_reads,
            chip_programs: c.programs,
            chip_spare_programs: c.spare_programs,
            chip_erases: c.erases,
            chip_time_us: c.time_us,
            chip_max_erase_count: c.max_erase_count.into(),
            flash_page_reads: f.page_reads,
            flash_page_writes: f.page_writes,
            flash_flushes: f.flushes,
            flash_gc_runs: f.gc_runs,
            flash_gc_time_us: f.gc_time_us,
            flash_differentials: f.differentials,
            flash_new_base_pages: f.new_base_pages,
            flash_folds: f.folds,
        }
        .fields())
    }
}
