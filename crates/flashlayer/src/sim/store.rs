//! What a replay runs on: a store spec ([`StoreSpec`], the stores' table
//! [`STORES`] of the one grammar, [`crate::spec`]) and the one replay
//! entry ([`replay`]) that runs any policy spec over any store spec,
//! through the one calling protocol ([`crate::drive::Driver`]).
//!
//! Each kind of store owns its defaults (in the table) and its rules of
//! combination (in [`replay`]): a combination that cannot work is refused
//! there, once, with one line.

use super::hybrid::{run_hybrid, HybridRunOptions};
use super::tier::{run_tier, TierOut, TierRunOptions};
use super::{run, FileRunOptions, FlashRunOptions, Job, RunOptions};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::flash::{FlashStats, Method};
use crate::hybrid::PLACEMENTS;
use crate::nand::ChipStats;
use crate::policy::PolicySpec;
use crate::spec::{self, Entry, Given, Param, Size, Table, Ty, NO_MAX};
use crate::tier::{SchemeSpec, SCHEMES};
use crate::trace::Flt;
use crate::types::Metrics;
use std::fmt;
use std::path::PathBuf;

const DEVICE_HELP: &str = "a device preset or spec (flashlayer list devices)";

const COST_DEVICE: Param = Param {
    key: "device",
    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
    default: "ratio:1:1",
    help: "the device model that prices every read and write",
};

/// Every kind of store: the stores' table of the one grammar.
pub static STORES: Table = Table {
    what: "store",
    entries: &[
        Entry {
            name: "cost",
            description: "a device cost model, no data: the simulator's store (--device SPEC is its shorthand)",
            params: &[COST_DEVICE],
        },
        Entry {
            name: "file",
            description: "a real buffer pool over a file: every I/O hits the file and is timed, so cost=measured policies learn this machine's costs (CASA §5.3)",
            params: &[
                Param {
                    key: "path",
                    ty: Ty::Other("a file path"),
                    default: "",
                    help: "the database file, created or overwritten page by page, the trace's pages packed in order of number (default: a temporary file, removed after the run; a file the run created is removed if the run fails)",
                },
                Param {
                    key: "page_size",
                    ty: Ty::Int(512, NO_MAX),
                    default: "4096",
                    help: "bytes per page",
                },
                Param {
                    key: "direct",
                    ty: Ty::Switch,
                    default: "off",
                    help: "open with O_DIRECT, bypassing the page cache",
                },
                Param {
                    key: "device",
                    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
                    default: "ratio:1:1",
                    help: "the device model that prices the virtual time (the measured latencies are what cost=measured sees)",
                },
            ],
        },
        Entry {
            name: "flash",
            description: "a real buffer pool over a NAND flash store (PDL Table 1's chip, twice the trace's pages): a write changes the bytes the trace's byte ranges say, or the page's first 'changed' bytes on a trace without them; the time is the chip's",
            params: &[
                Param {
                    key: "method",
                    ty: Ty::Other(Method::HELP),
                    default: "pdl:256",
                    help: "the page update method",
                },
                Param {
                    key: "obsolete",
                    ty: Ty::Switch,
                    default: "off",
                    help: "obsolete marks in memory instead of on flash (OPU, PDL)",
                },
                Param {
                    key: "changed",
                    ty: Ty::Int(1, crate::sim::FLASH_PAGE as u64),
                    default: "",
                    help: "on a trace without byte ranges: each write changes the page's first this many bytes (a trace with byte ranges says what each write changes, and takes no 'changed')",
                },
            ],
        },
        Entry {
            name: "hybrid",
            description: "a flash and a magnetic disk side by side, each page on one, placed by Koltsidas & Viglas 2008 §4",
            params: &[
                Param {
                    key: "placement",
                    ty: Ty::Choice(PLACEMENTS),
                    default: "hybrid",
                    help: "the placement algorithm (optimal: the offline optimum, solved from a first pass)",
                },
                Param {
                    key: "flash",
                    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
                    default: "koltsidas08-flash",
                    help: "the flash disk",
                },
                Param {
                    key: "magnetic",
                    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
                    default: "koltsidas08-magnetic",
                    help: "the magnetic disk",
                },
                Param {
                    key: "capacity",
                    ty: Ty::Int(1, NO_MAX),
                    default: "",
                    help: "at most this many pages on flash (default: no limit)",
                },
                Param {
                    key: "defer",
                    ty: Ty::Int(0, NO_MAX),
                    default: "0",
                    help: "migrations deferred and run in batches of this many pages (0: move at eviction)",
                },
            ],
        },
        Entry {
            name: "tier",
            description: "DRAM (the buffer) over an SSD cache managed by a hierarchy scheme over a disk (HyPro, TAC, FaCE, lazy cleaning)",
            params: &[
                Param {
                    key: "ssd",
                    ty: Ty::Other(Size::ALLOWED),
                    default: "10%",
                    help: "the SSD cache's size",
                },
                Param {
                    key: "ssd_device",
                    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
                    default: "hypro-ssd",
                    help: "the SSD (HyPro Table 4)",
                },
                Param {
                    key: "hdd_device",
                    ty: Ty::Keyed(crate::device::SPEC_KEYS, DEVICE_HELP),
                    default: "hypro-hdd",
                    help: "the disk (HyPro Table 4)",
                },
                Param {
                    key: "scheme",
                    ty: Ty::Spec(&SCHEMES),
                    default: "hypro",
                    help: "the hierarchy scheme, its own keys following (flashlayer list schemes)",
                },
            ],
        },
    ],
    more: None,
};

