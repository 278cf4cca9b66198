//! TAC, temperature-aware caching (Canim et al., "SSD Bufferpool Extensions
//! for Database Systems", VLDB 2010), as HyPro's §5 compares with it.
//!
//! - **Temperature per extent**: the disk is cut into extents of `extent`
//!   consecutive page numbers (default 32, as in the paper). Every request
//!   that misses DRAM heats its page's extent by what the SSD saves on a
//!   read (`C_dr − C_fr`). Temperatures age: every `age` DRAM misses
//!   (default 8 × the SSD's pages) they halve. Halving is done by doubling
//!   the increment instead (the order of temperatures, all TAC uses, is
//!   the same), renormalised when it grows large, so aging is O(1).
//! - **Admission**: a page read from the disk, and a dirty page written
//!   back from DRAM, goes to the SSD if the SSD has room or the page's
//!   extent is warmer than the coldest extent on the SSD, whose page then
//!   leaves (it is clean: see below). TAC admits when the page is in
//!   memory anyway, so admission costs one SSD write and no read.
//! - **Write-through**: a dirty page leaving DRAM is written to the disk,
//!   and to the SSD as well if the SSD holds it or admits it; SSD pages are
//!   never dirty, and leave the SSD without a write.
//! - An SSD hit reads the page into DRAM and leaves the copy (inclusive).
//!
//! The coldest extent on the SSD is the top of an indexed min-heap over
//! the extents with pages on the SSD (O(log extents) per heating or
//! admission); each extent keeps a list of its pages on the SSD, and the
//! first of them leaves.

use super::{Io, Leaving, Scheme, Serve, Slots, NIL};
use crate::error::Result;
use crate::types::{DenseId, Op};

/// Default aging period, in multiples of the SSD's pages.
pub const DEFAULT_AGE_FACTOR: u64 = 8;

const RESCALE_AT: f64 = 1e150;

/// TAC's decisions and its SSD level.
#[derive(Clone, Debug)]
pub struct Tac {
    capacity: usize,
    len: usize,
    slots: Slots,
    extent_of: Vec<u32>,
    temp: Vec<f64>,
    heap: Vec<u32>,
    heap_pos: Vec<u32>,
    first: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    increment: f64,
    age: u64,
    misses: u64,
    extent: u64,
}

impl Tac {
    /// TAC with an SSD of `capacity` pages (≥ 1). `extent_of[page]` is the
    /// extent of each dense page id (its number / `extent`, numbered
    /// densely). `saving` = `C_dr − C_fr`; `age` in DRAM misses (≥ 1).
    pub fn new(capacity: usize, extent_of: Vec<u32>, extent: u64, saving: f64, age: u64) -> Self {
        let extents = extent_of.iter().map(|&e| e as usize + 1).max().unwrap_or(0);
        let pages = extent_of.len();
        Tac {
            capacity,
            len: 0,
            slots: Slots::new(capacity, pages),
            extent_of,
            temp: vec![0.0; extents],
            heap: Vec::new(),
            heap_pos: vec![NIL; extents],
            first: vec![NIL; extents],
            next: vec![NIL; pages],
            prev: vec![NIL; pages],
            increment: saving.max(f64::MIN_POSITIVE),
            age: age.max(1),
            misses: 0,
            extent,
        }
    }

    /// An extent's temperature, in the units of the current increment.
    pub fn temperature(&self, extent: u32) -> f64 {
        self.temp[extent as usize] / self.increment
    }

    #[inline]
    fn heat(&mut self, page: DenseId) {
        let e = self.extent_of[page as usize];
        self.temp[e as usize] += self.increment;
        let at = self.heap_pos[e as usize];
        if at != NIL {
            self.sift_down(at as usize);
        }
        self.misses += 1;
        if self.misses.is_multiple_of(self.age) {
            self.increment *= 2.0;
            if self.increment > RESCALE_AT {
                let k = self.increment;
                self.temp.iter_mut().for_each(|t| *t /= k);
                self.increment = 1.0;
            }
        }
    }

