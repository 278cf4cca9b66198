//! FaCE and lazy cleaning on real (crash-injecting) devices: a random
//! workload of writes, reads and flushes, the power cut at a random write
//! or sync of either device, a crash that keeps, drops or tears each
//! unsynced sector, and a recovery from the SSD; then every page must read
//! as its last flushed version or a version written after it. DRAM runs
//! a different policy from run to run: recovery must not depend on it.

use flashlayer::device::DeviceModel;
use flashlayer::policy::{boxed_online_policy, BoxedPolicy, Lru, PolicySpec};
use flashlayer::store::{CrashLab, DiskStore};
use flashlayer::tier::{SchemeSpec, TieredStore};
use flashlayer::Error;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const PAGE: usize = 1000;
const PAGES: u64 = 24;

fn models() -> (DeviceModel, DeviceModel) {
    (
        DeviceModel::preset("hypro-ssd").unwrap(),
        DeviceModel::preset("hypro-hdd").unwrap(),
    )
}

fn content(page: u64, version: u32) -> Vec<u8> {
    let mut b = vec![(version % 251) as u8; PAGE];
    b[..8].copy_from_slice(&page.to_le_bytes());
    b[8..12].copy_from_slice(&version.to_le_bytes());
    b
}

fn version_of(page: u64, bytes: &[u8]) -> Result<Option<u32>, String> {
    if bytes.iter().all(|&b| b == 0) {
        return Ok(None);
    }
    let v = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if bytes != content(page, v) {
        return Err(format!("page {page} reads as bytes no version ever had"));
    }
    Ok(Some(v))
}

type Store =
    TieredStore<flashlayer::store::CrashDisk, DiskStore<flashlayer::store::CrashDisk>, BoxedPolicy>;

/// DRAM's policies, one per run in turn.
const DRAM_POLICIES: [&str; 4] = ["lru", "clock", "arc", "cflru"];

struct Rig {
    lab: CrashLab,
    ssd: flashlayer::store::CrashDisk,
    hdd: flashlayer::store::CrashDisk,
    spec: SchemeSpec,
    dram: PolicySpec,
    dram_pages: usize,
    ssd_pages: usize,
}

impl Rig {
    fn open(&self) -> flashlayer::Result<Store> {
        let (s, h) = models();
        let hdd = DiskStore::new(self.lab.reopen(&self.hdd), PAGE, h.clone())?;
        TieredStore::open(
            &self.spec,
            boxed_online_policy(&self.dram, self.dram_pages, 0)?,
            self.ssd_pages,
            self.lab.reopen(&self.ssd),
            hdd,
            &s,
            &h,
        )
    }
}

/// One workload cut at a random point; returns what broke, if anything.
fn crash_once(spec: &str, dram: usize, ssd_pages: usize, seed: u64) -> Result<bool, String> {
    let lab = CrashLab::new(seed);
    let rig = Rig {
        ssd: lab.disk(),
        hdd: lab.disk(),
        lab,
        spec: SchemeSpec::parse(spec).unwrap(),
        dram: PolicySpec::parse(DRAM_POLICIES[seed as usize % DRAM_POLICIES.len()]).unwrap(),
        dram_pages: dram,
        ssd_pages,
    };
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x9e37_79b9);
    let mut store = rig.open().map_err(|e| e.to_string())?;
    let mut flushed: Vec<Option<u32>> = vec![None; PAGES as usize];
    let mut since: Vec<Vec<u32>> = vec![Vec::new(); PAGES as usize];
    let mut latest: Vec<Option<u32>> = vec![None; PAGES as usize];
    let mut next = 1u32;
    rig.lab.power_cut_after(rng.random_range(1..500));
    let mut cut = false;
    for _ in 0..700 {
        let page = rng.random_range(0..PAGES);
        let x: f64 = rng.random();
        let r = if x < 0.55 {
            let v = next;
            next += 1;
            since[page as usize].push(v);
            latest[page as usize] = Some(v);
            store.write(page, &content(page, v))
        } else if x < 0.85 {
            let mut buf = vec![0u8; PAGE];
            let r = store.read(page, &mut buf);
            if r.is_ok() && version_of(page, &buf)? != latest[page as usize] {
                return Err(format!(
                    "before any crash, page {page} read version {:?}, newest is {:?}",
                    version_of(page, &buf)?,
                    latest[page as usize]
                ));
            }
            r
        } else {
            let r = store.flush();
            if r.is_ok() {
                for p in 0..PAGES as usize {
                    flushed[p] = latest[p];
                    since[p].clear();
                }
            }
            r
        };
        match r {
            Ok(()) => {}
            Err(Error::PowerCut) => {
                cut = true;
                break;
            }
            Err(e) => return Err(format!("unexpected error: {e}")),
        }
    }
    if !cut {
        return Ok(false);
    }
    drop(store);
    rig.lab.crash();
    let mut store = rig.open().map_err(|e| format!("recovery failed: {e}"))?;
    for page in 0..PAGES {
        let mut buf = vec![0u8; PAGE];
        store
            .read(page, &mut buf)
            .map_err(|e| format!("read after recovery: {e}"))?;
        let found = version_of(page, &buf)?;
        let p = page as usize;
        let ok = found == flushed[p] || found.is_some_and(|v| since[p].contains(&v));
        if !ok {
            return Err(format!(
                "page {page} after the crash: found version {found:?}; flushed {:?}, written since {:?}",
                flushed[p], since[p]
            ));
        }
    }
    Ok(true)
}

