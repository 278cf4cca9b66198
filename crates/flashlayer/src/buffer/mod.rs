//! A real buffer pool: frames of bytes over any [`PageStore`], driven by any
//! [`Policy`] — the same policy values the simulator runs.
//!
//! Protocol (fix-use-unfix, CASA §4.3): [`BufferPool::fix_read`] and
//! [`BufferPool::fix_write`] pin a page and return a guard; dropping the
//! guard unfixes it. A page is dirty if it was modified while fixed: a
//! [`PageMut`] sets its update flag on the first mutable access, and the flag
//! becomes the page's dirty state at unfix. The policy sees a hit at unfix
//! time with its real op (`W` if modified, else `R`), as CASA §4.3 needs; a
//! miss is announced and admitted at fix time with the op the fix intends
//! (`W` for [`BufferPool::fix_write`]), and a page fixed for writing but left
//! unmodified is marked clean at unfix. Policy calls go through the same
//! [`Driver`] as the simulator's, so a policy decides alike in both.
//!
//! Guarantees:
//! - pinned pages are never evicted; if every frame is pinned, a fix that
//!   needs a frame fails with [`Error::AllPinned`] instead of waiting (it
//!   read the page first; the policy heard of the request only as a miss,
//!   which leaves no trace); a fix that finds the other frames being
//!   written waits for those writes;
//! - a missing page is read before a victim is chosen, so a failed read
//!   changes nothing; a dirty victim is written to the store before its
//!   frame is reused, and if that write fails the fix fails, the victim is
//!   in the policy exactly as it was and nothing is lost; either way a
//!   retry decides as if the failure never happened;
//! - [`BufferPool::flush`] writes every dirty page whose guards were dropped
//!   before the call, then flushes the store (`fsync` for a file store). A
//!   page that a writer holds during the flush is written as it was when the
//!   writer fixed it: `fix_write` keeps a copy of the page (a shadow) until
//!   unfix, because its frame is locked meanwhile. A write-back waits for no
//!   caller: for a writer, only until it has copied its shadow, which it
//!   does as soon as it holds the latch (the lock and wait order is in
//!   `docs/DESIGN.md`);
//! - a thread that panics inside the pool's work (a store read or write, a
//!   recorder, its own code while it holds a page) leaves nothing that
//!   others wait on: its page is missing or dirty as before, its pins and
//!   latches are released;
//! - a failure after a victim is claimed (an error or a panic of the store,
//!   a write-ahead hook or the policy) puts the victim back as it was, in
//!   its frame; a write-back that fails forgets none of the byte ranges it
//!   was to write; a modifying unfix makes its page dirty before the
//!   recorder runs; a close whose flush fails gives the pool back
//!   ([`CloseError`]). The failure rule of each step is in `docs/DESIGN.md`;
//! - the pool is `Sync`: any number of threads may fix pages concurrently,
//!   and no thread waits for another's I/O unless it needs that page.
//!
//! Recording ([`BufferPool::set_recorder`]): every unfix can be reported as
//! one request `(page, op)`, `W` if the page was modified during the fix;
//! optionally with the byte ranges the fix changed, found by comparing the
//! page with a copy taken at fix time. Workload drivers use this to write
//! traces; PDL and IPL need the byte ranges.
//!
//! Concurrency design. One mutex (the pool lock) guards the policy, the
//! dense ids and the frames' metadata, and is never held during I/O. The
//! store sits behind its own lock ([`LockedStore`]); a store that hands out
//! a [`SharedIo`] (files, memory) is read and written by many threads at
//! once around it.
//!
//! Hits (`hits.rs`) take no lock: a fix finds a resident page's frame in a
//! page table that it reads without a lock, pins the frame, then checks
//! that the frame holds the page (each frame names the page hits may find
//! in it). A write hit pins with the frame's own atomic count. A read hit
//! counts itself as a reader of the frame in its thread's stripe
//! (`Readers`), which both pins the frame and holds its latch shared,
//! and then also checks that no writer holds the latch (else it takes the
//! count back and fixes under the pool lock, waiting for the latch):
//! so a read hit writes only its own thread's lines, and two threads
//! reading one page share its frame's line for reading only. A victim is
//! claimed the other way round: its frame stops naming its page, then it
//! must have no pin and no counted reader, else it names the page again
//! and the policy chooses anew. Each side's steps are sequentially
//! consistent, so of a hit and a claim on one frame at least one sees the
//! other and backs off: no hit ever holds a frame that is being reused. A
//! writer latches a frame the same way: it takes the latch's writer bit
//! (`latch.rs`), then waits until no reader is counted. A read
//! unfix gathers the hit in its thread's stripe and then takes back its
//! count; the pool lock
//! tells the policy the gathered hits in a batch, stripe by stripe in
//! order, before any other call into the policy (so one thread's pool
//! calls the policy exactly as the simulator does) and whenever the
//! drainer's stripe fills a batch: one thread (the first whose batch
//! filled, until another gathers so many hits that it must drain) does
//! the policy's work for all, so the policy's lines stay in its cache.
//! An unfix that modified the page, or that must be recorded, takes the
//! pool lock at once, so dirty state never lags.
//!
//! A miss (`io.rs`) marks its page as loading, so that other fixers of that
//! page wait for it alone, reads it into a spare buffer outside the lock,
//! then asks the policy for a victim ([`Driver::place`]). A victim leaves
//! only once claimed ([`crate::drive::Gate::claim`]): under its shard's write lock, with
//! no pin, it is taken out of the page table, so no hit can pin it unseen;
//! a victim pinned meanwhile is reinstated and the policy chooses again. A
//! victim that must be written goes back into the policy as it was; its
//! pages are marked as being written (not evictable, not written by anyone
//! else), copied and written outside the lock, and the request is
//! announced again if the policy heard anything meanwhile — the policy
//! evicts the same victim, now written, and admits the page: the decisions
//! of a whole [`Driver::miss`]. A page modified while its write was in
//! flight stays dirty (frames count their modifications). A policy that
//! reads ahead ([`Policy::read_ahead`], ACE's `pf=on`) has the miss of a
//! dirty victim evict more clean victims and plan the pages to read
//! ([`Driver::planned`]); the miss marks those no one is loading as
//! loading, reads them in one batch outside the lock while its own page
//! stays pinned, and admits each, unpinned, into a free frame while the
//! buffer has room (others' misses may have taken it meanwhile). A failed
//! read ahead admits none of them and fails no fix. A store that
//! listens to the order of requests (the hybrid store's placement) has each
//! miss run whole under the pool lock. Each frame has a reader-writer latch,
//! held by guards (a read hit's count holds it shared), and its pin count
//! beside it; its bytes lie in one slab with every other frame's
//! (`slab.rs`), read and written only under its latch. A frame is only
//! reused when it has no pin and no counted reader at its claim, and a
//! guard unpins only after releasing its latch, so taking a victim's latch
//! never waits for long (at most for a hit that counted itself on a stale
//! page-table entry and is taking its count back). A page missed by [`BufferPool::fix_write`] enters
//! dirty and is marked clean at unfix if that guard changed nothing, unless
//! another guard modified it since it was installed.

