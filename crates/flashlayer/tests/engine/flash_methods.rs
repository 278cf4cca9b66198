//! The page update methods behave as their papers say: PDL's three cases
//! of Fig. 4 and its two-page reads, OPU's obsolete marks, IPU's erase per
//! update, IPL's sector writes and merges; every method against a model on
//! random updates; and the buffer pool and B+-tree on a flash store.

use flashlayer::btree::{BTree, Space};
use flashlayer::buffer::BufferPool;
use flashlayer::flash::{FlashStore, FlashStoreBuilder, Method};
use flashlayer::nand::Chip;
use flashlayer::policy::Lru;
use flashlayer::store::PageStore;
use rand::{Rng, SeedableRng};

const PS: usize = 2048;

fn chip(blocks: u32) -> Chip {
    Chip::builder(blocks).data_programs(16).build().unwrap()
}

fn store(method: &str, blocks: u32) -> FlashStore {
    FlashStoreBuilder::new(Method::parse(method).unwrap())
        .create(chip(blocks))
        .unwrap()
}

fn page(fill: u8) -> Vec<u8> {
    vec![fill; PS]
}

#[test]
fn pdl_case_1_keeps_a_small_differential_in_the_write_buffer() {
    let mut s = store("pdl:256", 8);
    s.write(0, &page(1)).unwrap();
    let programs = s.chip().stats().programs;
    let mut p = page(1);
    p[100..110].fill(9);
    s.write(0, &p).unwrap();
    // Read the base page, program nothing: the differential is buffered.
    assert_eq!(s.chip().stats().programs, programs);
    assert_eq!(s.flash_stats().differentials, 1);
    let mut out = page(0);
    s.read(0, &mut out).unwrap();
    assert_eq!(out, p);
    s.flush().unwrap();
    assert_eq!(s.chip().stats().programs, programs + 1);
}

#[test]
fn pdl_case_2_programs_the_full_write_buffer_before_buffering_more() {
    let mut s = store("pdl:2k", 8);
    for l in 0..3 {
        s.write(l, &page(1)).unwrap();
    }
    let programs = s.chip().stats().programs;
    let mut big = page(1);
    big[..900].fill(7);
    s.write(0, &big).unwrap();
    s.write(1, &big).unwrap();
    assert_eq!(s.chip().stats().programs, programs, "two fit in one buffer");
    s.write(2, &big).unwrap();
    assert_eq!(
        s.chip().stats().programs,
        programs + 1,
        "the third does not"
    );
    for l in 0..3 {
        let mut out = page(0);
        s.read(l, &mut out).unwrap();
        assert_eq!(out, big);
    }
}

#[test]
fn pdl_case_3_writes_a_new_base_page_for_a_large_differential() {
    let mut s = store("pdl:256", 8);
    s.write(0, &page(1)).unwrap();
    let before = s.flash_stats().new_base_pages;
    let mut p = page(1);
    p[..600].fill(3);
    s.write(0, &p).unwrap();
    assert_eq!(s.flash_stats().new_base_pages, before + 1);
    assert_eq!(s.flash_stats().differentials, 0);
}

#[test]
fn pdl_reads_at_most_two_pages() {
    let mut s = store("pdl:256", 16);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    for l in 0..200 {
        s.write(l, &page(l as u8)).unwrap();
    }
    for _ in 0..2000 {
        let l = rng.random_range(0..200u64);
        let mut p = page(0);
        s.read(l, &mut p).unwrap();
        let off = rng.random_range(0..PS - 40);
        rng.fill(&mut p[off..off + 40]);
        s.write(l, &p).unwrap();
    }
    s.flush().unwrap();
    for l in 0..200 {
        let reads = s.chip().stats().reads;
        let mut p = page(0);
        s.read(l, &mut p).unwrap();
        assert!(s.chip().stats().reads - reads <= 2);
    }
}

#[test]
fn opu_marks_the_replaced_page_obsolete_in_its_spare_area_or_in_memory() {
    for (in_memory, marks) in [(false, 1), (true, 0)] {
        let mut s = FlashStoreBuilder::new(Method::Opu)
            .obsolete_in_memory(in_memory)
            .create(chip(8))
            .unwrap();
        s.write(0, &page(1)).unwrap();
        let st = s.chip().stats();
        s.write(0, &page(2)).unwrap();
        let after = s.chip().stats();
        assert_eq!(after.programs - st.programs, 1);
        assert_eq!(after.spare_programs - st.spare_programs, marks);
        assert_eq!(after.reads, st.reads, "OPU reads nothing to write");
    }
}

#[test]
fn ipu_erases_and_rewrites_the_block_on_every_update_of_a_written_page() {
    let mut s = store("ipu", 4);
    for l in 0..64 {
        s.write(l, &page(l as u8)).unwrap();
    }
    assert_eq!(
        s.chip().stats().erases,
        0,
        "first writes program erased pages"
    );
    let st = s.chip().stats();
    s.write(5, &page(99)).unwrap();
    let after = s.chip().stats();
    assert_eq!(after.erases - st.erases, 1);
    assert_eq!(after.reads - st.reads, 63);
    assert_eq!(after.programs - st.programs, 64);
    let mut out = page(0);
    s.read(6, &mut out).unwrap();
    assert_eq!(out, page(6));
}

