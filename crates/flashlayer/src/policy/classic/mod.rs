//! The classic replacement policies, blind to what a write costs: LRU,
//! FIFO, CLOCK, 2Q, ARC, SIEVE, S3-FIFO, LFU, SLRU, LRU-K, LIRS,
//! W-TinyLFU and CLOCK-Pro. Each follows its paper, and where libCacheSim
//! has it, libCacheSim's defaults.

mod arc;
mod clock;
mod clockpro;
mod fifo;
mod lfu;
mod lirs;
mod lru;
mod lruk;
mod s3fifo;
mod sieve;
mod slru;
mod twoq;
mod wtinylfu;

pub use arc::Arc;
pub use clock::Clock;
pub use clockpro::ClockPro;
pub use fifo::Fifo;
pub use lfu::Lfu;
pub use lirs::Lirs;
pub use lru::Lru;
pub use lruk::LruK;
pub use s3fifo::S3Fifo;
pub use sieve::Sieve;
pub use slru::Slru;
pub use twoq::TwoQ;
pub use wtinylfu::WTinyLfu;
