//! The one forwarding of the [`crate::policy::Policy`] protocol: a policy that
//! wraps another (FD-Buffer's pools, a policy behind a pointer) implements
//! `Policy` with [`forward_policy!`], which passes every method on, those
//! with defaults included, so a wrapper cannot drop one (CFDC's numbers,
//! clustering, measured costs, state) by leaving it out. A method added to
//! the protocol is added here, once, for every wrapper.

/// `forward_policy!(Type, with)` implements [`crate::policy::Policy`] for `Type` by
/// calling each method on the policy that `with!(self, p => body)` binds
/// to `p`. `forward_policy!(impl [P: Policy] Type<P>, with, cluster = a,
/// leaving = l, read_ahead = r, name = b)` does the same for a generic
/// wrapper whose own methods `a` gather the write-back batch, `l` say how
/// much of it leaves with the victim, `r` how many pages it reads ahead and
/// `b` name it (ACE).
macro_rules! forward_policy {
    ($ty:ty, $with:ident) => {
        forward_policy!(@impl [] $ty, $with, forward, forward, forward, forward);
    };
    (impl [$($g:tt)*] $ty:ty, $with:ident, cluster = $cl:ident, leaving = $lv:ident, read_ahead = $ra:ident, name = $nm:ident) => {
        forward_policy!(@impl [$($g)*] $ty, $with, $cl, $lv, $ra, $nm);
    };
    (@name $s:ident, $with:ident, forward) => {
        $with!($s, p => p.name())
    };
    (@name $s:ident, $with:ident, $nm:ident) => {
        $s.$nm()
    };
    (@cluster $s:ident, $with:ident, forward, $v:ident, $p:ident, $o:ident) => {
        $with!($s, p => p.cluster($v, $p, $o))
    };
    (@cluster $s:ident, $with:ident, $cl:ident, $v:ident, $p:ident, $o:ident) => {
        $s.$cl($v, $p, $o)
    };
    (@leaving $s:ident, $with:ident, forward) => {
        $with!($s, p => p.leaving())
    };
    (@leaving $s:ident, $with:ident, $lv:ident) => {
        $s.$lv()
    };
    (@read_ahead $s:ident, $with:ident, forward) => {
        $with!($s, p => p.read_ahead())
    };
    (@read_ahead $s:ident, $with:ident, $ra:ident) => {
        $s.$ra()
    };
    (@impl [$($g:tt)*] $ty:ty, $with:ident, $cl:ident, $lv:ident, $ra:ident, $nm:ident) => {
        impl<$($g)*> $crate::policy::Policy for $ty {
            fn name(&self) -> String {
                forward_policy!(@name self, $with, $nm)
            }
            fn capacity(&self) -> usize {
                $with!(self, p => p.capacity())
            }
            fn set_capacity(&mut self, capacity: usize) {
                $with!(self, p => p.set_capacity(capacity))
            }
            fn len(&self) -> usize {
                $with!(self, p => p.len())
            }
            fn contains(&self, page: DenseId) -> bool {
                $with!(self, p => p.contains(page))
            }
            fn is_dirty(&self, page: DenseId) -> bool {
                $with!(self, p => p.is_dirty(page))
            }
            fn dirty_count(&self) -> usize {
                $with!(self, p => p.dirty_count())
            }
            #[inline]
            fn access(&mut self, page: DenseId, op: Op) -> bool {
                $with!(self, p => p.access(page, op))
            }
            #[inline]
            fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
                $with!(self, p => p.insert(page, op, cost))
            }
            fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
                $with!(self, p => p.adopt(page, dirty, cost))
            }
            #[inline]
            fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
                $with!(self, p => p.evict(&mut evictable))
            }
            fn reinstate(&mut self, victim: Victim) {
                $with!(self, p => p.reinstate(victim))
            }
            fn mark_dirty(&mut self, page: DenseId) {
                $with!(self, p => p.mark_dirty(page))
            }
            fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
                $with!(self, p => p.mark_clean(page, cost))
            }
            fn reprice(&mut self, page: DenseId, cost: PageCost) {
                $with!(self, p => p.reprice(page, cost))
            }
            fn remove(&mut self, page: DenseId) -> Option<bool> {
                $with!(self, p => p.remove(page))
            }
            fn cluster(
                &mut self,
                victim: DenseId,
                pages: &mut dyn $crate::policy::Neighbours,
                out: &mut Vec<DenseId>,
            ) {
                forward_policy!(@cluster self, $with, $cl, victim, pages, out)
            }
            fn leaving(&self) -> usize {
                forward_policy!(@leaving self, $with, $lv)
            }
            fn read_ahead(&self) -> usize {
                forward_policy!(@read_ahead self, $with, $ra)
            }
            fn has_cold_end(&self) -> bool {
                $with!(self, p => p.has_cold_end())
            }
            fn insert_cold(&mut self, page: DenseId, cost: PageCost) {
                $with!(self, p => p.insert_cold(page, cost))
            }
            fn dirty_ahead(&self, want: $crate::policy::Ahead, pages: &mut dyn $crate::policy::Neighbours, out: &mut Vec<DenseId>) -> bool {
                $with!(self, p => p.dirty_ahead(want, pages, out))
            }
            #[inline]
            fn prefetch(&self, page: DenseId) {
                $with!(self, p => p.prefetch(page))
            }
            #[inline]
            fn victim_ahead(&self, k: usize) -> Option<DenseId> {
                $with!(self, p => p.victim_ahead(k))
            }
            fn observe_io(&mut self, kind: IoKind, cost: f64) {
                $with!(self, p => p.observe_io(kind, cost))
            }
            fn needs_measured_io(&self) -> bool {
                $with!(self, p => p.needs_measured_io())
            }
            fn may_fail(&self) -> bool {
                $with!(self, p => p.may_fail())
            }
            #[inline]
            fn wants_number(&self, page: DenseId) -> bool {
                $with!(self, p => p.wants_number(page))
            }
            fn learn_number(&mut self, page: DenseId, number: $crate::policy::Numbered) {
                $with!(self, p => p.learn_number(page, number))
            }
            fn state(&self, out: &mut Vec<(&'static str, f64)>) {
                $with!(self, p => p.state(out))
            }
        }
    };
}
