//! The one spec grammar (`flashlayer::spec`) under fuzzing: any text given
//! to any kind's parser is a spec or an error naming what is wrong, never a
//! panic; what parses prints a canonical spec that parses back to itself,
//! and its short form (defaults left out) means the same spec.

use flashlayer::device::{DeviceModel, DEVICES};
use flashlayer::flash::{Method, METHODS};
use flashlayer::policy::{PolicySpec, POLICIES};
use flashlayer::sim::{StoreSpec, STORES};
use flashlayer::spec::{self, Size, Table};
use flashlayer::tier::{SchemeSpec, SCHEMES};
use flashlayer::workload::{WorkloadSpec, WORKLOADS};
use proptest::prelude::*;

/// Pieces specs are made of: every name and key of the tables, values of
/// each type, and the grammar's punctuation, so random joins of them reach
/// deep into the parser (valid names with bad keys, nested specs, lists).
fn pieces() -> Vec<String> {
    let mut out: Vec<String> = [
        ":",
        ",",
        "=",
        "%",
        "0",
        "1",
        "0.5",
        "1.5",
        "-1",
        "auto",
        "on",
        "off",
        "x",
        "",
        "5%",
        "100%",
        "ratio:1:8",
        "pdl:256",
        "ipl:18k",
        "read=1,write=2",
        "99999999999999999999",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for table in [&POLICIES, &SCHEMES, &STORES, &WORKLOADS, &METHODS, &DEVICES] {
        for e in table.entries {
            out.push(e.name.to_owned());
            for p in e.params {
                out.push(p.key.to_owned());
                out.push(format!("{}=", p.key));
                out.push(format!("{}={}", p.key, p.default));
            }
        }
    }
    out
}

/// Values a key may take, good and bad.
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "64",
    "0.25",
    "0.5",
    "1.5",
    "auto",
    "on",
    "off",
    "lru",
    "arc",
    "fifo",
    "belady",
    "5%",
    "120%",
    "ratio:1:8",
    "hypro-ssd",
    "pdl:256",
    "opu",
    "hybrid",
    "optimal",
    "lc",
    "tac:extent=8",
];

/// A name of `table` with a random selection of its keys, each with its
/// default or another value: specs that mostly parse.
fn structured(table: &'static Table) -> impl Strategy<Value = String> {
    (
        0..table.entries.len(),
        prop::collection::vec((any::<prop::sample::Index>(), 0..VALUES.len() * 3), 0..5),
    )
        .prop_map(move |(e, picks)| {
            let entry = &table.entries[e];
            let mut out = entry.name.to_owned();
            for (i, (key, value)) in picks.into_iter().enumerate() {
                if entry.params.is_empty() {
                    break;
                }
                let p = &entry.params[key.index(entry.params.len())];
                let v = VALUES.get(value).copied().unwrap_or(p.default);
                out.push(if i == 0 { ':' } else { ',' });
                out.push_str(&format!("{}={v}", p.key));
            }
            out
        })
}

fn text() -> impl Strategy<Value = String> {
    let pieces = pieces();
    prop_oneof![
        structured(&POLICIES),
        structured(&SCHEMES),
        structured(&STORES),
        structured(&WORKLOADS),
        structured(&METHODS),
        structured(&DEVICES),
        prop::collection::vec(prop::sample::select(pieces), 0..12).prop_map(|v| v.concat()),
        "[a-z0-9:,=%._-]{0,40}",
        any::<String>(),
    ]
}

/// Parses `text` as a spec of `table`'s kind; the canonical form when it
/// parses.
fn canonical(table: &'static Table, text: &str) -> Option<String> {
    let r = if std::ptr::eq(table, &POLICIES) {
        PolicySpec::parse(text).map(|s| s.to_string())
    } else if std::ptr::eq(table, &SCHEMES) {
        SchemeSpec::parse(text).map(|s| s.to_string())
    } else if std::ptr::eq(table, &WORKLOADS) {
        WorkloadSpec::parse(text).map(|s| s.to_string())
    } else if std::ptr::eq(table, &METHODS) {
        Method::parse(text).map(|s| s.to_string())
    } else if std::ptr::eq(table, &DEVICES) {
        DeviceModel::parse(text).map(|d| d.name)
    } else {
        StoreSpec::parse(text).map(|s| s.to_string())
    };
    match r {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(!e.to_string().is_empty(), "an error says what is wrong");
            None
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_text_is_a_spec_or_an_error_never_a_panic(text in text()) {
        for table in [&POLICIES, &SCHEMES, &STORES, &WORKLOADS, &METHODS, &DEVICES] {
            if let Some(c) = canonical(table, &text) {
                prop_assert_eq!(canonical(table, &c), Some(c.clone()), "canonical is a fixed point");
                let short = spec::short(table, &c);
                prop_assert_eq!(canonical(table, &short), Some(c.clone()), "short means the same");
            }
            let _ = spec::split_list(table, &text, |s| Ok(canonical(table, s)));
        }
        let _ = Size::parse(&text);
    }
}

#[test]
fn workload_defaults_live_in_the_table_and_print_canonically() {
    let tpcc = flashlayer::workload::TpcCParams::default();
    assert_eq!(
        (tpcc.warehouses, tpcc.transactions, tpcc.mix, tpcc.page_size),
        (1, 100_000, [45, 43, 4, 4, 4], 8192)
    );
    let b = flashlayer::workload::BTreeSetsParams::default();
    assert_eq!(
        (b.records, b.range_len, b.insert_share, b.page_size),
        (1_000_000, 100, 0.3, 4096)
    );
    let p = WorkloadSpec::parse("tpcc:warehouses=2,mix=50/40/4/3/3").unwrap();
    assert_eq!(
        p.to_string(),
        "tpcc:warehouses=2,transactions=100000,mix=50/40/4/3/3,page_size=8192"
    );
    for bad in [
        "tpcc:mix=45/43/4/4",
        "tpcc:mix=50/50/1/0/0",
        "tpch:mix=0.5/0.5/0.5",
        "tpch:scale_factor=0",
        "nosuch",
    ] {
        let e = WorkloadSpec::parse(bad).unwrap_err().to_string();
        assert!(e.contains("workload"), "{bad}: {e}");
    }
}
