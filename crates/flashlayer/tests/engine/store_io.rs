//! Stores under the pool: O_DIRECT round trips, batches written and pages
//! read ahead k at a time, sequential pricing, and latencies a store
//! measures (what CASA with `cost=measured` learns).

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Casa, CostSource};
use flashlayer::store::{CostStore, FileStore, MemStore, PageStore};
use flashlayer::Error;

const PS: usize = 64;

/// Whether the filesystem under `dir` accepts `O_DIRECT`, asked of the
/// kernel directly (not through the store under test).
fn filesystem_takes_o_direct(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_DIRECT)
        .open(dir.join("probe"))
        .is_ok()
}

#[test]
fn file_store_direct_io_bypasses_the_page_cache_and_round_trips() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("direct.db");
    let opened = FileStore::builder(&path)
        .page_size(4096)
        .direct(true)
        .open();
    if !filesystem_takes_o_direct(dir.path()) {
        // Only a filesystem that refuses O_DIRECT excuses a failure, and
        // then with the kernel's EINVAL, not a fallback to buffered I/O.
        match opened {
            Err(Error::Io { source, .. }) => assert_eq!(source.raw_os_error(), Some(libc::EINVAL)),
            other => panic!("expected EINVAL on a filesystem without O_DIRECT, got {other:?}"),
        }
        return;
    }
    let mut s = opened.expect("the filesystem takes O_DIRECT, so the store must open with it");
    let fdinfo = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", s.as_raw_fd())).unwrap();
    let flags = fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .map(|f| i64::from_str_radix(f.trim(), 8).unwrap())
        .unwrap();
    assert_ne!(
        flags & i64::from(libc::O_DIRECT),
        0,
        "the file is open with O_DIRECT"
    );
    let page: Vec<u8> = (0..4096).map(|i| (i % 251) as u8).collect();
    s.write(5, &page).unwrap();
    s.flush().unwrap();
    let mut back = vec![0u8; 4096];
    s.read(5, &mut back).unwrap();
    assert_eq!(back, page);
    s.read(9, &mut back).unwrap();
    assert!(back.iter().all(|&b| b == 0));
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(
        &on_disk[5 * 4096..6 * 4096],
        &page[..],
        "page 5 sits at its offset"
    );
    let e = FileStore::builder(&path)
        .page_size(1000)
        .direct(true)
        .open()
        .unwrap_err();
    assert!(e.to_string().contains("multiple of 4096"), "{e}");
}

/// On a device of concurrency 8 a file store writes a batch from several
/// threads at once: every page lands at its offset, the batch is priced as
/// ⌈n/k⌉ writes, and a page the store does not hold fails the batch.
#[test]
fn a_file_store_writes_a_batch_k_at_a_time_and_every_page_lands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let mut s = FileStore::builder(&path)
        .page_size(512)
        .device(DeviceModel::parse("ratio:1:4,k=8").unwrap())
        .pages(0..40)
        .open()
        .unwrap();
    let pages: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i + 1; 512]).collect();
    let batch: Vec<(u64, &[u8])> = (0..20).map(|i| (2 * i as u64, &pages[i][..])).collect();
    s.write_batch(&batch).unwrap();
    let mut back = vec![0u8; 512];
    for (i, p) in pages.iter().enumerate() {
        s.read(2 * i as u64, &mut back).unwrap();
        assert_eq!(&back, p, "page {}", 2 * i);
    }
    let st = s.stats();
    assert_eq!(st.writes, 20);
    assert!(
        (st.virtual_time - (20.0 + 3.0 * 4.0)).abs() < 1e-9,
        "{st:?}"
    );
    let bad: Vec<(u64, &[u8])> = vec![(1, &pages[0][..]), (77, &pages[1][..]), (3, &pages[2][..])];
    let e = s.write_batch(&bad).unwrap_err();
    assert!(e.to_string().contains("page 77"), "{e}");
}

