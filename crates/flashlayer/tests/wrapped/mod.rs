//! Test stores that wrap another store: what they pass through unchanged.

/// The `PageStore` methods a wrapping test store (a field `inner`) passes
/// through as they are: `flush`, `cost_of` and `stats`.
macro_rules! pass_through {
    () => {
        fn flush(&mut self) -> flashlayer::Result<()> {
            self.inner.flush()
        }
        fn cost_of(&self, page: u64) -> flashlayer::types::PageCost {
            self.inner.cost_of(page)
        }
        fn stats(&self) -> flashlayer::store::IoStats {
            self.inner.stats()
        }
    };
}
