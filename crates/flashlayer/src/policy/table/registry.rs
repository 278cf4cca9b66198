//! Policies a program adds at run time: one [`register`] call gives a
//! policy defined outside the engine a name in the policy grammar, and it
//! then runs wherever a built-in online policy does — `sim::replay`, the
//! buffer pool, a tier's levels and FD-Buffer's pools (`clean=`, `dirty=`)
//! — through the same calling protocol ([`crate::policy::Policy`]), behind one
//! pointer ([`BoxedPolicy`]; the policy must be `Clone + Send`).
//!
//! ```
//! use flashlayer::policy::{register, BoxedPolicy, Lru, Policy, PolicySpec, Registration, Serves};
//! use flashlayer::spec::Entry;
//!
//! static MY_LRU: Registration = Registration {
//!     entry: Entry { name: "my-lru", description: "LRU, registered by a program", params: &[] },
//!     serves: Serves::POOL_AND_ACE_BASE,
//!     build: |_given, capacity, pages| Ok(BoxedPolicy::new(Lru::new(capacity).with_pages(pages))),
//! };
//! register(&MY_LRU).unwrap();
//! assert_eq!(PolicySpec::parse("my-lru").unwrap().to_string(), "my-lru");
//! ```

use crate::error::{Error, Result};
use crate::policy::BoxedPolicy;
use crate::spec::{Entry, Given};
use std::sync::RwLock;

/// A policy added at run time: its name, description and parameters, as
/// the grammar reads them, and how to build it.
pub struct Registration {
    /// Name (letters, digits, `-` and `_`), description and parameters;
    /// every parameter has a default, as in the built-in table.
    pub entry: Entry,
    /// What it can serve as: where FD-Buffer's pools and ACE's base accept
    /// it ([`crate::policy::Serves`]; a registered policy is online).
    pub serves: crate::policy::Serves,
    /// Builds the policy from its parsed parameters with `capacity` pages,
    /// its per-page state pre-sized for dense ids `0..pages`.
    pub build: fn(given: &Given, capacity: usize, pages: usize) -> Result<BoxedPolicy>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Registration")
            .field(&self.entry.name)
            .finish()
    }
}

impl PartialEq for Registration {
    /// One registration is one policy: equal only to itself.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Registration {}

static REGISTERED: RwLock<Vec<&'static Registration>> = RwLock::new(Vec::new());
/// The canonical specs of registered policies, kept for the program's life
/// so that a parsed spec stays `Copy`; one copy of each distinct spec.
static SPECS: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

/// Adds `policy` to the policy grammar for the rest of the program.
/// Registering the same `Registration` again does nothing; a name that a
/// built-in or another registered policy has is refused.
pub fn register(policy: &'static Registration) -> Result<()> {
    let name = policy.entry.name;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Error::invalid(format!(
            "cannot register policy '{name}': a name is letters, digits, '-' and '_'"
        )));
    }
    if policy.serves.offline {
        return Err(Error::invalid(format!(
            "cannot register policy '{name}': a registered policy is online; it is never given the trace's future"
        )));
    }
    let mut all = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if all.iter().any(|r| std::ptr::eq(*r, policy)) {
        return Ok(());
    }
    let taken = crate::policy::POLICIES
        .entries
        .iter()
        .chain(all.iter().map(|r| &r.entry))
        .any(|e| e.name.eq_ignore_ascii_case(name));
    if taken {
        return Err(Error::invalid(format!(
            "cannot register policy '{name}': a policy of that name exists"
        )));
    }
    all.push(policy);
    Ok(())
}

/// The registered policies' entries, in the order they were registered.
pub(crate) fn entries() -> Vec<&'static Entry> {
    let all = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    all.iter().map(|r| &r.entry).collect()
}

/// The registered policies, in the order they were registered.
pub(crate) fn all() -> Vec<&'static Registration> {
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The registered policy named `name` (case-insensitive).
pub(crate) fn find(name: &str) -> Option<&'static Registration> {
    let all = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    all.iter()
        .copied()
        .find(|r| r.entry.name.eq_ignore_ascii_case(name))
}

/// `spec`, kept for the rest of the program.
pub(crate) fn keep(spec: String) -> &'static str {
    let mut all = SPECS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = all.iter().find(|s| **s == spec) {
        return s;
    }
    let s: &'static str = Box::leak(spec.into_boxed_str());
    all.push(s);
    s
}