mod close;
mod fix;
mod frame;
mod guard;
mod hits;
mod hooks;
mod io;
mod latch;
mod slab;
mod undo;
mod wait;

pub use close::CloseError;
pub use guard::{PageMut, PageRef};
pub use hooks::{Recorder, WriteAhead};

use crate::drive::{Driver, Unfix};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::{LockedStore, PageStore, SharedIo};
use crate::sync::{Condvar, Mutex, MutexGuard};
use crate::types::{ByteRange, DenseId, Metrics, Op, PageId};
use frame::{hold, Frame, PoolFrames, PoolGate, Shadow, MAX_TRACKED};
use hits::{Padded, Readers, Stripes, Table};
use hooks::RecorderSlot;
use latch::Parking;
use rustc_hash::FxHashMap;
use slab::Slab;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use undo::Undo;

/// `frame_of` of a page in no frame.
const NIL: u32 = u32::MAX;
/// `frame_of` of a page a miss is reading: its fixers wait.
const LOADING: u32 = u32::MAX - 1;

fn too_big(frames: usize, page_size: usize) -> Error {
    Error::invalid(format!(
        "cannot allocate {frames} frames of {page_size} bytes for the buffer pool"
    ))
}

#[derive(Debug)]
struct State<P: Policy, S: PageStore> {
    driver: Driver<P, LockedStore<S>>,
    ids: FxHashMap<PageId, DenseId>,
    originals: Vec<PageId>,
    frame_of: Vec<u32>,
    page_in: Vec<u32>,
    /// Read hits taken from the stripes, being told to the policy.
    drained: Vec<(DenseId, u32)>,
    /// A missing page is read here before a frame is freed for it (a miss
    /// of a listening store, under the lock).
    incoming: Box<[u8]>,
    /// Read buffers of misses outside the lock, kept for the next.
    spare: Vec<Box<[u8]>>,
    /// Per frame: modifications so far, to tell whether a page written
    /// outside the lock changed while its write was in flight.
    versions: Vec<u64>,
    /// Per frame: a write of its page is in flight outside the lock; the
    /// frame is not evicted meanwhile, nor written by anyone else.
    writing: Vec<bool>,
    /// Times the policy was called into, to tell whether any request
    /// reached it while a miss wrote its victim.
    turns: u64,
    free: Vec<u32>,
    /// Time-series interval in unfixes (0: none).
    series_every: u64,
    recording: Option<RecorderSlot>,
    /// Guards may be dropped on other threads ([`BufferPool::with_movable_guards`]).
    movable: bool,
    /// Per frame, for a store that uses changed byte ranges
    /// ([`PageStore::wants_changes`]): the ranges writers changed since the
    /// page was read or last written back.
    changes: Vec<Vec<(u32, u32)>>,
}

