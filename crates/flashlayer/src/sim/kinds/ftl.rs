//! The FTL store: an SSD whose flash translation layer ([`crate::ftl`])
//! turns the policy's write-backs into programs, relocations and erases,
//! each priced by the device, so a policy pays for the collection its
//! writes cause. One logical page per page of the trace, every one written
//! once before the run ([`FtlStore`]); no data.

use super::fields::{kind_row, Field};
use super::{device, device_key, Kind, Opens, Run, Simulated};
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::ftl::{greedy_write_amplification, Collector, FtlStore};
use crate::spec::{Entry, Given, Param, Ty};
use crate::types::{Fields, Metrics};

/// A replay over an [`FtlStore`].
#[derive(Clone, Debug, PartialEq)]
pub struct FtlKind {
    /// The flash's read, program and erase costs.
    pub device: DeviceModel,
    /// Over-provisioning: spare pages as a share of the logical ones.
    pub op: f64,
    /// Pages per erase block.
    pub block: u32,
    /// How the collector picks its victim.
    pub collector: Collector,
}

const COLLECTORS: &[&str] = &["greedy", "cost-benefit"];

impl Opens for FtlKind {
    type Store = FtlStore;
    type Via = Simulated;

    fn open(&self, run: &mut Run<'_>) -> Result<FtlStore> {
        let pages = u32::try_from(run.trace.pages())
            .map_err(|_| Error::invalid("too many pages for an FTL"))?;
        FtlStore::new(
            self.device.clone(),
            pages,
            self.op,
            self.block,
            self.collector,
        )
        .map_err(|e| Error::invalid(format!("ftl store: {e}")))
    }
}

kind_row! {
    /// An SSD's own fields.
    struct FtlRow {
        ftl_blocks: u32 = Count, "blocks", "blocks", "erase blocks of the SSD";
        ftl_host_reads: u64 = Count, "", "host reads", "pages the host read";
        ftl_host_writes: u64 = Count, "", "host writes", "pages the host wrote";
        ftl_relocations: u64 = Count, "", "relocations", "valid pages the collector moved";
        ftl_erases: u64 = Count, "", "erases", "blocks the collector erased";
        ftl_write_amplification: f64 = Number, "", "write ampl.", "flash programs per host write";
        ftl_uniform_greedy_write_amplification: f64 = Number, "", "uniform greedy WA", "greedy collection's write amplification under uniform random writes at this spare room (Xiang & Kurkoski)";
    }
}

impl Kind for FtlKind {
    const FIELDS: &'static [Field] = FtlRow::FIELDS;

    const ENTRY: Entry = Entry {
        name: "ftl",
        description: "an SSD with a page-mapped flash translation layer, no data: a write-back is a program, plus the relocations and erases of the collection it causes, each at the device's price; every page of the trace is written once before the run",
        params: &[
            device_key("device", "mqsim-ssd", "the flash's page read, page program and block erase costs (erase: none is free)"),
            Param::new("op", Ty::Positive(4.0), "0.07", "over-provisioning: spare pages as a share of the trace's pages (MQSim's 0.07)"),
            Param::new("block", Ty::Int(2, 4096), "256", "pages per erase block (MQSim's and FEMU's 256)"),
            Param::new("gc", Ty::Choice(COLLECTORS), "greedy", "the collector's victim: greedy (fewest valid pages) or cost-benefit (largest (1-u)*age/2u)"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        Ok(FtlKind {
            device: device(g, "device")?,
            op: g.number("op"),
            block: g.int("block") as u32,
            collector: match g.choice("gc") {
                "greedy" => Collector::Greedy,
                _ => Collector::CostBenefit,
            },
        })
    }

    fn priced(&self) -> (String, CostUnit) {
        (self.device.name.clone(), self.device.unit)
    }

    /// The layer's counts since preconditioning, its write amplification,
    /// and greedy's under uniform random writes at this over-provisioning
    /// for comparison.
    fn report(&self, _: &Run<'_>, store: &mut FtlStore, _: &mut Metrics) -> Result<Fields> {
        let s = store.ftl_stats();
        Ok(FtlRow {
            ftl_blocks: store.ftl().blocks(),
            ftl_host_reads: s.host_reads,
            ftl_host_writes: s.host_writes,
            ftl_relocations: s.relocations,
            ftl_erases: s.erases,
            ftl_write_amplification: s.write_amplification(),
            ftl_uniform_greedy_write_amplification: greedy_write_amplification(self.op),
        }
        .fields())
    }
}
