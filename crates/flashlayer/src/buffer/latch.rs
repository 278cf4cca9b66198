//! A frame's latch, and the one place where threads that wait for a latch
//! sleep.
//!
//! The latch is one word: a writer bit and a count of readers that hold it
//! through the word (readers counted in [`super::hits::Readers`] hold it
//! through their stripe instead; a writer waits for both). A shared try
//! ([`Latch::try_read`]) succeeds whenever no writer holds the word, even
//! while a writer waits for readers to leave: a write-back that copies a
//! page never waits behind a waiting writer, which may itself wait for a
//! reader that waits for the write-back (the cycle a writer-preferring
//! lock closes). Every blocking wait sleeps in [`Parking`] until a latch
//! it waits on changes; nothing spins.

use crate::sync::{AtomicU32, Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The writer bit of [`Latch`]'s word; the bits below count readers.
const WRITER: u32 = 1 << 31;

/// A frame's latch. Its word is changed only through these methods; a
/// thread that releases it wakes the [`Parking`] that its waiters sleep in.
#[derive(Debug)]
pub(super) struct Latch {
    word: AtomicU32,
}

impl Latch {
    pub(super) fn new() -> Self {
        Latch {
            word: AtomicU32::new(0),
        }
    }

    /// Holds the latch shared if no writer holds it.
    pub(super) fn try_read(&self) -> bool {
        let mut w = self.word.load(Ordering::SeqCst);
        loop {
            if w & WRITER != 0 {
                return false;
            }
            match self
                .word
                .compare_exchange_weak(w, w + 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    /// Releases a shared hold of [`Latch::try_read`]; returns whether it
    /// was the last (a waiting writer may take the latch now).
    pub(super) fn read_unlock(&self) -> bool {
        self.word.fetch_sub(1, Ordering::SeqCst) == 1
    }

    /// Holds the latch exclusively if nobody holds it.
    pub(super) fn try_write(&self) -> bool {
        self.word
            .compare_exchange(0, WRITER, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Releases an exclusive hold of [`Latch::try_write`].
    pub(super) fn write_unlock(&self) {
        self.word.fetch_and(!WRITER, Ordering::SeqCst);
    }

    /// Whether a writer holds the latch: counted readers keep away.
    #[inline]
    pub(super) fn written(&self) -> bool {
        self.word.load(Ordering::SeqCst) & WRITER != 0
    }
}

/// Where threads sleep until a latch or a pin changes: one mutex (over a
/// count of wake-ups) and condition variable for the whole pool, and a
/// count of sleepers, so that a release nobody waits for costs one load. A
/// sleeper counts itself before it checks its condition, and a releaser
/// changes the latch or pin before it reads the count (both sequentially
/// consistent): either the releaser sees the sleeper and wakes it under the
/// mutex, or the sleeper sees the change.
#[derive(Debug)]
pub(super) struct Parking {
    lock: Mutex<u64>,
    changed: Condvar,
    sleepers: AtomicU32,
}

impl Parking {
    pub(super) fn new() -> Self {
        Parking {
            lock: Mutex::new(0),
            changed: Condvar::new(),
            sleepers: AtomicU32::new(0),
        }
    }

    /// Counts the caller as a sleeper before it tries what it may then
    /// sleep on ([`Parking::sleep`]); returns the wake-ups so far.
    pub(super) fn enter(&self) -> u64 {
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        *self.lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sleeps until a wake-up after `seen` ([`Parking::enter`]) or the
    /// deadline; returns whether woken. Stays counted as a sleeper.
    pub(super) fn sleep(&self, seen: u64, deadline: Instant) -> bool {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while *g == seen {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            g = self
                .changed
                .wait_timeout(g, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Threads counted as sleepers now.
    pub(super) fn sleepers(&self) -> u32 {
        self.sleepers.load(Ordering::SeqCst)
    }

    /// Stops counting the caller of [`Parking::enter`] as a sleeper.
    pub(super) fn leave(&self) {
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    /// Sleeps until `ready` holds, checking it under the mutex after each
    /// wake-up.
    pub(super) fn wait_until(&self, ready: impl FnMut() -> bool) {
        self.wait_until_by(ready, None);
    }

    /// [`Parking::wait_until`] until `deadline` at the latest (none: no
    /// limit); returns whether `ready` held.
    pub(super) fn wait_until_by(
        &self,
        mut ready: impl FnMut() -> bool,
        deadline: Option<Instant>,
    ) -> bool {
        if ready() {
            return true;
        }
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut done = ready();
        while !done {
            g = match deadline {
                None => self.changed.wait(g).unwrap_or_else(|e| e.into_inner()),
                Some(at) => {
                    let Some(left) = at.checked_duration_since(Instant::now()) else {
                        break;
                    };
                    self.changed
                        .wait_timeout(g, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
            done = ready();
        }
        drop(g);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        done
    }

    /// Wakes every sleeper, if any, after a latch changed.
    #[inline]
    pub(super) fn wake(&self) {
        if self.sleepers.load(Ordering::SeqCst) != 0 {
            self.wake_all();
        }
    }

    #[cold]
    fn wake_all(&self) {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        *g += 1;
        self.changed.notify_all();
    }
}

/// A frame's latch held exclusively ([`BufferPool::write_latch`]) until
/// drop.
#[derive(Debug)]
pub(super) struct WriteLatch<'a> {
    pub(super) latch: &'a Latch,
    pub(super) parking: &'a Parking,
}

impl Drop for WriteLatch<'_> {
    fn drop(&mut self) {
        self.latch.write_unlock();
        self.parking.wake();
    }
}

/// A frame's latch held shared through its word (not counted in
/// [`Readers`]) until drop.
#[derive(Debug)]
pub(super) struct ReadLatch<'a> {
    pub(super) latch: &'a Latch,
    pub(super) parking: &'a Parking,
}

impl Drop for ReadLatch<'_> {
    fn drop(&mut self) {
        if self.latch.read_unlock() {
            self.parking.wake();
        }
    }
}
