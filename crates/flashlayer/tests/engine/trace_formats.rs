//! Trace readers and writers: round-trips, block-to-page mapping, clear
//! errors with file and line, and arbitrary bytes never panicking a parser.

use flashlayer::trace::{self, Flt, Format, ReadOptions};
use flashlayer::types::{Op, PageId};
use flashlayer::Error;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn read_all(path: &Path, opts: ReadOptions) -> flashlayer::Result<Vec<(PageId, Op)>> {
    let mut v = Vec::new();
    trace::for_each(path, opts, |p, op| {
        v.push((p, op));
        Ok(())
    })?;
    Ok(v)
}

fn fmt(f: Format) -> ReadOptions {
    ReadOptions {
        format: Some(f),
        page_size: None,
        csv: None,
    }
}

/// Writes `reqs` to `stem.flt`, `stem.csv` and `stem.csv.gz` under `dir`,
/// with the byte section when `bytes`; returns the three paths.
fn write_every_format(dir: &Path, stem: &str, bytes: bool, reqs: &WithBytes) -> Vec<PathBuf> {
    ["flt", "csv", "csv.gz"]
        .map(|ext| {
            let path = dir.join(format!("{stem}.{ext}"));
            let to = trace::output_format(&path, None).unwrap();
            let n = trace::write_all(&path, to, bytes, |emit| {
                for (p, op, r) in reqs {
                    emit(*p, *op, r)?;
                }
                Ok(())
            })
            .unwrap();
            assert_eq!(n, reqs.len() as u64);
            path
        })
        .to_vec()
}

fn requests_strategy() -> impl Strategy<Value = Vec<(PageId, Op)>> {
    prop::collection::vec(
        (prop_oneof![0u64..50, any::<u64>()], any::<bool>())
            .prop_map(|(p, w)| (p, if w { Op::Write } else { Op::Read })),
        1..300,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_writer_round_trips(reqs in requests_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let plain: WithBytes = reqs.iter().map(|&(p, op)| (p, op, Vec::new())).collect();
        for path in write_every_format(dir.path(), "t", false, &plain) {
            prop_assert_eq!(&read_all(&path, ReadOptions::default()).unwrap(), &reqs);
        }
        // Converting flt -> csv -> flt keeps the requests.
        let back = dir.path().join("back.flt");
        trace::convert(&dir.path().join("t.csv.gz"), ReadOptions::default(), &back, None).unwrap();
        prop_assert_eq!(&read_all(&back, ReadOptions::default()).unwrap(), &reqs);
    }

    #[test]
    fn flt_dense_ids_follow_first_appearance(reqs in requests_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.flt");
        trace::write_all(&path, Format::Flt, false, |emit| {
            for &(p, op) in &reqs { emit(p, op, &[])?; }
            Ok(())
        }).unwrap();
        let t = Flt::open(&path).unwrap();
        let mut seen: Vec<PageId> = Vec::new();
        for (i, (d, op)) in t.requests().enumerate() {
            let orig = t.original(d);
            prop_assert_eq!((orig, op), reqs[i]);
            if !seen.contains(&orig) {
                prop_assert_eq!(d as usize, seen.len());
                seen.push(orig);
            }
        }
        prop_assert_eq!(t.pages(), seen.len());
    }

    #[test]
    fn arbitrary_bytes_never_panic_any_reader(bytes in prop::collection::vec(any::<u8>(), 0..600), gz: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.bin");
        let data = if gz {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            e.finish().unwrap()
        } else {
            bytes.clone()
        };
        std::fs::write(&path, &data).unwrap();
        for f in [Format::Csv, Format::Flt, Format::Vscsi, Format::Msr, Format::Spc, Format::Oracle] {
            let _ = read_all(&path, fmt(f));
            let _ = trace::load(&path, fmt(f));
        }
        let _ = Format::detect(&path);
    }

    #[test]
    fn damaged_flt_files_are_rejected_not_misread(reqs in requests_strategy(), cut in 0usize..4000, flip in 0usize..4000) {
        prop_assume!(!reqs.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.flt");
        trace::write_all(&path, Format::Flt, false, |emit| {
            for &(p, op) in &reqs { emit(p, op, &[])?; }
            Ok(())
        }).unwrap();
        let good = std::fs::read(&path).unwrap();
        let cut_at = cut % good.len();
        std::fs::write(&path, &good[..cut_at]).unwrap();
        prop_assert!(Flt::open(&path).is_err());
        let mut bad = good.clone();
        let i = 40 + flip % (good.len() - 40);
        bad[i] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        prop_assert!(Flt::open(&path).is_err());
    }
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn csv_errors_name_file_line_and_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "page,op\n1,R\n2,W\n\n3,R\n4,R\n5,R\n6,X\n",
            8,
            "expected op R or W, found 'X'",
        ),
        (
            "1,R\nabc,W\n",
            2,
            "expected a page id as an unsigned integer, found 'abc'",
        ),
        ("1,R,5\n", 1, "expected 2 fields (page,op), found 3"),
        ("1\n", 1, "expected 2 fields (page,op), found 1"),
        ("-4,R\n", 1, "found '-4'"),
    ];
    for (text, line, needle) in cases {
        let p = write(dir.path(), "trace.csv", text);
        match read_all(&p, ReadOptions::default()) {
            Err(Error::Parse { path, line: l, msg }) => {
                assert_eq!(path, p);
                assert_eq!(l, line, "{text:?}");
                assert!(msg.contains(needle), "{msg}");
            }
            other => panic!("{text:?}: expected a parse error, got {other:?}"),
        }
    }
    let e = read_all(
        &write(dir.path(), "trace.csv", "1,R\n2,Q\n"),
        ReadOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("trace.csv:2: expected op R or W, found 'Q'"),
        "{e}"
    );
}

