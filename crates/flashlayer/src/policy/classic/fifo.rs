//! FIFO: evict the page that entered the buffer first; hits change nothing.
//! It is the non-promoting form of the list in `lru.rs`.

use crate::policy::Serves;

/// First-in, first-out replacement.
pub type Fifo = super::lru::Queue<false>;

named!(Fifo, "fifo", "first in, first out", Serves::POOL);
