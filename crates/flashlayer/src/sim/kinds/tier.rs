//! The tier store: DRAM (the buffer, any online policy through the one
//! calling protocol) over an [`SsdTier`] whose SSD level is the scheme's
//! (HyPro, TAC, FaCE, lazy cleaning) over a disk; each device's
//! operations are counted and priced.

use super::fields::{kind_row, Field};
use super::{device, device_key, Kind, Opens, Run, Simulated};
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::spec::{Entry, Given, Param, Size, Ty};
use crate::tier::{AnyScheme, Counting, Io, Scheme, SchemeSpec, SsdTier, TierStats, SCHEMES};
use crate::types::{DenseId, Fields, Metrics};

type Store = SsdTier<AnyScheme, Counting>;

/// A replay through DRAM over an SSD cache over a disk.
#[derive(Clone, Debug, PartialEq)]
pub struct TierKind {
    /// The scheme.
    pub scheme: SchemeSpec,
    /// The SSD's size.
    pub ssd: Size,
    /// The SSD.
    pub ssd_device: DeviceModel,
    /// The disk.
    pub hdd_device: DeviceModel,
}

impl Opens for TierKind {
    type Store = Store;
    type Via = Simulated;

    fn open(&self, run: &mut Run<'_>) -> Result<Store> {
        let trace = run.trace;
        let scheme = self.scheme.build(
            self.ssd.pages(trace.pages()),
            trace.pages(),
            |d| trace.original(d),
            &self.ssd_device,
            &self.hdd_device,
        )?;
        // An offline policy reads DRAM's future from the trace: true unless
        // the scheme serves requests on the SSD, which then never reach DRAM.
        if run.policy.is_offline() && scheme.serves_on_ssd() {
            return Err(Error::invalid(format!(
                "{} is offline, and {} serves requests on the SSD that then never reach DRAM, so \
                 DRAM's future is not the trace's; use an online policy, or a scheme that serves \
                 every request from DRAM (hypro:p_elevate=1, tac, face, lc)",
                run.policy.name(),
                scheme.name()
            )));
        }
        Ok(SsdTier::new(
            scheme,
            Counting::default(),
            &self.ssd_device,
            &self.hdd_device,
        )
        .dense_ids(trace.pages() as DenseId))
    }
}

kind_row! {
    /// A tier's own fields.
    struct TierRow {
        scheme: String = Text, "", "scheme", "the hierarchy scheme's canonical spec";
        scheme_name: String = Text, "", "scheme name", "its short name";
        scheme_label: String = Text, "", "scheme label", "its name with its parameters, as it ran";
        ssd_pages: usize = Count, "pages", "ssd", "the SSD cache's size";
        ssd_share: () = Number by_api, "", "ssd share", "the SSD cache's share of the trace's distinct pages";
        ssd_device: String = Text, "", "ssd device", "the SSD";
        hdd_device: String = Text, "", "hdd device", "the disk";
        ssd_hits: u64 = Count, "", "ssd hits", "requests the SSD served (hits are DRAM's)";
        hdd_misses: u64 = Count, "", "hdd misses", "requests the disk served";
        ssd_reads: u64 = Count, "", "ssd reads", "page reads on the SSD";
        ssd_writes: u64 = Count, "", "ssd writes", "page writes on the SSD";
        ssd_seq_writes: u64 = Count, "", "ssd seq writes", "SSD writes that were sequential";
        hdd_reads: u64 = Count, "", "hdd reads", "page reads on the disk";
        hdd_writes: u64 = Count, "", "hdd writes", "page writes on the disk";
        cleanings: u64 = Count, "", "cleanings", "dirty SSD pages copied to the disk";
        elevations: u64 = Count, "", "elevations", "pages moved up from the SSD to DRAM";
        sinks: u64 = Count, "", "sinks", "pages moved down from DRAM to the SSD";
        ssd_time: f64 = Number, "cost_unit", "ssd time", "the SSD's time: its operations times its prices";
        hdd_time: f64 = Number, "cost_unit", "hdd time", "the disk's time";
        io_time: f64 = Number, "cost_unit", "I/O time", "both, which is the virtual time";
        ssd_used: u64 = Count, "pages", "ssd used", "pages on the SSD at the end";
        ssd_dirty: u64 = Count, "pages", "ssd dirty", "dirty pages on the SSD at the end";
        p_sink: Option<f64> = MaybeNumber, "", "p_sink", "HyPro's final sinking probability (else none)";
        p_elevate: Option<f64> = MaybeNumber, "", "p_elevate", "HyPro's final elevation probability (else none)";
        c_sinkf: Option<f64> = MaybeNumber, "", "c_sinkf", "HyPro's run total of its Eq. 1 (else none)";
        c_sinkd: Option<f64> = MaybeNumber, "", "c_sinkd", "HyPro's run total of its Eq. 2 (else none)";
    }
}

