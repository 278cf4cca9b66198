//! Index-based intrusive doubly-linked lists over dense page ids.
//!
//! Every page is in at most one of `K` lists; a node holds its neighbours and
//! a tag (which list, the dirty bit, and one mark a policy may use: a cold
//! mark, say). All operations are O(1) and touch
//! one 12-byte node per page, which keeps the LRU family allocation-free and
//! cache-friendly. A policy that reads more of a page whenever it reads its
//! node keeps that in the node too ([`Extra`]; CFDC's nodes are 32 bytes).

use crate::types::{DenseId, Op};

pub(crate) const NIL: u32 = u32::MAX;

pub(crate) use crate::types::prefetch;
const DIRTY: u8 = 0x80;
const MARK: u8 = 0x40;
const LIST_MASK: u8 = 0x3f;

/// Where a page was and what its flags were, taken by [`Lists::save`] before
/// a policy moves or removes it, so [`Lists::restore`] can put it back.
/// Restoring saved pages in the reverse order of saving undoes the moves
/// exactly, which is how multi-step evictions (second chances) implement
/// `Policy::reinstate`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Saved {
    page: DenseId,
    next: u32,
    tag: u8,
}

impl Saved {
    /// The page whose place this is.
    #[inline]
    pub(crate) fn page(&self) -> DenseId {
        self.page
    }
}

/// What a policy keeps in each page's node beside its links: nothing for
/// most; a policy that reads more of a page whenever it reads its node
/// keeps it here, where the node's cache line brings it along.
pub(crate) trait Extra: Copy {
    /// A page's value until the policy sets it.
    const EMPTY: Self;
    /// A zero-sized type whose alignment the nodes take ([`Align32`] for
    /// an extra that makes a node 32 bytes, so that no node straddles two
    /// cache lines; `()` otherwise).
    type Align: Copy + std::fmt::Debug;
    const ALIGN: Self::Align;
}

impl Extra for () {
    const EMPTY: Self = ();
    type Align = ();
    const ALIGN: Self::Align = ();
}

/// A small number per page (SLRU's segment), in the node's padding.
impl Extra for u8 {
    const EMPTY: Self = 0;
    type Align = ();
    const ALIGN: Self::Align = ();
}

/// Aligns what holds it to 32 bytes, taking no room itself.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub(crate) struct Align32;

#[derive(Clone, Copy, Debug)]
struct Node<X: Extra> {
    prev: u32,
    next: u32,
    tag: u8,
    extra: X,
    _align: X::Align,
}

impl<X: Extra> Node<X> {
    const EMPTY: Self = Node {
        prev: NIL,
        next: NIL,
        tag: 0,
        extra: X::EMPTY,
        _align: X::ALIGN,
    };
}

/// `K` lists numbered `1..=K`; list 0 means "in no list". Each node carries
/// an [`Extra`] `X` (none by default), kept when the page leaves.
#[derive(Clone, Debug)]
pub(crate) struct Lists<const K: usize, X: Extra = ()> {
    nodes: Vec<Node<X>>,
    head: [u32; K],
    tail: [u32; K],
    len: [usize; K],
    dirty: usize,
}

impl<const K: usize, X: Extra> Lists<K, X> {
    /// The bytes of one page's node.
    #[cfg(test)]
    pub(crate) const NODE_BYTES: usize = std::mem::size_of::<Node<X>>();

    pub(crate) fn new() -> Self {
        Lists {
            nodes: Vec::new(),
            head: [NIL; K],
            tail: [NIL; K],
            len: [0; K],
            dirty: 0,
        }
    }