/// A kind of store with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreKind {
    /// A [`crate::store::CostStore`].
    Cost {
        /// Its device.
        device: DeviceModel,
    },
    /// A buffer pool over a [`crate::store::FileStore`].
    File {
        /// The file; `None`: a temporary one.
        path: Option<PathBuf>,
        /// Bytes per page.
        page_size: usize,
        /// `O_DIRECT`.
        direct: bool,
        /// The device pricing the virtual time.
        device: DeviceModel,
    },
    /// A buffer pool over a [`crate::flash::FlashStore`].
    Flash {
        /// The update method.
        method: Method,
        /// Obsolete marks in memory.
        obsolete_in_memory: bool,
        /// On a trace without byte ranges: the bytes at the start of the
        /// page each write changes.
        changed: Option<usize>,
    },
    /// A [`crate::hybrid::HybridStore`].
    Hybrid {
        /// One of [`PLACEMENTS`].
        placement: &'static str,
        /// The flash disk.
        flash: DeviceModel,
        /// The magnetic disk.
        magnetic: DeviceModel,
        /// At most this many pages on flash.
        capacity: Option<u64>,
        /// Deferred migrations per batch (0: none).
        defer: usize,
    },
    /// An [`crate::tier::SsdTier`] below DRAM.
    Tier {
        /// The scheme.
        scheme: SchemeSpec,
        /// The SSD's size.
        ssd: Size,
        /// The SSD.
        ssd_device: DeviceModel,
        /// The disk.
        hdd_device: DeviceModel,
    },
}

/// A parsed store spec.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreSpec {
    /// What to replay onto.
    pub kind: StoreKind,
}

fn device(g: &Given, key: &str) -> Result<DeviceModel> {
    DeviceModel::parse(&g.value(key)).map_err(|e| g.error(format!("{key}: {e}")))
}

impl StoreSpec {
    /// Parses `name[:key=value,...]` by the one grammar.
    pub fn parse(text: &str) -> Result<Self> {
        let g = spec::parse(&STORES, text)?;
        let kind = match g.name() {
            "cost" => StoreKind::Cost {
                device: device(&g, "device")?,
            },
            "file" => StoreKind::File {
                path: g.given("path").map(PathBuf::from),
                page_size: g.int("page_size") as usize,
                direct: g.switch("direct"),
                device: device(&g, "device")?,
            },
            "flash" => StoreKind::Flash {
                method: Method::parse(&g.value("method"))
                    .map_err(|e| g.error(format!("method: {e}")))?,
                obsolete_in_memory: g.switch("obsolete"),
                changed: g.int_given("changed").map(|b| b as usize),
            },
            "hybrid" => {
                let (flash, magnetic) = (device(&g, "flash")?, device(&g, "magnetic")?);
                flash.check_same_unit(&magnetic, ("flash disk", "magnetic disk"))?;
                StoreKind::Hybrid {
                    placement: g.choice("placement"),
                    flash,
                    magnetic,
                    capacity: g.int_given("capacity"),
                    defer: g.int("defer") as usize,
                }
            }
            "tier" => {
                let (ssd_device, hdd_device) =
                    (device(&g, "ssd_device")?, device(&g, "hdd_device")?);
                ssd_device.check_same_unit(&hdd_device, ("SSD", "disk"))?;
                StoreKind::Tier {
                    scheme: SchemeSpec::parse(&g.value("scheme"))?,
                    ssd: Size::parse(&g.value("ssd")).map_err(|e| g.error(format!("ssd: {e}")))?,
                    ssd_device,
                    hdd_device,
                }
            }
            other => unreachable!("store '{other}' is listed but not built"),
        };
        Ok(StoreSpec { kind })
    }

