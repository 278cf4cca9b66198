//! The experiments of Koltsidas & Viglas 2008, §6, on the code users run:
//! a B+-tree (`btree_sets.rs`) on a [`BufferPool`] over a
//! [`HybridStore`] of a flash and a magnetic disk, and a sequence of
//! query-set executions, each measured on its own.
//!
//! As in §6: the tree is loaded first, every page on the magnetic disk
//! (where new pages go), and the placement then starts with nothing
//! counted (the paper runs its query sets on a tree that exists), each query set is drawn
//! once and re-executed, and the buffer pool
//! is emptied after each execution (every page leaves as an eviction does,
//! so the placement decides for each). `optimal` runs the whole sequence
//! twice: once recording each page's physical events with every page on
//! the magnetic disk, once following the offline optimum of those events
//! (identical events when the buffer policy ignores costs, as LRU does).

use crate::btree::Space;
use crate::buffer::BufferPool;
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::hybrid::{HybridStore, Placement};
use crate::policy::{with_online_policy, Policy, PolicySpec, WithPolicy};
use crate::store::{IoStats, MemStore};
use crate::types::DeviceId;
use crate::workload::btree_sets::{draw_set, execute, load_tree, Query};
use crate::workload::util::WRng;
use crate::workload::{BTreeSets, BTreeSetsParams};
use rand::SeedableRng;

/// Parameters of [`hybrid_sequence`]; each default is stated on its field.
#[derive(Clone, Debug)]
pub struct SequenceParams {
    /// Records in the tree. Default 1,000,000 (§6).
    pub records: u64,
    /// Page size. Default 4096.
    pub page_size: usize,
    /// Buffer pool frames. Default 5,120 (20 MB of 4 KB pages, §6).
    pub buffer_pages: usize,
    /// The query sets (their `records` and `page_size` are this struct's).
    pub sets: Vec<BTreeSetsParams>,
    /// Which set each execution runs, by index into `sets`.
    pub sequence: Vec<usize>,
    /// `conservative`, `optimistic`, `hybrid`, `optimal`, `m-only` or
    /// `f-only`. Default `hybrid`.
    pub placement: String,
    /// The buffer pool's policy. Default `lru` (§6.1–6.3).
    pub policy: PolicySpec,
    /// The flash disk. Default `koltsidas08-flash`.
    pub flash: DeviceModel,
    /// The magnetic disk. Default `koltsidas08-magnetic`.
    pub magnetic: DeviceModel,
    /// At most this many pages on flash. Default: no limit.
    pub flash_capacity: Option<u64>,
    /// Seed of the tree and the query sets. Default 0.
    pub seed: u64,
}

impl Default for SequenceParams {
    /// §6's setting: a million records in 4 KB pages, 20 MB of buffer, the
    /// hybrid placement under LRU over Table 1's disks, no query sets.
    fn default() -> Self {
        SequenceParams {
            records: 1_000_000,
            page_size: 4096,
            buffer_pages: 5120,
            sets: Vec::new(),
            sequence: Vec::new(),
            placement: "hybrid".to_owned(),
            policy: PolicySpec::parse("lru").expect("a policy"),
            flash: DeviceModel::preset("koltsidas08-flash").expect("a preset"),
            magnetic: DeviceModel::preset("koltsidas08-magnetic").expect("a preset"),
            flash_capacity: None,
            seed: 0,
        }
    }
}

