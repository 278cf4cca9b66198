//! The hybrid store (Koltsidas & Viglas 2008): every policy runs unchanged
//! over a [`HybridStore`] of two cost-only stores, which places pages by
//! the chosen algorithm and counts each disk's I/O, migrations included.
//!
//! `optimal` takes two passes: the first records each page's physical
//! events with every page left on the magnetic disk, the offline optimum is
//! solved per page ([`crate::hybrid::PlacementSchedule`]), and the second
//! replays the trace following it, so its cost is a real run's.
//!
//! A trace refers to a database that already exists: pages are on the
//! magnetic disk at the start with their accounting started
//! ([`crate::hybrid::HybridStoreBuilder::preloaded`]).

use super::fields::{kind_row, Field};
use super::{device, device_key, Kind, Opens, Run, Simulated};
use crate::device::{CostUnit, DeviceModel};
use crate::error::Result;
use crate::hybrid::{HybridStore, Placement, PLACEMENTS};
use crate::spec::{Entry, Given, Param, Ty, NO_MAX};
use crate::store::CostStore;
use crate::types::{DeviceId, Fields, Metrics};

type Store = HybridStore<CostStore, CostStore>;

/// A replay over a flash and a magnetic disk side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridKind {
    /// One of [`PLACEMENTS`].
    pub placement: &'static str,
    /// The flash disk.
    pub flash: DeviceModel,
    /// The magnetic disk.
    pub magnetic: DeviceModel,
    /// At most this many pages on flash.
    pub capacity: Option<u64>,
    /// Deferred migrations per batch (0: none).
    pub defer: usize,
}

impl HybridKind {
    fn build(&self, run: &Run<'_>, placement: Placement, record: bool) -> Result<Store> {
        let mut b = HybridStore::builder(
            CostStore::new(self.flash.clone()),
            CostStore::new(self.magnetic.clone()),
        )
        .placement(placement)
        .buffer_pages(run.buffer_pages as u64)
        .file_pages(run.trace.pages() as u64)
        .preloaded(true)
        .record(record)
        .defer(self.defer);
        if let Some(c) = self.capacity {
            b = b.flash_capacity(c);
        }
        b.open()
    }
}

/// `optimal`'s first pass: every page left on the magnetic disk, each
/// page's physical events recorded.
struct FirstPass<'h>(&'h HybridKind);

impl Opens for FirstPass<'_> {
    type Store = Store;
    type Via = Simulated;

    fn open(&self, run: &mut Run<'_>) -> Result<Store> {
        self.0
            .build(run, Placement::Fixed(DeviceId::MAGNETIC), true)
    }
}

impl Opens for HybridKind {
    type Store = Store;
    type Via = Simulated;

    fn open(&self, run: &mut Run<'_>) -> Result<Store> {
        let placement = Placement::by_name(self.placement, || {
            let (_, mut first) = run.drive(&FirstPass(self))?;
            let costs = first.costs();
            Ok((
                first.take_recording().expect("the first pass records"),
                costs,
            ))
        })?;
        self.build(run, placement, false)
    }
}

kind_row! {
    /// A hybrid store's own fields.
    struct HybridRow {
        placement: String = Text, "", "placement", "the placement algorithm";
        flash_reads: u64 = Count, "", "flash reads", "reads on the flash disk (migrations included)";
        flash_writes: u64 = Count, "", "flash writes", "writes on the flash disk (migrations included)";
        magnetic_reads: u64 = Count, "", "magnetic reads", "reads on the magnetic disk (migrations included)";
        magnetic_writes: u64 = Count, "", "magnetic writes", "writes on the magnetic disk (migrations included)";
        migrations: u64 = Count, "", "migrations", "pages moved between the disks";
        pages_on_flash: u64 = Count, "pages", "on flash", "pages on the flash disk at the end";
        flash_capacity: Option<u64> = MaybeCount, "pages", "flash capacity", "the most pages the flash disk holds; none: no limit";
        defer: usize = Count, "pages", "defer", "migrations deferred into batches of this many (0: none)";
        optimum: Option<f64> = MaybeNumber, "cost_unit", "optimum", "the offline optimum's cost of the recorded events (placement optimal; else none)";
    }
}

impl Kind for HybridKind {
    const FIELDS: &'static [Field] = HybridRow::FIELDS;

    const ENTRY: Entry = Entry {
        name: "hybrid",
        description: "a flash and a magnetic disk side by side, each page on one, placed by Koltsidas & Viglas 2008 §4",
        params: &[
            Param::new("placement", Ty::Choice(PLACEMENTS), "hybrid", "the placement algorithm (optimal: the offline optimum, solved from a first pass)"),
            device_key("flash", "koltsidas08-flash", "the flash disk"),
            device_key("magnetic", "koltsidas08-magnetic", "the magnetic disk"),
            Param::new("capacity", Ty::Int(1, NO_MAX), "", "at most this many pages on flash (default: no limit)"),
            Param::new("defer", Ty::Int(0, NO_MAX), "0", "migrations deferred and run in batches of this many pages (0: move at eviction)"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        let (flash, magnetic) = (device(g, "flash")?, device(g, "magnetic")?);
        flash.check_same_unit(&magnetic, ("flash disk", "magnetic disk"))?;
        Ok(HybridKind {
            placement: g.choice("placement"),
            flash,
            magnetic,
            capacity: g.int_given("capacity"),
            defer: g.int("defer") as usize,
        })
    }

    fn priced(&self) -> (String, CostUnit) {
        (
            format!("{}+{}", self.flash.name, self.magnetic.name),
            self.flash.unit,
        )
    }

    /// Each disk's I/O (`devices` is `[flash, magnetic]`; migrations and
    /// the virtual time include the moves), and for `optimal` the dynamic
    /// program's cost of the recorded events.
    fn report(&self, _: &Run<'_>, store: &mut Store, m: &mut Metrics) -> Result<Fields> {
        let dev = |i: usize| m.devices.get(i).map(|d| d.io).unwrap_or_default();
        Ok(HybridRow {
            placement: self.placement.into(),
            flash_reads: dev(0).reads,
            flash_writes: dev(0).writes,
            magnetic_reads: dev(1).reads,
            magnetic_writes: dev(1).writes,
            migrations: m.migrations,
            pages_on_flash: store.pages_on_flash(),
            flash_capacity: self.capacity,
            defer: self.defer,
            optimum: store.placement().optimum(),
        }
        .fields())
    }
}