#[test]
fn msr_requests_become_4k_pages_per_device() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "hm_0.csv",
        "128166372003061629,hm,0,Write,8192,8192,100\n128166372003061630,hm,1,Read,4095,2,50\n128166372003061631,hm,0,Read,0,0,50\n",
    );
    assert_eq!(Format::detect(&p).unwrap(), Format::Msr);
    let got = read_all(&p, ReadOptions::default()).unwrap();
    let dev1 = 1u64 << 48;
    assert_eq!(
        got,
        vec![
            (2, Op::Write),
            (3, Op::Write),
            (dev1, Op::Read),
            (dev1 + 1, Op::Read),
            (0, Op::Read)
        ]
    );
    // Page size 0: one reference per request, keyed by its start byte.
    let got = read_all(
        &p,
        ReadOptions {
            format: None,
            page_size: Some(0),
            csv: None,
        },
    )
    .unwrap();
    assert_eq!(
        got,
        vec![(8192, Op::Write), (dev1 + 4095, Op::Read), (0, Op::Read)]
    );
    // 8 KiB pages.
    let got = read_all(
        &p,
        ReadOptions {
            format: None,
            page_size: Some(8192),
            csv: None,
        },
    )
    .unwrap();
    assert_eq!(got, vec![(1, Op::Write), (dev1, Op::Read), (0, Op::Read)]);
}

#[test]
fn spc_lbas_are_512_byte_sectors() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "fin.spc", "0,8,4096,w,0.0\n1,16,1,R,0.1\n");
    let got = read_all(&p, ReadOptions::default()).unwrap();
    assert_eq!(got, vec![(1, Op::Write), ((1 << 48) | 2, Op::Read)]);
    let e = read_all(
        &write(dir.path(), "bad.spc", "0,8,4096,x,0.0\n"),
        ReadOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("bad.spc:1: expected Opcode r or w, found 'x'"),
        "{e}"
    );
}

fn vscsi_record(len: u32, cmd: u16, lbn: u64) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(&1u32.to_le_bytes());
    r.extend_from_slice(&len.to_le_bytes());
    r.extend_from_slice(&1u32.to_le_bytes());
    r.extend_from_slice(&cmd.to_le_bytes());
    r.extend_from_slice(&0x0100u16.to_le_bytes());
    r.extend_from_slice(&lbn.to_le_bytes());
    r.extend_from_slice(&123u64.to_le_bytes());
    r
}

