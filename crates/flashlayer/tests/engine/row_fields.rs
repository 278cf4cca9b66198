//! A run's row holds the fields the engine declares, in their order: every
//! row's ([`sim::ROW`]) and then its kind's ([`sim::KIND_FIELDS`]), each
//! value of its declared type; the API's own are the only ones missing.

use flashlayer::policy::PolicySpec;
use flashlayer::sim::{self, FieldType, ReplayOptions, StoreSpec, KIND_FIELDS, ROW};
use flashlayer::spec::Size;
use flashlayer::trace::{Flt, FltWriter};
use flashlayer::types::{Op, Value};

fn trace(dir: &tempfile::TempDir) -> Flt {
    let path = dir.path().join("t.flt");
    let mut w = FltWriter::create(&path).unwrap();
    for i in 0..4000u64 {
        let op = if i % 3 == 0 { Op::Write } else { Op::Read };
        w.push((i * 37) % 700, op).unwrap();
    }
    w.finish().unwrap();
    Flt::open(&path).unwrap()
}

fn fits(ty: FieldType, v: &Value) -> bool {
    matches!(
        (ty, v),
        (FieldType::Count | FieldType::MaybeCount, Value::Int(_))
            | (FieldType::Number | FieldType::MaybeNumber, Value::Float(_))
            | (FieldType::Text, Value::Text(_))
            | (FieldType::Switch, Value::Switch(_))
            | (
                FieldType::MaybeCount | FieldType::MaybeNumber,
                Value::Absent
            )
    )
}

#[test]
fn every_kinds_row_is_its_declaration_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(&dir);
    let db = dir.path().join("db");
    let specs = [
        ("cost", "cost".to_owned()),
        ("file", format!("file:path={}", db.display())),
        ("flash", "flash:changed=8".to_owned()),
        ("ftl", "ftl:block=8".to_owned()),
        ("hybrid", "hybrid".to_owned()),
        ("tier", "tier".to_owned()),
    ];
    let kinds: Vec<&str> = KIND_FIELDS.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, specs.iter().map(|(k, _)| *k).collect::<Vec<_>>());
    let policy = PolicySpec::parse("lru").unwrap();
    for ((kind, spec), (_, fields)) in specs.iter().zip(KIND_FIELDS) {
        let store = StoreSpec::parse(spec).unwrap();
        let r = sim::replay(
            &t,
            &policy,
            Size::Pages(50),
            &store,
            &ReplayOptions::default(),
            &mut |_| Ok(()),
        )
        .unwrap();
        let row = r.row("t.flt", &policy, &store, 1.0);
        let declared: Vec<_> = ROW
            .iter()
            .chain(fields.iter())
            .filter(|f| !f.by_api)
            .collect();
        let names: Vec<&str> = row.iter().map(|(n, _)| *n).collect();
        let want: Vec<&str> = declared.iter().map(|f| f.name).collect();
        assert_eq!(names, want, "{kind}: the declared fields, in order");
        for f in declared {
            let v = &row.iter().find(|(n, _)| *n == f.name).unwrap().1;
            assert!(
                fits(f.ty, v),
                "{kind}: {} is {v:?}, declared {:?}",
                f.name,
                f.ty
            );
        }
    }
}