impl<P: Policy, S: PageStore> State<P, S> {
    /// Resident dirty pages, in frame order.
    fn dirty_pages(&self) -> Vec<DenseId> {
        self.page_in
            .iter()
            .copied()
            .filter(|&d| d != NIL && self.driver.policy().is_dirty(d))
            .collect()
    }

    fn dense(&mut self, page: PageId) -> Result<DenseId> {
        if let Some(&d) = self.ids.get(&page) {
            return Ok(d);
        }
        let d = DenseId::try_from(self.originals.len())
            .ok()
            .filter(|&d| d <= crate::types::MAX_DENSE)
            .ok_or_else(|| Error::invalid("buffer pool: too many distinct pages"))?;
        self.ids.insert(page, d);
        self.originals.push(page);
        self.frame_of.push(NIL);
        Ok(d)
    }
}

/// A buffer pool of `frames` pages of `page_size` bytes.
#[derive(Debug)]
pub struct BufferPool<P: Policy, S: PageStore> {
    page_size: usize,
    frames: Box<[Frame]>,
    /// Every frame's bytes, each read and written under its frame's latch.
    slab: Slab,
    /// Per frame: the page as a writer found it, while that writer holds the
    /// frame (see [`BufferPool::flush`]). Its own lock is never held while
    /// another is taken, so it sits outside the pool's lock order.
    shadows: Box<[Mutex<Shadow>]>,
    /// Resident pages, for hits without the pool lock.
    table: Table,
    /// Read guards taken without the pool lock.
    readers: Readers,
    /// Where fixers, writers and write-backs sleep until a latch changes.
    parking: Parking,
    /// Read hits not yet told to the policy.
    hits: Stripes,
    /// Whether the store uses changed byte ranges (fixed with the store).
    track: bool,
    /// Every unfix takes the pool lock ([`BufferPool::is_slow`]).
    slow: AtomicBool,
    /// Padded: every drain writes its lock, and every hit reads the fields
    /// beside it.
    state: Padded<Mutex<State<P, S>>>,
    /// Signalled when a load or a write outside the lock ends.
    done: Condvar,
    /// The store, for I/O outside the pool lock.
    store: LockedStore<S>,
    /// Its I/O that needs no lock, if it has one.
    io: Option<Arc<dyn SharedIo>>,
    /// Told of every write-back before it reaches the store.
    wal: Option<Arc<dyn WriteAhead>>,
}

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// A pool with one frame per page of `policy.capacity()`, each of the
    /// store's page size. Fails for a capacity of 0, a store without data,
    /// or a policy the store cannot serve ([`Driver::new`]).
    pub fn new(policy: P, store: S) -> Result<Self> {
        let n = policy.capacity();
        if n == 0 {
            return Err(Error::invalid("buffer size must be at least 1 page"));
        }
        let page_size = store.page_size();
        if page_size == 0 {
            return Err(Error::invalid(
                "a buffer pool needs a store that keeps data (page size > 0)",
            ));
        }
        if n >= LOADING as usize {
            return Err(Error::invalid("too many frames"));
        }
        if store.serves_in_place() {
            return Err(Error::invalid(
                "a buffer pool keeps every page it serves in a frame, and this store may serve a \
                 request in place (HyPro's SSD level); use it in a trace simulation",
            ));
        }
        let mut frames = Vec::new();
        frames
            .try_reserve_exact(n)
            .map_err(|_| too_big(n, page_size))?;
        frames.extend((0..n).map(|_| Frame::new()));
        let frames = frames.into_boxed_slice();
        let slab = Slab::new(n, page_size).ok_or_else(|| too_big(n, page_size))?;
        let track = store.wants_changes();
        let io = store.shared_io();
        let store = LockedStore::new(store);
        let driver = Driver::new(policy, store.share())?;
        Ok(BufferPool {
            page_size,
            frames,
            slab,
            shadows: (0..n).map(|_| Mutex::default()).collect(),
            done: Condvar::new(),
            table: Table::new(n),
            readers: Readers::new(n),
            parking: Parking::new(),
            hits: Stripes::new(),
            track,
            slow: AtomicBool::new(driver.policy().may_fail()),
            store,
            io,
            wal: None,
            state: Padded(Mutex::new(State {
                driver,
                ids: FxHashMap::default(),
                originals: Vec::new(),
                frame_of: Vec::new(),
                page_in: vec![NIL; n],
                drained: Vec::new(),
                incoming: vec![0u8; page_size].into_boxed_slice(),
                spare: Vec::new(),
                versions: vec![0; n],
                writing: vec![false; n],
                turns: 0,
                free: (0..n as u32).rev().collect(),
                series_every: 0,
                recording: None,
                movable: false,
                changes: vec![Vec::new(); n],
            })),
        })
    }

    /// The number of dirty pages buffered now.
    pub fn dirty_count(&self) -> usize {
        self.drained().driver.policy().dirty_count()
    }

    /// Calls `wal` before every write-back ([`WriteAhead`]; default: none).
    pub fn with_write_ahead(mut self, wal: Arc<dyn WriteAhead>) -> Self {
        self.wal = Some(wal);
        self
    }

    /// Meets `pages` in this order without fixing them, as if fixed: a
    /// policy that reads pages ahead ([`Policy::read_ahead`]) reads only
    /// pages the pool has met, so a caller that knows every page of its
    /// run beforehand (a trace) tells it here, and the pool then reads the
    /// pages ahead that a simulation of that trace reads.
    pub fn know(&self, pages: impl IntoIterator<Item = PageId>) -> Result<()> {
        let mut st = self.lock();
        for page in pages {
            st.dense(page)?;
        }
        Ok(())
    }

    /// Bytes per page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The I/O the store has done so far.
    pub fn store_stats(&self) -> crate::store::IoStats {
        self.store.lock().stats()
    }

    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The driver, the pool's side of the protocol ([`PoolFrames`]) and the
    /// pin counts, borrowed apart from the locked state.
    fn split<'a>(
        &'a self,
        st: &'a mut State<P, S>,
    ) -> (
        &'a mut Driver<P, LockedStore<S>>,
        PoolFrames<'a>,
        PoolGate<'a>,
    ) {
        let frames = PoolFrames {
            frames: &self.frames,
            slab: &self.slab,
            shadows: &self.shadows,
            parking: &self.parking,
            frame_of: &st.frame_of,
            originals: &st.originals,
            ids: &st.ids,
            incoming: &mut st.incoming,
            track: self.track,
            changes: &mut st.changes,
            wal: self.wal.as_deref(),
        };
        let gate = PoolGate {
            frames: &self.frames,
            readers: &self.readers,
            writing: &st.writing,
            frame_of: &st.frame_of,
            originals: &st.originals,
            table: &self.table,
        };
        (&mut st.driver, frames, gate)
    }

    fn shadow(&self, frame: u32) -> MutexGuard<'_, Shadow> {
        self.shadows[frame as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Becomes the drainer and drains, waiting for the pool lock: this
    /// thread's stripe is full, so the drainer, if any, has stopped fixing
    /// or lags.
    fn drain_as_drainer(&self) {
        self.hits.take_over();
        drop(self.drained());
    }

    /// The pool lock, with every gathered read hit told to the policy.
    fn drained(&self) -> MutexGuard<'_, State<P, S>> {
        let mut st = self.lock();
        self.drain(&mut st);
        st
    }

    /// Tells the policy the read hits gathered in the stripes, each
    /// stripe's in order, skipping hits on pages that left their frame
    /// since (their hit came before the eviction).
    fn drain(&self, st: &mut State<P, S>) {
        let mut hits = std::mem::take(&mut st.drained);
        self.hits.take(&mut hits);
        if !hits.is_empty() {
            st.turns += 1;
        }
        for (i, &(d, f)) in hits.iter().enumerate() {
            // The pages to come are known: their policy state is fetched
            // ahead, as the simulator does, so the misses overlap.
            if let Some(&(ahead, _)) = hits.get(i + hits::DRAIN_PREFETCH) {
                st.driver.prefetch(ahead);
            }
            if st.frame_of[d as usize] == f {
                let page = st.originals[d as usize];
                st.driver.hit_served(d, page);
            }
        }
        st.drained = hits;
    }

    /// Copies `bytes` into frame `f`, which nobody else holds (a free frame
    /// or a claimed victim's, pin count 0), so its latch never waits.
    fn fill(&self, f: u32, bytes: &[u8]) {
        let _latch = self.write_latch(f, false);
        // SAFETY: the frame's latch is held exclusively until the copy ends.
        unsafe { self.slab.page_mut(f) }.copy_from_slice(bytes);
    }

    /// A miss run whole under the pool lock ([`Driver::miss`]), for a store
    /// whose decisions follow the order of requests. Returns the page's
    /// frame, pinned.
    fn miss_whole(&self, st: &mut State<P, S>, page: PageId, d: DenseId, op: Op) -> Result<u32> {
        st.turns += 1;
        let before = st.driver.tally();
        let hit = st.driver.access(d, op, || page);
        debug_assert!(!hit, "policy holds page {page} that has no frame");
        let missed = panic::catch_unwind(AssertUnwindSafe(|| {
            let (driver, mut frames, gate) = self.split(st);
            driver.miss(d, op, &mut frames, gate)
        }));
        if !matches!(missed, Ok(Ok(_))) && st.driver.policy().may_fail() {
            // Its policy failed it: the miss moved no counter.
            st.driver.restore(before);
        }
        let victim = match missed {
            Ok(Ok(victim)) => victim,
            // The driver put its victim back; pages it evicted to make
            // room for reading ahead are gone, and their frames free.
            Ok(Err(e)) => {
                Self::free_left(st);
                return Err(e);
            }
            Err(p) => {
                Self::free_left(st);
                panic::resume_unwind(p)
            }
        };
        let f = self.take_frame(st, victim);
        // A free frame or a claimed victim's (pin count 0): this never waits.
        self.fill(f, &st.incoming);
        self.install(st, d, f);
        Ok(f)
    }

    /// The frame an admitted page takes: its victim's (claimed: out of the
    /// page table), or a free one. The frames of pages that left with the
    /// victim ([`Driver::left`]) are freed first.
    fn take_frame(&self, st: &mut State<P, S>, victim: Option<DenseId>) -> u32 {
        Self::free_left(st);
        match victim {
            Some(v) => {
                let f = st.frame_of[v as usize];
                st.frame_of[v as usize] = NIL;
                st.page_in[f as usize] = NIL;
                f
            }
            None => st
                .free
                .pop()
                .expect("a buffer that is not full has a free frame"),
        }
    }

    /// Frees the frames of the pages that left with the last miss's victim
    /// ([`Driver::left`]), claimed and out of the page table already.
    fn free_left(st: &mut State<P, S>) {
        for &d in st.driver.left() {
            let f = st.frame_of[d as usize];
            st.frame_of[d as usize] = NIL;
            st.page_in[f as usize] = NIL;
            st.changes[f as usize].clear();
            st.free.push(f);
        }
    }

    /// Makes frame `f`, holding page `d`'s bytes, the page's, pinned, and
    /// findable by hits.
    fn install(&self, st: &mut State<P, S>, d: DenseId, f: u32) {
        self.pin(f);
        self.publish(st, d, f);
    }

    /// Makes frame `f`, holding page `d`'s bytes, the page's and findable
    /// by hits.
    fn publish(&self, st: &mut State<P, S>, d: DenseId, f: u32) {
        st.frame_of[d as usize] = f;
        st.page_in[f as usize] = d;
        st.changes[f as usize].clear();
        st.versions[f as usize] += 1;
        let number = st.originals[d as usize];
        self.frames[f as usize].publish(number, d);
        self.table.insert(number, f);
    }

    // Separate arguments: as one struct the fix returns and the guard holds,
    // one thread's all-hit fixes ran at 17.3M/s against 26.4M/s.
    #[expect(
        clippy::too_many_arguments,
        reason = "one unfix carries everything its guard knew"
    )]
    fn unfix(
        &self,
        frame: u32,
        page: PageId,
        dense: DenseId,
        installed: Option<u64>,
        counted: bool,
        write_fix: bool,
        modified: bool,
        changed: &[ByteRange],
    ) {
        if installed.is_none() && !modified && !self.slow.load(Ordering::Relaxed) {
            // A read hit: gathered, told to the policy in a batch. The pin
            // goes after, so the hit is gathered while its page is here.
            let gathered = loop {
                match self.hits.push((dense, frame)) {
                    Some(n) => break n,
                    None => {
                        // The policy runs here: if it panics, the count
                        // still goes.
                        let release = Undo(Some(|| self.release(frame, counted)));
                        self.drain_as_drainer();
                        release.disarm();
                    }
                }
            };
            self.release(frame, counted);
            // The drainer's full batch offers to drain once: a try at
            // every hit after it would take the pool lock's cache line
            // from its holder.
            if gathered >= hits::MAX_GATHERED {
                self.drain_as_drainer();
            } else if gathered.is_multiple_of(hits::BATCH) && self.hits.drains() {
                if let Ok(mut st) = self.state.0.try_lock() {
                    self.drain(&mut st);
                }
            }
            return;
        }
        self.unfix_locked(
            frame, page, dense, installed, counted, write_fix, modified, changed,
        );
    }

    /// [`BufferPool::unfix`] under the pool lock: an unfix that modified,
    /// missed or is recorded. Out of line, so that the read hit's unfix
    /// stays small enough to inline into the guard's drop.
    #[expect(
        clippy::too_many_arguments,
        reason = "one unfix carries everything its guard knew"
    )]
    #[inline(never)]
    fn unfix_locked(
        &self,
        frame: u32,
        page: PageId,
        dense: DenseId,
        installed: Option<u64>,
        counted: bool,
        write_fix: bool,
        modified: bool,
        changed: &[ByteRange],
    ) {
        // The guard's pin or count goes whatever happens below: a recorder
        // or policy that panics must not leave the frame held.
        let release = Undo(Some(|| self.release(frame, counted)));
        let mut st = self.lock();
        st.turns += 1;
        if modified {
            st.versions[frame as usize] += 1;
        }
        if self.track && modified {
            let ranges = &mut st.changes[frame as usize];
            if ranges.len() + changed.len() > MAX_TRACKED {
                // Past this many, the whole page is cheaper to describe.
                ranges.clear();
                ranges.push((0, self.page_size as u32));
            } else {
                ranges.extend(
                    changed
                        .iter()
                        .map(|r| (u32::from(r.offset), u32::from(r.len))),
                );
            }
        }
        let op = if modified { Op::Write } else { Op::Read };
        let how = match installed {
            None => Unfix::Hit,
            // Admitted dirty when fixed for writing, but a flush while the
            // writer held it may have written the page as it was then.
            Some(_) if modified => Unfix::Modified,
            // Admitted dirty, and clean after all unless another guard
            // modified the page since it was installed (that guard's unfix
            // may have come first).
            Some(v) if write_fix && st.versions[frame as usize] == v => Unfix::Unmodified,
            Some(_) => Unfix::Admitted,
        };
        // The gathered hits first, as before any call into the policy; a
        // policy that panics there still hears of this modification, so
        // the page is dirty whatever happens.
        let drained = panic::catch_unwind(AssertUnwindSafe(|| self.drain(&mut st)));
        let every = st.series_every;
        st.driver.unfixed(dense, page, op, how, every);
        if let Err(p) = drained {
            panic::resume_unwind(p);
        }
        // Recorded once the page's state is whole (dirty, its ranges kept):
        // a recorder that panics loses no modification.
        if let Some(r) = st.recording.as_mut() {
            r.sink.record(page, op, if r.bytes { changed } else { &[] });
        }
        // Unpinned last: the page cannot leave before the policy heard.
        release.now();
    }

    /// Writes every dirty page, then makes the store durable. Pages modified
    /// by guards dropped before this call are durable when it returns. A
    /// page a writer holds now is written as it was when that writer fixed
    /// it (its shadow); what the writer changes becomes dirty at its unfix.
    /// The pages go in one batch in page-number order, through the same
    /// checkpoint as the simulator's flush at the end of a run.
    pub fn flush(&self) -> Result<()> {
        let mut guard = self.drained();
        guard.turns += 1;
        if guard.driver.listening() {
            let st = &mut *guard;
            let dirty = st.dirty_pages();
            let (driver, mut frames, _) = self.split(st);
            driver.write_dirty(&dirty, &mut frames)?;
            return driver.flush_store(&frames);
        }
        self.flush_outside(guard)
    }

    /// Empties the pool, as a run between experiments does: every page
    /// leaves as if evicted (in page-number order), written back if dirty,
    /// and a store that places pages decides for each (Koltsidas & Viglas
    /// §6 empty the pool after each execution). Fails if a page is pinned.
    pub fn empty(&self) -> Result<()> {
        let mut guard = self.drained();
        while Self::writes_in_flight(&guard) {
            // Writes outside the lock end on their own.
            guard = self.wait(guard);
        }
        let st = &mut *guard;
        st.turns += 1;
        let mut resident: Vec<DenseId> = st.page_in.iter().copied().filter(|&d| d != NIL).collect();
        resident.sort_unstable_by_key(|&d| st.originals[d as usize]);
        // Every frame is claimed first, so that no hit pins one meanwhile.
        let claimed: Vec<bool> = resident
            .iter()
            .map(|&d| {
                let f = st.frame_of[d as usize];
                self.frames[f as usize].claim(st.originals[d as usize], &self.readers, f)
            })
            .collect();
        let pinned = claimed.iter().filter(|&&c| !c).count();
        if pinned > 0 {
            self.republish(st, &resident);
            return Err(Error::invalid(format!(
                "cannot empty the buffer pool while {pinned} pages are pinned"
            )));
        }
        for (i, &d) in resident.iter().enumerate() {
            let (driver, mut frames, _) = self.split(st);
            if let Err(e) = driver.evict_all(&[d], &mut frames) {
                self.republish(st, &resident[i..]);
                return Err(e);
            }
            let f = st.frame_of[d as usize];
            self.table.remove(st.originals[d as usize]);
            st.frame_of[d as usize] = NIL;
            st.page_in[f as usize] = NIL;
            st.changes[f as usize].clear();
            st.free.push(f);
        }
        Ok(())
    }

    /// Lets hits find the resident `pages` in their frames again.
    fn republish(&self, st: &State<P, S>, pages: &[DenseId]) {
        for &d in pages {
            let f = st.frame_of[d as usize];
            self.frames[f as usize].publish(st.originals[d as usize], d);
        }
    }

    /// Metrics so far. `reads`/`writes` count unfixes by whether the page was
    /// modified; `dirty_at_end` is the number of dirty pages buffered now.
    pub fn metrics(&self) -> Metrics {
        self.drained().driver.metrics()
    }

    /// Whether `page` is in the buffer now.
    pub fn is_resident(&self, page: PageId) -> bool {
        let st = self.lock();
        st.ids
            .get(&page)
            .is_some_and(|&d| st.frame_of[d as usize] < LOADING)
    }

    /// Whether `page` is in the buffer now and dirty.
    pub fn is_dirty(&self, page: PageId) -> bool {
        let st = self.lock();
        st.ids
            .get(&page)
            .is_some_and(|&d| st.frame_of[d as usize] < LOADING && st.driver.policy().is_dirty(d))
    }

    /// Runs `f` on the policy (for inspection).
    pub fn with_policy<R>(&self, f: impl FnOnce(&P) -> R) -> R {
        f(self.drained().driver.policy())
    }

    /// Threads sleeping in the pool now, waiting for a latch, a pin or a
    /// frame (a diagnostic: 0 when no fix waits).
    pub fn sleepers(&self) -> u32 {
        self.parking.sleepers()
    }

    /// Calls `f` with the store, under the pool's lock: for administration
    /// between runs (resetting a hybrid store's accounting, say). Pages
    /// should move only through fixes and flushes.
    pub fn with_store<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        let _st = self.lock();
        f(&mut self.store.lock())
    }
}
