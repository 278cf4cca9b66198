//! Threads fixing pages of one shared buffer pool: the hit path (every page
//! resident, reads only) and misses over a memory store that sleeps 100 µs
//! per page read and written (whether I/O overlaps). A sample also builds
//! the pool and draws the reference strings; `flashlayer bench pool`
//! times the fixes alone, at more thread counts and over a file too.

use flashlayer::experiment::pool_load::{run, PoolLoad, PoolWorkload};
use std::time::Duration;

fn main() {
    divan::main();
}

fn load(threads: usize, fixes: u64, frames: usize, pages: u64) -> PoolLoad {
    PoolLoad {
        threads,
        fixes,
        frames,
        pages,
        alpha: 0.8,
        write_ratio: 0.2,
        page_size: 4096,
        seed: 42,
    }
}

/// 200,000 all-hit fixes among `threads` threads.
#[divan::bench(args = [1, 2, 4, 8, 16], sample_count = 5)]
fn hits(threads: usize) {
    let r = run(&load(threads, 200_000, 10_000, 10_000), &PoolWorkload::Hits).expect("pool load");
    divan::black_box(r.fixes);
}

/// 2,000 fixes (Zipf 0.8 over 10,000 pages, 1,000 frames, 20% writes)
/// among `threads` threads over a store with 100 µs of latency.
#[divan::bench(args = [1, 2, 4, 8, 16], sample_count = 3)]
fn latency(threads: usize) {
    let w = PoolWorkload::Latency {
        read: Duration::from_micros(100),
        write: Duration::from_micros(100),
    };
    let r = run(&load(threads, 2_000, 1_000, 10_000), &w).expect("pool load");
    divan::black_box(r.fixes);
}