    /// Starts loading `page`'s node into the cache (see [`prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, page: DenseId) {
        if let Some(n) = self.nodes.get(page as usize) {
            prefetch(n);
        }
    }

    /// Which list `page` is in (0 for none).
    #[inline]
    pub(crate) fn list_of(&self, page: DenseId) -> u8 {
        match self.nodes.get(page as usize) {
            Some(n) => n.tag & LIST_MASK,
            None => 0,
        }
    }

    #[inline]
    pub(crate) fn is_dirty(&self, page: DenseId) -> bool {
        self.nodes
            .get(page as usize)
            .is_some_and(|n| n.tag & DIRTY != 0)
    }

    #[inline]
    pub(crate) fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let n = &mut self.nodes[page as usize];
        let was = n.tag & DIRTY != 0;
        if was != dirty {
            n.tag ^= DIRTY;
            if dirty {
                self.dirty += 1;
            } else {
                self.dirty -= 1;
            }
        }
    }

    pub(crate) fn dirty_count(&self) -> usize {
        self.dirty
    }

    #[inline]
    pub(crate) fn len(&self, list: u8) -> usize {
        self.len[usize::from(list) - 1]
    }

    #[inline]
    pub(crate) fn back(&self, list: u8) -> Option<DenseId> {
        let t = self.tail[usize::from(list) - 1];
        (t != NIL).then_some(t)
    }

    /// Makes room for ids up to `page`.
    #[inline]
    fn ensure(&mut self, page: DenseId) {
        let need = page as usize + 1;
        if need > self.nodes.len() {
            self.grow(need);
        }
    }

    #[cold]
    fn grow(&mut self, need: usize) {
        let new_len = need.max(self.nodes.len() * 2).max(64);
        self.nodes.resize(new_len, Node::EMPTY);
    }

    /// Pre-sizes for `n` pages so that the hot path never grows.
    pub(crate) fn reserve_pages(&mut self, n: usize) {
        if n > self.nodes.len() {
            self.nodes.resize(n, Node::EMPTY);
        }
    }

    /// Links a page that is in no list into `list` between `prev` and
    /// `next`, neighbours in that list (`NIL` at either end).
    #[inline(always)]
    fn link(&mut self, list: u8, page: DenseId, prev: u32, next: u32) {
        self.ensure(page);
        let l = usize::from(list) - 1;
        {
            let n = &mut self.nodes[page as usize];
            debug_assert_eq!(n.tag & LIST_MASK, 0, "page {page} is already listed");
            n.prev = prev;
            n.next = next;
            n.tag = (n.tag & !LIST_MASK) | list;
        }
        match prev {
            NIL => self.head[l] = page,
            p => self.nodes[p as usize].next = page,
        }
        match next {
            NIL => self.tail[l] = page,
            q => self.nodes[q as usize].prev = page,
        }
        self.len[l] += 1;
    }

    /// Puts a page that is in no list at the head (MRU end) of `list`.
    #[inline]
    pub(crate) fn push_front(&mut self, list: u8, page: DenseId) {
        let head = self.head[usize::from(list) - 1];
        self.link(list, page, NIL, head);
    }

    /// Admits a missed page at the head of `list`, dirty if `op` writes it.
    #[inline]
    pub(crate) fn admit(&mut self, list: u8, page: DenseId, op: Op) {
        self.push_front(list, page);
        self.set_dirty(page, op.is_write());
    }

    /// A request served from the buffer: a write leaves the page dirty.
    #[inline]
    pub(crate) fn dirty_if_write(&mut self, page: DenseId, op: Op) {
        if op.is_write() {
            self.set_dirty(page, true);
        }
    }

    /// Puts a page that is in no list at the tail (LRU end) of `list`.
    pub(crate) fn push_back(&mut self, list: u8, page: DenseId) {
        let tail = self.tail[usize::from(list) - 1];
        self.link(list, page, tail, NIL);
    }

    /// The page after `page` towards the tail (`NIL` at the tail): where
    /// [`Lists::insert_before`] puts it back after a removal.
    #[inline]
    pub(crate) fn next_of(&self, page: DenseId) -> u32 {
        self.nodes[page as usize].next
    }

    /// Puts a page that is in no list into `list` just after `prev` (a page
    /// of that list), or at its head if `prev` is `NIL`.
    #[inline]
    pub(crate) fn insert_after(&mut self, list: u8, page: DenseId, prev: u32) {
        let next = match prev {
            NIL => self.head[usize::from(list) - 1],
            p => self.nodes[p as usize].next,
        };
        self.link(list, page, prev, next);
    }

    /// Puts a page that is in no list into `list` just before `next` (a page
    /// of that list), or at its tail if `next` is `NIL`.
    pub(crate) fn insert_before(&mut self, list: u8, page: DenseId, next: u32) {
        let prev = match next {
            NIL => self.tail[usize::from(list) - 1],
            q => self.nodes[q as usize].prev,
        };
        self.link(list, page, prev, next);
    }

    /// Puts a page that is in no list into `list` as a member without a
    /// place in its order: for a set whose order the policy keeps elsewhere
    /// (CFDC's clusters), so that joining and leaving it touch no other
    /// page's node. Such a page leaves only through [`Lists::untag`], and
    /// the list is never walked. Its node's links, unused meanwhile, carry
    /// `word` for the policy ([`Lists::word`]): what it asks of the member
    /// then costs no access beyond the node it reads anyway.
    #[inline]
    pub(crate) fn tag(&mut self, list: u8, page: DenseId, word: [u32; 2]) {
        self.ensure(page);
        let n = &mut self.nodes[page as usize];
        debug_assert_eq!(n.tag & LIST_MASK, 0, "page {page} is already listed");
        n.tag = (n.tag & !LIST_MASK) | list;
        [n.prev, n.next] = word;
        self.len[usize::from(list) - 1] += 1;
    }

    /// What `page`'s node carries for the policy.
    #[inline]
    pub(crate) fn extra(&self, page: DenseId) -> &X {
        &self.nodes[page as usize].extra
    }

    /// What `page`'s node carries for the policy, to change (making room
    /// for `page`).
    #[inline]
    pub(crate) fn extra_mut(&mut self, page: DenseId) -> &mut X {
        self.ensure(page);
        &mut self.nodes[page as usize].extra
    }

    /// The word a page [`Lists::tag`] put in a list carries.
    #[inline]
    pub(crate) fn word(&self, page: DenseId) -> [u32; 2] {
        let n = &self.nodes[page as usize];
        [n.prev, n.next]
    }

    /// Changes the word a page [`Lists::tag`] put in a list carries.
    #[inline]
    pub(crate) fn set_word(&mut self, page: DenseId, word: [u32; 2]) {
        let n = &mut self.nodes[page as usize];
        [n.prev, n.next] = word;
    }

    /// Takes a page [`Lists::tag`] put in a list out of it, keeping its
    /// dirty bit and mark.
    #[inline]
    pub(crate) fn untag(&mut self, page: DenseId) {
        let n = &mut self.nodes[page as usize];
        let l = usize::from(n.tag & LIST_MASK) - 1;
        n.tag &= !LIST_MASK;
        self.len[l] -= 1;
    }

    /// Unlinks `page` from its list, keeping its dirty bit and mark.
    #[inline(always)]
    pub(crate) fn unlink(&mut self, page: DenseId) {
        let Node {
            prev, next, tag, ..
        } = self.nodes[page as usize];
        let l = usize::from(tag & LIST_MASK) - 1;
        debug_assert!(
            prev != NIL || self.head[l] == page,
            "page {page} was tagged into list {}, not linked",
            l + 1
        );
        if prev == NIL {
            self.head[l] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail[l] = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        self.len[l] -= 1;
        let n = &mut self.nodes[page as usize];
        n.tag &= !LIST_MASK;
        n.prev = NIL;
        n.next = NIL;
    }

    /// Moves a listed page to the head of `list` (possibly the same list).
    #[inline(always)]
    pub(crate) fn move_front(&mut self, list: u8, page: DenseId) {
        let l = usize::from(list) - 1;
        let head = self.head[l];
        if head == page {
            return;
        }
        let Node {
            prev, next, tag, ..
        } = self.nodes[page as usize];
        if tag & LIST_MASK != list {
            self.unlink(page);
            self.push_front(list, page);
            return;
        }
        // A hit, the commonest move: the page is in `list` and not its
        // head, so it has a page before it and the list has a head; its
        // tag, dirty bit and the list's length stay as they are.
        self.nodes[prev as usize].next = next;
        match next {
            NIL => self.tail[l] = prev,
            q => self.nodes[q as usize].prev = prev,
        }
        let n = &mut self.nodes[page as usize];
        n.prev = NIL;
        n.next = head;
        self.nodes[head as usize].prev = page;
        self.head[l] = page;
    }

    /// Unlinks `page` and clears its dirty bit and mark: it leaves the buffer.
    #[inline(always)]
    pub(crate) fn remove(&mut self, page: DenseId) -> bool {
        let dirty = self.is_dirty(page);
        self.unlink(page);
        self.set_dirty(page, false);
        self.nodes[page as usize].tag = 0;
        dirty
    }

    /// Whether `page` carries the policy's mark.
    #[inline]
    pub(crate) fn marked(&self, page: DenseId) -> bool {
        self.nodes
            .get(page as usize)
            .is_some_and(|n| n.tag & MARK != 0)
    }

    /// Sets or clears the policy's mark on a listed page.
    #[inline]
    pub(crate) fn set_mark(&mut self, page: DenseId, mark: bool) {
        let n = &mut self.nodes[page as usize];
        n.tag = if mark { n.tag | MARK } else { n.tag & !MARK };
    }

    /// The page before `page` towards the head (`NIL` at the head).
    #[inline]
    pub(crate) fn prev_of(&self, page: DenseId) -> u32 {
        self.nodes[page as usize].prev
    }

    /// [`crate::policy::Policy::dirty_ahead`] for a policy that evicts
    /// from the tails of `lists`, in this order: up to `want.n` dirty pages
    /// that `leaves` says an eviction takes when it reaches them and
    /// `pages` lets be written, each list walked from its tail, among the
    /// first `want.window` pages walked.
    pub(crate) fn dirty_from_tails(
        &self,
        lists: &[u8],
        want: crate::policy::Ahead,
        leaves: impl Fn(DenseId) -> bool,
        pages: &mut dyn crate::policy::Neighbours,
        out: &mut Vec<DenseId>,
    ) -> bool {
        let (n, window) = (want.n, want.window);
        let (start, mut passed) = (out.len(), 0);
        for &list in lists {
            let mut p = self.tail(list);
            while p != NIL && out.len() - start < n && passed < window {
                if self.is_dirty(p) && leaves(p) && pages.evictable(p) {
                    out.push(p);
                }
                passed += 1;
                p = self.prev_of(p);
            }
        }
        true
    }

    /// The tail (LRU end) of `list`, `NIL` if empty.
    #[inline]
    pub(crate) fn tail(&self, list: u8) -> u32 {
        self.tail[usize::from(list) - 1]
    }

    /// The head (MRU end) of `list`, `NIL` if empty.
    #[inline]
    pub(crate) fn head(&self, list: u8) -> u32 {
        self.head[usize::from(list) - 1]
    }

    /// Records where a listed `page` is, before it is moved or removed.
    #[inline]
    pub(crate) fn save(&self, page: DenseId) -> Saved {
        let n = self.nodes[page as usize];
        Saved {
            page,
            next: n.next,
            tag: n.tag,
        }
    }

    /// Puts a saved page back where it was, with its flags (see [`Saved`]).
    pub(crate) fn restore(&mut self, s: Saved) {
        if self.list_of(s.page) != 0 {
            self.unlink(s.page);
        }
        self.insert_before(s.tag & LIST_MASK, s.page, s.next);
        self.set_dirty(s.page, s.tag & DIRTY != 0);
        self.set_mark(s.page, s.tag & MARK != 0);
    }

    /// The pages of ghost list `list` that still count when `leaving` (a
    /// page whose miss was just seen, `NIL` for none) is on its way out of
    /// it: an eviction the miss causes must not forget it first.
    #[inline]
    pub(crate) fn ghosts_without(&self, list: u8, leaving: u32) -> usize {
        self.len(list) - usize::from(leaving != NIL && self.list_of(leaving) == list)
    }

    /// The oldest page of `list` other than `leaving` (see
    /// [`Lists::ghosts_without`]).
    #[inline]
    pub(crate) fn oldest_without(&self, list: u8, leaving: u32) -> u32 {
        match self.tail(list) {
            t if t == leaving => self.prev_of(t),
            t => t,
        }
    }

    /// Walks `list` from its tail (LRU end) towards its head and returns the
    /// first page `ok` accepts.
    #[inline]
    pub(crate) fn find_from_back(
        &self,
        list: u8,
        mut ok: impl FnMut(DenseId) -> bool,
    ) -> Option<DenseId> {
        let mut cur = self.tail[usize::from(list) - 1];
        while cur != NIL {
            if ok(cur) {
                return Some(cur);
            }
            cur = self.nodes[cur as usize].prev;
        }
        None
    }

    /// [`Lists::find_from_back`] over `lists` in this order: the first page
    /// `ok` accepts.
    #[inline]
    pub(crate) fn find_from_backs(
        &self,
        lists: &[u8],
        mut ok: impl FnMut(DenseId) -> bool,
    ) -> Option<DenseId> {
        lists.iter().find_map(|&l| self.find_from_back(l, &mut ok))
    }

    /// Takes `page` out as an eviction's victim, keeping in `undo` where
    /// it was, for [`Lists::restore_saved`].
    #[inline]
    pub(crate) fn remove_saving(
        &mut self,
        page: DenseId,
        undo: &mut Option<Saved>,
    ) -> crate::policy::Victim {
        *undo = Some(self.save(page));
        let dirty = self.remove(page);
        crate::policy::Victim { page, dirty }
    }

    /// Puts back the victim `undo` kept, if any ([`Lists::remove_saving`]),
    /// and returns where it was.
    pub(crate) fn restore_saved(&mut self, undo: &mut Option<Saved>) -> Option<Saved> {
        let s = undo.take()?;
        self.restore(s);
        Some(s)
    }

    /// Iterates `list` from head (MRU) to tail (LRU); for tests and snapshots.
    pub(crate) fn iter(&self, list: u8) -> impl Iterator<Item = DenseId> + '_ {
        let mut cur = self.head[usize::from(list) - 1];
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let p = cur;
                cur = self.nodes[p as usize].next;
                p
            })
        })
    }
}

