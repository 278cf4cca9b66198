//! The builder of a [`HybridStore`], each default stated on its setter.

use super::*;

/// Options of a [`HybridStore`]; each default is stated on its setter.
pub struct HybridStoreBuilder<F, M> {
    pub(super) flash: F,
    pub(super) magnetic: M,
    pub(super) placement: Placement,
    pub(super) buffer_pages: u64,
    pub(super) file_pages: Option<u64>,
    pub(super) flash_capacity: Option<u64>,
    pub(super) defer: usize,
    pub(super) preloaded: bool,
    pub(super) record: bool,
    pub(super) journal: Option<(BoxDisk, BoxDisk)>,
}

impl<F, M> std::fmt::Debug for HybridStoreBuilder<F, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridStoreBuilder")
            .field("placement", &self.placement.label())
            .field("buffer_pages", &self.buffer_pages)
            .field("flash_capacity", &self.flash_capacity)
            .field("defer", &self.defer)
            .finish()
    }
}

impl<F: PageStore, M: PageStore> HybridStoreBuilder<F, M> {
    crate::setters! {
        /// The placement algorithm. Default: [`Placement::Hybrid`].
        placement: Placement;

        /// `b`, the buffer pages dedicated to the file, for hybrid's
        /// `q = 1 − b/n`. Default: 0 (every logical operation weighs fully).
        buffer_pages: u64;

        /// `n`, the file's pages, for `q`; the store also sizes its per-page
        /// state for `n` pages at once (one table, allocated before it is
        /// touched, rather than one grown by copies). Default: the pages the
        /// store has seen so far (never fewer than `b`).
        file_pages: Some(u64);

        /// At most this many pages on flash (≥ 1). Default: no limit.
        flash_capacity: Some(u64);

        /// Deferred migrations in batches of this many pages (0, the default: move at
        /// eviction).
        defer: usize;

        /// Whether a page the store has never seen already exists on the
        /// magnetic disk with its accounting started (a trace replayed against
        /// a loaded database), rather than being new (accounting starts at its
        /// first physical write). Default: `false`.
        preloaded: bool;

        /// Records every page's physical events for [`PlacementSchedule::solve`]
        /// ([`HybridStore::take_recording`]). Default: off.
        record: bool;
    }

    /// Persists placement state in a journal on two disks (created empty,
    /// or replayed if they hold one). Default: none; the state lives only
    /// as long as the store.
    pub fn journal(mut self, a: BoxDisk, b: BoxDisk) -> Self {
        self.journal = Some((a, b));
        self
    }

    /// Builds the store, replaying the journal if there is one.
    pub fn open(self) -> Result<HybridStore<F, M>> {
        let page_size = self.flash.page_size();
        if page_size != self.magnetic.page_size() {
            return Err(Error::invalid(format!(
                "the flash store has {page_size}-byte pages and the magnetic store {}-byte pages",
                self.magnetic.page_size()
            )));
        }
        if self.flash_capacity == Some(0) {
            return Err(Error::invalid(
                "flash capacity must be at least 1 page (leave it unset for no limit)",
            ));
        }
        // A recording pass is the first pass of `optimal`.
        if self.flash_capacity.is_some()
            && (self.record || matches!(self.placement, Placement::Optimal(_)))
        {
            return Err(Error::invalid(
                "a flash capacity applies to the online placements, not to optimal",
            ));
        }
        if let (Placement::Fixed(device), false) = (&self.placement, self.record) {
            let name = if *device == DeviceId::FLASH {
                "f-only"
            } else {
                "m-only"
            };
            if self.flash_capacity.is_some() {
                return Err(Error::invalid(format!(
                    "placement {name} keeps every page on one disk, so a flash capacity means nothing \
                     there; it applies to conservative, optimistic and hybrid"
                )));
            }
            if self.defer > 0 {
                return Err(Error::invalid(format!(
                    "placement {name} moves no page, so there are no migrations to defer; defer \
                     applies to the placements that migrate"
                )));
            }
        }
        let (fc, mc) = (self.flash.cost_of(0), self.magnetic.cost_of(0));
        let costs = Costs {
            r_f: fc.read,
            w_f: fc.write,
            r_m: mc.read,
            w_m: mc.write,
        };
        let mut s = HybridStore {
            flash: self.flash,
            magnetic: self.magnetic,
            placement: self.placement,
            costs,
            pages: sized_for(self.file_pages),
            index: PageIndex::new(),
            free: [Vec::new(), Vec::new()],
            high: [0, 0],
            pending_free: [Vec::new(), Vec::new()],
            journal: None,
            changed: Vec::new(),
            buffer_pages: self.buffer_pages,
            file_pages: self.file_pages,
            flash_capacity: self.flash_capacity,
            ranking: BTreeSet::new(),
            on_flash: 0,
            defer: self.defer,
            marked: Vec::new(),
            moved: Vec::new(),
            preloaded: self.preloaded,
            recording: self.record.then(EventLog::default),
            migrations: [0, 0],
            scratch: vec![0; page_size],
        };
        if let Some((a, b)) = self.journal {
            let mut recs: Vec<Record> = Vec::new();
            let j = Journal::open(a, b, |r| recs.push(r))?;
            for r in recs {
                s.restore(r);
            }
            s.rebuild_free();
            s.journal = Some(j);
        }
        Ok(s)
    }
}
