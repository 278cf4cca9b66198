//! Closing a pool: its dirty pages flushed and its store returned, or,
//! if the flush fails, the pool given back whole ([`CloseError`]).

use super::BufferPool;
use crate::error::Error;
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::PageId;

/// A [`BufferPool::close`] whose flush failed: the pool, still whole, and
/// what is not durable. Converts into its [`Error`] for a caller that gives
/// up (`?`).
pub struct CloseError<P: Policy, S: PageStore> {
    /// The pool, as it was before the close: its dirty pages still buffered.
    pub pool: BufferPool<P, S>,
    /// Why the flush failed.
    pub error: Error,
    /// The pages still dirty, by number: what the store does not hold.
    pub dirty: Vec<PageId>,
}

impl<P: Policy, S: PageStore> std::fmt::Debug for CloseError<P, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloseError")
            .field("error", &self.error)
            .field("dirty", &self.dirty)
            .finish_non_exhaustive()
    }
}

impl<P: Policy, S: PageStore> std::fmt::Display for CloseError<P, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} pages still dirty)", self.error, self.dirty.len())
    }
}

impl<P: Policy, S: PageStore> From<Box<CloseError<P, S>>> for Error {
    fn from(e: Box<CloseError<P, S>>) -> Error {
        e.error
    }
}

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// Flushes and returns the store. If the flush fails, nothing is
    /// dropped: the error gives the pool back as it was, with the pages
    /// still dirty, so the caller can retry, or give up knowing what it
    /// gives up ([`CloseError`]).
    pub fn close(self) -> std::result::Result<S, Box<CloseError<P, S>>> {
        if let Err(error) = self.flush() {
            let dirty = {
                let st = self.lock();
                st.dirty_pages()
                    .into_iter()
                    .map(|d| st.originals[d as usize])
                    .collect()
            };
            return Err(Box::new(CloseError {
                pool: self,
                error,
                dirty,
            }));
        }
        let st = self.state.0.into_inner().unwrap_or_else(|e| e.into_inner());
        drop(st.driver);
        drop(self.io);
        Ok(self
            .store
            .into_inner()
            .expect("the pool holds the store's last handle once its driver is gone"))
    }
}
