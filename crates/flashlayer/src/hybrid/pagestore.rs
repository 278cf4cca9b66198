//! The hybrid store as a [`PageStore`]: reads and writes go to the page's
//! disk; an eviction decides a move (placement, `placement.rs`); a batch
//! write groups each disk's pages into sequential runs.

use super::*;

impl<F: PageStore, M: PageStore> PageStore for HybridStore<F, M> {
    fn page_size(&self) -> usize {
        self.scratch.len()
    }

    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        let i = self.state(page);
        let p = self.pages[i as usize];
        self.dev_read(p.device, p.slot, buf)?;
        if p.flags & WRITTEN == 0 {
            buf.fill(0);
        }
        if self.counting(&p) {
            let k = self.costs;
            self.pages[i as usize].counters.physical_read(p.device, &k);
            self.changed(i);
        }
        self.pages[i as usize].flags |= RESIDENT;
        self.record_event(i, Event::Read);
        Ok(())
    }

    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        let i = self.state(page);
        if self.pages[i as usize].flags & RESIDENT != 0 {
            self.record_event(i, Event::Write);
        }
        self.put(i, buf)
    }

    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        // Pages that stay on their disk go to it as one batch, by slot (so
        // neighbouring slots are priced as sequential); pages moving are
        // written alone, each made durable before its record.
        let mut stay: [Vec<(PageId, &[u8])>; 2] = [Vec::new(), Vec::new()];
        for &(page, buf) in batch {
            let i = self.state(page);
            if self.pages[i as usize].flags & RESIDENT != 0 {
                self.record_event(i, Event::Write);
            }
            let p = self.pages[i as usize];
            if p.flags & MOVE != 0 {
                self.put(i, buf)?;
            } else {
                stay[p.device.index()].push((PageId::from(p.slot), buf));
                self.pages[i as usize].flags |= WRITTEN | ACCOUNTING;
                self.changed(i);
            }
        }
        for s in &mut stay {
            s.sort_unstable_by_key(|&(slot, _)| slot);
        }
        if !stay[0].is_empty() {
            self.flash.write_batch(&stay[0])?;
        }
        if !stay[1].is_empty() {
            self.magnetic.write_batch(&stay[1])?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.marked.is_empty() {
            self.run_deferred()?;
        }
        self.flash.flush()?;
        self.magnetic.flush()?;
        if let Some(j) = self.journal.as_mut() {
            for &i in &self.changed {
                let p = &mut self.pages[i as usize];
                p.flags &= !CHANGED;
                j.append(&p.record())?;
            }
            self.changed.clear();
            j.sync()?;
            if j.wants_compaction(self.pages.len() as u64) {
                j.compact(self.pages.iter().map(PageState::record))?;
            }
        }
        for d in 0..2 {
            let pending = std::mem::take(&mut self.pending_free[d]);
            self.free[d].extend(pending);
        }
        Ok(())
    }

    #[inline]
    fn cost_of(&self, page: PageId) -> PageCost {
        self.page_cost(self.device_of(page))
    }

    fn stats(&self) -> IoStats {
        let mut s = self.flash.stats().plus(self.magnetic.stats());
        s.migrations = self.migrations[0] + self.migrations[1];
        s
    }

    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        for (d, io) in [(0, self.flash.stats()), (1, self.magnetic.stats())] {
            let mut one = Vec::new();
            if d == 0 {
                self.flash.device_stats(&mut one);
            } else {
                self.magnetic.device_stats(&mut one);
            }
            let name = one.first().map_or_else(String::new, |s| s.name.clone());
            let on_flash = self.on_flash;
            out.push(DeviceStats {
                name,
                io: IoStats {
                    migrations: self.migrations[d],
                    ..io
                },
                pages: Some(if d == 0 {
                    on_flash
                } else {
                    self.pages.len() as u64 - on_flash
                }),
            });
        }
    }

    fn listens(&self) -> Listens {
        Listens {
            accesses: true,
            next_victim: false,
            evictions: true,
        }
    }

    #[inline]
    fn accessed(&mut self, page: PageId, op: Op, _at_victim: bool) {
        // Only optimistic and hybrid count logical operations: spare the
        // others the lookup on every request.
        if !matches!(self.placement, Placement::Optimistic | Placement::Hybrid) {
            return;
        }
        let i = self.state(page);
        let p = &mut self.pages[i as usize];
        if p.flags & ACCOUNTING != 0 {
            p.counters.logical(op);
            self.changed(i);
        }
    }

    fn evicting(&mut self, page: PageId, dirty: bool) -> Result<bool> {
        let i = self.state(page);
        let k = self.costs;
        let q = self.q();
        let mut p = self.pages[i as usize];
        p.flags &= !RESIDENT;
        self.record_event(i, Event::Evict { dirty });
        if dirty && self.counting(&p) {
            p.counters.physical_write(p.device, &k);
        }
        let on = p.device;
        let saving = p.counters.flash_saving(&self.placement, on, &k, q);
        let go = match &self.placement {
            Placement::Optimal(s) => s.device_after(page, p.evictions) != on,
            Placement::Fixed(_) => false,
            // The saving just computed decides: no second pass over the
            // counters.
            placement => self.counting(&p) && placement::moves(placement, on, saving, &k),
        };
        p.evictions += 1;
        // The estimate that ranks a flash page: the one that placed it
        // there, plus what it has saved since.
        let new_merit = if go {
            saving
        } else if on == DeviceId::FLASH {
            p.merit + saving
        } else {
            0.0
        };
        // Only a capped flash disk ranks its pages (an ordered set costs a
        // few cache misses an update).
        if on == DeviceId::FLASH
            && self.flash_capacity.is_some()
            && self.ranking.remove(&(Merit(p.merit), i))
        {
            self.ranking.insert((Merit(new_merit), i));
        }
        p.merit = new_merit;
        self.pages[i as usize] = p;
        self.changed(i);
        if !go || p.flags & MARKED != 0 {
            return Ok(dirty);
        }
        if other(on) == DeviceId::FLASH && !self.make_room(i)? {
            return Ok(dirty);
        }
        if self.defer > 0 {
            self.pages[i as usize].flags |= MARKED;
            self.marked.push(i);
            if self.marked.len() >= self.defer {
                self.run_deferred()?;
            }
            return Ok(dirty);
        }
        self.pages[i as usize].flags |= MOVE;
        Ok(true)
    }

    fn take_moved(&mut self, out: &mut Vec<PageId>) {
        out.append(&mut self.moved);
    }

    #[inline]
    fn prefetch_index(&self, page: PageId) {
        self.index.prefetch(page);
    }

    #[inline]
    fn prefetch_state(&self, page: PageId) {
        if let Some(i) = self.index.peek(page) {
            crate::types::prefetch(&self.pages[i as usize]);
        }
    }
}
