//! A run writes only what it was asked to write: a file store's database
//! file is created, or is one a flashlayer run wrote and nobody changed
//! since, or the user said to replace it; never the trace being read.

use flashlayer::policy::PolicySpec;
use flashlayer::sim::{self, is_database_file, ReplayOptions, Replayed, StoreSpec};
use flashlayer::spec::Size;
use flashlayer::trace::{Flt, FltWriter};
use flashlayer::types::Op;
use std::path::{Path, PathBuf};

fn trace(path: &Path) -> Flt {
    let mut w = FltWriter::create(path).unwrap();
    for (p, op) in [(1, Op::Read), (2, Op::Write), (3, Op::Read), (1, Op::Write)] {
        w.push(p, op).unwrap();
    }
    w.finish().unwrap();
    Flt::open(path).unwrap()
}

/// A fresh folder, holding [`trace`] and nothing else, and the path of a
/// database file `name` in it.
fn beside_trace(name: &str) -> (tempfile::TempDir, Flt, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    let db = dir.path().join(name);
    (dir, t, db)
}

/// `t` through LRU with two frames over `store`.
fn run(t: &Flt, store: &str) -> flashlayer::Result<Replayed> {
    run_with(t, 2, store)
}

/// `t` through LRU with `frames` frames over `store`.
fn run_with(t: &Flt, frames: u64, store: &str) -> flashlayer::Result<Replayed> {
    sim::replay(
        t,
        &PolicySpec::parse("lru").unwrap(),
        Size::Pages(frames),
        &StoreSpec::parse(store)?,
        &ReplayOptions::default(),
        &mut |_| Ok(()),
    )
}

