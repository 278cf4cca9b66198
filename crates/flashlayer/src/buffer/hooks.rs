//! What a buffer pool calls out to: a recorder of every unfix
//! ([`BufferPool::set_recorder`]) and a write-ahead log's hold on
//! write-backs ([`BufferPool::with_write_ahead`]); and what makes every
//! unfix take the pool lock ([`BufferPool::is_slow`]).

use super::{BufferPool, State};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{ByteRange, Op, PageId};
use std::sync::atomic::Ordering;

/// Receives one call per unfix, in unfix order: the page, `W` if it was
/// modified while fixed (else `R`), and the byte ranges it changed (empty
/// unless byte recording is on, and for reads).
pub trait Recorder: Send {
    /// Records one request.
    fn record(&mut self, page: PageId, op: Op, changed: &[ByteRange]);
}

impl<F: FnMut(PageId, Op, &[ByteRange]) + Send> Recorder for F {
    fn record(&mut self, page: PageId, op: Op, changed: &[ByteRange]) {
        self(page, op, changed)
    }
}

pub(super) struct RecorderSlot {
    pub(super) sink: Box<dyn Recorder>,
    pub(super) bytes: bool,
}

/// A write-ahead log's hold on write-backs ([`BufferPool::with_write_ahead`]):
/// the pool calls it with every page it is about to write back, the bytes
/// that will reach the store, before they do. A log reads the page's LSN
/// from them and makes itself durable up to it (the WAL rule), as
/// PostgreSQL's `FlushBuffer` calls `XLogFlush`. An error fails the write:
/// the page stays dirty. It is called without the pool's lock (for a store
/// that listens to request order, with it), so it must not fix pages.
pub trait WriteAhead: Send + Sync + std::fmt::Debug {
    /// Makes the log durable for page `page`, about to be written as `bytes`.
    fn before_write(&self, page: PageId, bytes: &[u8]) -> Result<()>;
}

impl std::fmt::Debug for RecorderSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecorderSlot")
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// Reports every unfix to `sink` from now on; with `bytes`, writes also
    /// carry the byte ranges they changed (pages must then be ≤ 32 KiB).
    pub fn set_recorder(&self, sink: Box<dyn Recorder>, bytes: bool) -> Result<()> {
        if bytes && self.page_size > 1 << 15 {
            return Err(Error::invalid(
                "byte ranges are recorded for pages of at most 32 KiB",
            ));
        }
        let mut st = self.drained();
        st.recording = Some(RecorderSlot { sink, bytes });
        self.slow.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Stops recording and returns the sink.
    pub fn take_recorder(&self) -> Option<Box<dyn Recorder>> {
        let mut st = self.lock();
        let sink = st.recording.take().map(|r| r.sink);
        self.slow.store(Self::is_slow(&st), Ordering::Relaxed);
        sink
    }
}

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// Whether every unfix takes the pool lock: recording or a time series
    /// is on, or the policy may fail ([`Policy::may_fail`]: its failure on
    /// a hit must reach the hit's own unfix).
    fn is_slow(st: &State<P, S>) -> bool {
        st.series_every != 0
            || st.recording.is_some()
            || st.movable
            || st.driver.policy().may_fail()
    }

    /// Every fix and unfix takes the pool lock, so that no guard holds a
    /// count in its thread's stripe: a guard may then be dropped on another
    /// thread than the one that fixed it (a binding whose page objects a
    /// garbage collector drops wherever it runs). Hits then run at the
    /// locked rate. Off by default.
    pub fn with_movable_guards(self) -> Self {
        let mut st = self.drained();
        st.movable = true;
        self.slow.store(Self::is_slow(&st), Ordering::Relaxed);
        drop(st);
        self
    }

    /// Records a time-series point ([`crate::types::SeriesPoint`], with
    /// the policy's state) every `n` unfixes (0, the default: never).
    pub fn with_series(self, n: u64) -> Self {
        let mut st = self.drained();
        st.series_every = n;
        self.slow.store(Self::is_slow(&st), Ordering::Relaxed);
        drop(st);
        self
    }
}
