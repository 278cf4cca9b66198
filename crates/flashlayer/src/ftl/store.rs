//! An SSD as a page store: the [`Ftl`] decides what each page write costs
//! the flash underneath, and a device model prices it. A host read is one
//! flash read; a host write is one program, plus the reads and programs of
//! the valid pages its collection relocates and the erases of the blocks
//! it reclaims. The store keeps no data (`page_size` 0), like the cost
//! store, and names pages by the caller's dense ids.
//!
//! Before the first request every logical page is written once in order
//! (a database's pages exist on the device before it is used; MQSim
//! preconditions its SSD for the same reason), and the counts start from
//! there: the run pays for the collection its own writes cause.

use super::{Collector, Ftl, FtlStats};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::store::{Meter, Naming, PageStore};
use crate::types::{DeviceStats, IoStats, PageCost, PageId};

/// A page-mapped SSD priced by a device model ([`DeviceModel::erase`]
/// prices an erase; none: erases are free).
#[derive(Debug)]
pub struct FtlStore {
    ftl: Ftl,
    meter: Meter,
    /// The layer's counts at the end of preconditioning.
    base: FtlStats,
}

impl FtlStore {
    /// An SSD of `logical` pages, over-provisioning `op`, blocks of
    /// `pages_per_block` pages and `collector`, every page written once.
    pub fn new(
        device: DeviceModel,
        logical: u32,
        op: f64,
        pages_per_block: u32,
        collector: Collector,
    ) -> Result<Self> {
        let mut ftl = Ftl::new(logical, op, pages_per_block, collector)?;
        for page in 0..logical {
            ftl.write(page)?;
        }
        let base = ftl.stats();
        Ok(FtlStore {
            ftl,
            meter: Meter::new(device),
            base,
        })
    }

    /// What the layer did since preconditioning.
    pub fn ftl_stats(&self) -> FtlStats {
        let (now, b) = (self.ftl.stats(), self.base);
        FtlStats {
            host_writes: now.host_writes - b.host_writes,
            host_reads: now.host_reads - b.host_reads,
            relocations: now.relocations - b.relocations,
            erases: now.erases - b.erases,
        }
    }

    /// The translation layer.
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    fn logical(page: PageId) -> Result<u32> {
        u32::try_from(page).map_err(|_| Error::invalid(format!("page {page} is beyond an FTL")))
    }
}

impl PageStore for FtlStore {
    fn page_size(&self) -> usize {
        0
    }

    fn read(&mut self, page: PageId, _buf: &mut [u8]) -> Result<()> {
        self.ftl.read(Self::logical(page)?)?;
        self.meter.read(false);
        Ok(())
    }

    /// One program, and the relocations and erases it triggers, each at
    /// the device's price. Page-mapped: a batch is its pages' writes, none
    /// cheaper for following another (the layer places every write at its
    /// frontier), so the default `write_batch` serves.
    fn write(&mut self, page: PageId, _buf: &[u8]) -> Result<()> {
        let before = self.ftl.stats();
        self.ftl.write(Self::logical(page)?)?;
        let after = self.ftl.stats();
        for _ in before.relocations..after.relocations {
            self.meter.read(false);
            self.meter.write(false);
        }
        self.meter.write(false);
        for _ in before.erases..after.erases {
            self.meter.erase();
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn naming(&self) -> Naming {
        Naming::Dense
    }

    fn cost_of(&self, _page: PageId) -> PageCost {
        self.meter.page_cost()
    }

    fn stats(&self) -> IoStats {
        self.meter.stats()
    }

    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        out.push(self.meter.device_stats());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device() -> DeviceModel {
        DeviceModel::parse("read=1,write=10,erase=100").unwrap()
    }

    #[test]
    fn a_write_pays_for_the_collection_it_causes() {
        let mut s = FtlStore::new(device(), 64, 0.5, 8, Collector::Greedy).unwrap();
        assert_eq!(
            s.stats().virtual_time,
            0.0,
            "preconditioning is not counted"
        );
        for i in 0..1000u64 {
            s.write((i * 7) % 64, &[]).unwrap();
        }
        let f = s.ftl_stats();
        let io = s.stats();
        assert_eq!(f.host_writes, 1000);
        assert!(f.relocations > 0 && f.erases > 0);
        assert_eq!(io.writes, f.programs());
        assert_eq!(io.reads, f.relocations);
        assert_eq!(io.erases, f.erases);
        let priced = f.relocations as f64 + 10.0 * f.programs() as f64 + 100.0 * f.erases as f64;
        assert_eq!(io.virtual_time, priced);
        s.ftl().check_consistency().unwrap();
    }

    #[test]
    fn a_page_beyond_the_device_is_an_error() {
        let mut s = FtlStore::new(device(), 64, 0.5, 8, Collector::Greedy).unwrap();
        assert!(s.write(64, &[]).is_err());
        assert!(s.read(1 << 40, &mut []).is_err());
    }
}
