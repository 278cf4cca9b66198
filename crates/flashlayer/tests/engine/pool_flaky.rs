//! The pool over a store whose reads and writes fail at random: every
//! failure leaves the policy, frames and data as they were, and a retry
//! decides as if it never happened.

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Arc, Clock, Fifo, Lru, Policy, TwoQ};
use flashlayer::store::{MemStore, PageStore};
use flashlayer::Error;
use proptest::prelude::*;

const PS: usize = 64;

/// A [`MemStore`] that fails the next reads or writes on demand.
#[derive(Debug)]
struct Flaky {
    inner: MemStore,
    fail_reads: std::rc::Rc<std::cell::Cell<u32>>,
    fail_writes: std::rc::Rc<std::cell::Cell<u32>>,
}

fn take(c: &std::cell::Cell<u32>) -> bool {
    let n = c.get();
    c.set(n.saturating_sub(1));
    n > 0
}

impl PageStore for Flaky {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn read(&mut self, page: u64, buf: &mut [u8]) -> flashlayer::Result<()> {
        if take(&self.fail_reads) {
            return Err(Error::Store(format!(
                "injected read failure of page {page}"
            )));
        }
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: u64, buf: &[u8]) -> flashlayer::Result<()> {
        if take(&self.fail_writes) {
            return Err(Error::Store(format!(
                "injected write failure of page {page}"
            )));
        }
        self.inner.write(page, buf)
    }
    pass_through!();
}

#[derive(Debug, Clone)]
enum FaultStep {
    /// Fix `page` (for writing if `write`, storing `value`), held if `hold`.
    Fix {
        page: u64,
        write: bool,
        value: u8,
        hold: bool,
    },
    /// Drop the oldest held guard.
    Release,
    /// The next read or write of the store fails.
    FailRead,
    FailWrite,
}

fn fault_step() -> impl Strategy<Value = FaultStep> {
    prop_oneof![
        8 => (0u64..16, any::<bool>(), any::<u8>(), prop::bool::weighted(0.25))
            .prop_map(|(page, write, value, hold)| FaultStep::Fix { page, write, value, hold }),
        3 => Just(FaultStep::Release),
        1 => Just(FaultStep::FailRead),
        2 => Just(FaultStep::FailWrite),
    ]
}

/// Drives a pool over a store that fails on demand, and a model pool over a
/// store that never fails which sees only the fixes that succeeded. Every
/// failed fix must leave the policy, the frames and the data as they were,
/// so after every step both pools hold the same pages with the same dirty
/// state, and after a final flush both stores hold the same bytes.
fn check_failures<P: Policy + Clone>(policy: P, steps: &[FaultStep]) -> Result<(), TestCaseError> {
    let fail_reads = std::rc::Rc::new(std::cell::Cell::new(0));
    let fail_writes = std::rc::Rc::new(std::cell::Cell::new(0));
    let flaky = Flaky {
        inner: MemStore::new(PS, DeviceModel::unit()),
        fail_reads: fail_reads.clone(),
        fail_writes: fail_writes.clone(),
    };
    let pool = BufferPool::new(policy.clone(), flaky).unwrap();
    let model = BufferPool::new(policy, MemStore::new(PS, DeviceModel::unit())).unwrap();
    let mut held = std::collections::VecDeque::new();
    let mut failures = 0;
    for s in steps {
        match *s {
            FaultStep::Fix {
                page,
                write,
                value,
                hold,
            } => {
                // Fixing a page this thread holds would wait for itself.
                if held.iter().any(|(p, _, _)| *p == page) {
                    continue;
                }
                let r = if write {
                    pool.fix_write(page).map(|mut g| {
                        g[0] = value;
                        (None, Some(g))
                    })
                } else {
                    pool.fix_read(page).map(|g| (Some(g), None))
                };
                match r {
                    Ok(guards) => {
                        let m = if write {
                            let mut g = model.fix_write(page).unwrap();
                            g[0] = value;
                            (None, Some(g))
                        } else {
                            (Some(model.fix_read(page).unwrap()), None)
                        };
                        if hold {
                            held.push_back((page, guards, m));
                        }
                    }
                    Err(Error::AllPinned(_)) => {
                        // The model is in the same state, so it must agree.
                        let m = model.fix_read(page);
                        prop_assert!(matches!(m, Err(Error::AllPinned(_))));
                    }
                    Err(Error::Store(_)) => failures += 1,
                    Err(e) => return Err(TestCaseError::fail(format!("unexpected error {e}"))),
                }
            }
            FaultStep::Release => drop(held.pop_front()),
            FaultStep::FailRead => fail_reads.set(1),
            FaultStep::FailWrite => fail_writes.set(1),
        }
        for page in 0..16 {
            prop_assert_eq!(
                pool.is_resident(page),
                model.is_resident(page),
                "{}: page {} at step {:?}",
                pool.with_policy(|p| p.name()),
                page,
                s
            );
        }
        let dirty = |pool: &dyn Fn(u64) -> bool| (0..16u64).map(pool).collect::<Vec<_>>();
        prop_assert_eq!(dirty(&|p| pool.is_dirty(p)), dirty(&|p| model.is_dirty(p)));
    }
    drop(held);
    fail_reads.set(0);
    fail_writes.set(0);
    let (a, b) = (pool.close().unwrap(), model.close().unwrap());
    let mut x = vec![0u8; PS];
    let mut y = vec![0u8; PS];
    let (mut a, mut b) = (a, b);
    for page in 0..16 {
        a.read(page, &mut x).unwrap();
        b.read(page, &mut y).unwrap();
        prop_assert_eq!(&x, &y, "page {} after {} injected failures", page, failures);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn failed_fixes_leave_policy_frames_and_data_as_they_were(
        cap in 1usize..6,
        steps in prop::collection::vec(fault_step(), 1..200),
    ) {
        check_failures(Lru::new(cap), &steps)?;
        check_failures(Fifo::new(cap), &steps)?;
        check_failures(Clock::new(cap), &steps)?;
        check_failures(TwoQ::new(cap), &steps)?;
        check_failures(Arc::new(cap), &steps)?;
    }
}

/// ARC adapts `p` on a ghost hit; a fix of a ghost page that fails because
/// every frame is pinned must not adapt it, however often it is retried.
#[test]
fn all_pinned_retries_do_not_adapt_arc() {
    let pool = BufferPool::new(Arc::new(2), MemStore::new(PS, DeviceModel::unit())).unwrap();
    for p in [1, 2, 2, 3] {
        drop(pool.fix_read(p).unwrap()); // 2 goes to T2, 1 becomes a ghost in B1
    }
    let p0 = pool.with_policy(|a| a.p());
    let (g2, g3) = (pool.fix_read(2).unwrap(), pool.fix_read(3).unwrap());
    for _ in 0..5 {
        assert!(matches!(pool.fix_read(1), Err(Error::AllPinned(2))));
    }
    assert_eq!(pool.with_policy(|a| a.p()), p0);
    drop((g2, g3));
    drop(pool.fix_read(1).unwrap());
    assert_eq!(
        pool.with_policy(|a| a.p()),
        p0 + 1.0,
        "one ghost hit adapts p once"
    );
}