impl Kind for TierKind {
    const FIELDS: &'static [Field] = TierRow::FIELDS;

    const ENTRY: Entry = Entry {
        name: "tier",
        description: "DRAM (the buffer) over an SSD cache managed by a hierarchy scheme over a disk (HyPro, TAC, FaCE, lazy cleaning)",
        params: &[
            Param::new("ssd", Ty::Pages, "10%", "the SSD cache's size"),
            device_key("ssd_device", "hypro-ssd", "the SSD (HyPro Table 4)"),
            device_key("hdd_device", "hypro-hdd", "the disk (HyPro Table 4)"),
            Param::new("scheme", Ty::Spec(&SCHEMES), "hypro", "the hierarchy scheme, its own keys following"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        let (ssd_device, hdd_device) = (device(g, "ssd_device")?, device(g, "hdd_device")?);
        ssd_device.check_same_unit(&hdd_device, ("SSD", "disk"))?;
        Ok(TierKind {
            scheme: SchemeSpec::parse(&g.value("scheme"))?,
            ssd: g.size("ssd"),
            ssd_device,
            hdd_device,
        })
    }

    fn priced(&self) -> (String, CostUnit) {
        (
            format!("{}+{}", self.ssd_device.name, self.hdd_device.name),
            self.ssd_device.unit,
        )
    }

    /// Requests per level, each device's operations and time, the SSD's
    /// pages at the end, and HyPro's probabilities and run totals of
    /// C_sinkf and C_sinkd (§4, Eqs. 1–2). The physical reads and writes
    /// are the devices' (what the tier did, not what DRAM asked).
    fn report(&self, run: &Run<'_>, tier: &mut Store, m: &mut Metrics) -> Result<Fields> {
        let s = TierStats::of(m, tier.counts());
        let io = tier.io().counts();
        let (ssd_time, hdd_time) = tier.times();
        let scheme = tier.scheme();
        let (sink_costs, probabilities) = match scheme {
            AnyScheme::Hypro(h) => (Some(h.sink_costs()), Some(h.probabilities())),
            _ => (None, None),
        };
        let (ssd_used, ssd_dirty) = scheme.ssd_pages();
        m.physical_reads = io.ssd_reads + io.hdd_reads;
        m.physical_writes = io.ssd_writes + io.hdd_writes;
        Ok(TierRow {
            scheme: self.scheme.to_string(),
            scheme_name: self.scheme.name().into(),
            scheme_label: scheme.name(),
            ssd_pages: self.ssd.pages(run.trace.pages()),
            ssd_share: (),
            ssd_device: self.ssd_device.name.clone(),
            hdd_device: self.hdd_device.name.clone(),
            ssd_hits: s.ssd_hits,
            hdd_misses: s.hdd_misses,
            ssd_reads: io.ssd_reads,
            ssd_writes: io.ssd_writes,
            ssd_seq_writes: io.ssd_seq_writes,
            hdd_reads: io.hdd_reads,
            hdd_writes: io.hdd_writes,
            cleanings: io.cleanings,
            elevations: s.elevations,
            sinks: s.sinks,
            ssd_time,
            hdd_time,
            io_time: ssd_time + hdd_time,
            ssd_used,
            ssd_dirty,
            p_sink: probabilities.map(|p| p.0),
            p_elevate: probabilities.map(|p| p.1),
            c_sinkf: sink_costs.map(|c| c.0),
            c_sinkd: sink_costs.map(|c| c.1),
        }
        .fields())
    }
}
