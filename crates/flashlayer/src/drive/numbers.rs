//! Page numbers: how dense ids map back to the numbers a store sees, and
//! how a policy that groups pages by number learns them.

use super::{Driver, Frames};
use crate::policy::{Numbered, Policy};
use crate::store::PageStore;
use crate::trace::Flt;
use crate::types::{DenseId, PageId};

/// Maps dense ids back to the page numbers stores see.
pub trait PageNumbers {
    /// The page number of dense id `page`.
    fn number(&self, page: DenseId) -> PageId;

    /// The dense id of the page numbered `delta` away from `page`'s number,
    /// if there is one (write clustering and CFDC look up neighbouring
    /// numbers; not on the per-request path).
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId>;

    /// Starts loading what [`PageNumbers::neighbour`] reads for `page`.
    /// Default: nothing.
    fn prefetch_neighbours(&self, page: DenseId) {
        let _ = page;
    }

    /// Starts loading what [`PageNumbers::number`] reads for `page`.
    /// Default: nothing.
    #[inline]
    fn prefetch_number(&self, page: DenseId) {
        let _ = page;
    }

    /// The dense id of the page numbered `number`, if there is one (for
    /// pages a store moved on its own; not on the per-request path).
    fn dense_of(&self, number: PageId) -> Option<DenseId>;
}

/// Dense ids used as page numbers, for callers with no numbers of their own.
#[derive(Clone, Copy, Debug, Default)]
pub struct DenseNumbers;

impl PageNumbers for DenseNumbers {
    #[inline]
    fn number(&self, page: DenseId) -> PageId {
        PageId::from(page)
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        DenseId::try_from(i64::from(page).checked_add(delta)?).ok()
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        DenseId::try_from(number).ok()
    }
}

/// An `flt` trace keeps the original page number of every dense id.
impl PageNumbers for &Flt {
    #[inline]
    fn number(&self, page: DenseId) -> PageId {
        self.original(page)
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        Flt::neighbour(self, page, delta)
    }
    fn prefetch_neighbours(&self, page: DenseId) {
        self.prefetch_links(page);
    }
    #[inline]
    fn prefetch_number(&self, page: DenseId) {
        self.prefetch_original(page);
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        Flt::dense_of(self, number)
    }
}

/// A table of page numbers indexed by dense id (searched linearly by
/// number: for small tables).
impl PageNumbers for [PageId] {
    #[inline]
    fn number(&self, page: DenseId) -> PageId {
        self[page as usize]
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        let want = self.number(page).checked_add_signed(delta)?;
        self.dense_of(want)
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        self.iter()
            .position(|&n| n == number)
            .and_then(|i| DenseId::try_from(i).ok())
    }
}

impl PageNumbers for Vec<PageId> {
    #[inline]
    fn number(&self, page: DenseId) -> PageId {
        self[page as usize]
    }
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId> {
        self.as_slice().neighbour(page, delta)
    }
    fn dense_of(&self, number: PageId) -> Option<DenseId> {
        self.as_slice().dense_of(number)
    }
}

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// Tells a policy that groups pages by number ([`Policy::wants_number`])
    /// the numbers of pages `0..pages` at once, for a caller that knows
    /// every page before the run (a trace): one pass in dense order instead
    /// of a neighbour lookup at each page's first miss. Decisions are the
    /// same either way, since a page's number and neighbours never change.
    pub fn learn_numbers<F: Frames>(&mut self, frames: &F, pages: usize) {
        self.taught = self.taught.max(pages as DenseId);
        for page in 0..pages as DenseId {
            self.teach(frames, page);
        }
    }

    /// Tells the policy `page`'s number and numeric neighbours if it wants
    /// them ([`Policy::wants_number`]).
    #[inline]
    pub(super) fn teach<F: Frames>(&mut self, frames: &F, page: DenseId) {
        if self.policy.wants_number(page) {
            let number = Numbered {
                number: frames.number(page),
                below: frames.neighbour(page, -1),
                above: frames.neighbour(page, 1),
            };
            self.policy.learn_number(page, number);
        }
    }
}
