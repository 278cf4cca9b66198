//! Policies written in Python: `register_policy(name, factory)` gives a
//! Python class a name in the policy grammar (`flashlayer::policy::register`),
//! and it then runs wherever a registered policy does, through the one
//! calling protocol.
//!
//! The engine's side of the protocol (residency, dirty state, capacity) is
//! kept here, in [`PyPolicy`]; the Python object only orders pages:
//!
//! - `admit(page, write)`: a page enters after a miss (or moves in from
//!   another pool, `write` then its dirty state);
//! - `hit(page, write)`: a resident page is requested;
//! - `evict() -> page`: chooses a resident page and forgets it;
//! - `remove(page)`: a resident page leaves without eviction;
//! - optional `dirty(page)`, `clean(page)`: a resident page was changed
//!   without a request, or written back and stays;
//! - optional `resize(capacity)`: the buffer's size changed;
//! - optional `order(k) -> [page]`: its next `k` victims, in order, so that
//!   it can be ACE's base (`ace:base=NAME`).
//!
//! Pages are the run's dense ids, numbered from 0 in order of first
//! appearance. A callback's exception stops the run and is raised by the
//! call that ran it ([`take_failure`]).

use crate::err;
use flashlayer::policy::{
    register, Ahead, BoxedPolicy, Neighbours, Policy, Registration, Serves, Victim,
};
use flashlayer::spec::{Entry, Given};
use flashlayer::types::{DenseId, Op, PageCost};
use pyo3::prelude::*;
use std::cell::RefCell;
use std::sync::Mutex;

/// Each Python policy's name and factory, for the registration's build.
static FACTORIES: Mutex<Vec<(&'static str, Py<PyAny>)>> = Mutex::new(Vec::new());

thread_local! {
    /// The first exception a Python policy raised on this thread since the
    /// last [`take_failure`].
    static FAILURE: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// The exception a Python policy raised in the run that just failed on
/// this thread, if one did: the error to raise in place of the engine's.
pub(crate) fn take_failure() -> Option<PyErr> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// `r`, unless a Python policy failed while it was computed (its
/// exception then, though the run went on without the policy's word).
pub(crate) fn checked<T>(r: PyResult<T>) -> PyResult<T> {
    match take_failure() {
        Some(e) => Err(e),
        None => r,
    }
}

fn fail(e: PyErr) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(e);
        }
    });
}

const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

/// A Python object ordering pages, behind the engine's calling protocol.
pub(crate) struct PyPolicy {
    name: &'static str,
    obj: Py<PyAny>,
    capacity: usize,
    /// Per dense id: [`ABSENT`], [`CLEAN`] or [`DIRTY`].
    state: Vec<u8>,
    len: usize,
    dirty: usize,
    /// Set once a callback failed: the policy then only empties.
    broken: bool,
}

impl PyPolicy {
    /// Calls `method` with `args`, if the object has it or `required`;
    /// remembers a failure and returns `None`.
    fn call<'py, A>(
        &mut self,
        py: Python<'py>,
        method: &str,
        args: A,
        required: bool,
    ) -> Option<Bound<'py, PyAny>>
    where
        A: pyo3::call::PyCallArgs<'py>,
    {
        if self.broken {
            return None;
        }
        let obj = self.obj.bind(py);
        if !required && !obj.hasattr(method).unwrap_or(false) {
            return None;
        }
        match obj.call_method1(method, args) {
            Ok(v) => Some(v),
            Err(e) => {
                self.broken = true;
                fail(e);
                None
            }
        }
    }

    fn notify<A>(&mut self, method: &str, args: A, required: bool)
    where
        A: for<'py> pyo3::call::PyCallArgs<'py>,
    {
        Python::attach(|py| {
            self.call(py, method, args, required);
        });
    }

    fn at(&self, page: DenseId) -> u8 {
        self.state.get(page as usize).copied().unwrap_or(ABSENT)
    }

    fn set(&mut self, page: DenseId, s: u8) {
        let i = page as usize;
        if i >= self.state.len() {
            self.state.resize((i + 1).max(2 * self.state.len()), ABSENT);
        }
        let old = std::mem::replace(&mut self.state[i], s);
        self.len = self.len + usize::from(s != ABSENT) - usize::from(old != ABSENT);
        self.dirty = self.dirty + usize::from(s == DIRTY) - usize::from(old == DIRTY);
    }

    /// The object's victim, checked: a resident page, or a failure.
    fn victim(&mut self, py: Python<'_>) -> Option<DenseId> {
        let v = self.call(py, "evict", (), true)?;
        let page = match v.extract::<u64>() {
            Ok(p) if p <= u64::from(DenseId::MAX) && self.at(p as DenseId) != ABSENT => {
                p as DenseId
            }
            _ => {
                let shown = v.repr().map_or_else(|_| "?".to_owned(), |r| r.to_string());
                fail(crate::FlashlayerError::new_err(format!(
                    "policy '{}': evict() returned {shown}, which is not a resident page",
                    self.name
                )));
                self.broken = true;
                return None;
            }
        };
        Some(page)
    }
}

impl Clone for PyPolicy {
    /// An independent copy: the object deep-copied.
    fn clone(&self) -> Self {
        let obj = Python::attach(|py| {
            py.import("copy")
                .and_then(|c| c.call_method1("deepcopy", (self.obj.bind(py),)))
                .map(Bound::unbind)
                .unwrap_or_else(|e| {
                    fail(e);
                    self.obj.clone_ref(py)
                })
        });
        PyPolicy {
            name: self.name,
            obj,
            capacity: self.capacity,
            state: self.state.clone(),
            len: self.len,
            dirty: self.dirty,
            broken: self.broken,
        }
    }
}

