//! The flash store: a real buffer pool over a [`FlashStore`] on an
//! in-memory chip of PDL Table 1's geometry (2,048 + 64-byte pages, 64 a
//! block, 16 partial programs a page for IPL's sectors) twice the trace's
//! pages, one logical page per page of the trace. Each `W` is a
//! `fix_write` that changes the bytes the trace's byte-range section says
//! it changed (on a trace without one, the page's first `changed` bytes),
//! so the pool hands those ranges to the store at write-back and a
//! differential or a log holds just them. The run's time is the chip's.

use super::{Kind, Opens, Pooled, Run};
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::flash::{FlashStore, FlashStoreBuilder, Method, METHODS};
use crate::nand::Chip;
use crate::spec::{Entry, Given, Param, Ty};
use crate::trace::Flt;
use crate::types::{Fields, Metrics, Value};
use std::fmt;

/// Bytes per page of the chip a flash store is built on (PDL Table 1).
pub const FLASH_PAGE: usize = 2048;

/// A replay through a buffer pool over a flash store.
#[derive(Clone, Debug, PartialEq)]
pub struct Flash {
    /// The update method.
    pub method: Method,
    /// Obsolete marks in memory (OPU, PDL).
    pub obsolete_in_memory: bool,
    /// On a trace without byte ranges: the bytes at the start of the page
    /// each write changes.
    pub changed: Option<usize>,
}

impl Opens for Flash {
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
            .map_err(|_| Error::invalid("too many pages for a flash chip"))?;
        // Twice the pages (the PDL paper's 1 GB relation on a 2 GB chip),
        // and a few blocks more so that small traces keep collection room.
        let blocks = (2 * pages).div_ceil(64) + 4;
        let chip = Chip::builder(blocks).data_programs(16).build()?;
        FlashStoreBuilder::new(self.method)
            .logical_pages(pages)
            .obsolete_in_memory(self.obsolete_in_memory)
            .create(chip)
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

impl Kind for Flash {
    const ENTRY: Entry = Entry {
        name: "flash",
        description: "a real buffer pool over a NAND flash store (PDL Table 1's chip, twice the trace's pages): a write changes the bytes the trace's byte ranges say, or the page's first 'changed' bytes on a trace without them; the time is the chip's",
        params: &[
            Param::new("method", Ty::Spec(&METHODS), "pdl:256", "the page update method"),
            Param::new("obsolete", Ty::Switch, "off", "obsolete marks in memory instead of on flash (OPU, PDL)"),
            Param::new("changed", Ty::Int(1, FLASH_PAGE as u64), "", "on a trace without byte ranges: each write changes the page's first this many bytes (a trace with byte ranges says what each write changes, and takes no 'changed')"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        Ok(Flash {
            method: Method::parse(&g.value("method"))
                .map_err(|e| g.error(format!("method: {e}")))?,
            obsolete_in_memory: g.switch("obsolete"),
            changed: g.int_given("changed").map(|b| b as usize),
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
        let chip = store.chip().stats();
        let mut flash: Fields = vec![
            ("method", self.method.to_string().into()),
            // Absent: each write changed the bytes of the trace's ranges.
            ("changed", self.changed.into()),
        ];
        flash.extend(chip.fields());
        flash.extend(store.flash_stats().fields());
        Ok(vec![("flash", Value::Group(flash))])
    }
}

impl fmt::Display for Flash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "flash:method={},obsolete={}",
            self.method,
            if self.obsolete_in_memory { "on" } else { "off" }
        )?;
        if let Some(b) = self.changed {
            write!(f, ",changed={b}")?;
        }
        Ok(())
    }
}
