//! The cost store: a device model pricing every read and write, no data
//! ([`crate::store::CostStore`]); the simulator's store.

use super::fields::Field;
use super::{batched_device, device_key, Kind, Opens, Run, Simulated};
use crate::device::{CostUnit, DeviceModel};
use crate::error::Result;
use crate::policy::ScheduleCosts;
use crate::spec::{Entry, Given};
use crate::store::CostStore;

/// A replay over a [`CostStore`]: the policy's misses and write-backs
/// priced by one device.
#[derive(Clone, Debug, PartialEq)]
pub struct CostKind {
    /// The device.
    pub device: DeviceModel,
}

impl Opens for CostKind {
    type Store = CostStore;
    type Via = Simulated;

    fn open(&self, _: &mut Run<'_>) -> Result<CostStore> {
        Ok(CostStore::new(self.device.clone()))
    }

    /// None on a device with concurrency: no schedule is planned for
    /// batches of writes.
    fn schedule_costs(&self, flush_at_end: bool) -> Option<ScheduleCosts> {
        (self.device.concurrency == 1).then(|| ScheduleCosts::of(&self.device, flush_at_end))
    }
}

impl Kind for CostKind {
    const FIELDS: &'static [Field] = &[];

    const ENTRY: Entry = Entry {
        name: "cost",
        description:
            "a device cost model, no data: the simulator's store (--device SPEC is its shorthand)",
        params: &[device_key(
            "device",
            "ratio:1:1",
            "the device model that prices every read and write",
        )],
    };

    fn read(g: &Given) -> Result<Self> {
        Ok(CostKind {
            device: batched_device(g, "device")?,
        })
    }

    fn priced(&self) -> (String, CostUnit) {
        (self.device.name.clone(), self.device.unit)
    }
}
