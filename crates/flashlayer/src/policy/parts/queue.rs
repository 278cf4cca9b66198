//! A queue of pages in arrival order from which any page leaves in O(1),
//! for a set that is only ever taken from its oldest end: CFDC's singleton
//! clusters.
//!
//! A linked list ([`crate::policy::list::Lists`]) does the same, but every removal
//! writes the neighbours' nodes, two random accesses; here a page leaving
//! marks its entry, found by the position [`Queue::push_back`] returned,
//! and entering appends to an array. The oldest entries are read in order,
//! so the next victims are known ahead. Marked entries are dropped when
//! they reach the front and, when they outnumber the live ones, by
//! compaction, which moves entries: the caller keeps each page's position
//! and is told the new ones.

use std::collections::VecDeque;

use crate::policy::list::NIL;
use crate::types::DenseId;

/// Pages with data `T` in arrival order.
#[derive(Clone, Debug)]
pub(crate) struct Queue<T> {
    items: VecDeque<(DenseId, T)>,
    /// The position of the front entry. Positions are kept modulo 2³²: the
    /// queue never holds 2³² entries (after a push it holds at most twice
    /// its live entries plus 64, and live ones are resident pages, fewer
    /// than 2³¹).
    front: u32,
    live: usize,
}

impl<T: Copy> Queue<T> {
    pub(crate) fn new() -> Self {
        Queue {
            items: VecDeque::new(),
            front: 0,
            live: 0,
        }
    }

    #[inline]
    fn index(&self, pos: u32) -> usize {
        pos.wrapping_sub(self.front) as usize
    }

    /// Appends `page` as the newest entry and returns its position. May
    /// compact first, telling `moved` each live page's new position.
    #[inline]
    pub(crate) fn push_back(
        &mut self,
        page: DenseId,
        data: T,
        moved: impl FnMut(DenseId, u32),
    ) -> u32 {
        if self.items.len() >= 2 * self.live + 64 {
            self.compact(moved);
        }
        self.items.push_back((page, data));
        self.live += 1;
        self.front.wrapping_add(self.items.len() as u32 - 1)
    }

    /// Marks the entry at `pos` (live) as gone and returns its data.
    #[inline]
    pub(crate) fn remove(&mut self, pos: u32) -> T {
        let i = self.index(pos);
        let (page, data) = &mut self.items[i];
        debug_assert_ne!(*page, NIL, "position {pos} is not live");
        *page = NIL;
        self.live -= 1;
        *data
    }

    /// Brings back the entry [`Queue::remove`] marked at `pos`, while no
    /// entry was added or dropped since.
    pub(crate) fn restore(&mut self, pos: u32, page: DenseId) {
        let i = self.index(pos);
        debug_assert_eq!(self.items[i].0, NIL);
        self.items[i].0 = page;
        self.live += 1;
    }

    /// The oldest live entry whose page `ok` accepts, with its position,
    /// after dropping marked entries at the front. Starts loading what
    /// `ahead` names for the two entries after it, the next to leave.
    #[inline]
    pub(crate) fn first(
        &mut self,
        mut ok: impl FnMut(DenseId) -> bool,
        ahead: impl Fn(DenseId),
    ) -> Option<(u32, DenseId, T)> {
        if self.live == 0 {
            return None;
        }
        while self.items.front().is_some_and(|&(p, _)| p == NIL) {
            self.items.pop_front();
            self.front = self.front.wrapping_add(1);
        }
        let i = self.items.iter().position(|&(p, _)| p != NIL && ok(p))?;
        for &(p, _) in self.items.range(i + 1..).take(2) {
            if p != NIL {
                ahead(p);
            }
        }
        let (page, data) = self.items[i];
        Some((self.front.wrapping_add(i as u32), page, data))
    }

    /// The live entries, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (DenseId, T)> + '_ {
        self.items.iter().copied().filter(|&(p, _)| p != NIL)
    }

    /// Drops every marked entry, keeping the live ones in order.
    fn compact(&mut self, mut moved: impl FnMut(DenseId, u32)) {
        self.items.retain(|&(p, _)| p != NIL);
        for (i, &(p, _)) in self.items.iter().enumerate() {
            moved(p, self.front.wrapping_add(i as u32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a vector of live pages: entries leave from anywhere (and
        /// some come back at once, as an undone eviction does), the oldest
        /// accepted one is found, positions survive compaction, and the
        /// queue never holds more than twice its live entries plus 64 after
        /// a push.
        #[test]
        fn queue_keeps_arrival_order_through_removals_and_compaction(
            steps in prop::collection::vec((0u8..10, 0u32..300), 1..3000),
        ) {
            let mut q = Queue::<u64>::new();
            let mut pos = vec![0u32; 300];
            let mut model: VecDeque<u32> = VecDeque::new();
            for (i, &(r, page)) in steps.iter().enumerate() {
                if model.contains(&page) {
                    if r < 5 {
                        let data = q.remove(pos[page as usize]);
                        prop_assert_eq!(data, u64::from(page) * 7);
                        if r == 0 {
                            q.restore(pos[page as usize], page);
                        } else {
                            model.retain(|&p| p != page);
                        }
                    }
                } else if r < 7 {
                    let at = q.push_back(page, u64::from(page) * 7, |p, at| {
                        pos[p as usize] = at;
                    });
                    pos[page as usize] = at;
                    model.push_back(page);
                    prop_assert!(q.items.len() <= 2 * q.live + 64);
                }
                prop_assert_eq!(q.live, model.len());
                if i % 7 == 0 {
                    let odd = |p: DenseId| p % 2 == 1;
                    let want = model.iter().copied().find(|&p| odd(p));
                    let got = q.first(odd, |_| ());
                    prop_assert_eq!(got.map(|(_, p, _)| p), want);
                    if let Some((at, p, d)) = got {
                        prop_assert_eq!(at, pos[p as usize]);
                        prop_assert_eq!(d, u64::from(p) * 7);
                    }
                }
            }
            let pages: Vec<u32> = q.iter().map(|(p, _)| p).collect();
            prop_assert_eq!(pages, Vec::from(model));
        }
    }
}