/// One bit per dense id: a per-page flag a policy asks of pages it does
/// not otherwise touch (numeric neighbours), small enough to stay in cache
/// (1 KiB per 8,192 pages) where the pages' own records would not.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    /// Makes room for ids `0..pages`.
    pub(crate) fn grow(&mut self, pages: usize) {
        self.0.resize(pages.div_ceil(64).max(self.0.len()), 0);
    }

    #[cold]
    fn grow_for(&mut self, page: DenseId) {
        self.grow((page as usize + 1).max(2 * 64 * self.0.len()));
    }

    /// The bit of `page`; `false` beyond the ids it has room for.
    #[inline]
    pub(crate) fn get(&self, page: DenseId) -> bool {
        self.0
            .get(page as usize / 64)
            .is_some_and(|w| w >> (page % 64) & 1 == 1)
    }

    /// Sets the bit of `page`, making room if needed (a bit beyond the
    /// room is clear already).
    #[inline]
    pub(crate) fn set(&mut self, page: DenseId, on: bool) {
        if page as usize / 64 >= self.0.len() {
            if !on {
                return;
            }
            self.grow_for(page);
        }
        let w = &mut self.0[page as usize / 64];
        if on {
            *w |= 1 << (page % 64);
        } else {
            *w &= !(1 << (page % 64));
        }
    }
}