    /// Parses a comma-separated list by the one continuation rule
    /// ([`crate::spec::split_list`]).
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        spec::split_list(&STORES, list, Self::parse)
    }

    /// A cost store priced by `device`: what `--device SPEC` says.
    pub fn cost(device: DeviceModel) -> Self {
        StoreSpec {
            kind: StoreKind::Cost { device },
        }
    }

    /// The kind's name (`cost`, `file`, `flash`, `hybrid`, `tier`).
    pub fn name(&self) -> &'static str {
        match self.kind {
            StoreKind::Cost { .. } => "cost",
            StoreKind::File { .. } => "file",
            StoreKind::Flash { .. } => "flash",
            StoreKind::Hybrid { .. } => "hybrid",
            StoreKind::Tier { .. } => "tier",
        }
    }

    /// The spec with its parameters at their defaults left out.
    pub fn short(&self) -> String {
        spec::short(&STORES, &self.to_string())
    }
}

impl fmt::Display for StoreSpec {
    /// The canonical spec, every parameter written out (a tier's scheme
    /// last: its keys follow it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            StoreKind::Cost { device } => write!(f, "cost:device={}", device.name),
            StoreKind::File {
                path,
                page_size,
                direct,
                device,
            } => {
                f.write_str("file:")?;
                if let Some(p) = path {
                    write!(f, "path={},", p.display())?;
                }
                write!(
                    f,
                    "page_size={page_size},direct={},device={}",
                    if *direct { "on" } else { "off" },
                    device.name
                )
            }
            StoreKind::Flash {
                method,
                obsolete_in_memory,
                changed,
            } => {
                write!(
                    f,
                    "flash:method={method},obsolete={}",
                    if *obsolete_in_memory { "on" } else { "off" }
                )?;
                if let Some(b) = changed {
                    write!(f, ",changed={b}")?;
                }
                Ok(())
            }
            StoreKind::Hybrid {
                placement,
                flash,
                magnetic,
                capacity,
                defer,
            } => {
                write!(
                    f,
                    "hybrid:placement={placement},flash={},magnetic={}",
                    flash.name, magnetic.name
                )?;
                if let Some(c) = capacity {
                    write!(f, ",capacity={c}")?;
                }
                write!(f, ",defer={defer}")
            }
            StoreKind::Tier {
                scheme,
                ssd,
                ssd_device,
                hdd_device,
            } => write!(
                f,
                "tier:ssd={ssd},ssd_device={},hdd_device={},scheme={scheme}",
                ssd_device.name, hdd_device.name
            ),
        }
    }
}

/// Options of a [`replay`] that every store takes.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Time-series interval in requests (0, the default: none).
    pub series_every: u64,
    /// Write the dirty pages left at the end. `None`, the default: the
    /// store's own (off for `cost`, `hybrid` and `tier`, whose dirty pages
    /// left are counted in `dirty_at_end`; on for `file` and `flash`, a
    /// buffer pool whose run ends with a flush, which cannot be turned off).
    pub flush_at_end: Option<bool>,
}

/// What a hybrid store did beyond the metrics.
#[derive(Clone, Debug)]
pub struct HybridOut {
    /// Pages on flash at the end.
    pub pages_on_flash: u64,
    /// For `optimal`: the dynamic program's cost of the recorded events.
    pub optimum: Option<f64>,
}

/// What a flash store did beyond the metrics.
#[derive(Clone, Debug)]
pub struct FlashOut {
    /// The chip's operations and virtual time.
    pub chip: ChipStats,
    /// The method's own counters.
    pub flash: FlashStats,
}

/// What a [`replay`] did: the metrics of every store, and the fields of
/// its kind.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The buffer's size in pages (the DRAM level's on a tier).
    pub buffer_pages: usize,
    /// Hits, misses, physical I/O, each device's I/O, virtual time, series.
    pub metrics: Metrics,
    /// Whether the dirty pages left at the end were written.
    pub flushed_at_end: bool,
    /// A hybrid store's.
    pub hybrid: Option<HybridOut>,
    /// A tier's.
    pub tier: Option<TierOut>,
    /// A flash store's.
    pub flash: Option<FlashOut>,
    /// A file store's: the database file's size at the end, in bytes.
    pub file_bytes: Option<u64>,
}