#[test]
fn a_file_store_never_writes_over_the_trace_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.flt");
    let t = trace(&path);
    let before = std::fs::read(&path).unwrap();
    for store in ["file:path=", "file:replace=on,path="] {
        let spec = format!("{store}{}", path.display());
        let e = run(&t, &spec).unwrap_err().to_string();
        assert!(e.contains("is the trace this run reads"), "{e}");
    }
    // Through a link too.
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let e = run(&t, &format!("file:replace=on,path={}", link.display())).unwrap_err();
    assert!(e.to_string().contains("is the trace this run reads"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_file_store_refuses_a_file_flashlayer_did_not_write_unless_told_to_replace_it() {
    let (_dir, t, db) = beside_trace("precious.db");
    std::fs::write(&db, b"the user's bytes").unwrap();
    let e = run(&t, &format!("file:path={}", db.display()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("exists and is not a database file flashlayer wrote"),
        "{e}"
    );
    assert!(e.contains("replace=on"), "the error says how to go on: {e}");
    assert_eq!(std::fs::read(&db).unwrap(), b"the user's bytes");
    assert!(!is_database_file(&db));

    let r = run(&t, &format!("file:replace=on,path={}", db.display())).unwrap();
    assert_eq!(r.metrics.requests, 4);
    assert!(
        is_database_file(&db),
        "once replaced, the file is flashlayer's"
    );
}

#[test]
fn a_database_an_earlier_run_wrote_is_reused_until_someone_changes_it() {
    let (_dir, t, db) = beside_trace("new.db");
    let spec = format!("file:path={}", db.display());
    let first = run(&t, &spec).unwrap();
    assert!(is_database_file(&db));
    let again = run(&t, &spec).unwrap();
    assert_eq!(first.metrics.misses, again.metrics.misses);

    // Another program appends to it: it is no longer flashlayer's.
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&db)
        .unwrap()
        .write_all(b"x")
        .unwrap();
    let len = std::fs::metadata(&db).unwrap().len();
    let e = run(&t, &spec).unwrap_err().to_string();
    assert!(e.contains("changed since"), "{e}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), len);
}

#[test]
fn a_run_that_fails_removes_only_the_file_it_created() {
    let (_dir, t, db) = beside_trace("fresh.db");
    // O_DIRECT needs a page size that is a multiple of 4096: the store
    // refuses to open, after the claim created the file.
    let spec = format!("file:path={},direct=on,page_size=1024", db.display());
    assert!(run(&t, &spec).is_err());
    assert!(!db.exists(), "the file this run created is gone");

    std::fs::write(&db, b"kept").unwrap();
    let spec = format!(
        "file:path={},replace=on,direct=on,page_size=1024",
        db.display()
    );
    assert!(run(&t, &spec).is_err());
    assert_eq!(std::fs::read(&db).unwrap(), b"kept");
}

#[test]
fn runs_on_one_database_file_take_turns() {
    let (_dir, t, db) = beside_trace("shared.db");
    let spec = format!("file:path={}", db.display());
    let rows: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| run(&t, &spec))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in rows {
        let r = r.expect("each run waits for the one before and finds the file flashlayer's");
        assert_eq!(r.metrics.requests, 4);
    }
    assert!(is_database_file(&db));
}

fn read_only_trace(path: &Path, pages: u64, n: u64) -> Flt {
    let mut w = FltWriter::create(path).unwrap();
    for i in 0..n {
        w.push((i * 7919) % pages, Op::Read).unwrap();
    }
    w.finish().unwrap();
    Flt::open(path).unwrap()
}

#[test]
fn a_flash_store_starts_from_a_written_database_so_every_miss_reads_the_chip() {
    let dir = tempfile::tempdir().unwrap();
    let t = read_only_trace(&dir.path().join("ro.flt"), 1000, 20_000);
    let r = run_with(&t, 100, "flash:changed=64").unwrap();
    let reads = r.field("chip_reads").and_then(|v| v.int()).unwrap();
    let programs = r.field("chip_programs").and_then(|v| v.int()).unwrap();
    // Each miss reads its page from the chip (a base page: one read);
    // loading the database before the run is not counted.
    assert_eq!(reads, r.metrics.physical_reads);
    assert_eq!(programs, 0, "a read-only run programs nothing");
    assert!(r.metrics.virtual_time >= 110.0 * reads as f64);
}

#[test]
fn a_flash_store_too_small_for_its_trace_names_the_key_that_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    // The default chip holds any trace, however small.
    run(&t, "flash:changed=8").unwrap();
    let e = run(&t, "flash:changed=8,blocks=2").unwrap_err().to_string();
    assert!(
        e.contains("blocks=2 is too few") && e.contains("at least blocks=7"),
        "{e}"
    );
    let r = run(&t, "flash:changed=8,blocks=7").unwrap();
    assert_eq!(r.field("flash_blocks").and_then(|v| v.int()), Some(7));
}

#[test]
fn a_chip_holds_one_store_and_knows_its_method() {
    use flashlayer::flash::{FlashStoreBuilder, Method};
    use flashlayer::nand::Chip;
    use flashlayer::store::PageStore;
    use std::sync::{Arc, Mutex};

    let chip = Arc::new(Mutex::new(Chip::builder(16).build().unwrap()));
    let pdl = FlashStoreBuilder::new(Method::parse("pdl:256").unwrap()).logical_pages(64);
    let mut first = pdl.create(chip.clone()).unwrap();
    let e = pdl.create(chip.clone()).unwrap_err().to_string();
    assert!(e.contains("holds a pdl:256 store already"), "{e}");
    let page = vec![7u8; 2048];
    first.write(3, &page).unwrap();
    first.flush().unwrap();

    let opu = FlashStoreBuilder::new(Method::parse("opu").unwrap()).logical_pages(64);
    let e = opu.recover(chip.clone()).unwrap_err().to_string();
    assert!(e.contains("recover it with that method"), "{e}");

    // A store recovered on the chip supersedes the first, which may no
    // longer touch it.
    let mut second = pdl.recover(chip.clone()).unwrap();
    let e = first.write(3, &vec![9u8; 2048]).unwrap_err().to_string();
    assert!(e.contains("supersedes this one"), "{e}");
    let mut buf = vec![0u8; 2048];
    second.read(3, &mut buf).unwrap();
    assert_eq!(buf, page);
}
