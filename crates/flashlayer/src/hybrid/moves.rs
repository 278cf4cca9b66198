//! Moving pages between the disks: a move made crash-safe (the new copy is
//! durable before the journal points at it, the old slot reused only after
//! the journal is synced), room made on a full flash disk (the page with
//! the lowest estimated saving leaves first), and deferred moves run in
//! sequential batches (§7).

use super::*;

impl<F: PageStore, M: PageStore> HybridStore<F, M> {
    /// Points page `i` at `slot` on `to` (its new copy is written and
    /// durable), journals it, and frees the old slot after the next sync.
    pub(super) fn relocate(&mut self, i: u32, to: DeviceId, slot: u32) -> Result<()> {
        let p = self.pages[i as usize];
        let from = p.device;
        if p.flags & WRITTEN != 0 {
            self.pending_free[from.index()].push(p.slot);
        } else {
            self.free[from.index()].push(p.slot);
        }
        let ranked = self.flash_capacity.is_some();
        if from == DeviceId::FLASH {
            self.on_flash -= 1;
            if ranked {
                self.ranking.remove(&(Merit(p.merit), i));
            }
        }
        if to == DeviceId::FLASH {
            self.on_flash += 1;
            if ranked {
                self.ranking.insert((Merit(p.merit), i));
            }
        }
        let p = &mut self.pages[i as usize];
        p.device = to;
        p.slot = slot;
        p.counters = Counters::default();
        p.base = if to == DeviceId::FLASH { p.merit } else { 0.0 };
        p.flags = (p.flags | WRITTEN | ACCOUNTING) & !(MOVE | MARKED);
        self.migrations[to.index()] += 1;
        if let Some(j) = self.journal.as_mut() {
            j.append(&self.pages[i as usize].record())?;
        }
        Ok(())
    }

    /// Moves page `i`'s durable copy to the other disk now (it may be
    /// resident: the caller is told through `take_moved`).
    pub(super) fn move_now(&mut self, i: u32) -> Result<()> {
        let p = self.pages[i as usize];
        let to = other(p.device);
        let mut buf = std::mem::take(&mut self.scratch);
        let r = self.dev_read(p.device, p.slot, &mut buf);
        let r = r.and_then(|()| {
            if p.flags & WRITTEN == 0 {
                buf.fill(0);
            }
            let slot = self.alloc(to);
            self.dev_write(to, slot, &buf)?;
            self.dev_flush(to)?;
            self.relocate(i, to, slot)
        });
        self.scratch = buf;
        r?;
        self.moved.push(p.number);
        Ok(())
    }

    /// Whether page `i` may move to flash: there is room, or room is made
    /// by demoting the flash page of lowest merit, if its merit is lower.
    pub(super) fn make_room(&mut self, i: u32) -> Result<bool> {
        let Some(cap) = self.flash_capacity else {
            return Ok(true);
        };
        if self.on_flash + self.pending_to_flash() < cap {
            return Ok(true);
        }
        let merit = self.pages[i as usize].merit;
        match self.ranking.first().copied() {
            Some((Merit(low), j)) if low < merit => {
                self.move_now(j)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Marked or about-to-move pages headed for flash.
    pub(super) fn pending_to_flash(&self) -> u64 {
        self.marked
            .iter()
            .filter(|&&m| self.pages[m as usize].device == DeviceId::MAGNETIC)
            .count() as u64
    }

    /// Moves every marked page in one batch per destination: read each,
    /// write them to consecutive fresh slots (one sequential run).
    pub(super) fn run_deferred(&mut self) -> Result<()> {
        for to in [DeviceId::FLASH, DeviceId::MAGNETIC] {
            let group: Vec<u32> = self
                .marked
                .iter()
                .copied()
                .filter(|&m| {
                    let p = &self.pages[m as usize];
                    p.flags & MARKED != 0 && other(p.device) == to
                })
                .collect();
            if group.is_empty() {
                continue;
            }
            let size = self.scratch.len();
            let mut data = vec![0u8; size * group.len()];
            for (k, &m) in group.iter().enumerate() {
                let p = self.pages[m as usize];
                let buf = &mut data[k * size..(k + 1) * size];
                self.dev_read(p.device, p.slot, buf)?;
                if p.flags & WRITTEN == 0 {
                    buf.fill(0);
                }
            }
            let first = self.high[to.index()];
            self.high[to.index()] += group.len() as u32;
            let batch: Vec<(PageId, &[u8])> = (0..group.len())
                .map(|k| {
                    (
                        PageId::from(first + k as u32),
                        &data[k * size..(k + 1) * size],
                    )
                })
                .collect();
            if to == DeviceId::FLASH {
                self.flash.write_batch(&batch)?;
            } else {
                self.magnetic.write_batch(&batch)?;
            }
            self.dev_flush(to)?;
            for (k, &m) in group.iter().enumerate() {
                self.relocate(m, to, first + k as u32)?;
                self.moved.push(self.pages[m as usize].number);
            }
        }
        self.marked.clear();
        Ok(())
    }
}
