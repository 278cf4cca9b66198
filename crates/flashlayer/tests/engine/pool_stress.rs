//! Many threads fixing, modifying and flushing the pages of one buffer pool
//! over a store that injects failures (and, for the long run, latency),
//! some holding one page while they fix another (latch coupling, in page
//! order), beside a flusher thread: afterwards every acknowledged
//! modification is in the store — also after a file store is closed and
//! reopened — and no thread ever read a page without its own last
//! modification.
//!
//! Each page holds one counter per thread, and only thread `t` changes
//! counter `t`: a thread knows exactly what every page must hold for it.

use crate::common;

use common::{Faults, Faulty};
use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{boxed_online_policy, Policy, PolicySpec, POLICIES};
use flashlayer::store::{FileStore, MemStore, PageStore};
use flashlayer::Error;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

const THREADS: usize = 8;
const PAGES: u64 = 48;
const FRAMES: usize = 12;
/// One u64 counter per thread.
const PAGE_SIZE: usize = 8 * THREADS;

fn slot(page: &[u8], t: usize) -> u64 {
    u64::from_le_bytes(page[8 * t..8 * t + 8].try_into().unwrap())
}

/// Asserts that thread `t`'s counter on page `p` (`page`'s bytes) holds
/// `want`, every modification the thread had acknowledged.
fn assert_slot(page: &[u8], t: usize, want: u64, name: &str, p: u64) {
    assert_eq!(slot(page, t), want, "{name}: thread {t} page {p}");
}

/// What one stress run did.
#[derive(Debug, Default)]
struct Tally {
    /// Modifications acknowledged (guards dropped), per thread and page.
    counts: Vec<Vec<u64>>,
    fixes: u64,
    failed: u64,
    flushes: u64,
}

/// Every thread fixes random pages `ops` times: 50% to add 1 to its counter,
/// 10% for writing without changing it, 25% to read it, 10% to read it and,
/// holding it, add 1 to its counter on a higher page, 5% to flush; a
/// flusher thread flushes meanwhile. Every fix checks the thread's counter
/// holds all its acknowledged modifications; failed fixes and flushes must
/// be injected ones, or find every frame pinned.
fn hammer<P: Policy + Send, S: PageStore + Send>(
    name: &str,
    pool: &BufferPool<P, S>,
    ops: usize,
    seed: u64,
    start: &[Vec<u64>],
) -> Tally {
    let done = AtomicBool::new(false);
    let flusher = AtomicU64::new(0);
    let results: Vec<Tally> = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                match pool.flush() {
                    Ok(()) => {}
                    Err(Error::Store(msg)) if msg.starts_with("injected") => {}
                    Err(e) => panic!("{name}: flusher: {e}"),
                }
                flusher.fetch_add(1, Ordering::Relaxed);
            }
        });
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || {
                    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed * 100 + t as u64);
                    let mut tally = Tally {
                        counts: vec![start[t].clone()],
                        ..Tally::default()
                    };
                    let counts = &mut tally.counts[0];
                    for _ in 0..ops {
                        // Skewed towards low pages, so threads meet.
                        let p = (rng.random_range(0..PAGES) * rng.random_range(1..=PAGES)) / PAGES;
                        let roll = rng.random_range(0..100);
                        let outcome = if roll < 50 {
                            pool.fix_write(p).map(|mut g| {
                                assert_slot(&g, t, counts[p as usize], name, p);
                                let v = counts[p as usize] + 1;
                                g[8 * t..8 * t + 8].copy_from_slice(&v.to_le_bytes());
                                drop(g);
                                counts[p as usize] = v;
                            })
                        } else if roll < 60 {
                            // Fixed for writing, left unmodified: marked
                            // clean unless another thread changed it.
                            pool.fix_write(p).map(|g| {
                                assert_slot(&g, t, counts[p as usize], name, p);
                            })
                        } else if roll < 85 {
                            pool.fix_read(p).map(|g| {
                                assert_slot(&g, t, counts[p as usize], name, p);
                            })
                        } else if roll < 95 {
                            // Coupled: a page held while a higher one is
                            // fixed, as a B+-tree descent holds a parent.
                            let q = rng.random_range(p + 1..=PAGES).min(PAGES - 1);
                            pool.fix_read(p).and_then(|g| {
                                assert_eq!(slot(&g, t), counts[p as usize]);
                                if q == p {
                                    return Ok(());
                                }
                                let mut h = pool.fix_write(q)?;
                                assert_eq!(slot(&h, t), counts[q as usize]);
                                let v = counts[q as usize] + 1;
                                h[8 * t..8 * t + 8].copy_from_slice(&v.to_le_bytes());
                                drop(h);
                                counts[q as usize] = v;
                                Ok(())
                            })
                        } else {
                            tally.flushes += 1;
                            pool.flush()
                        };
                        tally.fixes += u64::from(roll < 95);
                        match outcome {
                            Ok(()) => {}
                            Err(Error::Store(msg)) if msg.starts_with("injected") => {
                                tally.failed += 1;
                            }
                            Err(Error::AllPinned(_)) => tally.failed += 1,
                            Err(e) => panic!("{name}: thread {t}: {e}"),
                        }
                    }
                    tally
                })
            })
            .collect();
        let results = handles.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        results
    });
    let mut all = Tally {
        flushes: flusher.load(Ordering::Relaxed),
        ..Tally::default()
    };
    for r in results {
        all.counts.extend(r.counts);
        all.fixes += r.fixes;
        all.failed += r.failed;
        all.flushes += r.flushes;
    }
    all
}

