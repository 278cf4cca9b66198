//! The buffer pool against a model: contents survive eviction and flush,
//! pinned pages stay, a full pool of pinned pages is an error, threads lose
//! no update, and the pool makes the same decisions as the simulator.

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{
    Ace, Arc, Belady, BoxedPolicy, Casa, CcfLru, Cfdc, Cflru, Clock, CostSource, FdBuffer, Fifo,
    Koltsidas, Lambda, Lru, LruWsr, Mc, Policy, TwoQ,
};
use flashlayer::sim::Simulator;
use flashlayer::store::{CostStore, FileStore, MemStore, PageStore};
use flashlayer::types::Op;
use flashlayer::Error;
use proptest::prelude::*;
use std::collections::BTreeMap;

const PS: usize = 64;

#[derive(Debug, Clone)]
enum Step {
    /// Fix a page; if `modify`, write `value` into byte 0..8; keep it pinned
    /// if `hold`.
    Fix {
        page: u64,
        write: bool,
        modify: bool,
        value: u64,
        hold: bool,
    },
    /// Drop the i-th held guard.
    Release(usize),
    Flush,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u64..24, any::<bool>(), any::<bool>(), any::<u64>(), prop::bool::weighted(0.2))
            .prop_map(|(page, write, modify, value, hold)| Step::Fix { page, write, modify: write && modify, value, hold }),
        2 => (0usize..8).prop_map(Step::Release),
        1 => Just(Step::Flush),
    ]
}