#[test]
fn vscsi_records_map_to_pages_and_reject_unknown_opcodes() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vscsi_record(8192, 0x28, 8);
    bytes.extend(vscsi_record(512, 0x2A, 0));
    let p = dir.path().join("t.vscsi");
    std::fs::write(&p, &bytes).unwrap();
    assert_eq!(
        read_all(&p, ReadOptions::default()).unwrap(),
        vec![(1, Op::Read), (2, Op::Read), (0, Op::Write)]
    );
    bytes.extend(vscsi_record(512, 0x35, 0));
    std::fs::write(&p, &bytes).unwrap();
    let e = read_all(&p, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "t.vscsi: record 3 at byte offset 64: expected a SCSI READ or WRITE opcode, found 0x35"
        ),
        "{e}"
    );
    bytes.truncate(32 * 2 + 5);
    std::fs::write(&p, &bytes).unwrap();
    let e = read_all(&p, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "record 3 at byte offset 64: truncated: the file ends after 5 of the record's 32 bytes"
        ),
        "{e}"
    );
}

#[test]
fn oracle_general_records_are_object_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    for id in [7u64, 9, 7] {
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&id.to_le_bytes());
        bytes.extend_from_slice(&4096u32.to_le_bytes());
        bytes.extend_from_slice(&(-1i64).to_le_bytes());
    }
    let p = dir.path().join("w.oracleGeneral.bin");
    std::fs::write(&p, &bytes).unwrap();
    assert_eq!(
        read_all(&p, ReadOptions::default()).unwrap(),
        vec![(7, Op::Read), (9, Op::Read), (7, Op::Read)]
    );
    let e = read_all(
        &p,
        ReadOptions {
            format: None,
            page_size: Some(4096),
            csv: None,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--page-size applies to block traces"), "{e}");
}

#[test]
fn truncated_flt_says_what_the_header_promised() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.flt");
    trace::write_all(&p, Format::Flt, false, |emit| {
        for i in 0..10 {
            emit(i, Op::Read, &[])?;
        }
        Ok(())
    })
    .unwrap();
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 3]).unwrap();
    let e = Flt::open(&p).unwrap_err().to_string();
    assert!(
        e.contains("header says 10 requests and 10 pages (160 bytes), file has 157 bytes"),
        "{e}"
    );
    std::fs::write(&p, &bytes[..12]).unwrap();
    let e = Flt::open(&p).unwrap_err().to_string();
    assert!(e.contains("shorter than the 40-byte flt header"), "{e}");
}

#[test]
fn format_detection_uses_extension_magic_and_first_line() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Format::detect(&write(dir.path(), "a.txt", "page,op\n1,R\n")).unwrap(),
        Format::Csv
    );
    assert_eq!(
        Format::detect(&write(dir.path(), "b.txt", "0,1,512,r,0.0\n")).unwrap(),
        Format::Spc
    );
    let flt = dir.path().join("noext");
    trace::write_all(&flt, Format::Flt, false, |emit| emit(1, Op::Read, &[])).unwrap();
    assert_eq!(Format::detect(&flt).unwrap(), Format::Flt);
    let e = Format::detect(&write(dir.path(), "c.bin", "\u{1}\u{2}garbage"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot tell the trace format; pass --format"),
        "{e}"
    );
}

#[test]
fn concat_repeats_phases_and_disjoint_separates_sources() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.csv", "1,R\n2,W\n");
    let b = write(dir.path(), "b.csv", "1,R\n");
    let out = dir.path().join("c.csv");
    let o = ReadOptions::default();
    trace::concat(&[(&a, o), (&b, o), (&a, o)], true, &out).unwrap();
    let got = read_all(&out, o).unwrap();
    let tag = 1u64 << 56;
    assert_eq!(
        got,
        vec![
            (1, Op::Read),
            (2, Op::Write),
            (tag | 1, Op::Read),
            (1, Op::Read),
            (2, Op::Write)
        ]
    );
    trace::concat(&[(&a, o), (&b, o)], false, &out).unwrap();
    assert_eq!(
        read_all(&out, o).unwrap(),
        vec![(1, Op::Read), (2, Op::Write), (1, Op::Read)]
    );
}

#[test]
fn stats_count_hot_pages_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    // Page 0: 16 requests; pages 1..=9: 1 request each. ceil(20% of 10) = 2
    // hot pages: 16 + 1 of 25 requests.
    let mut text = String::from("page,op\n");
    for _ in 0..16 {
        text.push_str("0,W\n");
    }
    for p in 1..=9 {
        text.push_str(&format!("{p},R\n"));
    }
    let p = write(dir.path(), "s.csv", &text);
    let t = trace::load(&p, ReadOptions::default()).unwrap();
    let s = trace::stats(&t);
    assert_eq!(
        (
            s.requests,
            s.reads,
            s.writes,
            s.distinct_pages,
            s.pages_written
        ),
        (25, 9, 16, 10, 1)
    );
    assert!((s.hot20_share - 17.0 / 25.0).abs() < 1e-12);
}

