//! Device cost models (`docs/design/stores.md`: device costs;
//! `docs/design/systems.md`: the presets and their sources).
//!
//! A [`DeviceModel`] prices physical operations in virtual time: random and
//! sequential reads and writes, and block erases for raw NAND. Virtual time is
//! `T_v = Σ operations × their costs` (CASA Eq. 1). Units are those of the
//! source: microseconds for measured devices, abstract cost units for ratios.
//!
//! Presets are named after the paper they come from; [`DeviceModel::parse`]
//! also accepts `ratio:1:N` and explicit `read=1,write=64[,...]` specs, by
//! the one grammar ([`DEVICES`], `spec.rs` here).

mod spec;

pub use spec::DEVICES;

use crate::error::{Error, Result};

/// Unit of a model's costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostUnit {
    /// Microseconds measured on a real device.
    Micros,
    /// Dimensionless cost units (ratios, normalised costs).
    Units,
}

impl CostUnit {
    /// Short name for reports (`"us"` or `"units"`).
    pub fn as_str(self) -> &'static str {
        match self {
            CostUnit::Micros => "us",
            CostUnit::Units => "units",
        }
    }
}

/// Costs of the physical operations of one device.
///
/// Defaults where a source gives no number: sequential read and write cost
/// the same as random ones, and a device has no erase (`erase = None`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceModel {
    /// Preset name or the spec the model was parsed from.
    pub name: String,
    /// Random page read.
    pub read: f64,
    /// Random page write.
    pub write: f64,
    /// Sequential page read (the next page after the previous read).
    pub seq_read: f64,
    /// Sequential page write (clustered write-back, next page after the previous one).
    pub seq_write: f64,
    /// Block erase, for raw NAND only.
    pub erase: Option<f64>,
    /// Unit of every cost above.
    pub unit: CostUnit,
    /// I/Os the device serves at once, `k` of Papon & Athanassoulis's
    /// parametric I/O model (CIDR 2021): a batch of up to `k` page writes
    /// issued together takes the time of one. 1 (the default but for a
    /// preset whose source gives one): every write is priced on its own.
    pub concurrency: u32,
}

impl DeviceModel {
    /// What a batch of `n` page writes issued together costs when the
    /// device serves several at once: `⌈n / k⌉` random writes; `None` at
    /// `k = 1`, where each page is priced on its own (sequential or not).
    pub fn concurrent_batch(&self, n: usize) -> Option<f64> {
        self.rounds(n).map(|r| r * self.write)
    }

    /// What `n` page reads issued together cost when the device serves
    /// several at once: `⌈n / k⌉` random reads; `None` at `k = 1`.
    pub fn concurrent_reads(&self, n: usize) -> Option<f64> {
        self.rounds(n).map(|r| r * self.read)
    }

    /// The rounds of `k` I/Os that `n` I/Os issued together take, `⌈n / k⌉`;
    /// `None` at `k = 1`, where each is priced on its own.
    fn rounds(&self, n: usize) -> Option<f64> {
        (self.concurrency > 1).then(|| n.div_ceil(self.concurrency as usize) as f64)
    }

    /// The model, for a caller that prices each I/O on its own (`what`
    /// names it): refuses a concurrency above 1, which only batches of
    /// writes through [`crate::store::Meter::write_batch`] honour.
    pub fn one_at_a_time(self, what: &str) -> Result<Self> {
        if self.concurrency > 1 {
            return Err(Error::invalid(format!(
                "device '{}': {what} prices each I/O on its own, so a concurrency k={} would be \
                 ignored (only the cost and file stores price batches of writes with it); give \
                 the device k=1 to price each I/O alone",
                self.name, self.concurrency
            )));
        }
        Ok(self)
    }
}

