//! A store that prices I/O and keeps no data: the trace simulator's store.

use super::{Meter, PageStore};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::types::PageId;

/// Prices every read and write with a device model; holds no bytes.
#[derive(Clone, Debug)]
pub struct CostStore {
    meter: Meter,
}

impl CostStore {
    /// A cost-only store on `device`. Every single-page I/O is priced as
    /// random; only [`PageStore::write_batch`] prices sequential writes.
    pub fn new(device: DeviceModel) -> Self {
        CostStore {
            meter: Meter::new(device),
        }
    }

    /// The device model.
    pub fn device(&self) -> &DeviceModel {
        self.meter.device()
    }
}

impl PageStore for CostStore {
    fn page_size(&self) -> usize {
        0
    }
    #[inline]
    fn read(&mut self, _page: PageId, _buf: &mut [u8]) -> Result<()> {
        self.meter.read(false);
        Ok(())
    }
    #[inline]
    fn write(&mut self, _page: PageId, _buf: &[u8]) -> Result<()> {
        self.meter.write(false);
        Ok(())
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        self.meter.write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    fn read_ahead(&mut self, after: PageId, pages: &[PageId], _buf: &mut [u8]) -> Result<()> {
        self.meter.read_batch(after, pages.iter().copied());
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn naming(&self) -> crate::store::Naming {
        crate::store::Naming::Batches
    }
    metered!();
}
