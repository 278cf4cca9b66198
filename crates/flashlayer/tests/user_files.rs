//! A run writes only what it was asked to write: a file store's database
//! file is created, or is one a flashlayer run wrote and nobody changed
//! since, or the user said to replace it; never the trace being read.

use flashlayer::policy::PolicySpec;
use flashlayer::sim::{self, is_database_file, ReplayOptions, Replayed, StoreSpec};
use flashlayer::spec::Size;
use flashlayer::trace::{Flt, FltWriter};
use flashlayer::types::Op;
use std::path::Path;

fn trace(path: &Path) -> Flt {
    let mut w = FltWriter::create(path).unwrap();
    for (p, op) in [(1, Op::Read), (2, Op::Write), (3, Op::Read), (1, Op::Write)] {
        w.push(p, op).unwrap();
    }
    w.finish().unwrap();
    Flt::open(path).unwrap()
}

fn run(t: &Flt, store: &str) -> flashlayer::Result<Replayed> {
    sim::replay(
        t,
        &PolicySpec::parse("lru").unwrap(),
        Size::Pages(2),
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
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    let db = dir.path().join("precious.db");
    std::fs::write(&db, b"the user's bytes").unwrap();
    let e = run(&t, &format!("file:path={}", db.display()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("exists and is not a database file flashlayer wrote"), "{e}");
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
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    let db = dir.path().join("new.db");
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
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    let db = dir.path().join("fresh.db");
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
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir.path().join("t.flt"));
    let db = dir.path().join("shared.db");
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
