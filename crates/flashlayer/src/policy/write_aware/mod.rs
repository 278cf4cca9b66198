//! Policies that know a write costs more than a read: the papers' CFLRU,
//! LRU-WSR, CCF-LRU, CASA, CFDC, FD-Buffer and Koltsidas & Viglas'
//! cost-segment buffer, and Writeback-Aware Landlord, WATT and ACE.

mod ace;
mod casa;
mod ccflru;
mod cfdc;
mod cflru;
mod fdbuffer;
mod koltsidas;
mod lruwsr;
mod watt;
mod wblandlord;

pub use ace::{Ace, AceParams};
pub use casa::Casa;
pub use ccflru::CcfLru;
pub use cfdc::Cfdc;
pub use cflru::Cflru;
pub use fdbuffer::{FdBuffer, FdParams, Mc, DEFAULT_EPOCH};
pub use koltsidas::{Koltsidas, Lambda, DEFAULT_LAMBDA_EPOCH, TABLE_1_FLASH, TABLE_1_MAGNETIC};
pub use lruwsr::LruWsr;
pub use watt::{Watt, WattParams};
pub use wblandlord::WbLandlord;
