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
//! - optional `reinstate(page, dirty)`: the page `evict()` just returned
//!   goes back where it was (the caller could not let it go, or its
//!   request failed); without it the page is admitted again as new;
//! - optional `dirty(page)`, `clean(page)`: a resident page was changed
//!   without a request, or written back and stays;
//! - optional `resize(capacity)`: the buffer's size changed;
//! - optional `order(k) -> [page]`: its next `k` victims, in order, so that
//!   it can be ACE's base (`ace:base=NAME`).
//!
//! Pages are the run's dense ids, numbered from 0 in order of first
//! appearance.
//!
//! A callback that raises fails the request that called it
//! ([`Policy::may_fail`]): the engine's side here is left as it was before
//! the call, and the exception unwinds, carried as [`Raised`], to the
//! binding that ran the engine ([`guarded`]), which raises it. The engine
//! puts back what the request had done (a victim reinstated, the counters
//! as they were), so the next request works as if the failed one never
//! came. The object itself is the user's: a callback that raises should
//! leave it as it was, as `PythonLru`'s do.

use crate::err;
use flashlayer::policy::{
    register, Ahead, BoxedPolicy, Neighbours, Policy, Registration, Serves, Victim,
};
use flashlayer::spec::{Entry, Given};
use flashlayer::types::{DenseId, Op, PageCost};
use pyo3::prelude::*;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

/// Each Python policy's name, factory and whether it serves as ACE's base,
/// for the registration's build.
static FACTORIES: Mutex<Vec<(&'static str, Py<PyAny>, bool)>> = Mutex::new(Vec::new());

/// The exception a Python policy raised, carried by the unwind that fails
/// its request up to [`guarded`].
pub(crate) struct Raised(pub(crate) PyErr);

/// Fails the request under way with `e`.
fn raise(e: PyErr) -> ! {
    panic::resume_unwind(Box::new(Raised(e)))
}

/// Runs `work`, turning a Python policy's failure ([`Raised`]) into its
/// exception; any other panic goes on unwinding.
pub(crate) fn guarded<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match panic::catch_unwind(AssertUnwindSafe(work)) {
        Ok(r) => r,
        Err(p) => match p.downcast::<Raised>() {
            Ok(raised) => Err(raised.0),
            Err(p) => panic::resume_unwind(p),
        },
    }
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
}

impl PyPolicy {
    /// Calls `method` with `args`, if the object has it or `required`.
    fn call<'py, A>(
        &self,
        py: Python<'py>,
        method: &str,
        args: A,
        required: bool,
    ) -> PyResult<Option<Bound<'py, PyAny>>>
    where
        A: pyo3::call::PyCallArgs<'py>,
    {
        let obj = self.obj.bind(py);
        if !required && !obj.hasattr(method)? {
            return Ok(None);
        }
        obj.call_method1(method, args).map(Some)
    }

    /// Calls `method`, failing the request if it raises.
    fn notify<A>(&self, method: &str, args: A, required: bool)
    where
        A: for<'py> pyo3::call::PyCallArgs<'py>,
    {
        if let Err(e) = Python::attach(|py| self.call(py, method, args, required).map(drop)) {
            raise(e)
        }
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

    /// The object's victim, checked: a resident page.
    fn victim(&self, py: Python<'_>) -> PyResult<DenseId> {
        let v = self
            .call(py, "evict", (), true)?
            .expect("a required method is called");
        match v.extract::<u64>() {
            Ok(p) if p <= u64::from(DenseId::MAX) && self.at(p as DenseId) != ABSENT => {
                Ok(p as DenseId)
            }
            _ => Err(crate::FlashlayerError::new_err(format!(
                "policy '{}': evict() returned {}, which is not a resident page",
                self.name,
                shown(&v)
            ))),
        }
    }

    /// Puts `page`, which `evict()` just returned, back into the object:
    /// its `reinstate` if it has one, else admitted as new.
    fn put_back(&self, py: Python<'_>, page: DenseId, dirty: bool) -> PyResult<()> {
        if self.call(py, "reinstate", (page, dirty), false)?.is_none() {
            self.call(py, "admit", (page, dirty), true)?;
        }
        Ok(())
    }

    /// The object's next `k` victims, checked: distinct resident pages, at
    /// most `k`.
    fn order(&self, py: Python<'_>, k: usize) -> PyResult<Vec<DenseId>> {
        let v = self
            .call(py, "order", (k,), true)?
            .expect("a required method is called");
        let bad = |why: String| {
            crate::FlashlayerError::new_err(format!(
                "policy '{}': order({k}) returned {}: {why}",
                self.name,
                shown(&v)
            ))
        };
        let pages: Vec<u64> = v
            .extract()
            .map_err(|_| bad("expected a list of page ids".into()))?;
        if pages.len() > k {
            return Err(bad(format!("{} pages, more than {k}", pages.len())));
        }
        let mut seen = std::collections::HashSet::with_capacity(pages.len());
        pages
            .into_iter()
            .map(|p| match DenseId::try_from(p) {
                Ok(d) if self.at(d) == ABSENT => Err(bad(format!("page {p} is not resident"))),
                Ok(d) if !seen.insert(d) => Err(bad(format!("page {p} appears twice"))),
                Ok(d) => Ok(d),
                Err(_) => Err(bad(format!("page {p} is not resident"))),
            })
            .collect()
    }
}

