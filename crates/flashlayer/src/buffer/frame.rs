//! The pool's frames and what its side of the calling protocol hands the
//! driver: a frame (its latch, pins and the page hits may find in it), the
//! gate that tells which pages may leave, and the frames a write-back reads
//! (the frame itself, or the shadow of a frame a writer holds). The
//! protocol is stated in the module docs of [`super`].

use super::hits::{Readers, Table, NO_PAGE};
use super::latch::{Latch, Parking, ReadLatch};
use super::slab::Slab;
use super::WriteAhead;
use crate::drive::{Frames, Gate};
use crate::error::Result;
use crate::store::PageStore;
use crate::sync::{AtomicU32, AtomicU64, Mutex, MutexGuard};
use crate::types::{DenseId, PageId};
use rustc_hash::FxHashMap;
use std::ops::Deref;
use std::sync::atomic::Ordering;

/// Which resident pages may be evicted or written now: those in frames
/// neither pinned nor being written. A victim is claimed ([`Frame::claim`])
/// so that no hit can pin it unseen.
pub(super) struct PoolGate<'a> {
    pub(super) frames: &'a [Frame],
    pub(super) readers: &'a Readers,
    pub(super) writing: &'a [bool],
    pub(super) frame_of: &'a [u32],
    pub(super) originals: &'a [PageId],
    pub(super) table: &'a Table,
}

impl PoolGate<'_> {
    pub(super) fn free(&self, f: usize) -> bool {
        self.frames[f].unheld(self.readers, f as u32) && !self.writing[f]
    }
}

impl Gate for PoolGate<'_> {
    fn evictable(&mut self, page: DenseId) -> bool {
        self.free(self.frame_of[page as usize] as usize)
    }
    fn claim(&mut self, page: DenseId) -> bool {
        let number = self.originals[page as usize];
        let f = self.frame_of[page as usize] as usize;
        if self.writing[f] || !self.frames[f].claim(number, self.readers, f as u32) {
            return false;
        }
        self.table.remove(number);
        true
    }
    fn release(&mut self, page: DenseId) {
        let number = self.originals[page as usize];
        let f = self.frame_of[page as usize];
        self.frames[f as usize].publish(number, page);
        self.table.insert(number, f);
    }
}

/// A frame's copy for [`BufferPool::flush`]; the buffer is kept for the
/// frame's next writer.
#[derive(Debug, Default)]
pub(super) struct Shadow {
    pub(super) bytes: Vec<u8>,
    pub(super) live: bool,
}

/// A frame's bytes as a write-back reads them: the frame itself, or the
/// shadow of a frame a writer holds.
pub(super) enum Held<'a> {
    /// The frame's bytes, and its latch, held shared while they are.
    Frame {
        bytes: &'a [u8],
        _latch: ReadLatch<'a>,
    },
    Shadow(MutexGuard<'a, Shadow>),
}

impl Deref for Held<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Held::Frame { bytes, .. } => bytes,
            Held::Shadow(s) => &s.bytes,
        }
    }
}

/// The pool's side of the calling protocol: page numbers, the incoming
/// buffer, and the frames a write-back reads.
pub(super) struct PoolFrames<'a> {
    pub(super) frames: &'a [Frame],
    pub(super) slab: &'a Slab,
    pub(super) shadows: &'a [Mutex<Shadow>],
    pub(super) parking: &'a Parking,
    pub(super) frame_of: &'a [u32],
    pub(super) originals: &'a [PageId],
    pub(super) ids: &'a FxHashMap<PageId, DenseId>,
    pub(super) incoming: &'a mut [u8],
    pub(super) track: bool,
    pub(super) changes: &'a mut [Vec<(u32, u32)>],
    pub(super) wal: Option<&'a dyn WriteAhead>,
}

/// The bytes of resident frame `f`: the frame itself, held shared, unless a
/// writer holds it, then the shadow that writer copied. A writer copies its
/// shadow as soon as it holds the latch, needing only the shadow's lock,
/// so the sleep here is short and waits for no thread that could wait for
/// the caller.
pub(super) fn hold<'a>(
    frames: &'a [Frame],
    slab: &'a Slab,
    shadows: &'a [Mutex<Shadow>],
    parking: &'a Parking,
    f: usize,
) -> Held<'a> {
    let mut held = None;
    parking.wait_until(|| {
        if frames[f].latch.try_read() {
            let latch = ReadLatch {
                latch: &frames[f].latch,
                parking,
            };
            // SAFETY: the frame's latch is held shared for as long as the
            // bytes are, in `Held::Frame`.
            let bytes = unsafe { slab.page(f as u32) };
            held = Some(Held::Frame {
                bytes,
                _latch: latch,
            });
            return true;
        }
        let shadow = shadows[f].lock().unwrap_or_else(|e| e.into_inner());
        if shadow.live {
            held = Some(Held::Shadow(shadow));
            return true;
        }
        false
    });
    held.expect("wait_until returns once the frame is held")
}

