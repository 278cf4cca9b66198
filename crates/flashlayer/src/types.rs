//! Core value types shared by every layer: page ids, operations, requests and
//! the metrics a run reports (`docs/design/stores.md`).

/// A page id as the user or the trace names it (any 64-bit value).
pub type PageId = u64;

/// A dense page id in `0..n`, assigned once per trace or buffer pool so that
/// policies index plain vectors instead of hashing (`DESIGN.md` §1 rule 5).
/// At most [`MAX_DENSE`]` + 1` distinct pages fit.
pub type DenseId = u32;

/// Largest dense id: the top bit of a packed request word holds the op.
pub const MAX_DENSE: DenseId = (1 << 31) - 1;

/// A logical operation on a page held in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// The page is read.
    Read,
    /// The page is modified (dirtied) in the buffer.
    Write,
}

impl Op {
    /// `true` for [`Op::Write`].
    #[inline]
    pub fn is_write(self) -> bool {
        matches!(self, Op::Write)
    }

    /// The one-letter form used by csv traces.
    pub fn letter(self) -> char {
        match self {
            Op::Read => 'R',
            Op::Write => 'W',
        }
    }
}

/// A run of bytes a write changed in a page: `len` bytes from `offset`.
/// Pages are at most 32 KiB when byte ranges are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteRange {
    /// First changed byte.
    pub offset: u16,
    /// Number of changed bytes (≥ 1).
    pub len: u16,
}

/// Appends to `out` the maximal runs of bytes where `before` and `after`
/// differ. Both slices have the same length (at most 64 KiB).
pub fn diff_ranges(before: &[u8], after: &[u8], out: &mut Vec<ByteRange>) {
    debug_assert_eq!(before.len(), after.len());
    let n = before.len().min(after.len());
    let mut i = 0;
    while i < n {
        // Pages are mostly unchanged: compare 64 bytes at a time, and look
        // byte by byte only inside a block that differs.
        let block = (i + 64).min(n);
        if before[i..block] == after[i..block] {
            i = block;
            continue;
        }
        while before[i] == after[i] {
            i += 1;
        }
        let start = i;
        while i < n && before[i] != after[i] {
            i += 1;
        }
        out.push(ByteRange {
            offset: start as u16,
            len: (i - start) as u16,
        });
    }
}

/// One logical page request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    /// The page, as named by the trace.
    pub page: PageId,
    /// Read or write.
    pub op: Op,
}

/// Packs a dense request into the 32-bit word of the `flt` format: bit 31 is
/// the op (1 = write), bits 0..=30 the dense page id.
#[inline]
pub fn pack(page: DenseId, op: Op) -> u32 {
    debug_assert!(page <= MAX_DENSE);
    page | (u32::from(op.is_write()) << 31)
}

/// Inverse of [`pack`].
#[inline]
pub fn unpack(word: u32) -> (DenseId, Op) {
    let op = if word >> 31 == 1 { Op::Write } else { Op::Read };
    (word & MAX_DENSE, op)
}

/// Which device of a store a page lives on: an index into the store's
/// devices ([`crate::store::PageStore::device_stats`] lists them in this
/// order). A single-device store has only device 0; the hybrid store's
/// flash disk is [`DeviceId::FLASH`] and its magnetic disk
/// [`DeviceId::MAGNETIC`]. Policies tell devices apart by this identity,
/// never by comparing costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId(pub u8);

impl DeviceId {
    /// The only device of a single-device store.
    pub const ONLY: DeviceId = DeviceId(0);
    /// The hybrid store's flash disk.
    pub const FLASH: DeviceId = DeviceId(0);
    /// The hybrid store's magnetic disk.
    pub const MAGNETIC: DeviceId = DeviceId(1);

    /// The index, for tables kept per device.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The per-page cost of physical I/O on the device a page currently lives on,
/// and which device that is. Policies that weigh eviction cost (CASA,
/// Koltsidas' cost segment) receive it when a page is admitted or written
/// back, and again ([`crate::policy::Policy::reprice`]) when a resident
/// page moves to another device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageCost {
    /// Cost of reading the page back in after eviction.
    pub read: f64,
    /// Cost of writing the page back if it is dirty (a random write).
    pub write: f64,
    /// Cost of writing it as the next page of a sequential run (write
    /// clustering, a batch of migrations).
    pub seq_write: f64,
    /// The device the page is on.
    pub device: DeviceId,
}

