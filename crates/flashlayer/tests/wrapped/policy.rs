//! Test policies that wrap another policy: what they pass through unchanged.

/// The `Policy` methods a wrapping test policy (a field `inner`) passes
/// through as they are: all it must implement but `name` and `insert`,
/// which each wrapper writes for itself.
macro_rules! pass_policy_through {
    () => {
        fn capacity(&self) -> usize {
            self.inner.capacity()
        }
        fn set_capacity(&mut self, capacity: usize) {
            self.inner.set_capacity(capacity)
        }
        fn len(&self) -> usize {
            self.inner.len()
        }
        fn contains(&self, page: flashlayer::types::DenseId) -> bool {
            self.inner.contains(page)
        }
        fn is_dirty(&self, page: flashlayer::types::DenseId) -> bool {
            self.inner.is_dirty(page)
        }
        fn dirty_count(&self) -> usize {
            self.inner.dirty_count()
        }
        fn access(&mut self, page: flashlayer::types::DenseId, op: flashlayer::types::Op) -> bool {
            self.inner.access(page, op)
        }
        fn evict<F: FnMut(flashlayer::types::DenseId) -> bool>(
            &mut self,
            evictable: F,
        ) -> Option<flashlayer::policy::Victim> {
            self.inner.evict(evictable)
        }
        fn reinstate(&mut self, v: flashlayer::policy::Victim) {
            self.inner.reinstate(v)
        }
        fn mark_dirty(&mut self, page: flashlayer::types::DenseId) {
            self.inner.mark_dirty(page)
        }
        fn mark_clean(
            &mut self,
            page: flashlayer::types::DenseId,
            cost: flashlayer::types::PageCost,
        ) {
            self.inner.mark_clean(page, cost)
        }
        fn remove(&mut self, page: flashlayer::types::DenseId) -> Option<bool> {
            self.inner.remove(page)
        }
    };
}