fn sweep(spec: &str, dram: usize, ssd_pages: usize, runs: u64) {
    let mut crashed = 0;
    for seed in 0..runs {
        match crash_once(spec, dram, ssd_pages, seed) {
            Ok(c) => crashed += u64::from(c),
            Err(e) => panic!(
                "{spec}, DRAM {}, seed {seed}: {e}",
                DRAM_POLICIES[seed as usize % DRAM_POLICIES.len()]
            ),
        }
    }
    assert!(
        crashed > runs / 2,
        "{spec}: only {crashed} of {runs} runs were cut"
    );
}

#[test]
fn face_loses_no_flushed_page_at_any_power_cut() {
    sweep("face:group=1", 3, 6, 400);
}

#[test]
fn face_with_groups_and_second_chances_loses_no_flushed_page() {
    sweep("face:group=4", 3, 64, 300);
    sweep("face:group=4,second_chance=off", 2, 32, 300);
}

#[test]
fn lazy_cleaning_loses_no_flushed_page_at_any_power_cut() {
    sweep("lc:dirty=0.5", 3, 6, 400);
    sweep("lc:dirty=1", 2, 5, 300);
    sweep("lc:dirty=0,level=2q", 3, 8, 300);
}

#[test]
fn a_reopened_store_finds_what_it_flushed_without_a_crash() {
    let lab = CrashLab::new(1);
    let rig = Rig {
        ssd: lab.disk(),
        hdd: lab.disk(),
        lab,
        spec: SchemeSpec::parse("lc").unwrap(),
        dram: PolicySpec::parse("lru").unwrap(),
        dram_pages: 2,
        ssd_pages: 4,
    };
    let mut s = rig.open().unwrap();
    for p in 0..10 {
        s.write(p, &content(p, p as u32 + 1)).unwrap();
    }
    s.flush().unwrap();
    let (used, dirty) = s.ssd_pages();
    assert!(used == 4 && dirty > 0, "{used} {dirty}");
    drop(s);
    let mut s = rig.open().unwrap();
    assert_eq!(
        s.ssd_pages(),
        (used, dirty),
        "the SSD level is rebuilt as it was"
    );
    for p in 0..10 {
        let mut buf = vec![0; PAGE];
        s.read(p, &mut buf).unwrap();
        assert_eq!(version_of(p, &buf).unwrap(), Some(p as u32 + 1));
    }
}

#[test]
fn a_tiered_store_refuses_schemes_it_cannot_recover() {
    let lab = CrashLab::new(1);
    let (s, h) = models();
    for spec in ["hypro", "tac"] {
        let hdd = DiskStore::new(lab.disk(), PAGE, h.clone()).unwrap();
        let err = TieredStore::open(
            &SchemeSpec::parse(spec).unwrap(),
            Lru::new(2),
            4,
            lab.disk(),
            hdd,
            &s,
            &h,
        )
        .unwrap_err();
        assert!(err.to_string().contains("face or lc"), "{err}");
    }
}

#[test]
fn face_on_real_files_recovers_its_ssd_cache_when_reopened() {
    use flashlayer::store::FileDisk;
    let dir = tempfile::tempdir().unwrap();
    let (s, h) = models();
    let spec = SchemeSpec::parse("face:group=1").unwrap();
    let open = || {
        let ssd = FileDisk::open(dir.path().join("ssd.img")).unwrap();
        let hdd = DiskStore::new(
            FileDisk::open(dir.path().join("hdd.img")).unwrap(),
            PAGE,
            h.clone(),
        )
        .unwrap();
        TieredStore::open(&spec, Lru::new(2), 8, ssd, hdd, &s, &h).unwrap()
    };
    let mut store = open();
    for round in 1..=3u32 {
        for p in 0..20 {
            store.write(p, &content(p, round * 100 + p as u32)).unwrap();
        }
    }
    store.flush().unwrap();
    let (on_ssd, dirty) = store.ssd_pages();
    assert!(
        on_ssd > 0 && dirty > 0,
        "dirty pages live on the SSD: {on_ssd} {dirty}"
    );
    // Dropped without a clean shutdown: only the files remain.
    drop(store);
    let mut store = open();
    assert_eq!(store.ssd_pages(), (on_ssd, dirty));
    for p in 0..20 {
        let mut buf = vec![0; PAGE];
        store.read(p, &mut buf).unwrap();
        assert_eq!(
            version_of(p, &buf).unwrap(),
            Some(300 + p as u32),
            "page {p}"
        );
    }
}