impl PageCost {
    /// Random read and write costs on device 0, with sequential writes
    /// priced as random ones.
    pub const fn new(read: f64, write: f64) -> Self {
        PageCost {
            read,
            write,
            seq_write: write,
            device: DeviceId::ONLY,
        }
    }
}

/// What kind of physical I/O a store performed, for cost observers such as
/// CASA's moving-average ratio detection (§5.3 of Ou & Härder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    /// A page read.
    Read,
    /// A page write.
    Write,
}

/// One point of a run's time series, taken every `series_every` requests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesPoint {
    /// Requests served so far.
    pub requests: u64,
    /// Hits so far.
    pub hits: u64,
    /// Physical reads so far.
    pub physical_reads: u64,
    /// Physical writes so far.
    pub physical_writes: u64,
    /// Virtual time so far.
    pub virtual_time: f64,
    /// The policy's state variables at this point (CASA: `tau`, `clean`),
    /// see `Policy::state`.
    pub state: Vec<(&'static str, f64)>,
}

/// Counters of a run (`docs/design/stores.md`). All counts are exact.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Logical requests served.
    pub requests: u64,
    /// Logical read requests.
    pub reads: u64,
    /// Logical write requests.
    pub writes: u64,
    /// Requests that found their page in the buffer.
    pub hits: u64,
    /// Requests that did not.
    pub misses: u64,
    /// Physical page reads issued to the store.
    pub physical_reads: u64,
    /// Physical page writes issued to the store (write-backs, clustered or not).
    pub physical_writes: u64,
    /// Evictions of dirty pages (each forced a write-back).
    pub dirty_evictions: u64,
    /// Pages read ahead, unrequested ([`crate::policy::Policy::read_ahead`];
    /// counted in `physical_reads` too).
    pub read_ahead: u64,
    /// Of those, the pages requested while still in the buffer.
    pub read_ahead_used: u64,
    /// Dirty pages still in the buffer when the run ended. They are not
    /// written unless the run flushed at the end (then they are included in
    /// `physical_writes` and the virtual time).
    pub dirty_at_end: u64,
    /// Block erases (flash stores only).
    pub erases: u64,
    /// Pages moved between devices or tiers, as the store counted them.
    pub migrations: u64,
    /// Each device's I/O as its store counted it (migrations included), in
    /// [`DeviceId`] order. `physical_reads` and `physical_writes` count the
    /// page I/O the buffer asked for; these count what each device did.
    pub devices: Vec<DeviceStats>,
    /// Virtual time: Σ physical operations × their device costs.
    pub virtual_time: f64,
    /// Optional time series.
    pub series: Vec<SeriesPoint>,
}

impl Metrics {
    /// `misses / requests`, 0 for an empty run.
    pub fn miss_ratio(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.misses as f64 / self.requests as f64
        }
    }
}

/// Asks the CPU to start loading the cache line holding `value`. Replaying a
/// trace is bound by random memory accesses to per-page state; the
/// simulator knows the next requests, so it can overlap those loads with the
/// work on the current one. A no-op where the architecture has no hint.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it never faults or changes
        // memory, and SSE is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Physical I/O a store performed, and its price.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IoStats {
    /// Page reads (random and sequential).
    pub reads: u64,
    /// Page writes (random and sequential).
    pub writes: u64,
    /// Of `reads`, those priced as sequential.
    pub seq_reads: u64,
    /// Of `writes`, those priced as sequential.
    pub seq_writes: u64,
    /// Block erases.
    pub erases: u64,
    /// Pages moved onto this device from another device of the same
    /// store (the hybrid store's migrations; their writes are also in
    /// `writes`, their reads in the other device's `reads`).
    pub migrations: u64,
    /// Σ operations × their costs, in the device model's unit.
    pub virtual_time: f64,
}