/// One row of [`PRESETS`].
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Name users type.
    pub name: &'static str,
    /// Random read cost.
    pub read: f64,
    /// Random write cost.
    pub write: f64,
    /// Sequential read cost.
    pub seq_read: f64,
    /// Sequential write cost.
    pub seq_write: f64,
    /// Erase cost, if any.
    pub erase: Option<f64>,
    /// Unit.
    pub unit: CostUnit,
    /// I/Os the device serves at once ([`DeviceModel::concurrency`]); 1
    /// where the source measured none.
    pub concurrency: u32,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// The presets of `docs/design/systems.md`, each citing its source.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "koltsidas08-flash",
        read: 1.0,
        write: 118.0,
        seq_read: 1.0,
        // §7 "Deferred page migrations": sequential flash writes are over
        // 10x faster than random ones.
        seq_write: 11.8,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "Koltsidas & Viglas 2008, Table 1 (normalised to a flash read); sequential write from §7",
    },
    Preset {
        name: "koltsidas08-magnetic",
        read: 23.0,
        write: 12.0,
        seq_read: 23.0,
        seq_write: 12.0,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "Koltsidas & Viglas 2008, Table 1 (normalised to a flash read)",
    },
    Preset {
        name: "pdl10-mlc-nand",
        read: 110.0,
        write: 1010.0,
        seq_read: 110.0,
        seq_write: 1010.0,
        erase: Some(1500.0),
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "Kim, Whang & Song 2010, Table 1 (2,048+64-byte pages, 64 pages per block)",
    },
    Preset {
        name: "hypro-ssd",
        read: 271.0,
        write: 803.0,
        // Samsung 470 Series 64 GB (the SSD of HyPro §5) datasheet:
        // sequential write up to 170 MB/s, one 8 KB page (HyPro's
        // PostgreSQL page) in 48.2 µs. A flash read costs the same in any
        // order (no seek; Koltsidas & Viglas §1).
        seq_read: 271.0,
        seq_write: 48.2,
        erase: None,
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "Lv et al. (HyPro), Table 4 (random, measured on a Samsung 470 Series 64 GB); sequential: \
                 8 KB at the Samsung 470 Series 64 GB datasheet's 170 MB/s sequential write; flash reads \
                 cost the same in any order",
    },
    Preset {
        name: "hypro-ssd-lowend",
        read: 271.0,
        write: 2012.0,
        // HyPro names no device for Table 1's low-end SSD: no sequential
        // figure to take, so sequential costs equal random ones.
        seq_read: 271.0,
        seq_write: 2012.0,
        erase: None,
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "Lv et al. (HyPro), Table 1 (the low-end SSD of Fig. 6a and 6c; no device named, so \
                 sequential = random)",
    },
    Preset {
        name: "hypro-hdd",
        read: 12700.0,
        write: 13700.0,
        // HyPro takes the disk's latencies from another paper and names no
        // disk; the hierarchy never prices a sequential disk access.
        seq_read: 12700.0,
        seq_write: 13700.0,
        erase: None,
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "Lv et al. (HyPro), Table 4 (no disk named, so sequential = random)",
    },
    Preset {
        name: "fdbuffer-hdd",
        read: 1.0,
        write: 1.1,
        // FD-Buffer §5.1: 109 random 8 KB reads/s (9.17 ms each). The disk
        // is an unnamed 160 GB 7200 rpm SATA disk; a disk of that class and
        // year (Seagate Barracuda 7200.10, 2007) streams 62 MB/s on average
        // (Gough Lui's HD Tune measurement), so a sequential 8 KB page takes
        // 0.132 ms = 0.0144 random reads, written as fast as read.
        seq_read: 0.0144,
        seq_write: 0.0144,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "On et al. 2010, §5.1: R = 1.1 (7200 rpm SATA disk, 109 random 8 KB reads/s); sequential: \
                 8 KB at 62 MB/s (HD Tune average of a Seagate Barracuda 7200.10, Gough Lui 2007 \
                 hard-disk corner), in random reads",
    },
    Preset {
        name: "fdbuffer-intel",
        read: 1.0,
        write: 5.8,
        // Intel X25-M datasheet (322296, the one CASA cites): 35,000 random
        // 4 KB reads/s (143 MB/s), sequential write 70 MB/s. An 8 KB page:
        // random read 57.1 µs, sequential write 117 µs (2.05 random reads).
        // A flash read costs the same in any order.
        seq_read: 1.0,
        seq_write: 2.05,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "On et al. 2010, §5.1: R = 5.8 (Intel X25-M); sequential: Intel X25-M SATA SSD datasheet \
                 322296 (35,000 random 4 KB reads/s, 70 MB/s sequential write), 8 KB pages in random \
                 reads; flash reads cost the same in any order",
    },
    Preset {
        name: "fdbuffer-mtron",
        read: 1.0,
        write: 39.6,
        // Mtron MSD-SATA3035 product specification: sustained read
        // 100 MB/s, write 80 MB/s, access time 0.1 ms. An 8 KB page: random
        // read 0.1 + 0.082 = 0.182 ms, sequential write 0.102 ms (0.56
        // random reads). A flash read costs the same in any order.
        seq_read: 1.0,
        seq_write: 0.56,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "On et al. 2010, §5.1: R = 39.6 (Mtron MSD-SATA3035); sequential: Mtron's specification \
                 (100 MB/s read, 80 MB/s write, 0.1 ms access), 8 KB pages in random reads; flash reads \
                 cost the same in any order",
    },
    Preset {
        name: "fdbuffer-sdcard",
        read: 1.0,
        write: 121.3,
        // The Kingston SD4 is an SDHC card of speed class 4: the SD
        // Association's class guarantees 4 MB/s of sequential writing, and
        // no sheet gives more. Its random read time, the unit here, comes
        // from a published measurement of the class: SDHC cards of class 4
        // and 6 read 4 KB blocks at random at up to 3.4 MB/s (Tom's
        // Hardware, "Round-Up: 15 microSDHC Cards, Benchmarked", 2011). An
        // 8 KB page: random read 2.41 ms, sequential write 2.05 ms (0.85
        // random reads). A flash read costs the same in any order.
        seq_read: 1.0,
        seq_write: 0.85,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
        source: "On et al. 2010, §5.1: R = 121.3 (Kingston SD4 card); sequential: the SD Association's speed \
                 class 4 (4 MB/s sequential write) against 4 KB random reads of class 4-6 SDHC cards at \
                 3.4 MB/s (Tom's Hardware microSDHC round-up, 2011), 8 KB pages in random reads; flash reads \
                 cost the same in any order",
    },
    Preset {
        name: "mqsim-ssd",
        read: 75.0,
        write: 750.0,
        // An SSD's flash reads and programs pages wherever its FTL puts
        // them: no cheaper order.
        seq_read: 75.0,
        seq_write: 750.0,
        erase: Some(3800.0),
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "MQSim (Tavakkol et al., FAST 2018), its defaults (CMU-SAFARI/MQSim commit 7ec40e3: \
                 src/exec/Flash_Parameter_Set.cpp, Device_Parameter_Set.cpp and ssdconfig.xml): MLC \
                 page read 75 us, page program 750 us, block erase 3.8 ms; 256 pages a block, \
                 over-provisioning 0.07",
    },
    Preset {
        name: "femu-ssd",
        read: 40.0,
        write: 200.0,
        seq_read: 40.0,
        seq_write: 200.0,
        erase: Some(2000.0),
        unit: CostUnit::Micros,
        concurrency: 1,
        source: "FEMU (Li et al., FAST 2018), its black-box SSD's NAND latencies (vtess/FEMU \
                 hw/femu/bbssd/ftl.h): page read 40 us, program 200 us, block erase 2 ms; 256 pages a block",
    },
    // ACE's authors' four devices, as the demo they built for ACE carries
    // them: a base (read) latency, an asymmetry α (write = α × read) and a
    // concurrency k each. They give no sequential cost, so sequential =
    // random.
    ace_preset!("ace-pcie-ssd", 12.4, 3.0, 6, "PCIe SSD", "Device 1 (PCI)", 37.2),
    ace_preset!("ace-sata-ssd", 100, 1.5, 9, "SATA SSD", "Device 2 (SATA)", 150),
    ace_preset!("ace-optane-ssd", 6.8, 1.1, 5, "Optane SSD", "Device 3 (Optane)", 7.48),
    ace_preset!("ace-virtual-ssd", 180, 2.0, 19, "virtual (cloud) SSD", "Device 4 (Virtual)", 360),
];

