//! The two disks of a hybrid store side by side: their costs, and the
//! other disk of a page. Placement (`placement.rs`) and the offline optimum
//! (`optimal.rs`) both price a page by these.

use crate::types::DeviceId;

/// Random read and write costs of both disks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Flash read.
    pub r_f: f64,
    /// Flash write.
    pub w_f: f64,
    /// Magnetic read.
    pub r_m: f64,
    /// Magnetic write.
    pub w_m: f64,
}

impl Costs {
    /// Koltsidas & Viglas 2008, Table 1, normalised to a flash read: the
    /// costs of the paper's worked examples.
    pub const TABLE_1: Costs = Costs {
        r_f: 1.0,
        w_f: 118.0,
        r_m: 23.0,
        w_m: 12.0,
    };

    /// `(read, write)` on `device`.
    pub fn of(&self, device: DeviceId) -> (f64, f64) {
        if device == DeviceId::FLASH {
            (self.r_f, self.w_f)
        } else {
            (self.r_m, self.w_m)
        }
    }
}

/// The other disk.
pub fn other(device: DeviceId) -> DeviceId {
    if device == DeviceId::FLASH {
        DeviceId::MAGNETIC
    } else {
        DeviceId::FLASH
    }
}
