//! A policy chosen at run time behind one pointer ([`BoxedPolicy`]), for a
//! caller that holds policies of several kinds and is not on the
//! per-request path of a replay (the SSD level of a hierarchy, touched on
//! DRAM misses only). It is itself a [`Policy`]: every call is forwarded,
//! the closure of `evict` as a `&mut dyn FnMut`. Hot loops keep using the
//! monomorphised [`crate::policy::with_online_policy`].

use crate::policy::{Ahead, Neighbours, Numbered, Policy, Victim};
use crate::types::{DenseId, IoKind, Op, PageCost};

/// The object-safe face of a [`Policy`]: `Policy` itself has a generic
/// `evict`, so it cannot be a trait object.
trait Erased: Send {
    fn clone_box(&self) -> Box<dyn Erased>;
    fn name(&self) -> String;
    fn capacity(&self) -> usize;
    fn set_capacity(&mut self, capacity: usize);
    fn len(&self) -> usize;
    fn contains(&self, page: DenseId) -> bool;
    fn is_dirty(&self, page: DenseId) -> bool;
    fn dirty_count(&self) -> usize;
    fn access(&mut self, page: DenseId, op: Op) -> bool;
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost);
    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost);
    fn evict(&mut self, evictable: &mut dyn FnMut(DenseId) -> bool) -> Option<Victim>;
    fn reinstate(&mut self, victim: Victim);
    fn mark_dirty(&mut self, page: DenseId);
    fn mark_clean(&mut self, page: DenseId, cost: PageCost);
    fn reprice(&mut self, page: DenseId, cost: PageCost);
    fn remove(&mut self, page: DenseId) -> Option<bool>;
    fn cluster(&mut self, victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>);
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool;
    fn leaving(&self) -> usize;
    fn read_ahead(&self) -> usize;
    fn has_cold_end(&self) -> bool;
    fn insert_cold(&mut self, page: DenseId, cost: PageCost);
    fn prefetch(&self, page: DenseId);
    fn victim_ahead(&self, k: usize) -> Option<DenseId>;
    fn observe_io(&mut self, kind: IoKind, cost: f64);
    fn needs_measured_io(&self) -> bool;
    fn may_fail(&self) -> bool;
    fn wants_number(&self, page: DenseId) -> bool;
    fn learn_number(&mut self, page: DenseId, number: Numbered);
    fn state(&self, out: &mut Vec<(&'static str, f64)>);
}

impl<P: Policy + Send + Clone + 'static> Erased for P {
    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(self.clone())
    }
    fn name(&self) -> String {
        Policy::name(self)
    }
    fn capacity(&self) -> usize {
        Policy::capacity(self)
    }
    fn set_capacity(&mut self, capacity: usize) {
        Policy::set_capacity(self, capacity)
    }
    fn len(&self) -> usize {
        Policy::len(self)
    }
    fn contains(&self, page: DenseId) -> bool {
        Policy::contains(self, page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        Policy::is_dirty(self, page)
    }
    fn dirty_count(&self) -> usize {
        Policy::dirty_count(self)
    }
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        Policy::access(self, page, op)
    }
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        Policy::insert(self, page, op, cost)
    }
    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
        Policy::adopt(self, page, dirty, cost)
    }
    fn evict(&mut self, evictable: &mut dyn FnMut(DenseId) -> bool) -> Option<Victim> {
        Policy::evict(self, evictable)
    }
    fn reinstate(&mut self, victim: Victim) {
        Policy::reinstate(self, victim)
    }
    fn mark_dirty(&mut self, page: DenseId) {
        Policy::mark_dirty(self, page)
    }
    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        Policy::mark_clean(self, page, cost)
    }
    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        Policy::reprice(self, page, cost)
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        Policy::remove(self, page)
    }
    fn cluster(&mut self, victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        Policy::cluster(self, victim, pages, out)
    }
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        Policy::dirty_ahead(self, want, pages, out)
    }
    fn leaving(&self) -> usize {
        Policy::leaving(self)
    }
    fn read_ahead(&self) -> usize {
        Policy::read_ahead(self)
    }
    fn has_cold_end(&self) -> bool {
        Policy::has_cold_end(self)
    }
    fn insert_cold(&mut self, page: DenseId, cost: PageCost) {
        Policy::insert_cold(self, page, cost)
    }
    fn prefetch(&self, page: DenseId) {
        Policy::prefetch(self, page)
    }
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        Policy::victim_ahead(self, k)
    }
    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        Policy::observe_io(self, kind, cost)
    }
    fn needs_measured_io(&self) -> bool {
        Policy::needs_measured_io(self)
    }
    fn may_fail(&self) -> bool {
        Policy::may_fail(self)
    }
    fn wants_number(&self, page: DenseId) -> bool {
        Policy::wants_number(self, page)
    }
    fn learn_number(&mut self, page: DenseId, number: Numbered) {
        Policy::learn_number(self, page, number)
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        Policy::state(self, out)
    }
}

/// Any online policy behind one pointer; built by
/// [`crate::policy::boxed_online_policy`] from a spec.
pub struct BoxedPolicy(Box<dyn Erased>);

impl BoxedPolicy {
    /// Boxes `policy`.
    pub fn new<P: Policy + Send + Clone + 'static>(policy: P) -> Self {
        BoxedPolicy(Box::new(policy))
    }
}

impl Clone for BoxedPolicy {
    fn clone(&self) -> Self {
        BoxedPolicy(self.0.clone_box())
    }
}

impl std::fmt::Debug for BoxedPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BoxedPolicy").field(&self.0.name()).finish()
    }
}

/// Binds the boxed policy to `$p`.
macro_rules! with_boxed {
    ($s:expr, $p:ident => $body:expr) => {
        match $s {
            BoxedPolicy($p) => $body,
        }
    };
}

forward_policy!(BoxedPolicy, with_boxed);