/// `v`'s repr, for a message.
fn shown(v: &Bound<'_, PyAny>) -> String {
    v.repr().map_or_else(|_| "?".to_owned(), |r| r.to_string())
}

impl Clone for PyPolicy {
    /// An independent copy: the object deep-copied.
    fn clone(&self) -> Self {
        let obj = Python::attach(|py| {
            py.import("copy")
                .and_then(|c| c.call_method1("deepcopy", (self.obj.bind(py),)))
                .map(Bound::unbind)
                .unwrap_or_else(|e| raise(e))
        });
        PyPolicy {
            name: self.name,
            obj,
            capacity: self.capacity,
            state: self.state.clone(),
            len: self.len,
            dirty: self.dirty,
        }
    }
}

/// Each method is the object's call first, the engine's state after: a call
/// that raises leaves both as they were. A page's dirty state is a fact, not
/// a decision, so `mark_dirty` keeps it even if `dirty(page)` raises.
impl Policy for PyPolicy {
    fn name(&self) -> String {
        self.name.to_owned()
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn set_capacity(&mut self, capacity: usize) {
        self.notify("resize", (capacity,), false);
        self.capacity = capacity;
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

    fn may_fail(&self) -> bool {
        true
    }

    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.at(page) == ABSENT {
            return false;
        }
        self.notify("hit", (page, op.is_write()), true);
        if op.is_write() {
            self.set(page, DIRTY);
        }
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        self.notify("admit", (page, op.is_write()), true);
        self.set(page, if op.is_write() { DIRTY } else { CLEAN });
    }

    fn adopt(&mut self, page: DenseId, dirty: bool, _cost: PageCost) {
        self.notify("admit", (page, dirty), true);
        self.set(page, if dirty { DIRTY } else { CLEAN });
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let found = Python::attach(|py| {
            // A victim the caller cannot let go (a pinned frame) goes back
            // once another is found, the last refused first, so that each
            // returns to where it was.
            let mut refused = Vec::new();
            let mut chosen = Ok(None);
            for _ in 0..self.len {
                match self.victim(py) {
                    Ok(p) if evictable(p) => {
                        chosen = Ok(Some(p));
                        break;
                    }
                    Ok(p) => refused.push(p),
                    Err(e) => {
                        chosen = Err(e);
                        break;
                    }
                }
            }
            let mut back = Ok(());
            for &p in refused.iter().rev() {
                let r = self.put_back(py, p, self.at(p) == DIRTY);
                back = back.and(r);
            }
            match (chosen, back) {
                (Ok(found), Ok(())) => Ok(found),
                (Err(e), _) => Err(e),
                (Ok(found), Err(e)) => {
                    // The eviction fails whole: the victim goes back too.
                    if let Some(p) = found {
                        let _ = self.put_back(py, p, self.at(p) == DIRTY);
                    }
                    Err(e)
                }
            }
        })
        .unwrap_or_else(|e| raise(e));
        let page = found?;
        let dirty = self.at(page) == DIRTY;
        self.set(page, ABSENT);
        Some(Victim { page, dirty })
    }

    /// The object's `reinstate(page, dirty)`, or `admit` without one.
    fn reinstate(&mut self, victim: Victim) {
        let back = Python::attach(|py| self.put_back(py, victim.page, victim.dirty));
        self.set(victim.page, if victim.dirty { DIRTY } else { CLEAN });
        if let Err(e) = back {
            raise(e)
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.at(page) != ABSENT {
            self.set(page, DIRTY);
            self.notify("dirty", (page,), false);
        }
    }

    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.at(page) == DIRTY {
            self.notify("clean", (page,), false);
            self.set(page, CLEAN);
        }
    }

    /// The object's `order(k)`, if it has one: its next `k` victims in
    /// order (checked as `evict()`'s are), of which the dirty ones the
    /// caller may write are taken (ACE's base). Without it the order is
    /// unknown.
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        let ahead = Python::attach(|py| {
            if !self.obj.bind(py).hasattr("order")? {
                return Ok(None);
            }
            if want.n == 0 {
                return Ok(Some(Vec::new()));
            }
            self.order(py, want.window.min(self.len)).map(Some)
        })
        .unwrap_or_else(|e| raise(e));
        let Some(ahead) = ahead else { return false };
        for p in ahead {
            if out.len() >= want.n {
                break;
            }
            if self.at(p) == DIRTY && pages.evictable(p) {
                out.push(p);
            }
        }
        true
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        let s = self.at(page);
        if s == ABSENT {
            return None;
        }
        self.notify("remove", (page,), true);
        self.set(page, ABSENT);
        Some(s == DIRTY)
    }
}