fn check_pool<P: Policy>(policy: P, steps: &[Step]) -> Result<(), TestCaseError> {
    let cap = policy.capacity();
    let pool = BufferPool::new(policy, MemStore::new(PS, DeviceModel::unit())).unwrap();
    let mut model: BTreeMap<u64, u64> = BTreeMap::new();
    enum Held<'a, P: Policy> {
        R(
            #[expect(dead_code, reason = "held only to keep the pin")]
            flashlayer::buffer::PageRef<'a, P, MemStore>,
        ),
        W(
            #[expect(dead_code, reason = "held only to keep the pin")]
            flashlayer::buffer::PageMut<'a, P, MemStore>,
        ),
    }
    let mut held: Vec<(u64, Held<'_, P>)> = Vec::new();
    for s in steps {
        match *s {
            Step::Fix {
                page,
                write,
                modify,
                value,
                hold,
            } => {
                // A page already held for writing would deadlock this thread.
                if held.iter().any(|h| h.0 == page) {
                    continue;
                }
                let pinned = held.len();
                let want = model.get(&page).copied().unwrap_or(0);
                if write {
                    match pool.fix_write(page) {
                        Ok(mut g) => {
                            prop_assert_eq!(u64::from_le_bytes(g[0..8].try_into().unwrap()), want);
                            if modify {
                                g[0..8].copy_from_slice(&value.to_le_bytes());
                                model.insert(page, value);
                            }
                            if hold {
                                held.push((page, Held::W(g)));
                            }
                        }
                        Err(Error::AllPinned(n)) => {
                            prop_assert_eq!(n, cap);
                            prop_assert_eq!(pinned, cap);
                        }
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    }
                } else {
                    match pool.fix_read(page) {
                        Ok(g) => {
                            prop_assert_eq!(u64::from_le_bytes(g[0..8].try_into().unwrap()), want);
                            if hold {
                                held.push((page, Held::R(g)));
                            }
                        }
                        Err(Error::AllPinned(_)) => prop_assert_eq!(pinned, cap),
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    }
                }
                for (p, _) in &held {
                    prop_assert!(pool.is_resident(*p), "pinned page {} was evicted", p);
                }
            }
            Step::Release(i) => {
                if !held.is_empty() {
                    held.remove(i % held.len());
                }
            }
            Step::Flush => pool.flush().unwrap(),
        }
    }
    drop(held);
    let mut store = pool.close().unwrap();
    let mut buf = vec![0u8; PS];
    for (&page, &value) in &model {
        store.read(page, &mut buf).unwrap();
        prop_assert_eq!(
            u64::from_le_bytes(buf[0..8].try_into().unwrap()),
            value,
            "page {} after close",
            page
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn pool_matches_model_under_random_fix_modify_unfix(cap in 1usize..8, steps in prop::collection::vec(step(), 1..300)) {
        check_pool(Lru::new(cap), &steps)?;
        check_pool(Clock::new(cap), &steps)?;
        check_pool(TwoQ::new(cap), &steps)?;
        check_pool(Arc::new(cap), &steps)?;
        check_pool(Fifo::new(cap), &steps)?;
        // ACE evicting written pages beside its victim: their frames are
        // freed, their bytes are on the store.
        check_pool(Ace::new(Lru::new(cap), 3, 3, 0).unwrap(), &steps)?;
        check_pool(Ace::new(LruWsr::new(cap), 4, 2, 0).unwrap(), &steps)?;
        check_pool(Ace::new(Lru::new(cap), 4, 4, 3).unwrap(), &steps)?;
    }

    /// Request by request the pool and the simulator hit alike, and their
    /// stores see the same reads, write-backs and final checkpoint, in the
    /// same order, under the trace's own page numbers: one protocol.
    #[test]
    fn pool_and_simulator_make_the_same_decisions(cap in 1usize..10, trace in prop::collection::vec((0u32..30, any::<bool>()), 1..400)) {
        // Dense ids in order of first appearance, as both callers assign them.
        let mut ids = std::collections::HashMap::new();
        let t: Vec<(u32, Op)> = trace
            .iter()
            .map(|&(p, w)| {
                let n = ids.len() as u32;
                (*ids.entry(p).or_insert(n), if w { Op::Write } else { Op::Read })
            })
            .collect();
        let words: Vec<u32> = t.iter().map(|&(p, op)| flashlayer::types::pack(p, op)).collect();
        compare(Lru::new(cap), &t)?;
        compare(Fifo::new(cap), &t)?;
        compare(Clock::new(cap), &t)?;
        compare(TwoQ::new(cap), &t)?;
        compare(Arc::new(cap), &t)?;
        compare(Belady::new(cap, &words).unwrap(), &t)?;
        compare(Cflru::new(cap, 0.5), &t)?;
        compare(LruWsr::new(cap), &t)?;
        compare(CcfLru::new(cap), &t)?;
        compare(Casa::new(cap, CostSource::Model), &t)?;
        compare(Cfdc::new(cap, 0.5, 3), &t)?;
        compare(Ace::new(Lru::new(cap), 3, 1, 0).unwrap(), &t)?;
        compare(Ace::new(Cflru::new(cap, 0.5), 4, 4, 0).unwrap(), &t)?;
        compare(Ace::new(LruWsr::new(cap), 3, 2, 0).unwrap(), &t)?;
        // A window: the dirty pages among the 4 nearest eviction.
        compare(Ace::new(Lru::new(cap), 4, 1, 4).unwrap(), &t)?;
        compare(Ace::new(Cflru::new(cap, 0.5), 4, 4, 4).unwrap(), &t)?;
        compare(Koltsidas::new(cap, Lambda::Fixed(0.5)), &t)?;
        compare(Koltsidas::new(cap, Lambda::Auto { epoch: 2 }), &t)?;
        compare(FdBuffer::new(cap, cap / 3, BoxedPolicy::new(Lru::new(cap)), BoxedPolicy::new(Arc::new(cap))), &t)?;
        compare(FdBuffer::new(cap, cap / 2, BoxedPolicy::new(Lru::new(cap)), BoxedPolicy::new(Lru::new(cap))).with_cluster(3), &t)?;
        compare(FdBuffer::with_mc(cap, Mc::Auto { epoch: 11 }, CostSource::Model, BoxedPolicy::new(Clock::new(cap)), BoxedPolicy::new(TwoQ::new(cap))), &t)?;
    }

    /// ACE's prefetching variant reads ahead the pages numbered after the
    /// requested one that the caller knows: the pool knows the pages fixed
    /// so far, so the trace first reads every page once (all clean: no
    /// dirty victim, nothing read ahead), and the simulator knows just
    /// those. Then pool and simulator read the same pages ahead, in the
    /// same batches, and count the same uses.
    #[test]
    fn pool_and_simulator_read_the_same_pages_ahead(cap in 2usize..10, pages in 1u32..30, trace in prop::collection::vec((0u32..30, any::<bool>()), 1..400)) {
        let t: Vec<(u32, Op)> = (0..pages)
            .map(|p| (p, Op::Read))
            .chain(trace.iter().map(|&(p, w)| (p % pages, if w { Op::Write } else { Op::Read })))
            .collect();
        for ne in [2, 4] {
            compare_known(Ace::with_read_ahead(Lru::new(cap), ne, ne, 0, true).unwrap(), &t, pages as usize)?;
            compare_known(Ace::with_read_ahead(Cflru::new(cap, 0.5), 4, ne, 0, true).unwrap(), &t, pages as usize)?;
            compare_known(Ace::with_read_ahead(LruWsr::new(cap), ne + 1, ne, 0, true).unwrap(), &t, pages as usize)?;
            compare_known(Ace::with_read_ahead(Casa::new(cap, CostSource::Model), 4, ne, 0, true).unwrap(), &t, pages as usize)?;
        }
    }
}

/// A store that logs every physical operation: (kind, page number).
#[derive(Debug)]
struct Logged<S> {
    inner: S,
    log: Vec<(char, u64)>,
}

impl<S: PageStore> PageStore for Logged<S> {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn read(&mut self, page: u64, buf: &mut [u8]) -> flashlayer::Result<()> {
        self.log.push(('R', page));
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: u64, buf: &[u8]) -> flashlayer::Result<()> {
        self.log.push(('W', page));
        self.inner.write(page, buf)
    }
    fn write_batch(&mut self, batch: &[(u64, &[u8])]) -> flashlayer::Result<()> {
        self.log.push(('B', batch.len() as u64));
        self.log.extend(batch.iter().map(|b| ('W', b.0)));
        self.inner.write_batch(batch)
    }
    pass_through!();
}

/// The page number the test gives dense id `d`: shifted, so stores that saw
/// dense ids would log other numbers, and contiguous, so clustering finds
/// neighbours.
fn number(d: u32) -> u64 {
    1000 + u64::from(d)
}

fn compare<P: Policy + Clone>(p: P, trace: &[(u32, Op)]) -> Result<(), TestCaseError> {
    compare_known(p, trace, 64)
}

/// [`compare`] with the simulator knowing the pages of dense ids
/// `0..known`.
fn compare_known<P: Policy + Clone>(
    p: P,
    trace: &[(u32, Op)],
    known: usize,
) -> Result<(), TestCaseError> {
    let device = DeviceModel::parse("ratio:1:4").unwrap();
    let numbers: Vec<u64> = (0..known as u32).map(number).collect();
    let mut sim = Simulator::with_numbers(
        p.clone(),
        Logged {
            inner: CostStore::new(device.clone()),
            log: Vec::new(),
        },
        numbers,
    )
    .unwrap();
    let pool = BufferPool::new(
        p,
        Logged {
            inner: MemStore::new(8, device),
            log: Vec::new(),
        },
    )
    .unwrap();
    for (i, &(page, op)) in trace.iter().enumerate() {
        let sim_hit = sim.request(page, op).unwrap();
        let before = pool.metrics().hits;
        if op.is_write() {
            pool.fix_write(number(page)).unwrap()[0] ^= 1;
        } else {
            drop(pool.fix_read(number(page)).unwrap());
        }
        prop_assert_eq!(sim_hit, pool.metrics().hits > before, "request {}", i);
    }
    let a = sim.metrics();
    let b = pool.metrics();
    prop_assert_eq!(
        (
            a.requests,
            a.writes,
            a.hits,
            a.misses,
            a.dirty_evictions,
            a.physical_writes,
            a.dirty_at_end,
            a.physical_reads,
            a.read_ahead,
            a.read_ahead_used
        ),
        (
            b.requests,
            b.writes,
            b.hits,
            b.misses,
            b.dirty_evictions,
            b.physical_writes,
            b.dirty_at_end,
            b.physical_reads,
            b.read_ahead,
            b.read_ahead_used
        )
    );
    let pages = trace
        .iter()
        .map(|t| t.0)
        .max()
        .map_or(0, |m| m as usize + 1);
    sim.checkpoint(pages).unwrap();
    let sim_log = sim.into_parts().1.log;
    let pool_log = pool.close().unwrap().log;
    prop_assert_eq!(sim_log, pool_log);
    Ok(())
}

#[test]
fn a_read_hit_counted_without_the_pool_lock_pins_its_page() {
    let pool = BufferPool::new(Lru::new(2), MemStore::new(PS, DeviceModel::unit())).unwrap();
    drop(pool.fix_read(1).unwrap());
    drop(pool.fix_read(2).unwrap());
    // Both are hits now, pinned by this thread's reader counts alone.
    let a = pool.fix_read(1).unwrap();
    let b = pool.fix_read(2).unwrap();
    assert!(matches!(pool.fix_read(3), Err(Error::AllPinned(2))));
    drop(b);
    drop(pool.fix_read(3).unwrap());
    assert!(pool.is_resident(1) && pool.is_resident(3) && !pool.is_resident(2));
    drop(a);
}

#[test]
fn full_pool_of_pinned_pages_is_an_error_not_a_hang() {
    let pool = BufferPool::new(Lru::new(2), MemStore::new(PS, DeviceModel::unit())).unwrap();
    let a = pool.fix_read(1).unwrap();
    let b = pool.fix_write(2).unwrap();
    assert!(matches!(pool.fix_read(3), Err(Error::AllPinned(2))));
    drop(a);
    let c = pool.fix_read(3).unwrap();
    assert!(pool.is_resident(2) && pool.is_resident(3) && !pool.is_resident(1));
    drop((b, c));
}

#[test]
fn reading_without_modifying_leaves_a_page_clean() {
    let pool = BufferPool::new(Lru::new(1), MemStore::new(PS, DeviceModel::unit())).unwrap();
    {
        let g = pool.fix_write(1).unwrap();
        assert_eq!(g[0], 0);
    }
    drop(pool.fix_read(2).unwrap());
    let m = pool.metrics();
    assert_eq!((m.dirty_evictions, m.physical_writes, m.writes), (0, 0, 0));
}

#[test]
fn concurrent_fixers_lose_no_update_and_do_not_deadlock() {
    const THREADS: usize = 4;
    const OPS: usize = 3000;
    const PAGES: u64 = 24;
    let pool = BufferPool::new(Clock::new(8), MemStore::new(PS, DeviceModel::unit())).unwrap();
    let per_thread: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let pool = &pool;
                s.spawn(move || {
                    let mut counts = vec![0u64; PAGES as usize];
                    let mut x = 0x2545_F491_4F6C_DD1Du64 ^ t as u64;
                    for i in 0..OPS {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let a = x % PAGES;
                        if i % 5 == 0 {
                            // Hold two pages at once, fixed in id order.
                            let b = (a + 1 + (x >> 32) % (PAGES - 1)) % PAGES;
                            let (lo, hi) = (a.min(b), a.max(b));
                            let mut g1 = loop {
                                match pool.fix_write(lo) {
                                    Ok(g) => break g,
                                    Err(Error::AllPinned(_)) => std::thread::yield_now(),
                                    Err(e) => panic!("{e}"),
                                }
                            };
                            let g2 = pool.fix_read(hi);
                            let v = u64::from_le_bytes(g1[0..8].try_into().unwrap()) + 1;
                            g1[0..8].copy_from_slice(&v.to_le_bytes());
                            counts[lo as usize] += 1;
                            drop(g2);
                        } else {
                            let mut g = loop {
                                match pool.fix_write(a) {
                                    Ok(g) => break g,
                                    Err(Error::AllPinned(_)) => std::thread::yield_now(),
                                    Err(e) => panic!("{e}"),
                                }
                            };
                            let v = u64::from_le_bytes(g[0..8].try_into().unwrap()) + 1;
                            g[0..8].copy_from_slice(&v.to_le_bytes());
                            counts[a as usize] += 1;
                        }
                        if i % 500 == 0 {
                            pool.flush().unwrap();
                        }
                    }
                    counts
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for p in 0..PAGES {
        let want: u64 = per_thread.iter().map(|c| c[p as usize]).sum();
        let g = pool.fix_read(p).unwrap();
        assert_eq!(
            u64::from_le_bytes(g[0..8].try_into().unwrap()),
            want,
            "page {p}"
        );
    }
    assert!(
        pool.metrics().dirty_evictions > 0,
        "the test must force evictions"
    );
}

#[test]
fn file_store_pool_persists_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.db");
    {
        let store = FileStore::builder(&path).page_size(512).open().unwrap();
        let pool = BufferPool::new(Lru::new(3), store).unwrap();
        for p in 0..20u64 {
            let mut g = pool.fix_write(p * 3).unwrap();
            g[..8].copy_from_slice(&(p * 1000 + 7).to_le_bytes());
            g[511] = p as u8;
        }
        pool.close().unwrap();
    }
    let store = FileStore::builder(&path).page_size(512).open().unwrap();
    let pool = BufferPool::new(Lru::new(2), store).unwrap();
    for p in 0..20u64 {
        let g = pool.fix_read(p * 3).unwrap();
        assert_eq!(u64::from_le_bytes(g[..8].try_into().unwrap()), p * 1000 + 7);
        assert_eq!(g[511], p as u8);
    }
    // A page never written reads as zeros.
    assert!(pool.fix_read(1).unwrap().iter().all(|&b| b == 0));
}

/// A store built for a set of sparse page numbers (a PostgreSQL trace's
/// `relfilenode << 34 | block`) packs them into a file of as many pages, in
/// order of number, finds them again when reopened with the same set, and
/// refuses a page outside it, naming the file.
#[test]
fn a_file_store_for_sparse_pages_packs_them_and_finds_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse.db");
    let pages: Vec<u64> = (0..10u64)
        .map(|i| (16384 + i % 3) << 34 | (i * 7))
        .collect();
    let open = || {
        FileStore::builder(&path)
            .page_size(512)
            .pages(pages.iter().rev().copied())
            .open()
            .unwrap()
    };
    {
        let pool = BufferPool::new(Lru::new(3), open()).unwrap();
        for &p in &pages {
            pool.fix_write(p).unwrap()[..8].copy_from_slice(&p.to_le_bytes());
        }
        pool.close().unwrap();
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 10 * 512);
    let pool = BufferPool::new(Lru::new(2), open()).unwrap();
    for &p in &pages {
        let g = pool.fix_read(p).unwrap();
        assert_eq!(u64::from_le_bytes(g[..8].try_into().unwrap()), p);
    }
    let e = pool.fix_read(5).map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains("sparse.db") && e.contains("not one of the 10 pages"),
        "{e}"
    );
}

/// Dirt from guards dropped before a flush is durable after it, even while a
/// writer holds the page: the flush writes the page as the writer found it.
#[test]
fn flush_writes_a_page_a_writer_holds_as_it_was_when_fixed() {
    let pool = BufferPool::new(Lru::new(4), MemStore::new(PS, DeviceModel::unit())).unwrap();
    pool.fix_write(7).unwrap()[0] = 1;
    let mut g = pool.fix_write(7).unwrap();
    g[0] = 2; // not yet unfixed: not part of this flush
    pool.flush().unwrap();
    let mut store = {
        drop(g);
        pool.close().unwrap()
    };
    let mut buf = vec![0u8; PS];
    store.read(7, &mut buf).unwrap();
    assert_eq!(buf[0], 2, "close flushed the second change");

    let pool = BufferPool::new(Lru::new(4), MemStore::new(PS, DeviceModel::unit())).unwrap();
    pool.fix_write(7).unwrap()[0] = 1;
    let mut g = pool.fix_write(7).unwrap();
    g[0] = 2;
    pool.flush().unwrap();
    assert!(!pool.is_dirty(7), "written by the flush");
    let written = pool.metrics().physical_writes;
    assert_eq!(written, 1);
    drop(g);
    assert!(pool.is_dirty(7), "the writer's change is dirty at unfix");
}