/// The pages an eviction moved, in order, so `Policy::reinstate` can undo
/// them in reverse. Its vector keeps its capacity between evictions, so the
/// per-request path does not allocate once it has grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct Journal(Vec<Saved>);

impl Journal {
    /// Forgets the previous eviction.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Records `page`'s place before it moves.
    #[inline]
    pub(crate) fn save<const K: usize>(&mut self, l: &Lists<K>, page: DenseId) {
        self.0.push(l.save(page));
    }

    /// Undoes every recorded move, last first.
    pub(crate) fn undo<const K: usize>(&mut self, l: &mut Lists<K>) {
        while let Some(s) = self.0.pop() {
            l.restore(s);
        }
    }
}

/// The [`crate::policy::Policy`] methods every list-based policy answers alike, from
/// its `cap` field and its `l: Lists` field.
///
/// `list_policy_basics!(one list L)` adds those of a policy whose pages
/// all live on list `L`: `set_capacity`, `len`, `contains`, `prefetch`.
/// `(lists)`: every page on a list is resident (`contains`, `prefetch`);
/// `(lists, own prefetch)` the same without `prefetch`; `(resident)`:
/// some lists are ghosts, and `self.resident(page)` says. A leading name
/// (`list_policy_basics!("LRU", one list L)`) adds `name`.
macro_rules! list_policy_basics {
    ($name:literal $(, $($rest:tt)*)?) => {
        fn name(&self) -> String {
            $name.into()
        }
        $crate::policy::list::list_policy_basics!($($($rest)*)?);
    };
    () => {
        fn capacity(&self) -> usize {
            self.cap
        }
        fn is_dirty(&self, page: DenseId) -> bool {
            self.l.is_dirty(page)
        }
        fn dirty_count(&self) -> usize {
            self.l.dirty_count()
        }
    };
    (lists) => {
        $crate::policy::list::list_policy_basics!(lists, own prefetch);
        #[inline]
        fn prefetch(&self, page: DenseId) {
            self.l.prefetch(page);
        }
    };
    (lists, own prefetch) => {
        $crate::policy::list::list_policy_basics!();
        fn contains(&self, page: DenseId) -> bool {
            self.l.list_of(page) != 0
        }
    };
    (resident) => {
        $crate::policy::list::list_policy_basics!();
        fn contains(&self, page: DenseId) -> bool {
            self.resident(page)
        }
        #[inline]
        fn prefetch(&self, page: DenseId) {
            self.l.prefetch(page);
        }
    };
    (one list $list:expr) => {
        $crate::policy::list::list_policy_basics!();
        fn set_capacity(&mut self, capacity: usize) {
            debug_assert!(capacity >= self.len());
            self.cap = capacity;
        }
        fn len(&self) -> usize {
            self.l.len($list)
        }
        fn contains(&self, page: DenseId) -> bool {
            self.l.list_of(page) == $list
        }
        #[inline]
        fn prefetch(&self, page: DenseId) {
            self.l.prefetch(page);
        }
    };
}
pub(crate) use list_policy_basics;