type WithBytes = Vec<(PageId, Op, Vec<flashlayer::types::ByteRange>)>;

fn read_bytes(path: &Path) -> WithBytes {
    let mut v = Vec::new();
    trace::for_each_with_bytes(path, ReadOptions::default(), |p, op, r| {
        v.push((p, op, r.to_vec()));
        Ok(())
    })
    .unwrap();
    v
}

fn with_bytes_strategy() -> impl Strategy<Value = WithBytes> {
    let range = (any::<u16>(), 1u16..500)
        .prop_map(|(offset, len)| flashlayer::types::ByteRange { offset, len });
    prop::collection::vec(
        (0u64..40, any::<bool>(), prop::collection::vec(range, 0..4)).prop_map(|(p, w, r)| {
            if w {
                (p, Op::Write, r)
            } else {
                (p, Op::Read, Vec::new())
            }
        }),
        // Empty traces are an error of their own (`an_empty_trace_is_an_error_not_zero_requests`).
        1..200,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn byte_ranges_round_trip_through_every_writer_and_convert(reqs in with_bytes_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        for path in write_every_format(dir.path(), "b", true, &reqs) {
            prop_assert!(trace::has_bytes(&path, ReadOptions::default()).unwrap());
            prop_assert_eq!(&read_bytes(&path), &reqs);
        }
        let back = dir.path().join("back.flt");
        trace::convert(&dir.path().join("b.csv.gz"), ReadOptions::default(), &back, None).unwrap();
        prop_assert_eq!(&read_bytes(&back), &reqs);
        // The simulator's view (no bytes) is unaffected by the section.
        let t = trace::load(&back, ReadOptions::default()).unwrap();
        prop_assert_eq!(t.len(), reqs.len());
    }
}

#[test]
fn csv_byte_ranges_are_validated_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for (text, needle) in [
        (
            "page,op,changed\n1,W,4:2\n2,R,3:1\n",
            "b.csv:3: a read request cannot carry changed bytes",
        ),
        (
            "page,op,changed\n1,W,4-2\n",
            "b.csv:2: expected changed bytes as offset:len pairs",
        ),
        (
            "page,op,changed\n1,W,4:0\n",
            "b.csv:2: expected changed bytes",
        ),
        (
            "page,op,changed\n1,W\n",
            "b.csv:2: expected 3 fields (page,op,changed), found 2",
        ),
    ] {
        let p = write(dir.path(), "b.csv", text);
        let e = trace::for_each_with_bytes(&p, ReadOptions::default(), |_, _, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{e}");
    }
}

fn oracle_record(id: u64, next: i64) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(&1u32.to_le_bytes());
    r.extend_from_slice(&id.to_le_bytes());
    r.extend_from_slice(&4096u32.to_le_bytes());
    r.extend_from_slice(&next.to_le_bytes());
    r
}

fn zstd_bytes(plain: &[u8]) -> Vec<u8> {
    zstd::encode_all(plain, 3).unwrap()
}

fn gzip_bytes(plain: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(plain).unwrap();
    e.finish().unwrap()
}

/// A libCacheSim trace as it ships: oracleGeneral, zstd-compressed, named
/// `.oracleGeneral.bin.zst`. It must be decompressed by its magic bytes, not
/// read raw because of its name.
#[test]
fn zstd_oracle_general_is_decompressed_by_magic_not_read_raw() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<u64> = (0..2000u64).map(|i| (i * 7919) % 257).collect();
    let mut plain = Vec::new();
    for (i, &id) in ids.iter().enumerate() {
        let next = ids[i + 1..]
            .iter()
            .position(|&x| x == id)
            .map_or(-1, |k| (i + 1 + k) as i64);
        plain.extend(oracle_record(id, next));
    }
    let p = dir.path().join("x.oracleGeneral.bin.zst");
    std::fs::write(&p, zstd_bytes(&plain)).unwrap();
    let got = read_all(&p, ReadOptions::default()).unwrap();
    assert_eq!(got.len(), 2000);
    assert!(got
        .iter()
        .zip(&ids)
        .all(|(g, &id)| g.0 == id && g.1 == Op::Read));
    let t = trace::load(&p, ReadOptions::default()).unwrap();
    assert_eq!(t.len(), 2000);
}