/// Replays `trace` with the policy `policy` and a buffer of `buffer` over
/// the store `store`: the one entry for every policy on every store. A
/// combination that cannot work is refused here with one line (and in the
/// driver: a policy that learns from measured latencies over a store that
/// measures none). `progress` is called with the requests served after
/// every chunk of about a million; an error from it stops the run.
pub fn replay(
    trace: &Flt,
    policy: &PolicySpec,
    buffer: Size,
    store: &StoreSpec,
    opts: &ReplayOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Replayed> {
    let buffer_pages = buffer.pages(trace.pages());
    let pool = matches!(store.kind, StoreKind::File { .. } | StoreKind::Flash { .. });
    if pool && opts.flush_at_end == Some(false) {
        return Err(Error::invalid(format!(
            "a run on a {} store is a buffer pool that ends with a flush; flush_at_end cannot be off",
            store.name()
        )));
    }
    let flush_at_end = opts.flush_at_end.unwrap_or(pool);
    let mut out = Replayed {
        buffer_pages,
        metrics: Metrics::default(),
        flushed_at_end: flush_at_end,
        hybrid: None,
        tier: None,
        flash: None,
        file_bytes: None,
    };
    match &store.kind {
        StoreKind::Cost { device } => {
            let o = RunOptions {
                buffer_pages,
                device: device.clone(),
                series_every: opts.series_every,
                flush_at_end,
            };
            out.metrics = run(trace, policy, &o, progress)?;
        }
        StoreKind::File {
            path,
            page_size,
            direct,
            device,
        } => {
            let tmp;
            let (path, created) = match path {
                Some(p) => (p.clone(), !p.exists()),
                None => {
                    tmp = tempfile::NamedTempFile::new()
                        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
                    (tmp.path().to_path_buf(), false)
                }
            };
            let o = FileRunOptions {
                path,
                page_size: *page_size,
                direct: *direct,
                device: device.clone(),
                series_every: opts.series_every,
            };
            let run = Job::new(trace, &o, progress).run(policy, buffer_pages, None);
            if run.is_err() && created {
                // A file this run created holds nothing the user had.
                let _ = std::fs::remove_file(&o.path);
            }
            out.metrics = run?;
            out.file_bytes = Some(
                std::fs::metadata(&o.path)
                    .map_err(|e| Error::io(&o.path, e))?
                    .len(),
            );
        }
        StoreKind::Flash {
            method,
            obsolete_in_memory,
            changed,
        } => {
            match (trace.byte_section().is_some(), changed) {
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
            let o = FlashRunOptions {
                method: *method,
                obsolete_in_memory: *obsolete_in_memory,
                changed: changed.unwrap_or(0),
                series_every: opts.series_every,
            };
            let r = Job::new(trace, &o, progress).run(policy, buffer_pages, None)?;
            out.metrics = r.metrics;
            out.flash = Some(FlashOut {
                chip: r.chip,
                flash: r.flash,
            });
        }
        StoreKind::Hybrid {
            placement,
            flash,
            magnetic,
            capacity,
            defer,
        } => {
            let o = HybridRunOptions {
                buffer_pages,
                flash: flash.clone(),
                magnetic: magnetic.clone(),
                placement: (*placement).to_owned(),
                flash_capacity: *capacity,
                defer: *defer,
                series_every: opts.series_every,
                flush_at_end,
            };
            let r = run_hybrid(trace, policy, &o, progress)?;
            out.metrics = r.metrics;
            out.hybrid = Some(HybridOut {
                pages_on_flash: r.pages_on_flash,
                optimum: r.optimum,
            });
        }
        StoreKind::Tier {
            scheme,
            ssd,
            ssd_device,
            hdd_device,
        } => {
            let o = TierRunOptions {
                dram_pages: buffer_pages,
                ssd_pages: ssd.pages(trace.pages()),
                ssd: ssd_device.clone(),
                hdd: hdd_device.clone(),
                series_every: opts.series_every,
                flush_at_end,
            };
            let (metrics, t) = run_tier(trace, policy, scheme, &o, progress)?;
            out.metrics = metrics;
            out.tier = Some(t);
        }
    }
    Ok(out)
}