/// [`crate::policy::Policy::capacity`], [`crate::policy::Policy::set_capacity`] and
/// [`crate::policy::Policy::len`] for a policy that holds at most `self.cap` pages
/// and counts its residents in `self.len`, and whose capacity changes take
/// effect as pages leave.
macro_rules! counted_capacity {
    () => {
        fn capacity(&self) -> usize {
            self.cap
        }
        fn set_capacity(&mut self, capacity: usize) {
            debug_assert!(capacity >= self.len);
            self.cap = capacity;
        }
        fn len(&self) -> usize {
            self.len
        }
    };
}
pub(crate) use counted_capacity;

/// [`crate::policy::Policy::dirty_ahead`] for a list policy that evicts from the
/// tails of the given lists, in that order ([`Lists::dirty_from_tails`]).
macro_rules! dirty_ahead_from_tails {
    ($($list:expr),+) => {
        fn dirty_ahead(&self, want: $crate::policy::Ahead, pages: &mut dyn $crate::policy::Neighbours, out: &mut Vec<DenseId>) -> bool {
            self.l.dirty_from_tails(&[$($list),+], want, |_| true, pages, out)
        }
    };
}
pub(crate) use dirty_ahead_from_tails;

/// [`crate::policy::Policy::mark_dirty`] and [`crate::policy::Policy::mark_clean`] for a
/// policy whose dirty state is a flag per page and which keeps no cost per
/// page: they set the flag of a resident page, nothing else. The flag is set
/// by `self.l.set_dirty(page, flag)` (a list policy), or by the method path
/// given (`dirty_marks!(set_dirty)`).
macro_rules! dirty_marks {
    () => {
        $crate::policy::list::dirty_marks!(l.set_dirty);
    };
    ($($set:ident).+) => {
        fn mark_dirty(&mut self, page: DenseId) {
            if self.contains(page) {
                self.$($set).+(page, true);
            }
        }
        fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
            if self.contains(page) {
                self.$($set).+(page, false);
            }
        }
    };
}
pub(crate) use dirty_marks;