/// Pages read ahead go to the file store as a batch too, `k` at a time:
/// each page's bytes land in its place in the buffer, the batch is priced
/// as ⌈n/k⌉ reads, a buffer of the wrong size is refused, and a page the
/// store does not hold fails the batch.
#[test]
fn a_file_store_reads_pages_ahead_k_at_a_time_each_into_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = FileStore::builder(dir.path().join("db"))
        .page_size(512)
        .device(DeviceModel::parse("ratio:1:4,k=8").unwrap())
        .pages(0..40)
        .open()
        .unwrap();
    for p in 0..40u8 {
        s.write(p.into(), &[p; 512]).unwrap();
    }
    let before = s.stats();
    let wanted: Vec<u64> = (5..25).rev().collect();
    let mut buf = vec![0u8; 512 * wanted.len()];
    s.read_ahead(4, &wanted, &mut buf).unwrap();
    for (page, bytes) in wanted.iter().zip(buf.chunks_exact(512)) {
        assert!(bytes.iter().all(|&b| u64::from(b) == *page), "page {page}");
    }
    let st = s.stats();
    assert_eq!(st.reads - before.reads, 20);
    assert!(
        (st.virtual_time - before.virtual_time - 3.0).abs() < 1e-9,
        "{st:?}"
    );
    let e = s.read_ahead(4, &wanted, &mut buf[..512]).unwrap_err();
    assert!(e.to_string().contains("for 20 pages"), "{e}");
    let mut two = vec![0u8; 1024];
    let e = s.read_ahead(4, &[6, 77], &mut two).unwrap_err();
    assert!(e.to_string().contains("page 77"), "{e}");
}

#[test]
fn stores_price_batches_as_sequential_when_pages_follow_each_other() {
    let mut s = CostStore::new(DeviceModel::preset("koltsidas08-flash").unwrap());
    s.write_batch(&[(10, &[][..]), (11, &[][..]), (12, &[][..]), (20, &[][..])])
        .unwrap();
    let st = s.stats();
    assert_eq!((st.writes, st.seq_writes), (4, 2));
    assert!((st.virtual_time - (118.0 * 2.0 + 11.8 * 2.0)).abs() < 1e-9);
}

/// A store whose reads take 100 µs and writes 400 µs, as it measures them.
#[derive(Debug)]
struct KnownLatency {
    inner: MemStore,
    last: f64,
}

impl PageStore for KnownLatency {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn read(&mut self, page: u64, buf: &mut [u8]) -> flashlayer::Result<()> {
        self.last = 100.0;
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: u64, buf: &[u8]) -> flashlayer::Result<()> {
        self.last = 400.0;
        self.inner.write(page, buf)
    }
    fn write_batch(&mut self, batch: &[(u64, &[u8])]) -> flashlayer::Result<()> {
        self.last = 400.0;
        self.inner.write_batch(batch)
    }
    pass_through!();
    fn measures_latency(&self) -> bool {
        true
    }
    fn measured_latency(&self) -> Option<f64> {
        Some(self.last)
    }
}

/// CASA with `cost=measured` in a buffer pool learns c_R : c_W = 1 : 4 from
/// a store that measures reads at 100 µs and writes at 400 µs, whatever its
/// device model says; over a store that measures nothing it is refused.
#[test]
fn casa_measured_learns_the_latencies_the_store_reports() {
    let store = KnownLatency {
        inner: MemStore::new(PS, DeviceModel::unit()),
        last: 0.0,
    };
    let pool = BufferPool::new(Casa::new(4, CostSource::Measured { n: 16 }), store).unwrap();
    for i in 0..200u64 {
        let page = (i * 7) % 23;
        if i % 3 == 0 {
            pool.fix_write(page).unwrap()[0] = i as u8;
        } else {
            drop(pool.fix_read(page).unwrap());
        }
    }
    let m = pool.metrics();
    assert!(m.physical_reads > 16 && m.physical_writes > 16, "{m:?}");
    let (cr, cw) = pool.with_policy(|c| c.costs());
    assert!(
        (cr - 0.2).abs() < 1e-12 && (cw - 0.8).abs() < 1e-12,
        "{cr} {cw}"
    );

    let e = BufferPool::new(
        Casa::new(4, CostSource::Measured { n: 16 }),
        MemStore::new(PS, DeviceModel::unit()),
    )
    .unwrap_err();
    assert!(e.to_string().contains("measures none"), "{e}");
}

/// A real file store reports positive latencies, which CASA averages.
#[test]
fn file_store_measures_its_io() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::builder(dir.path().join("db"))
        .page_size(4096)
        .open()
        .unwrap();
    assert!(store.measures_latency());
    let pool = BufferPool::new(Casa::new(2, CostSource::Measured { n: 8 }), store).unwrap();
    for page in 0..20u64 {
        pool.fix_write(page).unwrap()[0] = 1;
    }
    let (cr, cw) = pool.with_policy(|c| c.costs());
    assert!(cr > 0.0 && cw > 0.0 && (cr + cw - 1.0).abs() < 1e-12);
    assert_ne!((cr, cw), (0.5, 0.5), "measured, not the 1:1 default");
}