/// Bytes that merely have a multiple of 24 bytes are not an oracleGeneral
/// trace: the error names the file and the offset of the first bad record.
#[test]
fn oracle_general_that_breaks_next_access_is_an_error_with_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = oracle_record(5, 1);
    plain.extend(oracle_record(6, -1));
    plain.extend(oracle_record(5, 1)); // index 2 points back to 1
    let p = dir.path().join("bad.oracleGeneral.bin");
    std::fs::write(&p, &plain).unwrap();
    let e = read_all(&p, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.oracleGeneral.bin: record 3 at byte offset 48"),
        "{e}"
    );
    assert!(e.contains("next_access_vtime 1"), "{e}");
    // The same bytes compressed: the offset refers to the decompressed data.
    let z = dir.path().join("bad.oracleGeneral.bin.zst");
    std::fs::write(&z, zstd_bytes(&plain)).unwrap();
    let e = read_all(&z, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("byte offset 48 of the decompressed zstd data"),
        "{e}"
    );
}

#[test]
fn every_format_reads_the_same_through_gzip_and_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let csv = b"page,op\n1,R\n2,W\n1,W\n".to_vec();
    let mut vscsi = vscsi_record(4096, 0x28, 8);
    vscsi.extend(vscsi_record(4096, 0x2A, 0));
    let msr =
        b"128166372003061629,web,0,Read,4096,4096,100\n128166372003061630,web,0,Write,0,4096,100\n"
            .to_vec();
    let spc = b"0,8,4096,r,0.0\n0,0,4096,w,0.1\n".to_vec();
    let mut oracle = oracle_record(3, 2);
    oracle.extend(oracle_record(4, -1));
    oracle.extend(oracle_record(3, -1));
    let flt_path = dir.path().join("plain.flt");
    trace::convert(
        &write_bytes(&dir, "src.csv", &csv),
        ReadOptions::default(),
        &flt_path,
        None,
    )
    .unwrap();
    let flt = std::fs::read(&flt_path).unwrap();
    for (name, format, plain) in [
        ("t.csv", Format::Csv, csv),
        ("t.vscsi", Format::Vscsi, vscsi),
        ("t.msr", Format::Msr, msr),
        ("t.spc", Format::Spc, spc),
        ("t.oracle", Format::Oracle, oracle),
        ("t.flt", Format::Flt, flt),
    ] {
        let want = read_all(&write_bytes(&dir, name, &plain), fmt(format)).unwrap();
        assert!(!want.is_empty(), "{name}");
        for (suffix, packed) in [(".gz", gzip_bytes(&plain)), (".zst", zstd_bytes(&plain))] {
            // By name (format detected through the compression suffix) ...
            let p = write_bytes(&dir, &format!("{name}{suffix}"), &packed);
            assert_eq!(
                read_all(&p, ReadOptions::default()).unwrap(),
                want,
                "{name}{suffix}"
            );
            // ... and under a name that says nothing of the compression.
            let q = write_bytes(&dir, &format!("renamed-{name}"), &packed);
            assert_eq!(
                read_all(&q, fmt(format)).unwrap(),
                want,
                "renamed {name}{suffix}"
            );
            let t = trace::load(&q, fmt(format)).unwrap();
            assert_eq!(t.len(), want.len(), "load {name}{suffix}");
        }
    }
}

fn write_bytes(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn csv_with_a_byte_order_mark_reads_like_one_without() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write_bytes(&dir, "a.csv", b"page,op\n7,R\n8,W\n");
    let bom = write_bytes(&dir, "b.csv", b"\xef\xbb\xbfpage,op\n7,R\n8,W\n");
    let bom_no_header = write_bytes(&dir, "c.csv", b"\xef\xbb\xbf7,R\n8,W\n");
    let want = read_all(&plain, ReadOptions::default()).unwrap();
    assert_eq!(want, vec![(7, Op::Read), (8, Op::Write)]);
    assert_eq!(read_all(&bom, ReadOptions::default()).unwrap(), want);
    assert_eq!(
        read_all(&bom_no_header, ReadOptions::default()).unwrap(),
        want
    );
}