impl PoolFrames<'_> {
    /// The bytes of a resident page ([`hold`]).
    pub(super) fn hold(&self, page: DenseId) -> Held<'_> {
        hold(
            self.frames,
            self.slab,
            self.shadows,
            self.parking,
            self.frame_of[page as usize] as usize,
        )
    }
}

impl Frames for PoolFrames<'_> {
    fn number(&self, page: DenseId) -> PageId {
        self.originals[page as usize]
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        let n = self.number(page).checked_add_signed(delta)?;
        self.dense_of(n)
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        self.ids.get(&number).copied()
    }
    fn incoming(&mut self) -> &mut [u8] {
        self.incoming
    }
    fn write<S: PageStore>(&mut self, store: &mut S, number: PageId, page: DenseId) -> Result<()> {
        let held = self.hold(page);
        if let Some(wal) = self.wal {
            wal.before_write(self.number(page), &held)?;
        }
        if !self.track {
            return store.write(number, &held);
        }
        let f = self.frame_of[page as usize] as usize;
        store.write_changed(number, &held, &self.changes[f])?;
        drop(held);
        self.changes[f].clear();
        Ok(())
    }
    fn write_batch<S: PageStore>(
        &mut self,
        store: &mut S,
        batch: &[(PageId, DenseId)],
    ) -> Result<()> {
        if self.track {
            // Each page with its own ranges: a batch carries none.
            for &(number, page) in batch {
                self.write(store, number, page)?;
            }
            return Ok(());
        }
        let held: Vec<Held<'_>> = batch.iter().map(|&(_, d)| self.hold(d)).collect();
        if let Some(wal) = self.wal {
            for (&(_, d), h) in batch.iter().zip(&held) {
                wal.before_write(self.number(d), h)?;
            }
        }
        let pairs: Vec<(PageId, &[u8])> = batch
            .iter()
            .zip(&held)
            .map(|(&(n, _), h)| (n, &**h))
            .collect();
        store.write_batch(&pairs)
    }
}

/// Changed ranges a frame keeps for a store that logs changes before it
/// reports the whole page as changed.
pub(super) const MAX_TRACKED: usize = 256;

/// A frame: the latch of its bytes (in the [`Slab`]), held by guards that
/// took the pool lock and by writers (whose bit counted readers check);
/// the guards pinning it, changed without the pool lock (a frame is reused
/// only when 0 and no reader is counted in [`Readers`]); and the page hits
/// may find in it. A read hit only reads this line: 32 bytes, aligned, so
/// that no frame straddles two cache lines.
#[derive(Debug)]
#[repr(align(32))]
pub(super) struct Frame {
    pub(super) latch: Latch,
    pub(super) pins: AtomicU32,
    /// The dense id of `page` (valid while `page` is not [`NO_PAGE`]).
    pub(super) dense: AtomicU32,
    /// The page number hits may find here; [`NO_PAGE`] while the frame is
    /// free, claimed, or being filled.
    pub(super) page: AtomicU64,
}

impl Frame {
    pub(super) fn new() -> Self {
        Frame {
            latch: Latch::new(),
            pins: AtomicU32::new(0),
            dense: AtomicU32::new(0),
            page: AtomicU64::new(NO_PAGE),
        }
    }

    /// A hit on `page` in this frame: pins it, then checks that it still
    /// holds `page`, returning its dense id; else unpins it again and wakes
    /// `parking`'s sleepers (a fix that found every frame pinned may have
    /// seen this pin).
    #[inline]
    pub(super) fn pin_if_holding(&self, page: PageId, parking: &Parking) -> Option<DenseId> {
        self.pins.fetch_add(1, Ordering::SeqCst);
        if self.page.load(Ordering::SeqCst) == page {
            return Some(self.dense.load(Ordering::Relaxed));
        }
        self.pins.fetch_sub(1, Ordering::SeqCst);
        parking.wake();
        None
    }

    /// Takes the frame (number `f`), holding page `number`, from hits:
    /// whether no guard pins it. If one does, hits may find the page here
    /// again. Only under the pool lock.
    pub(super) fn claim(&self, number: PageId, readers: &Readers, f: u32) -> bool {
        self.page.store(NO_PAGE, Ordering::SeqCst);
        if self.unheld(readers, f) {
            return true;
        }
        self.page.store(number, Ordering::SeqCst);
        false
    }

    /// Whether no guard holds the frame (number `f`): no pin and no counted
    /// reader.
    pub(super) fn unheld(&self, readers: &Readers, f: u32) -> bool {
        self.pins.load(Ordering::SeqCst) == 0 && !readers.any(f)
    }

    /// Lets hits find page `number` (dense id `dense`) here. Only under the
    /// pool lock.
    pub(super) fn publish(&self, number: PageId, dense: DenseId) {
        self.dense.store(dense, Ordering::Relaxed);
        self.page.store(number, Ordering::SeqCst);
    }
}