/// A device of ACE's authors: `read` µs, writes `asymmetry` times a read,
/// `k` I/Os at once, sequential costs equal to random ones. `write` is
/// `read × asymmetry` as the source states it.
macro_rules! ace_preset {
    ($name:literal, $read:literal, $asymmetry:literal, $k:literal, $what:literal, $device:literal, $write:literal) => {
        Preset {
            name: $name,
            read: $read as f64,
            write: $read as f64 * $asymmetry,
            seq_read: $read as f64,
            seq_write: $read as f64 * $asymmetry,
            erase: None,
            unit: CostUnit::Micros,
            concurrency: $k,
            source: concat!(
                "Papon & Athanassoulis's ",
                $what,
                ", as their ACE demo carries it ",
                "(BU-DiSC/disc-projects.bu.edu commit be3a9d8, ACE/js/workloadGenerator.js and ",
                "ACE/research.html, '",
                $device,
                "'): read ",
                stringify!($read),
                " us, asymmetry ",
                stringify!($asymmetry),
                " (write ",
                stringify!($write),
                " us), concurrency ",
                stringify!($k),
                "; sequential = random"
            ),
        }
    };
}
use ace_preset;

impl DeviceModel {
    /// Refuses two devices of one store that price in different units
    /// (their times could not be added): `what` names them for the error.
    pub fn check_same_unit(&self, other: &DeviceModel, what: (&str, &str)) -> Result<()> {
        if self.unit != other.unit {
            return Err(Error::invalid(format!(
                "the {} '{}' prices in {} and the {} '{}' in {}: both must use one unit",
                what.0,
                self.name,
                self.unit.as_str(),
                what.1,
                other.name,
                other.unit.as_str()
            )));
        }
        Ok(())
    }

