//! Access methods on the [`crate::buffer::BufferPool`]: a B+-tree with
//! variable-length keys and values, and a heap file of slotted pages, both
//! kept in a [`Space`] (one store, a catalog on page 0). Every page access
//! is a fix of the pool, so recording the pool gives the workload's real
//! page reference string.

mod check;
mod heap;
mod page;
mod space;
mod tree;

pub use check::TreeShape;
pub use heap::{HeapFile, Rid};
pub(crate) use page::check_page_size;
pub(crate) use page::{put_u32, u32_at};
pub use page::{MAX_PAGE, MIN_PAGE};
pub use space::{Checked, Space};
pub use tree::BTree;