/// One execution of a query set.
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceRun {
    /// Index of its set.
    pub set: usize,
    /// Its virtual time, migrations and emptying the pool included.
    pub virtual_time: f64,
    /// Buffer hits.
    pub hits: u64,
    /// Buffer misses.
    pub misses: u64,
    /// The flash disk's I/O.
    pub flash: IoStats,
    /// The magnetic disk's I/O.
    pub magnetic: IoStats,
    /// Pages moved.
    pub migrations: u64,
    /// Pages on flash after it.
    pub pages_on_flash: u64,
    /// The policy's state at its end (`lambda` for `koltsidas`).
    pub state: Vec<(&'static str, f64)>,
}

/// What [`hybrid_sequence`] measured.
#[derive(Clone, Debug)]
pub struct SequenceResult {
    /// Pages of the tree after loading.
    pub tree_pages: u64,
    /// The load's virtual time (not part of any run).
    pub load_time: f64,
    /// Each execution, in order.
    pub runs: Vec<SequenceRun>,
    /// For `optimal`: the dynamic program's cost of the events recorded
    /// after the load (the executions, and closing the tree at the end).
    pub optimum: Option<f64>,
}

/// Loads the tree and executes the sequence. `progress(done, total)`
/// counts executions (both passes for `optimal`).
pub fn hybrid_sequence(
    p: &SequenceParams,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<SequenceResult> {
    if p.sets.is_empty() || p.sequence.is_empty() {
        return Err(Error::invalid(
            "a sequence needs at least one query set and one execution",
        ));
    }
    if let Some(&bad) = p.sequence.iter().find(|&&i| i >= p.sets.len()) {
        return Err(Error::invalid(format!(
            "the sequence names query set {bad}, but there are {} sets",
            p.sets.len()
        )));
    }
    if p.buffer_pages == 0 {
        return Err(Error::invalid("buffer size must be at least 1 page"));
    }
    for s in &p.sets {
        // Validates each set's shares as the `btree` driver does.
        BTreeSets::new(BTreeSetsParams {
            records: p.records,
            page_size: p.page_size,
            ..s.clone()
        })?;
    }
    let total = p.sequence.len() as u64 * if p.placement == "optimal" { 2 } else { 1 };
    let mut done = 0u64;
    let mut tick = |progress: &mut dyn FnMut(u64, u64) -> Result<()>| {
        done += 1;
        progress(done, total)
    };
    let placement = Placement::by_name(&p.placement, || {
        let (_, mut store) = run_pass(p, Placement::Fixed(DeviceId::MAGNETIC), true, &mut |_| {
            tick(progress)
        })?;
        let rec = store.take_recording().expect("the first pass records");
        Ok((rec, store.costs()))
    })?;
    let optimum = placement.optimum();
    let (mut result, _) = run_pass(p, placement, false, &mut |_| tick(progress))?;
    result.optimum = optimum;
    Ok(result)
}

type Store = HybridStore<MemStore, MemStore>;

fn run_pass(
    p: &SequenceParams,
    placement: Placement,
    record: bool,
    tick: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<(SequenceResult, Store)> {
    // The tree is loaded with every page on the magnetic disk (where new
    // pages go; on flash for F-only); the placement starts after.
    let load = match placement {
        Placement::Fixed(d) => Placement::Fixed(d),
        _ => Placement::Fixed(DeviceId::MAGNETIC),
    };
    let mut b = HybridStore::builder(
        MemStore::new(p.page_size, p.flash.clone()),
        MemStore::new(p.page_size, p.magnetic.clone()),
    )
    .placement(load)
    .buffer_pages(p.buffer_pages as u64)
    .record(record);
    if let Some(c) = p.flash_capacity {
        b = b.flash_capacity(c);
    }
    let store = b.open()?;
    with_online_policy(
        &p.policy,
        p.buffer_pages,
        0,
        Pass {
            p,
            store,
            placement,
            tick,
        },
    )
}

struct Pass<'a, 'b> {
    p: &'a SequenceParams,
    store: Store,
    placement: Placement,
    tick: &'b mut dyn FnMut(u64) -> Result<()>,
}

fn devices(m: &crate::types::Metrics) -> (IoStats, IoStats, u64) {
    let f = m.devices.first().map(|d| d.io).unwrap_or_default();
    let g = m.devices.get(1).map(|d| d.io).unwrap_or_default();
    let on_flash = m.devices.first().and_then(|d| d.pages).unwrap_or(0);
    (f, g, on_flash)
}

impl WithPolicy for Pass<'_, '_> {
    type Out = (SequenceResult, Store);
    fn visit<P: Policy>(self, policy: P) -> Result<Self::Out> {
        let Pass {
            p,
            store,
            placement,
            tick,
        } = self;
        let sp = Space::create(BufferPool::new(policy, store)?)?;
        let mut rng = WRng::seed_from_u64(p.seed);
        let tree = load_tree(&sp, p.records, &mut rng)?;
        // Emptying writes the dirty pages as they leave, where the
        // placement puts them; the experiment then starts on a loaded
        // database, with nothing counted yet (§6 runs its query sets on a
        // tree that exists; building it through a small pool writes each
        // page many times, which says nothing of the query sets).
        sp.pool().empty()?;
        sp.pool().with_store(|s| {
            s.reset_accounting();
            s.set_placement(placement)
        })?;
        let sets: Vec<Vec<Query>> = p
            .sets
            .iter()
            .map(|s| {
                draw_set(
                    &BTreeSetsParams {
                        records: p.records,
                        ..s.clone()
                    },
                    &mut rng,
                )
            })
            .collect();
        let tree_pages = u64::from(sp.pages());
        let mut last = sp.pool().metrics();
        let load_time = last.virtual_time;
        let mut runs = Vec::with_capacity(p.sequence.len());
        for (run, &set) in p.sequence.iter().enumerate() {
            for &q in &sets[set] {
                execute(&tree, &sp, &mut rng, q, p.sets[set].range_len, run as u64)?;
            }
            sp.pool().empty()?;
            let m = sp.pool().metrics();
            let (f0, g0, _) = devices(&last);
            let (f1, g1, on_flash) = devices(&m);
            let mut state = Vec::new();
            sp.pool().with_policy(|pol| pol.state(&mut state));
            runs.push(SequenceRun {
                set,
                virtual_time: m.virtual_time - last.virtual_time,
                hits: m.hits - last.hits,
                misses: m.misses - last.misses,
                flash: f1.minus(f0),
                magnetic: g1.minus(g0),
                migrations: m.migrations - last.migrations,
                pages_on_flash: on_flash,
                state,
            });
            last = m;
            tick(run as u64)?;
        }
        let store = sp.close()?;
        Ok((
            SequenceResult {
                tree_pages,
                load_time,
                runs,
                optimum: None,
            },
            store,
        ))
    }
}