    /// A symmetric model with read = write = 1 unit: miss counting.
    pub fn unit() -> Self {
        DeviceModel::ratio(1.0)
    }

    /// CASA's cost ratio `1:n`: read 1, write `n` (units).
    pub fn ratio(n: f64) -> Self {
        DeviceModel {
            name: format!("ratio:1:{n}"),
            read: 1.0,
            write: n,
            seq_read: 1.0,
            seq_write: n,
            erase: None,
            unit: CostUnit::Units,
            concurrency: 1,
        }
    }

    /// A named preset from [`PRESETS`].
    pub fn preset(name: &str) -> Option<Self> {
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(|p| DeviceModel {
                name: p.name.to_string(),
                read: p.read,
                write: p.write,
                seq_read: p.seq_read,
                seq_write: p.seq_write,
                erase: p.erase,
                unit: p.unit,
                concurrency: p.concurrency,
            })
    }

    /// Write cost over read cost (the asymmetry factor R of FD-Buffer, the
    /// cost ratio of CASA).
    pub fn asymmetry(&self) -> f64 {
        self.write / self.read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_by_name() {
        for p in PRESETS {
            let m = DeviceModel::parse(p.name).unwrap();
            assert_eq!(m.read, p.read);
            assert_eq!(m.write, p.write);
        }
    }

    #[test]
    fn ratio_and_key_value_specs_parse() {
        let m = DeviceModel::parse("ratio:1:64").unwrap();
        assert_eq!((m.read, m.write, m.seq_write), (1.0, 64.0, 64.0));
        let m = DeviceModel::parse("read=2,write=8,seq_write=1,unit=us").unwrap();
        assert_eq!(
            (m.read, m.write, m.seq_read, m.seq_write),
            (2.0, 8.0, 2.0, 1.0)
        );
        assert_eq!(m.unit, CostUnit::Micros);
        assert_eq!(m.asymmetry(), 4.0);
    }

    #[test]
    fn bad_specs_are_errors_that_name_the_problem() {
        for (spec, needle) in [
            (
                "nvme",
                "unknown device 'nvme'; valid devices: ratio, read=R,write=W, koltsidas08-flash",
            ),
            ("ratio:1", "ratio:1:N"),
            (
                "ratio:1:-3",
                "bad value '-3' for 'write'; expected a number above 0",
            ),
            (
                "ratio:1:2:3:4",
                "expected at most 3 values separated by ':' (read, write, k)",
            ),
            ("ratio:1:8,k=0", "bad value '0' for 'k'"),
            ("read=1", "both read= and write="),
            ("read=1,write=2,speed=3", "has no parameter 'speed'"),
            ("read=1,write=x", "bad value 'x' for 'write'"),
            ("read=1,write=2,unit=ms", "expected units or us"),
            ("hypro-ssd:5:6", "expected at most 1 value"),
        ] {
            let e = DeviceModel::parse(spec).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }

    /// Papon & Athanassoulis's model: up to k writes issued together take
    /// the time of one; k = 1 prices each write on its own.
    #[test]
    fn a_batch_costs_one_write_per_k_pages() {
        let m = DeviceModel::parse("ratio:1:8,k=4").unwrap();
        assert_eq!(m.concurrency, 4);
        assert_eq!(m.concurrent_batch(1), Some(8.0));
        assert_eq!(m.concurrent_batch(4), Some(8.0));
        assert_eq!(m.concurrent_batch(5), Some(16.0));
        assert_eq!(DeviceModel::parse("ratio:1:8:4").unwrap().concurrency, 4);
        assert_eq!(
            DeviceModel::parse("ratio:1:8").unwrap().concurrent_batch(4),
            None
        );
        let p = DeviceModel::parse("fdbuffer-intel:k=8").unwrap();
        assert_eq!((p.concurrency, p.write), (8, 5.8));
        assert!(m
            .one_at_a_time("a curve")
            .unwrap_err()
            .to_string()
            .contains("k=4"));
    }

    /// The SSD simulators' presets hold the NAND latencies their code
    /// defaults to (MQSim's `Flash_Parameter_Set.cpp`, FEMU's
    /// `bbssd/ftl.h`), in µs: a page program costs more than a page read
    /// and a block erase more than either, in any order.
    #[test]
    fn ssd_simulator_presets_hold_their_simulators_defaults() {
        for (name, read, program, erase) in [
            ("mqsim-ssd", 75.0, 750.0, 3800.0),
            ("femu-ssd", 40.0, 200.0, 2000.0),
        ] {
            let m = DeviceModel::preset(name).unwrap();
            assert_eq!(m.unit, CostUnit::Micros, "{name}");
            assert_eq!(
                (m.read, m.seq_read, m.write, m.seq_write, m.erase),
                (read, read, program, program, Some(erase)),
                "{name}"
            );
        }
    }

    /// ACE's authors' devices hold their demo's base latency, asymmetry
    /// and concurrency; the concurrency is the preset's default, which a
    /// spec may change (the model then named as written), and a consumer
    /// that prices each I/O on its own refuses it unless given k=1.
    #[test]
    fn ace_presets_hold_their_authors_devices() {
        for (name, read, asymmetry, k) in [
            ("ace-pcie-ssd", 12.4, 3.0, 6),
            ("ace-sata-ssd", 100.0, 1.5, 9),
            ("ace-optane-ssd", 6.8, 1.1, 5),
            ("ace-virtual-ssd", 180.0, 2.0, 19),
        ] {
            let m = DeviceModel::parse(name).unwrap();
            assert_eq!(
                (m.name.as_str(), m.unit, m.concurrency, m.erase),
                (name, CostUnit::Micros, k, None)
            );
            assert_eq!((m.read, m.seq_read), (read, read), "{name}");
            assert!((m.asymmetry() - asymmetry).abs() < 1e-12, "{name}");
            assert_eq!(m.seq_write, m.write, "{name}");
            assert_eq!(m.concurrent_batch(k as usize), Some(m.write), "{name}");
            let e = m.clone().one_at_a_time("a curve").unwrap_err().to_string();
            assert!(e.contains(&format!("k={k}")) && e.contains("k=1"), "{e}");
            let alone = DeviceModel::parse(&format!("{name}:k=1")).unwrap();
            assert_eq!(
                (alone.name, alone.concurrency, alone.write),
                (format!("{name}:k=1"), 1, m.write)
            );
            let own = DeviceModel::parse(&format!("{name}:k={k}")).unwrap();
            assert_eq!(own.name, name);
        }
        assert_eq!(DeviceModel::parse("femu-ssd").unwrap().concurrency, 1);
    }

    #[test]
    fn koltsidas_flash_sequential_write_is_ten_times_cheaper() {
        let m = DeviceModel::preset("koltsidas08-flash").unwrap();
        assert!((m.write / m.seq_write - 10.0).abs() < 1e-9);
    }

    /// A preset tied to a named device writes sequentially for less than at
    /// random, from that device's datasheet; the paper's random costs stay.
    #[test]
    fn datasheet_presets_write_sequentially_for_less() {
        for (name, read, write, seq_write) in [
            ("fdbuffer-hdd", 1.0, 1.1, 0.0144),
            ("fdbuffer-intel", 1.0, 5.8, 2.05),
            ("fdbuffer-mtron", 1.0, 39.6, 0.56),
            ("fdbuffer-sdcard", 1.0, 121.3, 0.85),
            ("hypro-ssd", 271.0, 803.0, 48.2),
        ] {
            let p = PRESETS.iter().find(|p| p.name == name).unwrap();
            assert_eq!(
                (p.read, p.write, p.seq_write),
                (read, write, seq_write),
                "{name}"
            );
            assert!(p.seq_write < p.write, "{name}");
            assert!(
                p.source.contains("sequential"),
                "{name} cites no sequential source"
            );
        }
        // Flash reads cost the same in any order; the disk streams.
        assert_eq!(DeviceModel::preset("fdbuffer-intel").unwrap().seq_read, 1.0);
        assert!(DeviceModel::preset("fdbuffer-hdd").unwrap().seq_read < 0.02);
        // No device named, no sequential figure: sequential = random, and the source says so.
        for name in ["hypro-ssd-lowend", "hypro-hdd"] {
            let p = PRESETS.iter().find(|p| p.name == name).unwrap();
            assert_eq!((p.seq_read, p.seq_write), (p.read, p.write), "{name}");
            assert!(p.source.contains("sequential = random"), "{name}");
        }
    }
}
