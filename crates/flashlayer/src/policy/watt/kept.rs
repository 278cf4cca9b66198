//! The histories WATT keeps of evicted pages (its authors' `Z`): those of
//! the last `cap` evicted pages still out, newest first, forgotten oldest
//! first; a page admitted again takes its history back out.

use super::history::Line;
use crate::types::DenseId;

const NONE: u32 = u32::MAX;

/// Kept histories: a list over ghosts, each a record as a slot's (the page
/// in its page word).
#[derive(Clone, Debug)]
pub(super) struct Kept {
    cap: usize,
    /// Per dense page: its ghost, or `NONE`.
    ghost_of: Vec<u32>,
    /// Per ghost: its record's lines.
    records: Vec<Line>,
    lines: usize,
    /// Per ghost: the next newer and the next older, or `NONE`.
    newer: Vec<u32>,
    older: Vec<u32>,
    newest: u32,
    oldest: u32,
    len: usize,
    /// Ghosts not in the list.
    free: Vec<u32>,
}

/// The oldest history, forgotten to keep a newer one: its ghost and record.
#[derive(Clone, Debug)]
pub(super) struct Dropped {
    ghost: u32,
    record: Vec<Line>,
}

/// Word `i` of a record's lines.
fn word(lines: &[Line], i: usize) -> u32 {
    lines[i / 16].0[i % 16]
}

impl Kept {
    /// Keeping up to `cap` histories (0: none).
    pub(super) fn new(cap: usize) -> Self {
        Kept {
            cap,
            ghost_of: Vec::new(),
            records: Vec::new(),
            lines: 0,
            newer: Vec::new(),
            older: Vec::new(),
            newest: NONE,
            oldest: NONE,
            len: 0,
            free: Vec::new(),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub(super) fn with_pages(&mut self, pages: usize) {
        if self.cap > 0 && pages > self.ghost_of.len() {
            self.ghost_of.resize(pages, NONE);
        }
    }

    /// Keeps `record`, page `page`'s (its page in word `at_page`), as the
    /// newest; returns the oldest if it was forgotten for it.
    pub(super) fn keep(
        &mut self,
        page: DenseId,
        record: &[Line],
        at_page: usize,
    ) -> Option<Dropped> {
        if self.cap == 0 {
            return None;
        }
        let n = record.len();
        self.lines = n;
        if page as usize >= self.ghost_of.len() {
            self.ghost_of.resize(page as usize + 1, NONE);
        }
        let mut dropped = None;
        let g = if self.len == self.cap {
            let g = self.oldest;
            let old = self.record(g).to_vec();
            self.ghost_of[word(&old, at_page) as usize] = NONE;
            self.unlink(g);
            dropped = Some(Dropped {
                ghost: g,
                record: old,
            });
            g
        } else if let Some(g) = self.free.pop() {
            g
        } else {
            let g = self.newer.len() as u32;
            self.newer.push(NONE);
            self.older.push(NONE);
            self.records.resize((g as usize + 1) * n, Line::default());
            g
        };
        self.records[g as usize * n..(g as usize + 1) * n].copy_from_slice(record);
        self.push_newest(g);
        self.ghost_of[page as usize] = g;
        dropped
    }

    /// Undoes the [`Kept::keep`] of `page` that returned `dropped`.
    pub(super) fn unkeep(&mut self, page: DenseId, dropped: Option<Dropped>, at_page: usize) {
        if self.cap == 0 {
            return;
        }
        let g = self.ghost_of[page as usize];
        self.ghost_of[page as usize] = NONE;
        self.unlink(g);
        match dropped {
            Some(d) => {
                debug_assert_eq!(d.ghost, g, "a full list reuses its oldest ghost");
                let n = self.lines;
                self.records[g as usize * n..(g as usize + 1) * n].copy_from_slice(&d.record);
                self.push_oldest(g);
                self.ghost_of[word(&d.record, at_page) as usize] = g;
            }
            None => self.free.push(g),
        }
    }

    /// Takes `page`'s kept history, if any, into `record`: whether there
    /// was one.
    pub(super) fn resume(&mut self, page: DenseId, record: &mut [Line]) -> bool {
        let Some(&g) = self.ghost_of.get(page as usize) else {
            return false;
        };
        if g == NONE {
            return false;
        }
        self.ghost_of[page as usize] = NONE;
        self.unlink(g);
        self.free.push(g);
        record.copy_from_slice(self.record(g));
        true
    }

    fn record(&self, g: u32) -> &[Line] {
        let n = self.lines;
        &self.records[g as usize * n..(g as usize + 1) * n]
    }

    fn unlink(&mut self, g: u32) {
        let (newer, older) = (self.newer[g as usize], self.older[g as usize]);
        match newer {
            NONE => self.newest = older,
            x => self.older[x as usize] = older,
        }
        match older {
            NONE => self.oldest = newer,
            x => self.newer[x as usize] = newer,
        }
        self.len -= 1;
    }

    fn push_newest(&mut self, g: u32) {
        self.newer[g as usize] = NONE;
        self.older[g as usize] = self.newest;
        match self.newest {
            NONE => self.oldest = g,
            x => self.newer[x as usize] = g,
        }
        self.newest = g;
        self.len += 1;
    }

    fn push_oldest(&mut self, g: u32) {
        self.older[g as usize] = NONE;
        self.newer[g as usize] = self.oldest;
        match self.oldest {
            NONE => self.newest = g,
            x => self.older[x as usize] = g,
        }
        self.oldest = g;
        self.len += 1;
    }
}