impl IoStats {
    /// What happened since `earlier` (counts taken from the same store).
    pub fn minus(self, earlier: IoStats) -> IoStats {
        IoStats {
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            seq_reads: self.seq_reads - earlier.seq_reads,
            seq_writes: self.seq_writes - earlier.seq_writes,
            erases: self.erases - earlier.erases,
            migrations: self.migrations - earlier.migrations,
            virtual_time: self.virtual_time - earlier.virtual_time,
        }
    }

    /// The sum of two devices' counts.
    pub fn plus(self, o: IoStats) -> IoStats {
        IoStats {
            reads: self.reads + o.reads,
            writes: self.writes + o.writes,
            seq_reads: self.seq_reads + o.seq_reads,
            seq_writes: self.seq_writes + o.seq_writes,
            erases: self.erases + o.erases,
            migrations: self.migrations + o.migrations,
            virtual_time: self.virtual_time + o.virtual_time,
        }
    }
}

/// One device's I/O, as the store that drives it counted it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceStats {
    /// The device model's name (a preset, or the spec it was parsed from).
    pub name: String,
    /// Its I/O, including any the store did on its own (migrations).
    pub io: IoStats,
    /// Pages it holds, where the store keeps count (the hybrid store).
    pub pages: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Byte by byte: the runs of differing bytes.
    fn runs_by_byte(before: &[u8], after: &[u8]) -> Vec<ByteRange> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < before.len() {
            if before[i] == after[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < before.len() && before[i] != after[i] {
                i += 1;
            }
            out.push(ByteRange {
                offset: start as u16,
                len: (i - start) as u16,
            });
        }
        out
    }

    proptest! {
        #[test]
        fn diff_ranges_finds_every_run_of_changed_bytes(
            before in proptest::collection::vec(0u8..4, 0..300),
            flips in proptest::collection::vec((0usize..300, 1u8..4), 0..20),
        ) {
            let mut after = before.clone();
            for (at, by) in flips {
                if let Some(b) = after.get_mut(at) {
                    *b = b.wrapping_add(by);
                }
            }
            let mut got = Vec::new();
            diff_ranges(&before, &after, &mut got);
            prop_assert_eq!(got, runs_by_byte(&before, &after));
        }
    }
}

/// One field of a run's report beyond its [`Metrics`]: what a store or a
/// chip tells of itself, for result rows (JSON, Parquet, tables).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A count.
    Int(u64),
    /// A measure.
    Float(f64),
    /// A name or a spec.
    Text(String),
    /// On or off.
    Switch(bool),
    /// Not known for this run (a row's `None`).
    Absent,
}

/// Named [`Value`]s in the order a row shows them.
pub type Fields = Vec<(&'static str, Value)>;

impl Value {
    /// The count, if this is one.
    pub fn int(&self) -> Option<u64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The number, if this is one (a count as a number too).
    pub fn float(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            Value::Int(n) => Some(*n as f64),
            _ => None,
        }
    }
}

/// The field named `key`.
pub fn field<'a>(fields: &'a Fields, key: &str) -> Option<&'a Value> {
    fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// `Fields` named as the engine names them: `fields!(value, [a, b])` is
/// `[("a", value.a), ("b", value.b)]`, each converted into a [`Value`].
#[macro_export]
macro_rules! fields {
    ($v:expr, [$($f:ident),* $(,)?]) => {
        vec![$((stringify!($f), $crate::types::Value::from($v.$f))),*]
    };
}

macro_rules! value_from {
    ($($t:ty => $v:ident($conv:expr)),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$v($conv(x))
            }
        }
    )*};
}

value_from! {
    u64 => Int(|x| x),
    u32 => Int(u64::from),
    usize => Int(|x| x as u64),
    f64 => Float(|x| x),
    f32 => Float(f64::from),
    bool => Switch(|x| x),
    String => Text(|x| x),
    &str => Text(str::to_owned),
}

/// A field some other layer fills (`sim::kinds`' rows: the API's).
impl From<()> for Value {
    fn from((): ()) -> Value {
        Value::Absent
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Absent, Into::into)
    }
}
