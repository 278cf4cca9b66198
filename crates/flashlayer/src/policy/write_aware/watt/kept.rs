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
    /// Lines per record, and the word of its page.
    lines: usize,
    at_page: usize,
    /// Per dense page: its ghost, or `NONE`.
    ghost_of: Vec<u32>,
    /// Per ghost: its record's lines.
    records: Vec<Line>,
    /// Per ghost: the next newer and the next older, or `NONE`.
    newer: Vec<u32>,
    older: Vec<u32>,
    newest: u32,
    oldest: u32,
    len: usize,
    /// Ghosts not in the list.
    free: Vec<u32>,
    /// What [`Kept::unkeep`] restores: the ghost the last [`Kept::keep`]
    /// took from the oldest history, if it did, and that history.
    dropped: Option<u32>,
    dropped_record: Vec<Line>,
}

impl Kept {
    /// Keeping up to `cap` histories (0: none) of records of `lines` lines
    /// with the page in word `at_page`.
    pub(super) fn new(cap: usize, lines: usize, at_page: usize) -> Self {
        Kept {
            cap,
            lines,
            at_page,
            ghost_of: Vec::new(),
            records: Vec::new(),
            newer: Vec::new(),
            older: Vec::new(),
            newest: NONE,
            oldest: NONE,
            len: 0,
            free: Vec::new(),
            dropped: None,
            dropped_record: vec![Line::default(); lines],
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub(super) fn with_pages(&mut self, pages: usize) {
        if self.cap > 0 && pages > self.ghost_of.len() {
            self.ghost_of.resize(pages, NONE);
        }
    }

    /// Whether any history is kept (`cap` > 0).
    #[inline(always)]
    pub(super) fn keeps(&self) -> bool {
        self.cap > 0
    }

    /// Keeps `record`, page `page`'s, as the newest, forgetting the oldest
    /// if `cap` are kept.
    #[inline]
    pub(super) fn keep(&mut self, page: DenseId, record: &[Line]) {
        self.dropped = None;
        if self.cap == 0 {
            return;
        }
        if page as usize >= self.ghost_of.len() {
            self.ghost_of.resize(page as usize + 1, NONE);
        }
        let g = if self.len == self.cap {
            let g = self.oldest;
            let n = self.lines;
            self.dropped_record
                .copy_from_slice(&self.records[g as usize * n..(g as usize + 1) * n]);
            let old = self.page_of(&self.dropped_record);
            self.ghost_of[old] = NONE;
            self.unlink(g);
            self.dropped = Some(g);
            g
        } else if let Some(g) = self.free.pop() {
            g
        } else {
            let g = self.newer.len() as u32;
            self.newer.push(NONE);
            self.older.push(NONE);
            self.records
                .resize((g as usize + 1) * self.lines, Line::default());
            g
        };
        let n = self.lines;
        self.records[g as usize * n..(g as usize + 1) * n].copy_from_slice(record);
        self.push_newest(g);
        self.ghost_of[page as usize] = g;
    }

    /// Undoes the last [`Kept::keep`], of `page`'s history.
    pub(super) fn unkeep(&mut self, page: DenseId) {
        if self.cap == 0 {
            return;
        }
        let g = self.ghost_of[page as usize];
        self.ghost_of[page as usize] = NONE;
        self.unlink(g);
        match self.dropped.take() {
            Some(d) => {
                debug_assert_eq!(d, g, "a full list reuses its oldest ghost");
                let n = self.lines;
                self.records[g as usize * n..(g as usize + 1) * n]
                    .copy_from_slice(&self.dropped_record);
                self.push_oldest(g);
                let old = self.page_of(&self.dropped_record);
                self.ghost_of[old] = g;
            }
            None => self.free.push(g),
        }
    }

    /// Takes `page`'s kept history, if any, into `record`: whether there
    /// was one.
    #[inline]
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

    /// The page of a record.
    fn page_of(&self, record: &[Line]) -> usize {
        record[self.at_page / 16].0[self.at_page % 16] as usize
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
