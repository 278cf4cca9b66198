//! A store for tests that watch or break a buffer pool's I/O: any store
//! with a hook called before each read and write.
//!
//! Uses the `wrapped` macros: the binary that includes it declares
//! `#[macro_use] mod wrapped;` first.

use flashlayer::store::PageStore;
use flashlayer::types::PageId;
use flashlayer::Result;

/// What a [`Hooked`] store calls: the page, and for a write its bytes.
pub type Hook = Box<dyn Fn(PageId, Option<&[u8]>) -> Result<()> + Send>;

/// `S` with `hook` called before every read (with the page and no bytes)
/// and write (with the bytes, per page of a batch); an error from it fails
/// the operation. No shared I/O: every call goes through the store, under
/// its lock in a buffer pool.
pub struct Hooked<S> {
    pub inner: S,
    pub hook: Hook,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Hooked<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooked")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S: PageStore> PageStore for Hooked<S> {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        (self.hook)(page, None)?;
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        (self.hook)(page, Some(buf))?;
        self.inner.write(page, buf)
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for &(page, buf) in batch {
            (self.hook)(page, Some(buf))?;
        }
        self.inner.write_batch(batch)
    }
    pass_through!();
}
