//! The tier store: DRAM (the buffer, any online policy through the one
//! calling protocol) over an [`SsdTier`] whose SSD level is the scheme's
//! (HyPro, TAC, FaCE, lazy cleaning) over a disk; each device's
//! operations are counted and priced.

use super::fields::{Count, Field, MaybeNumber, Number, Text};
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

impl Kind for TierKind {
    const FIELDS: &'static [Field] = &[
        Field::new(
            "scheme",
            Text,
            "",
            "scheme",
            "the hierarchy scheme's canonical spec",
        ),
        Field::new("scheme_name", Text, "", "scheme name", "its short name"),
        Field::new(
            "scheme_label",
            Text,
            "",
            "scheme label",
            "its name with its parameters, as it ran",
        ),
        Field::new("ssd_pages", Count, "pages", "ssd", "the SSD cache's size"),
        Field::new(
            "ssd_share",
            Number,
            "",
            "ssd share",
            "the SSD cache's share of the trace's distinct pages",
        )
        .by_api(),
        Field::new("ssd_device", Text, "", "ssd device", "the SSD"),
        Field::new("hdd_device", Text, "", "hdd device", "the disk"),
        Field::new(
            "ssd_hits",
            Count,
            "",
            "ssd hits",
            "requests the SSD served (hits are DRAM's)",
        ),
        Field::new(
            "hdd_misses",
            Count,
            "",
            "hdd misses",
            "requests the disk served",
        ),
        Field::new("ssd_reads", Count, "", "ssd reads", "page reads on the SSD"),
        Field::new(
            "ssd_writes",
            Count,
            "",
            "ssd writes",
            "page writes on the SSD",
        ),
        Field::new(
            "ssd_seq_writes",
            Count,
            "",
            "ssd seq writes",
            "SSD writes that were sequential",
        ),
        Field::new(
            "hdd_reads",
            Count,
            "",
            "hdd reads",
            "page reads on the disk",
        ),
        Field::new(
            "hdd_writes",
            Count,
            "",
            "hdd writes",
            "page writes on the disk",
        ),
        Field::new(
            "cleanings",
            Count,
            "",
            "cleanings",
            "dirty SSD pages copied to the disk",
        ),
        Field::new(
            "elevations",
            Count,
            "",
            "elevations",
            "pages moved up from the SSD to DRAM",
        ),
        Field::new(
            "sinks",
            Count,
            "",
            "sinks",
            "pages moved down from DRAM to the SSD",
        ),
        Field::new(
            "ssd_time",
            Number,
            "cost_unit",
            "ssd time",
            "the SSD's time: its operations times its prices",
        ),
        Field::new(
            "hdd_time",
            Number,
            "cost_unit",
            "hdd time",
            "the disk's time",
        ),
        Field::new(
            "io_time",
            Number,
            "cost_unit",
            "I/O time",
            "both, which is the virtual time",
        ),
        Field::new(
            "ssd_used",
            Count,
            "pages",
            "ssd used",
            "pages on the SSD at the end",
        ),
        Field::new(
            "ssd_dirty",
            Count,
            "pages",
            "ssd dirty",
            "dirty pages on the SSD at the end",
        ),
        Field::new(
            "p_sink",
            MaybeNumber,
            "",
            "p_sink",
            "HyPro's final sinking probability (else none)",
        ),
        Field::new(
            "p_elevate",
            MaybeNumber,
            "",
            "p_elevate",
            "HyPro's final elevation probability (else none)",
        ),
        Field::new(
            "c_sinkf",
            MaybeNumber,
            "",
            "c_sinkf",
            "HyPro's run total of its Eq. 1 (else none)",
        ),
        Field::new(
            "c_sinkd",
            MaybeNumber,
            "",
            "c_sinkd",
            "HyPro's run total of its Eq. 2 (else none)",
        ),
    ];

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
        let mut fields: Fields = vec![
            ("scheme", self.scheme.to_string().into()),
            ("scheme_name", self.scheme.name().into()),
            ("scheme_label", scheme.name().into()),
            ("ssd_pages", self.ssd.pages(run.trace.pages()).into()),
            ("ssd_device", self.ssd_device.name.as_str().into()),
            ("hdd_device", self.hdd_device.name.as_str().into()),
        ];
        fields.extend(crate::fields!(s, [ssd_hits, hdd_misses]));
        fields.extend(crate::fields!(
            io,
            [
                ssd_reads,
                ssd_writes,
                ssd_seq_writes,
                hdd_reads,
                hdd_writes,
                cleanings
            ]
        ));
        fields.extend(crate::fields!(s, [elevations, sinks]));
        fields.extend([
            ("ssd_time", ssd_time.into()),
            ("hdd_time", hdd_time.into()),
            ("io_time", (ssd_time + hdd_time).into()),
            ("ssd_used", ssd_used.into()),
            ("ssd_dirty", ssd_dirty.into()),
            ("p_sink", probabilities.map(|p| p.0).into()),
            ("p_elevate", probabilities.map(|p| p.1).into()),
            ("c_sinkf", sink_costs.map(|c| c.0).into()),
            ("c_sinkd", sink_costs.map(|c| c.1).into()),
        ]);
        Ok(fields)
    }
}