#[test]
fn an_empty_trace_is_an_error_not_zero_requests() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("empty.csv", &b""[..]),
        ("header-only.csv", &b"page,op\n"[..]),
        ("blank.csv", &b"\n\n"[..]),
        ("empty.oracleGeneral.bin", &b""[..]),
    ] {
        let p = write_bytes(&dir, name, bytes);
        let e = read_all(
            &p,
            fmt(if name.ends_with(".csv") {
                Format::Csv
            } else {
                Format::Oracle
            }),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(name) && e.contains("no requests"), "{name}: {e}");
        let e = trace::load(&p, ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no requests"), "{name}: {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A trace finds its pages' numeric neighbours and dense ids alike
    /// whether its numbers lie close together (a table by number) or far
    /// apart (a sort): both answer as a search of the page list would.
    #[test]
    fn numeric_neighbours_are_found_alike_for_close_and_sparse_numbers(
        numbers in prop::collection::btree_set(0u64..60, 1..40),
        spread in prop::sample::select(vec![1u64, 1_000_003]),
        order in any::<u64>(),
    ) {
        use flashlayer::trace::FltWriter;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.flt");
        // First appearance (so dense ids) in a shuffled order; runs of
        // consecutive numbers survive the spread only where spread is 1.
        let mut pages: Vec<u64> = numbers.iter().map(|&n| if spread == 1 { n } else { n / 2 * spread + n % 2 }).collect();
        let mut rng = <rand_pcg::Pcg64 as rand::SeedableRng>::seed_from_u64(order);
        use rand::seq::SliceRandom;
        pages.shuffle(&mut rng);
        let mut w = FltWriter::create(&path).unwrap();
        for &p in &pages {
            w.push(p, Op::Read).unwrap();
        }
        w.finish().unwrap();
        let t = Flt::open(&path).unwrap();
        let dense = |n: u64| pages.iter().position(|&p| p == n).map(|i| i as u32);
        for (d, &n) in pages.iter().enumerate() {
            let d = d as u32;
            prop_assert_eq!(t.dense_of(n), Some(d));
            prop_assert_eq!(t.neighbour(d, -1), n.checked_sub(1).and_then(dense));
            prop_assert_eq!(t.neighbour(d, 1), dense(n + 1));
            // Further away, the page of that number, past any gap.
            prop_assert_eq!(t.neighbour(d, 2), dense(n + 2));
            prop_assert_eq!(t.neighbour(d, 3), dense(n + 3));
            prop_assert_eq!(t.neighbour(d, -2), n.checked_sub(2).and_then(dense));
        }
        prop_assert_eq!(t.dense_of(1 << 40), None);
    }
}

/// Read options of a csv format spec with keys.
fn mapped(spec: &str) -> ReadOptions {
    let (format, csv) = flashlayer::trace::parse_format(spec).unwrap();
    ReadOptions {
        format: Some(format),
        page_size: None,
        csv,
    }
}

#[test]
fn csv_columns_mapped_by_name_separator_and_op_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.txt");
    std::fs::write(&p, "time;type;id\n1;get;7\n2;SET;9\n3;get;7\n").unwrap();
    let opts = mapped("csv:page=id,op=type,sep=semicolon,reads=get,writes=set");
    assert_eq!(
        read_all(&p, opts).unwrap(),
        vec![(7, Op::Read), (9, Op::Write), (7, Op::Read)]
    );
    // By place, no header, every request a read.
    std::fs::write(&p, "1,7\n2,9\n").unwrap();
    let opts = mapped("csv:page=2,op=none,header=off");
    assert_eq!(
        read_all(&p, opts).unwrap(),
        vec![(7, Op::Read), (9, Op::Read)]
    );
}

#[test]
fn csv_mapping_errors_name_the_line_and_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.txt");
    std::fs::write(&p, "id,type\n7,get\n9,del\n").unwrap();
    let opts = mapped("csv:page=id,op=type");
    let e = read_all(&p, opts).unwrap_err().to_string();
    assert!(
        e.contains(":3:") && e.contains("column 'type': op 'del' is neither a read"),
        "{e}"
    );
    let opts = mapped("csv:page=key,op=type");
    let e = read_all(&p, opts).unwrap_err().to_string();
    assert!(
        e.contains("no column named 'key' in the header (its columns: id, type)"),
        "{e}"
    );
    for bad in [
        "csv:page=0",
        "csv:sep=colon",
        "csv:page=1,op=1",
        "flt:page=1",
        "csv:reads=x,writes=x",
    ] {
        assert!(flashlayer::trace::parse_format(bad).is_err(), "{bad}");
    }
}