    fn admit_if_warm(&mut self, page: DenseId, io: &mut impl Io) -> Result<bool> {
        if self.len >= self.capacity {
            let coldest = self.heap[0];
            let e = self.extent_of[page as usize];
            if self.temp[e as usize] <= self.temp[coldest as usize] {
                return Ok(false);
            }
            let out = self.first[coldest as usize];
            self.drop_page(out);
        }
        let slot = self.slots.take(page);
        if let Err(e) = io.ssd_write(page, slot, false, false) {
            // The slot does not hold the page: it stays free.
            self.slots.release(page);
            return Err(e);
        }
        self.link(page);
        self.len += 1;
        Ok(true)
    }

    /// Takes `page` off the SSD.
    fn drop_page(&mut self, page: DenseId) {
        self.unlink(page);
        self.slots.release(page);
        self.len -= 1;
    }

    fn link(&mut self, page: DenseId) {
        let e = self.extent_of[page as usize] as usize;
        let head = self.first[e];
        self.next[page as usize] = head;
        self.prev[page as usize] = NIL;
        if head != NIL {
            self.prev[head as usize] = page;
        } else {
            self.heap_pos[e] = self.heap.len() as u32;
            self.heap.push(e as u32);
            self.sift_up(self.heap.len() - 1);
        }
        self.first[e] = page;
    }

    fn unlink(&mut self, page: DenseId) {
        let e = self.extent_of[page as usize] as usize;
        let (p, n) = (self.prev[page as usize], self.next[page as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.first[e] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        if self.first[e] == NIL {
            let at = self.heap_pos[e] as usize;
            let last = self.heap.pop().expect("the extent is in the heap");
            self.heap_pos[e] = NIL;
            if at < self.heap.len() {
                self.heap[at] = last;
                self.heap_pos[last as usize] = at as u32;
                self.sift_down(at);
                self.sift_up(at);
            }
        }
    }

    fn key(&self, i: usize) -> f64 {
        self.temp[self.heap[i] as usize]
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.heap_pos[self.heap[a] as usize] = a as u32;
        self.heap_pos[self.heap[b] as usize] = b as u32;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.key(i) >= self.key(parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.heap.len() && self.key(l) < self.key(m) {
                m = l;
            }
            if r < self.heap.len() && self.key(r) < self.key(m) {
                m = r;
            }
            if m == i {
                return;
            }
            self.swap(i, m);
            i = m;
        }
    }
}

impl Scheme for Tac {
    fn name(&self) -> String {
        format!("TAC(extent={}, age={})", self.extent, self.age)
    }

    #[inline]
    fn on_ssd(&self, page: DenseId) -> bool {
        self.slots.get(page) != NIL
    }

    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve> {
        self.heat(page);
        super::load_keeping_copy(io, page, self.slots.get(page), op)
    }

    fn hdd_loaded(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<()> {
        self.heat(page);
        if op == Op::Read {
            self.admit_if_warm(page, io)?;
        }
        Ok(())
    }

    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool> {
        let Leaving { page, dirty, .. } = left;
        if !dirty {
            return Ok(false);
        }
        io.hdd_write(page)?;
        let slot = self.slots.get(page);
        if slot != NIL {
            if let Err(e) = io.ssd_write(page, slot, false, false) {
                // The SSD's copy may be torn or old: the disk's is the page.
                self.drop_page(page);
                return Err(e);
            }
            return Ok(true);
        }
        self.admit_if_warm(page, io)
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.slots.prefetch(page);
        if let Some(&e) = self.extent_of.get(page as usize) {
            crate::types::prefetch(&self.extent_of[page as usize]);
            if let Some(t) = self.temp.get(e as usize) {
                crate::types::prefetch(t);
            }
        }
    }

    fn ssd_pages(&self) -> (u64, u64) {
        (self.len as u64, 0)
    }
}