/// Every page of `store` holds every thread's acknowledged count. Returns
/// the number of modifications so verified.
fn verify(store: &mut impl PageStore, tally: &Tally, what: &str) -> u64 {
    let mut buf = vec![0u8; PAGE_SIZE];
    let mut verified = 0;
    for p in 0..PAGES {
        store.read(p, &mut buf).unwrap();
        for (t, counts) in tally.counts.iter().enumerate() {
            assert_eq!(
                slot(&buf, t),
                counts[p as usize],
                "{what}: thread {t} page {p}"
            );
            verified += counts[p as usize];
        }
    }
    verified
}

#[test]
fn every_policy_loses_no_acknowledged_update_under_threads_and_store_failures() {
    for (i, entry) in POLICIES.entries.iter().enumerate() {
        let spec = PolicySpec::parse(entry.name).unwrap();
        let Ok(policy) = boxed_online_policy(&spec, FRAMES, PAGES as usize) else {
            // Offline policies need the whole trace in advance.
            continue;
        };
        let faults = Faults::new(23, Duration::ZERO, i as u64);
        let store = Faulty {
            inner: MemStore::new(PAGE_SIZE, DeviceModel::unit()),
            faults: faults.clone(),
        };
        let pool = BufferPool::new(policy, store).unwrap();
        let tally = hammer(entry.name, &pool, 1_500, i as u64, &zeros());
        assert!(tally.failed > 0, "{}: failures were injected", entry.name);
        faults.on.store(false, Ordering::Relaxed);
        let mut store = pool.close().unwrap();
        let verified = verify(&mut store, &tally, entry.name);
        assert!(verified > 1_000, "{}", entry.name);
    }
}

/// LRU, FD-Buffer with clusters, ARC and ACE reading ahead over a file
/// store with 20 µs per I/O and injected failures, closed and reopened
/// after each policy's run.
#[test]
fn file_store_pool_keeps_every_acknowledged_update_across_reopen_under_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages");
    for (round, name) in ["lru", "fdbuffer:cluster=4", "arc", "ace:ne=4,pf=on"]
        .iter()
        .enumerate()
    {
        let spec = PolicySpec::parse(name).unwrap();
        let policy = boxed_online_policy(&spec, FRAMES, PAGES as usize).unwrap();
        let faults = Faults::new(31, Duration::from_micros(20), 7 + round as u64);
        let file = FileStore::builder(&path)
            .page_size(PAGE_SIZE)
            .open()
            .unwrap();
        // Each round starts from what the last one left in the file.
        let mut before = zeros();
        {
            let mut f = FileStore::builder(&path)
                .page_size(PAGE_SIZE)
                .open()
                .unwrap();
            let mut buf = vec![0u8; PAGE_SIZE];
            for p in 0..PAGES {
                f.read(p, &mut buf).unwrap();
                for (t, c) in before.iter_mut().enumerate() {
                    c[p as usize] = slot(&buf, t);
                }
            }
        }
        let pool = BufferPool::new(
            policy,
            Faulty {
                inner: file,
                faults: faults.clone(),
            },
        )
        .unwrap();
        let tally = hammer(name, &pool, 2_000, 40 + round as u64, &before);
        faults.on.store(false, Ordering::Relaxed);
        let read_ahead = pool.metrics().read_ahead;
        assert_eq!(
            read_ahead > 0,
            name.contains("pf=on"),
            "{name}: {read_ahead} read ahead"
        );
        drop(pool.close().unwrap());
        let mut reopened = FileStore::builder(&path)
            .page_size(PAGE_SIZE)
            .open()
            .unwrap();
        let verified = verify(&mut reopened, &tally, name);
        eprintln!(
            "{name}: {THREADS} threads, {} fixes, {} flushes, {} failures injected, {} failed \
             operations, {read_ahead} pages read ahead, {verified} modifications verified after \
             reopen",
            tally.fixes,
            tally.flushes,
            faults.injected.load(Ordering::Relaxed),
            tally.failed,
        );
    }
}

fn zeros() -> Vec<Vec<u64>> {
    vec![vec![0; PAGES as usize]; THREADS]
}
