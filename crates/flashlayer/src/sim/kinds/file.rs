//! The file store: a real buffer pool over a [`FileStore`], every I/O
//! hitting the file and timed, so policies with `cost=measured` learn this
//! machine's costs (CASA §5.3). Each `R` is a `fix_read`, each `W` a
//! `fix_write` that changes the page; the run ends with a flush.

use super::claim::Claim;
use super::fields::{kind_row, Field};
use super::{batched_device, device_key, Kind, Opens, Pooled, Run};
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::spec::{Entry, Given, Param, Ty, NO_MAX};
use crate::store::FileStore;
use crate::types::{DenseId, Fields, Metrics};
use std::path::PathBuf;

/// A replay through a buffer pool over a database file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileKind {
    /// The file; `None`: a temporary one, removed after the run.
    pub path: Option<PathBuf>,
    /// Bytes per page.
    pub page_size: usize,
    /// Open with `O_DIRECT`.
    pub direct: bool,
    /// Write over an existing file flashlayer did not write (`claim.rs`).
    pub replace: bool,
    /// The device pricing the virtual time.
    pub device: DeviceModel,
}

impl Opens for FileKind {
    type Store = FileStore;
    type Via = Pooled;

    /// The trace's pages packed into the file in order of number: its page
    /// numbers may be sparse (PostgreSQL's relfilenode in the high bits),
    /// and neighbours stay neighbours for write clustering.
    fn open(&self, run: &mut Run<'_>) -> Result<FileStore> {
        let trace = run.trace;
        let path = self.path.as_ref().expect("a path is chosen before the run");
        FileStore::builder(path)
            .page_size(self.page_size)
            .direct(self.direct)
            .device(self.device.clone())
            .pages((0..trace.pages()).map(|d| trace.original(d as DenseId)))
            .open()
    }
}

kind_row! {
    /// A file store's own fields.
    struct FileRow {
        file_bytes: u64 = Count, "bytes", "file bytes", "the database file's size at the end";
        measured_io_seconds: f64 = Number, "s", "measured I/O", "the time its reads, writes and fsyncs took, as measured (the virtual time is the device model's)";
    }
}

impl Kind for FileKind {
    const FIELDS: &'static [Field] = FileRow::FIELDS;

    const ENTRY: Entry = Entry {
        name: "file",
        description: "a real buffer pool over a file: every I/O hits the file and is timed, so cost=measured policies learn this machine's costs (CASA §5.3)",
        params: &[
            Param::new("path", Ty::Other("a file path"), "", "the database file, the trace's pages packed in order of number: created, or an existing one a flashlayer run wrote (its extended attribute user.flashlayer.database matches its size and time), never the trace itself; runs on one file take turns (default: a temporary file, removed after the run; a file the run created is removed if the run fails)"),
            Param::new("page_size", Ty::Int(512, NO_MAX), "4096", "bytes per page"),
            Param::new("direct", Ty::Switch, "off", "open with O_DIRECT, bypassing the page cache"),
            Param::new("replace", Ty::Switch, "off", "write over an existing file at path that flashlayer did not write (sim's --force sets it)"),
            device_key("device", "ratio:1:1", "the device model that prices the virtual time (the measured latencies are what cost=measured sees)"),
        ],
    };

    fn read(g: &Given) -> Result<Self> {
        Ok(FileKind {
            path: g.given("path").map(PathBuf::from),
            page_size: g.int("page_size") as usize,
            direct: g.switch("direct"),
            replace: g.switch("replace"),
            device: batched_device(g, "device")?,
        })
    }

    fn priced(&self) -> (String, CostUnit) {
        (self.device.name.clone(), self.device.unit)
    }

    /// Runs on the file named, taken for the run by `claim.rs`'s rule, or
    /// on a temporary one.
    fn replay(&self, run: &mut Run<'_>) -> Result<(Metrics, Fields)> {
        let path = match &self.path {
            Some(p) if run.probe => {
                Claim::check(p, run.trace.path(), self.replace)?;
                None
            }
            p => p.as_ref(),
        };
        let Some(path) = path else {
            let tmp =
                tempfile::NamedTempFile::new().map_err(|e| Error::io(std::env::temp_dir(), e))?;
            return run.on(&FileKind {
                path: Some(tmp.path().to_path_buf()),
                ..self.clone()
            });
        };
        let claim = Claim::take(path, run.trace.path(), self.replace)?;
        let done = run.on(self);
        claim.release(done.is_ok());
        done
    }

    /// The database file's size at the end, in bytes, and the time its
    /// I/O took as measured (the virtual time is the device model's).
    fn report(&self, _: &Run<'_>, store: &mut FileStore, _: &mut Metrics) -> Result<Fields> {
        let path = self.path.as_ref().expect("a path is chosen before the run");
        let bytes = std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len();
        Ok(FileRow {
            file_bytes: bytes,
            measured_io_seconds: store.measured_io_seconds(),
        }
        .fields())
    }
}
