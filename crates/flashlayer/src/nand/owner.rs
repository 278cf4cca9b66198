//! Which store a chip holds: the page update method that formatted it, and
//! the epoch of the newest store opened on it, so that a second store on a
//! chip is refused and a store recovered on it supersedes the one before.

use super::Chip;
use crate::error::{Error, Result};

impl Chip {
    /// Opens a store of `method` (its name) on the chip: a new one
    /// (`fresh`) only on a chip no store was opened on; otherwise one of the
    /// method that formatted it. Returns the store's epoch: a store whose
    /// epoch is not the chip's ([`Chip::epoch`]) has been superseded by a
    /// store opened after it and must not touch the chip.
    pub fn open_store(&mut self, method: &str, fresh: bool) -> Result<u64> {
        match &self.format {
            Some(f) if fresh => {
                return Err(Error::invalid(format!(
                    "the chip holds a {f} store already; a second store on it would overwrite the first one's pages (open that store again with recover())"
                )))
            }
            Some(f) if f != method => {
                return Err(Error::invalid(format!(
                    "the chip holds a {f} store; recover it with that method, not {method}"
                )))
            }
            _ => {}
        }
        self.format = Some(method.to_owned());
        self.epoch += 1;
        Ok(self.epoch)
    }

    /// The epoch of the newest store opened on the chip ([`Chip::open_store`]).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
}
