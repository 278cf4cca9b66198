//! Out-of-place update (PDL §3, and the page-based method of its
//! experiments, §5.1): every write of a logical page programs a whole new
//! physical page through a page-level mapping, and the old one is marked
//! obsolete (a second program of its spare area, or in memory with
//! `obsolete_in_memory`). Greedy garbage collection reclaims the block
//! with the fewest valid pages when erased blocks run short.
//!
//! OPU is the engine PDL is built on with differentials off: every write is
//! PDL's case 3 (a new base page) and no base page is read first. Sharing
//! it keeps the two methods' allocation, collection and Fig. 7 recovery one
//! code path, so their measured differences are the differentials alone.
//! See [`super::pdl`] for the engine's choices.
//! Build one with `FlashStoreBuilder::new(Method::Opu)`.
