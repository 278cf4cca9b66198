//! The FTL store: an SSD whose flash translation layer ([`crate::ftl`])
//! turns the policy's write-backs into programs, relocations and erases,
//! each priced by the device, so a policy pays for the collection its
//! writes cause. One logical page per page of the trace, every one written
//! once before the run ([`FtlStore`]); no data.

use super::fields::{Count, Field, Number};
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

impl Kind for FtlKind {
    const FIELDS: &'static [Field] = &[
        Field::new("ftl_blocks", Count, "blocks", "blocks", "erase blocks of the SSD"),
        Field::new("ftl_host_reads", Count, "", "host reads", "pages the host read"),
        Field::new("ftl_host_writes", Count, "", "host writes", "pages the host wrote"),
        Field::new("ftl_relocations", Count, "", "relocations", "valid pages the collector moved"),
        Field::new("ftl_erases", Count, "", "erases", "blocks the collector erased"),
        Field::new("ftl_write_amplification", Number, "", "write ampl.", "flash programs per host write"),
        Field::new("ftl_uniform_greedy_write_amplification", Number, "", "uniform greedy WA", "greedy collection's write amplification under uniform random writes at this spare room (Xiang & Kurkoski)"),
    ];

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
        Ok(vec![
            ("ftl_blocks", u64::from(store.ftl().blocks()).into()),
            ("ftl_host_reads", s.host_reads.into()),
            ("ftl_host_writes", s.host_writes.into()),
            ("ftl_relocations", s.relocations.into()),
            ("ftl_erases", s.erases.into()),
            ("ftl_write_amplification", s.write_amplification().into()),
            (
                "ftl_uniform_greedy_write_amplification",
                greedy_write_amplification(self.op).into(),
            ),
        ])
    }
}