impl Policy for PyPolicy {
    fn name(&self) -> String {
        self.name.to_owned()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        self.notify("resize", (capacity,), false);
    }

    fn len(&self) -> usize {
        self.len
    }

    fn contains(&self, page: DenseId) -> bool {
        self.at(page) != ABSENT
    }

    fn is_dirty(&self, page: DenseId) -> bool {
        self.at(page) == DIRTY
    }

    fn dirty_count(&self) -> usize {
        self.dirty
    }

    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let s = self.at(page);
        if s == ABSENT {
            return false;
        }
        if op.is_write() {
            self.set(page, DIRTY);
        }
        self.notify("hit", (page, op.is_write()), true);
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        self.set(page, if op.is_write() { DIRTY } else { CLEAN });
        self.notify("admit", (page, op.is_write()), true);
    }

    fn adopt(&mut self, page: DenseId, dirty: bool, _cost: PageCost) {
        self.set(page, if dirty { DIRTY } else { CLEAN });
        self.notify("admit", (page, dirty), true);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        Python::attach(|py| {
            // A victim the caller cannot let go (a pinned frame) is given
            // back as newly admitted once another is found.
            let mut refused = Vec::new();
            let mut found = None;
            for _ in 0..self.len {
                let Some(p) = self.victim(py) else { break };
                if evictable(p) {
                    found = Some(p);
                    break;
                }
                refused.push(p);
            }
            for &p in &refused {
                let dirty = self.at(p) == DIRTY;
                self.call(py, "admit", (p, dirty), true);
            }
            let page = found?;
            let dirty = self.at(page) == DIRTY;
            self.set(page, ABSENT);
            Some(Victim { page, dirty })
        })
    }

    /// The object re-admits the page (it has no way to put it back where it
    /// was).
    fn reinstate(&mut self, victim: Victim) {
        self.set(victim.page, if victim.dirty { DIRTY } else { CLEAN });
        self.notify("admit", (victim.page, victim.dirty), true);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.at(page) != ABSENT {
            self.set(page, DIRTY);
            self.notify("dirty", (page,), false);
        }
    }

    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.at(page) == DIRTY {
            self.set(page, CLEAN);
            self.notify("clean", (page,), false);
        }
    }

    /// The object's `order(k)`, if it has one: its next `k` victims in
    /// order, of which the dirty ones the caller may write are taken (ACE's
    /// base). Without it the order is unknown.
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if self.broken || !obj.hasattr("order").unwrap_or(false) {
                return false;
            }
            if want.n == 0 {
                return true;
            }
            let ahead = match obj
                .call_method1("order", (want.window.min(self.len),))
                .and_then(|v| v.extract::<Vec<u64>>())
            {
                Ok(v) => v,
                Err(e) => {
                    fail(e);
                    return true;
                }
            };
            for p in ahead {
                let Ok(p) = DenseId::try_from(p) else {
                    continue;
                };
                if out.len() >= want.n {
                    break;
                }
                if self.at(p) == DIRTY && pages.evictable(p) {
                    out.push(p);
                }
            }
            true
        })
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        let s = self.at(page);
        if s == ABSENT {
            return None;
        }
        self.set(page, ABSENT);
        self.notify("remove", (page,), true);
        Some(s == DIRTY)
    }
}

/// Builds the registered Python policy `given` names with `capacity`
/// pages: its factory called with the capacity.
fn build(given: &Given, capacity: usize, pages: usize) -> flashlayer::Result<BoxedPolicy> {
    let (name, obj) = Python::attach(|py| {
        // The registration's own name: `given`'s lives only as long as it.
        let (name, factory) = FACTORIES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|(n, _)| *n == given.name())
            .map(|(n, f)| (*n, f.clone_ref(py)))
            .ok_or_else(|| {
                flashlayer::Error::invalid(format!("policy '{}' has no factory", given.name()))
            })?;
        let obj = factory.call1(py, (capacity,)).map_err(|e| {
            fail(e);
            flashlayer::Error::Cancelled
        })?;
        Ok::<_, flashlayer::Error>((name, obj))
    })?;
    Ok(BoxedPolicy::new(PyPolicy {
        name,
        obj,
        capacity,
        state: vec![ABSENT; pages],
        len: 0,
        dirty: 0,
        broken: false,
    }))
}

/// Registers `factory` (called with the buffer's capacity in pages, it
/// returns an object with `admit`, `hit`, `evict` and `remove`) as the
/// policy `name`, described by `description`. Registering a name again
/// replaces its factory.
#[pyfunction]
#[pyo3(signature = (name, factory, description=None))]
fn register_policy(name: &str, factory: Py<PyAny>, description: Option<&str>) -> PyResult<()> {
    let mut all = FACTORIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(slot) = all.iter_mut().find(|(n, _)| *n == name) {
        slot.1 = factory;
        return Ok(());
    }
    let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
    let description: &'static str = Box::leak(
        description
            .unwrap_or("a policy written in Python")
            .to_owned()
            .into_boxed_str(),
    );
    let reg: &'static Registration = Box::leak(Box::new(Registration {
        entry: Entry {
            name,
            description,
            params: &[],
        },
        // The engine keeps its residency and dirty state, so it can manage
        // a pool; ACE refuses it when built if it has no `order`.
        serves: Serves::POOL_AND_ACE_BASE,
        build,
    }));
    register(reg).map_err(err)?;
    all.push((name, factory));
    Ok(())
}

pub fn register_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(m, [register_policy]);
    Ok(())
}