/// The methods every Python policy has; the others are optional.
const REQUIRED: [&str; 4] = ["admit", "hit", "evict", "remove"];

/// The required methods `obj` lacks.
fn lacking(obj: &Bound<'_, PyAny>) -> PyResult<Vec<&'static str>> {
    let mut missing = Vec::new();
    for m in REQUIRED {
        if !obj.hasattr(m)? {
            missing.push(m);
        }
    }
    Ok(missing)
}

/// Builds the registered Python policy `given` names with `capacity`
/// pages: its factory called with the capacity, and the object checked.
fn build(given: &Given, capacity: usize, pages: usize) -> flashlayer::Result<BoxedPolicy> {
    let built = Python::attach(|py| {
        // The registration's own name: `given`'s lives only as long as it.
        let found = FACTORIES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|(n, _, _)| *n == given.name())
            .map(|(n, f, _)| (*n, f.clone_ref(py)));
        let Some((name, factory)) = found else {
            return Ok(Err(flashlayer::Error::invalid(format!(
                "policy '{}' has no factory",
                given.name()
            ))));
        };
        let obj = factory.call1(py, (capacity,))?;
        let missing = lacking(obj.bind(py))?;
        if !missing.is_empty() {
            return Err(crate::FlashlayerError::new_err(format!(
                "policy '{name}': the object its factory returned has no {}",
                missing.join(", ")
            )));
        }
        Ok(Ok((name, obj)))
    })
    .unwrap_or_else(|e: PyErr| raise(e));
    let (name, obj) = built?;
    Ok(BoxedPolicy::new(PyPolicy {
        name,
        obj,
        capacity,
        state: vec![ABSENT; pages],
        len: 0,
        dirty: 0,
    }))
}

/// Registers `factory` (called with the buffer's capacity in pages, it
/// returns an object with `admit`, `hit`, `evict` and `remove`) as the
/// policy `name`, described by `description`. A class lacking a required
/// method is refused here, as is a name already registered unless
/// `replace`.
#[pyfunction]
#[pyo3(signature = (name, factory, description=None, *, replace=false))]
fn register_policy(
    name: &str,
    factory: Bound<'_, PyAny>,
    description: Option<&str>,
    replace: bool,
) -> PyResult<()> {
    if !factory.is_callable() {
        return Err(crate::FlashlayerError::new_err(format!(
            "policy '{name}': the factory must be a class or a function taking the capacity, got {}",
            shown(&factory)
        )));
    }
    let class = factory.is_instance_of::<pyo3::types::PyType>();
    if class {
        let missing = lacking(&factory)?;
        if !missing.is_empty() {
            return Err(crate::FlashlayerError::new_err(format!(
                "policy '{name}': class {} has no {} (a policy needs {})",
                factory
                    .getattr("__name__")
                    .map_or_else(|_| "?".to_owned(), |n| n.to_string()),
                missing.join(", "),
                REQUIRED.join(", ")
            )));
        }
    }
    // A class tells its order if it has `order`; what a function returns
    // is known only when built, where ACE refuses it without `order`.
    let ace_base = !class || factory.hasattr("order")?;
    let mut all = FACTORIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(slot) = all.iter_mut().find(|(n, _, _)| *n == name) {
        if !replace {
            return Err(crate::FlashlayerError::new_err(format!(
                "policy '{name}' is registered already (replace=True registers the new factory in its place)"
            )));
        }
        if slot.2 != ace_base {
            return Err(crate::FlashlayerError::new_err(format!(
                "policy '{name}' was registered {} order(k); its replacement must keep that (ACE's base \
                 depends on it): register it under a new name",
                if slot.2 { "with" } else { "without" }
            )));
        }
        slot.1 = factory.unbind();
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
        // a pool.
        serves: if ace_base {
            Serves::POOL_AND_ACE_BASE
        } else {
            Serves::POOL
        },
        build,
    }));
    register(reg).map_err(err)?;
    all.push((name, factory.unbind(), ace_base));
    Ok(())
}

pub fn register_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(m, [register_policy]);
    Ok(())
}
