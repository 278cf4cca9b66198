//! What differs between the driver's callers: how page bytes move
//! ([`Frames`]) and which resident pages may leave or be written ([`Gate`]).

use super::PageNumbers;
use crate::error::Result;
use crate::policy::Neighbours;
use crate::store::PageStore;
use crate::types::{DenseId, PageId};

/// How a caller moves page bytes between its frames and the store.
pub trait Frames {
    /// The page number of dense id `page`.
    fn number(&self, page: DenseId) -> PageId;

    /// The dense id of the page numbered `delta` away from `page`'s number,
    /// if the caller knows that page.
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId>;

    /// The dense id of the page numbered `number`, if the caller knows it.
    fn dense_of(&self, number: PageId) -> Option<DenseId>;

    /// The buffer a missing page is read into (empty when no data is kept).
    fn incoming(&mut self) -> &mut [u8];

    /// Starts loading what [`Frames::neighbour`] reads for `page`.
    /// Default: nothing.
    fn prefetch_neighbours(&self, page: DenseId) {
        let _ = page;
    }

    /// Starts loading what [`Frames::number`] reads for `page`.
    /// Default: nothing.
    #[inline]
    fn prefetch_number(&self, page: DenseId) {
        let _ = page;
    }

    /// Writes one page to `store` with [`PageStore::write`].
    fn write<S: PageStore>(&mut self, store: &mut S, number: PageId, page: DenseId) -> Result<()>;

    /// Writes the pages of `batch` (page number, dense id), sorted by page
    /// number, to `store` with one [`PageStore::write_batch`].
    fn write_batch<S: PageStore>(
        &mut self,
        store: &mut S,
        batch: &[(PageId, DenseId)],
    ) -> Result<()>;
}

/// The frames of a simulation: page numbers, no bytes.
#[derive(Debug)]
pub struct NoFrames<N> {
    numbers: N,
    scratch: Vec<(PageId, &'static [u8])>,
}

impl<N: PageNumbers> NoFrames<N> {
    /// Frames that name pages by `numbers` and keep no data.
    pub fn new(numbers: N) -> Self {
        NoFrames {
            numbers,
            scratch: Vec::new(),
        }
    }
}

impl<N> NoFrames<N> {
    /// The page numbers, to extend (a caller that names pages as it meets
    /// them).
    pub fn numbers_mut(&mut self) -> &mut N {
        &mut self.numbers
    }
}

impl<N: PageNumbers> Frames for NoFrames<N> {
    #[inline]
    fn number(&self, page: DenseId) -> PageId {
        self.numbers.number(page)
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        self.numbers.neighbour(page, delta)
    }
    fn prefetch_neighbours(&self, page: DenseId) {
        self.numbers.prefetch_neighbours(page);
    }
    #[inline]
    fn prefetch_number(&self, page: DenseId) {
        self.numbers.prefetch_number(page);
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        self.numbers.dense_of(number)
    }
    #[inline]
    fn incoming(&mut self) -> &mut [u8] {
        &mut []
    }
    #[inline]
    fn write<S: PageStore>(&mut self, store: &mut S, number: PageId, _page: DenseId) -> Result<()> {
        store.write(number, &[])
    }
    fn write_batch<S: PageStore>(
        &mut self,
        store: &mut S,
        batch: &[(PageId, DenseId)],
    ) -> Result<()> {
        self.scratch.clear();
        self.scratch
            .extend(batch.iter().map(|&(n, _)| (n, &[][..])));
        store.write_batch(&self.scratch)
    }
}

/// Which resident pages may leave the buffer or be written now. A closure
/// answers [`Gate::evictable`] alone; a buffer pool whose hits pin pages
/// without its lock also claims each victim ([`Gate::claim`]).
pub trait Gate {
    /// Whether `page` may be evicted, or written with a victim, now.
    fn evictable(&mut self, page: DenseId) -> bool;

    /// The policy chose `page` to leave now: whether it may. A page that a
    /// hit pinned since [`Gate::evictable`] said yes may not, and the
    /// driver undoes the eviction and asks the policy again. A claimed page
    /// can no longer be found by a hit. Default: yes.
    fn claim(&mut self, page: DenseId) -> bool {
        let _ = page;
        true
    }

    /// A claimed page stays after all: its write-back failed and the policy
    /// has it back. Default: nothing.
    fn release(&mut self, page: DenseId) {
        let _ = page;
    }
}

impl<F: FnMut(DenseId) -> bool> Gate for F {
    #[inline]
    fn evictable(&mut self, page: DenseId) -> bool {
        self(page)
    }
}

/// What [`Policy::cluster`] sees of the caller: neighbours by page number,
/// and which pages may be written now.
pub(super) struct Scope<'a, F, E> {
    pub(super) frames: &'a F,
    pub(super) evictable: &'a mut E,
}

impl<F: Frames, E: Gate> Neighbours for Scope<'_, F, E> {
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        self.frames.neighbour(page, delta)
    }
    fn evictable(&mut self, page: DenseId) -> bool {
        self.evictable.evictable(page)
    }
    fn prefetch(&self, page: DenseId) {
        self.frames.prefetch_neighbours(page);
    }
}