#[test]
fn ipl_programs_a_sector_per_update_log_and_merges_when_the_log_area_is_full() {
    // 16 KiB of log pages: 8 pages of 16 sectors of 128 bytes.
    let mut s = store("ipl:16k", 8);
    s.write(0, &page(0)).unwrap();
    let st = s.chip().stats();
    let mut p = page(0);
    p[10..20].fill(5);
    s.write_changed(0, &p, &[(10, 10)]).unwrap();
    let after = s.chip().stats();
    assert_eq!(after.programs - st.programs, 1, "one 128-byte sector");
    // A change of 300 bytes takes three sectors (108 bytes of records each).
    p[500..800].fill(6);
    s.write_changed(0, &p, &[(500, 300)]).unwrap();
    assert_eq!(s.chip().stats().programs - after.programs, 3);
    let mut out = page(0);
    s.read(0, &mut out).unwrap();
    assert_eq!(out, p);
    // 8 x 16 = 128 sectors fill the log area; the next write merges.
    let erases = s.chip().stats().erases;
    for i in 0..130u32 {
        p[0] = i as u8;
        s.write_changed(0, &p, &[(0, 1)]).unwrap();
    }
    assert!(s.chip().stats().erases > erases);
    assert!(s.flash_stats().gc_runs >= 1);
    s.read(0, &mut out).unwrap();
    assert_eq!(out, p);
}

#[test]
fn every_method_reads_back_what_was_last_written() {
    for method in ["ipu", "opu", "ipl:18k", "ipl:64k", "pdl:256", "pdl:2k"] {
        let mut s = store(method, 24);
        let n = s.logical_pages().min(300) as usize;
        let mut model = vec![vec![0u8; PS]; n];
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        for i in 0..6000 {
            let l = rng.random_range(0..n);
            match rng.random_range(0..10) {
                0..=5 => {
                    let len = rng.random_range(1..200);
                    let off = rng.random_range(0..PS - len);
                    rng.fill(&mut model[l][off..off + len]);
                    s.write_changed(l as u64, &model[l], &[(off as u32, len as u32)])
                        .unwrap();
                }
                6 => s.write(l as u64, &model[l]).unwrap(),
                7 => s.flush().unwrap(),
                _ => {
                    let mut out = page(0);
                    s.read(l as u64, &mut out).unwrap();
                    assert_eq!(out, model[l], "{method}: page {l} at step {i}");
                }
            }
        }
        assert!(s.chip().stats().erases > 0, "{method} must reclaim space");
    }
}

#[test]
fn a_btree_on_a_buffer_pool_over_a_flash_store_survives_reopening_the_chip() {
    for method in ["opu", "pdl:256", "ipl:18k"] {
        let s = store(method, 32);
        let pool = BufferPool::new(Lru::new(16), s).unwrap();
        let sp = Space::create(pool).unwrap();
        let t = BTree::create(&sp, "t").unwrap();
        for k in 0..3000u64 {
            t.insert(&sp, &k.to_be_bytes(), &(k * 7).to_be_bytes())
                .unwrap();
        }
        sp.flush().unwrap();
        let chip = sp.close().unwrap().into_chip();
        let s = FlashStoreBuilder::new(Method::parse(method).unwrap())
            .recover(chip)
            .unwrap();
        let sp = Space::open(BufferPool::new(Lru::new(16), s).unwrap()).unwrap();
        let t = BTree::open(&sp, "t").unwrap();
        for k in (0..3000u64).step_by(37) {
            assert_eq!(
                t.get(&sp, &k.to_be_bytes()).unwrap(),
                Some((k * 7).to_be_bytes().to_vec()),
                "{method}: key {k}"
            );
        }
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let err = |r: flashlayer::Result<()>| r.unwrap_err().to_string();
    let mut s = store("pdl:256", 8);
    assert!(err(s.write(0, &[0; 10])).contains("2048-byte pages"));
    assert!(err(s.write(1 << 40, &page(0))).contains("beyond the store's"));
    assert!(err(s.write_changed(0, &page(0), &[(2000, 100)])).contains("beyond the"));
    for bad in ["nosuch", "pdl", "pdl:-3", "ipu:4", "ipl:abc"] {
        assert!(Method::parse(bad).is_err(), "{bad}");
    }
    let small = FlashStoreBuilder::new(Method::Opu)
        .logical_pages(1000)
        .create(chip(4));
    assert!(small.unwrap_err().to_string().contains("too small"));
    let ipl = FlashStoreBuilder::new(Method::parse("ipl:3k").unwrap()).create(chip(4));
    assert!(ipl.unwrap_err().to_string().contains("whole number"));
    let mut used = chip(8);
    used.program(0, &page(0), &[0xFF; 64]).unwrap();
    let e = FlashStoreBuilder::new(Method::Opu).create(used);
    assert!(e.unwrap_err().to_string().contains("recover"));
    // A chip holds one method's pages: it knows the method that formatted
    // it, and another method is refused.
    for (first, then) in [("pdl:256", "ipl:16k"), ("opu", "ipu")] {
        let mut s = store(first, 8);
        s.write(0, &page(1)).unwrap();
        match FlashStoreBuilder::new(Method::parse(then).unwrap()).recover(s.into_chip()) {
            Ok(_) => panic!("{then} recovered a {first} chip"),
            Err(e) => assert!(
                e.to_string().contains(&format!(
                    "holds a {first} store; recover it with that method"
                )),
                "{e}"
            ),
        }
    }
    // A chip that forbids re-programming a spare area needs marks in memory.
    let strict = Chip::builder(8).spare_programs(1).build().unwrap();
    let e = FlashStoreBuilder::new(Method::Opu).create(strict);
    assert!(e.unwrap_err().to_string().contains("keep them in memory"));
}
