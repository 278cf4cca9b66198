//! # flashlayer
//!
//! I/O-asymmetry-aware storage management for databases: buffer replacement
//! that knows a flash write costs more than a read, page stores that price
//! every physical I/O with a [`device::DeviceModel`], a real
//! [`buffer::BufferPool`] with pin/unpin, and a trace-driven simulator
//! ([`sim`]) that drives the very same [`policy::Policy`] values.
//!
//! The layering follows `DESIGN.md` §1: trace readers and workload generators
//! produce requests, a policy decides hits and victims, a store pays for misses
//! and write-backs, and [`types::Metrics`] come out. Lower layers never call up.
//!
//! ```
//! use flashlayer::{policy::Lru, sim::Simulator, store::CostStore, device::DeviceModel, types::Op};
//!
//! let device = DeviceModel::parse("ratio:1:64").unwrap();
//! let mut sim = Simulator::new(Lru::new(2), CostStore::new(device)).unwrap();
//! for (page, op) in [(0, Op::Read), (1, Op::Write), (0, Op::Read), (2, Op::Read), (1, Op::Read)] {
//!     sim.request(page, op).unwrap();
//! }
//! let m = sim.finish();
//! assert_eq!((m.hits, m.misses, m.dirty_evictions), (1, 4, 1));
//! ```

/// A builder's setters, each with its doc (which states the default):
/// `name: Type;` sets `self.name`, `name: Some(Type);` sets it to
/// `Some(value)`.
macro_rules! setters {
    () => {};
    ($(#[$doc:meta])* $name:ident: Some($ty:ty); $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name(mut self, $name: $ty) -> Self {
            self.$name = Some($name);
            self
        }
        $crate::setters!($($rest)*);
    };
    ($(#[$doc:meta])* $name:ident: $ty:ty; $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name(mut self, $name: $ty) -> Self {
            self.$name = $name;
            self
        }
        $crate::setters!($($rest)*);
    };
}
pub(crate) use setters;

pub mod alloc;
pub mod bound;
pub mod btree;
pub mod buffer;
pub mod curve;
pub mod device;
pub mod drive;
pub mod error;
pub mod experiment;
pub mod flash;
pub mod ftl;
pub mod hybrid;
pub mod nand;
pub mod policy;
pub mod sim;
pub mod spec;
pub mod store;
mod sync;
pub mod tier;
pub mod trace;
pub mod types;
pub mod workload;

pub use error::{Error, Result};
pub use types::{DenseId, Metrics, Op, PageId, Request};

/// The README's Rust example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The Rust page's examples (`docs/RUST.md`), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/RUST.md")]
pub struct RustPageDoctests;
