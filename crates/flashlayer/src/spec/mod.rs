//! The one grammar of every spec users type: policies, stores, hierarchy
//! schemes, workloads, flash page update methods and devices (`DESIGN.md`
//! §2).
//!
//! A spec is `NAME[:KEY=VALUE,...]`, names and keys case-insensitive. Each
//! kind of spec is one [`Table`]: its names, and for each name its keys with
//! their types, defaults and help. One parser ([`parse`]) checks a spec
//! against its table — an unknown name, an unknown or repeated key, or a
//! value of the wrong type is an error naming the kind, the key and what is
//! allowed — and the kind's builder reads typed values from the result
//! ([`Given`]), taking a key's default from the table when the spec leaves
//! it out, so a default is written once. A value may itself be a spec of
//! another kind ([`Ty::Spec`], e.g. the SSD level's policy of a scheme):
//! the pieces after it whose keys are that spec's keys continue it.
//!
//! Two forms are kept as users write them: in a table with
//! [`Table::lead`], values right after the name, separated by `:`, are its
//! first keys' values (`pdl:256`, `ratio:1:8`); a table's
//! [`Table::unnamed`] entry is a spec of keys alone (`read=1,write=8`).
//! Values of every type are read by one set of parsers (`values.rs`).
//!
//! Lists (`lru,cflru:w=0.25,casa`) follow one continuation rule
//! ([`split_list`]): a piece of the form `key=value` (an `=` before any
//! `:`) continues the spec before it.
//!
//! Each kind prints its canonical spec with every key written out (what
//! JSON and Parquet rows carry); [`short`] leaves out the keys at their
//! defaults, for tables people read.

mod values;

use values::{amount, bytes, fraction, mix, positive, switch};
pub use values::{Amount, Size};

use crate::error::{Error, Result};

/// The type of a key's value.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A whole number from the first to the second ([`NO_MAX`]: no upper
    /// limit).
    Int(u64, u64),
    /// A fraction from 0 to 1.
    Fraction,
    /// A number from 0 to this (a fraction when this is at most 1).
    FractionTo(f64),
    /// A fraction from 0 to 1, or `auto`.
    FractionOrAuto,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// `on` or `off` (also `true`/`false`, `1`/`0`).
    Switch,
    /// A number above 0 and at most this (`f64::INFINITY`: any finite one).
    Positive(f64),
    /// A size in bytes, at least this: a whole number, `k` for KiB (`18k`).
    Bytes(u64),
    /// This many shares separated by `/` (`,` separates keys), each from 0
    /// to the total, summing to it; whole numbers if the flag is set
    /// (`45/43/4/4/4` of 100).
    Mix(usize, f64, bool),
    /// `auto`, a whole number, or a fraction from 0 to 1 written with a
    /// point ([`Amount`]).
    CountShareOrAuto,
    /// A size in pages: a whole number, or `P%` of a trace's distinct pages
    /// ([`Size`]).
    Pages,
    /// A spec of the kind of this table (its own keys following).
    Spec(&'static Table),
    /// Checked by the kind's builder; the text says what is allowed.
    Other(&'static str),
    /// Checked by the kind's builder against a list known only at run time
    /// (the policies that serve as a pool); the function says what is
    /// allowed.
    Listed(fn() -> String),
}

/// The upper limit of a [`Ty::Int`] that has none.
pub const NO_MAX: u64 = u64::MAX;

/// One key of a name.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Key as typed.
    pub key: &'static str,
    /// Its type.
    pub ty: Ty,
    /// The default as typed; `""` when the default is derived from other
    /// values (`help` says how).
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
}

impl Param {
    /// A key: its name, type, default as typed and help.
    pub const fn new(
        key: &'static str,
        ty: Ty,
        default: &'static str,
        help: &'static str,
    ) -> Param {
        Param {
            key,
            ty,
            default,
            help,
        }
    }

    /// Allowed values, in words.
    pub fn allowed(&self) -> String {
        match self.ty {
            Ty::Int(0, NO_MAX) => "a whole number".to_owned(),
            Ty::Int(min, NO_MAX) => format!("a whole number of at least {min}"),
            Ty::Int(min, max) => format!("a whole number from {min} to {max}"),
            Ty::Fraction => "a fraction from 0 to 1".to_owned(),
            Ty::FractionTo(max) if max <= 1.0 => format!("a fraction from 0 to {max}"),
            Ty::FractionTo(max) => format!("a number from 0 to {max}"),
            Ty::FractionOrAuto => "auto, or a fraction from 0 to 1".to_owned(),
            Ty::Choice(words) => match words {
                [.., last] if words.len() > 1 => {
                    format!("{} or {last}", words[..words.len() - 1].join(", "))
                }
                _ => words.join(", "),
            },
            Ty::Switch => "on or off".to_owned(),
            Ty::Positive(max) if max.is_infinite() => "a number above 0".to_owned(),
            Ty::Positive(1.0) => "a fraction above 0, at most 1".to_owned(),
            Ty::Positive(max) => format!("a number above 0, at most {max}"),
            Ty::Bytes(min) => format!("a size in bytes of at least {min}, k for KiB"),
            Ty::Mix(n, total, whole) => format!(
                "{n} {} separated by / summing to {total}",
                if whole { "whole numbers" } else { "shares" }
            ),
            Ty::CountShareOrAuto => {
                "auto, a whole number, or a fraction written with a point (0.0 to 1.0)".to_owned()
            }
            Ty::Pages => Size::ALLOWED.to_owned(),
            Ty::Spec(t) => format!(
                "a {} spec, as listed by 'flashlayer list {}'",
                t.what,
                plural(t.what)
            ),
            Ty::Other(text) => text.to_owned(),
            Ty::Listed(text) => text(),
        }
    }
}

/// One name of a kind.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Name as typed.
    pub name: &'static str,
    /// One line, with its source.
    pub description: &'static str,
    /// Its keys.
    pub params: &'static [Param],
}

impl Entry {
    /// The key named `key`.
    pub fn param(&self, key: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.key == key)
    }

    fn param_static(&'static self, key: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// A thing a spec names, with its parameters, said in the thing's own
/// file: its entry in its kind's table, its value read from a checked
/// spec, and its parameters written out in the entry's order (the
/// canonical spec after `name:`). A kind lists its things once, and its
/// table, parse and canonical form follow from the list
/// ([`crate::workload::WorkloadSpec`]).
pub trait FromSpec: Sized {
    /// Its entry: name, description, keys and their defaults.
    const ENTRY: Entry;
    /// The value `g` gives (`g` names [`Self::ENTRY`]).
    fn from_spec(g: &Given) -> Result<Self>;
    /// Every parameter as `(key, value)`, in [`Self::ENTRY`]'s order.
    fn pairs(&self) -> Vec<(&'static str, String)>;
}

/// `name:key=value,...` (`name` alone without keys): the canonical spec of
/// a [`FromSpec`] value.
pub fn write_canonical<T: FromSpec>(t: &T, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    let pairs = t.pairs().into_iter().map(|(k, v)| format!("{k}={v}"));
    f.write_str(&written(T::ENTRY.name, pairs.collect()))
}

/// `name:pair,pair,...`, or `name` alone without pairs: how every
/// canonical spec is written.
fn written(name: &str, pairs: Vec<String>) -> String {
    if pairs.is_empty() {
        name.to_owned()
    } else {
        format!("{name}:{}", pairs.join(","))
    }
}

/// Every name of one kind of spec.
#[derive(Debug)]
pub struct Table {
    /// The kind, for messages (`policy`, `store`, `scheme`).
    pub what: &'static str,
    /// Its names.
    pub entries: &'static [Entry],
    /// Names added at run time, after `entries` (the policies a program
    /// registers, [`crate::policy::register`]).
    pub more: Option<fn() -> Vec<&'static Entry>>,
    /// Whether bare values right after a name, separated by `:`, are the
    /// values of its first keys in order (`pdl:256` is `pdl:max_diff=256`,
    /// `ratio:1:8` is `ratio:read=1,write=8`).
    pub lead: bool,
    /// The entry a spec is when it starts with `key=value` instead of a
    /// name (a device's costs, `read=1,write=8`).
    pub unnamed: Option<&'static str>,
}

impl Table {
    /// A table of `entries` only: none added at run time, no bare values
    /// after a name, no unnamed entry.
    pub const fn of(what: &'static str, entries: &'static [Entry]) -> Table {
        Table {
            what,
            entries,
            more: None,
            lead: false,
            unnamed: None,
        }
    }

    /// The entry named `name` (case-insensitive).
    pub fn entry(&'static self, name: &str) -> Option<&'static Entry> {
        let named = |e: &&'static Entry| e.name.eq_ignore_ascii_case(name);
        self.entries
            .iter()
            .find(named)
            .or_else(|| self.more.and_then(|more| more().into_iter().find(named)))
    }

    /// Every entry: the table's own, then those added at run time.
    pub fn all(&self) -> Vec<&'static Entry> {
        let mut all: Vec<&'static Entry> = self.entries.iter().collect();
        all.extend(self.more.map(|more| more()).unwrap_or_default());
        all
    }

    /// The names, for messages.
    pub fn names(&self) -> Vec<&'static str> {
        self.all().into_iter().map(|e| e.name).collect()
    }
}

/// A spec checked against its table: its entry and the values given.
#[derive(Debug)]
pub struct Given {
    table: &'static Table,
    /// The entry named.
    pub entry: &'static Entry,
    pairs: Vec<(&'static Param, String)>,
}

/// Whether a list piece continues the spec before it: `key=value`, an `=`
/// before any `:`.
fn is_pair(piece: &str) -> bool {
    match (piece.find('='), piece.find(':')) {
        (Some(e), Some(c)) => e < c,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Parses `text` as a spec of `table`'s kind. Every key is known and given
/// once, and every value of a checked type is valid.
pub fn parse(table: &'static Table, text: &str) -> Result<Given> {
    let text = text.trim();
    // `rest`: what follows the colon, if there is one.
    let (name, rest) = match (table.unnamed, text.split_once(':')) {
        (Some(unnamed), _) if is_pair(text) => (unnamed, Some(text)),
        (_, Some((n, r))) => (n.trim(), Some(r)),
        (_, None) => (text, None),
    };
    let entry = table.entry(name).ok_or_else(|| {
        Error::invalid(format!(
            "unknown {} '{name}'; valid {}: {}",
            table.what,
            plural(table.what),
            table.names().join(", ")
        ))
    })?;
    let mut g = Given {
        table,
        entry,
        pairs: Vec::new(),
    };
    if rest.is_some_and(|r| r.trim().is_empty()) {
        return Err(g.error("':' must be followed by key=value"));
    }
    // The key of a spec-typed value that later pieces may continue.
    let mut open: Option<usize> = None;
    for piece in rest.into_iter().flat_map(|r| r.split(',')).map(str::trim) {
        if piece.is_empty() {
            return Err(g.error(format!("empty item in '{}'", rest.unwrap_or_default())));
        }
        if table.lead && g.pairs.is_empty() && !is_pair(piece) {
            let values: Vec<&str> = piece.split(':').map(str::trim).collect();
            if entry.params.is_empty() {
                return Err(g.error(format!("takes no parameters, got '{piece}'")));
            }
            if values.len() > entry.params.len() || values.iter().any(|v| v.is_empty()) {
                let keys: Vec<&str> = entry.params.iter().map(|p| p.key).collect();
                return Err(g.error(format!(
                    "expected at most {} values separated by ':' ({}), got '{piece}'",
                    keys.len(),
                    keys.join(", ")
                )));
            }
            g.pairs.extend(
                entry
                    .params
                    .iter()
                    .zip(values)
                    .map(|(p, v)| (p, v.to_owned())),
            );
            continue;
        }
        let Some((k, v)) = piece.split_once('=').filter(|_| is_pair(piece)) else {
            return Err(g.error(format!("expected key=value, got '{piece}'")));
        };
        let k = k.trim().to_ascii_lowercase();
        if let Some(i) = open {
            let continues = match g.pairs[i].0.ty {
                Ty::Spec(inner) => accepts(inner, &g.pairs[i].1, &k),
                _ => false,
            };
            if continues {
                let value = &mut g.pairs[i].1;
                // A spec's first key follows its name after a colon (an
                // unnamed spec is keys from the start).
                value.push(if !value.contains(':') && !is_pair(value) {
                    ':'
                } else {
                    ','
                });
                value.push_str(piece);
                continue;
            }
        }
        open = None;
        let Some(param) = entry.param_static(&k) else {
            let keys: Vec<&str> = entry.params.iter().map(|p| p.key).collect();
            return Err(Error::invalid(if keys.is_empty() {
                format!(
                    "{} '{}' takes no parameters, got '{k}'",
                    table.what, entry.name
                )
            } else {
                format!(
                    "{} '{}' has no parameter '{k}'; its parameters: {}",
                    table.what,
                    entry.name,
                    keys.join(", ")
                )
            }));
        };
        if g.pairs.iter().any(|(p, _)| p.key == param.key) {
            return Err(g.error(format!("parameter '{k}' given twice")));
        }
        if v.trim().is_empty() {
            return Err(g.error(format!("'{k}=' needs a value: {}", param.allowed())));
        }
        if matches!(param.ty, Ty::Spec(_)) {
            open = Some(g.pairs.len());
        }
        g.pairs.push((param, v.trim().to_owned()));
    }
    for (param, value) in &g.pairs {
        g.check(param, value)?;
    }
    Ok(g)
}

/// Whether `key` continues the spec `text` of `table`'s kind: a key of its
/// name, or of the spec its last key opened (nested specs continue
/// innermost first).
fn accepts(table: &'static Table, text: &str, key: &str) -> bool {
    let Ok(g) = parse(table, text) else {
        // A bad value inside does not change whose key this is: the spec
        // is then refused for that value, not for this key.
        let name = match table.unnamed {
            Some(unnamed) if is_pair(text) => unnamed,
            _ => text.split_once(':').map_or(text, |(n, _)| n).trim(),
        };
        return table.entry(name).is_some_and(|e| e.param(key).is_some());
    };
    if g.entry.param(key).is_some() {
        return true;
    }
    match g.pairs.last() {
        Some((
            Param {
                ty: Ty::Spec(inner),
                ..
            },
            v,
        )) => accepts(inner, v, key),
        _ => false,
    }
}

fn plural(what: &str) -> String {
    match what.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{what}s"),
    }
}

impl Given {
    /// The name (as the table writes it).
    pub fn name(&self) -> &'static str {
        self.entry.name
    }

    /// An error about this spec.
    pub fn error(&self, msg: impl std::fmt::Display) -> Error {
        if self.table.unnamed == Some(self.entry.name) {
            return Error::invalid(format!("{}: {msg}", self.table.what));
        }
        Error::invalid(format!("{} '{}': {msg}", self.table.what, self.entry.name))
    }

    /// An error: `value` is not allowed for `key`.
    pub fn bad(&self, key: &str, value: &str) -> Error {
        let allowed = self
            .entry
            .param(key)
            .map(Param::allowed)
            .unwrap_or_default();
        self.error(format!(
            "bad value '{value}' for '{key}'; expected {allowed}"
        ))
    }

    fn check(&self, param: &Param, v: &str) -> Result<()> {
        let lower = v.to_ascii_lowercase();
        let ok = match param.ty {
            Ty::Int(min, max) => lower.parse::<u64>().is_ok_and(|x| (min..=max).contains(&x)),
            Ty::Fraction => fraction(&lower).is_some(),
            Ty::FractionTo(max) => lower.parse::<f64>().is_ok_and(|x| (0.0..=max).contains(&x)),
            Ty::FractionOrAuto => lower == "auto" || fraction(&lower).is_some(),
            Ty::Choice(words) => words.contains(&lower.as_str()),
            Ty::Switch => switch(&lower).is_some(),
            Ty::Positive(max) => positive(&lower).is_some_and(|x| x <= max),
            Ty::Bytes(min) => bytes(&lower).is_some_and(|n| n >= min),
            Ty::Mix(n, total, whole) => mix(&lower, n, total, whole).is_some(),
            Ty::CountShareOrAuto => amount(&lower).is_some(),
            Ty::Pages => Size::parse(&lower).is_ok(),
            Ty::Spec(inner) => {
                return parse(inner, v)
                    .map(|_| ())
                    .map_err(|e| self.error(format!("{}: {e}", param.key)))
            }
            Ty::Other(_) | Ty::Listed(_) => true,
        };
        if ok {
            Ok(())
        } else {
            Err(self.bad(param.key, v))
        }
    }

    /// Whether `key` was given.
    pub fn has(&self, key: &str) -> bool {
        self.pairs.iter().any(|(p, _)| p.key == key)
    }

    /// Every key given and its value as typed, in the order given.
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.pairs.iter().map(|(p, v)| (p.key, v.as_str()))
    }

    /// The value given for `key`, as typed.
    pub fn given(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(p, _)| p.key == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key`: given, else the table's default (`""` if the
    /// default is derived), lower-cased unless a spec or free text.
    pub fn value(&self, key: &str) -> String {
        let param = self
            .entry
            .param(key)
            .unwrap_or_else(|| panic!("{} '{}' has no key '{key}'", self.table.what, self.name()));
        let v = self.given(key).unwrap_or(param.default);
        match param.ty {
            Ty::Spec(_) | Ty::Other(_) | Ty::Listed(_) => v.to_owned(),
            _ => v.to_ascii_lowercase(),
        }
    }

    /// The canonical spec: the name and, in the entry's order, every key
    /// that was given or has a default, its value written one way (numbers
    /// as parsed, `on`/`off`, sizes as [`Size`] writes them); a key whose
    /// default is derived and that was not given is left out. A nested
    /// spec's value is written by `nested`, its own kind's canonical form.
    /// Kinds whose keys depend on each other's values (a policy's keys
    /// that apply only with another's) write their own.
    pub fn canonical(
        &self,
        nested: &dyn Fn(&'static Table, &str) -> Result<String>,
    ) -> Result<String> {
        let keys = self.entry.params.iter();
        let written = keys.filter(|p| !p.default.is_empty() || self.has(p.key));
        self.canonical_of(written.map(|p| p.key), nested)
    }

    /// The name and `keys` with their values, each written one way as
    /// [`Given::canonical`] writes it: for a kind that chooses which keys
    /// its canonical form holds (a policy's keys that apply only with
    /// another's value).
    pub fn canonical_of<'k>(
        &self,
        keys: impl Iterator<Item = &'k str>,
        nested: &dyn Fn(&'static Table, &str) -> Result<String>,
    ) -> Result<String> {
        let mut pairs = Vec::new();
        for key in keys {
            let ty = self.entry.param(key).map(|p| p.ty);
            let v = match ty {
                Some(Ty::Int(..)) => self.int(key).to_string(),
                Some(Ty::Fraction | Ty::FractionTo(_)) => self.fraction(key).to_string(),
                Some(Ty::FractionOrAuto) => self
                    .fraction_or_auto(key)
                    .map_or_else(|| "auto".to_owned(), |x| x.to_string()),
                Some(Ty::Switch) => (if self.switch(key) { "on" } else { "off" }).to_owned(),
                Some(Ty::Positive(_)) => self.number(key).to_string(),
                Some(Ty::Pages) => self.size(key).to_string(),
                Some(Ty::Spec(table)) => nested(table, &self.value(key))?,
                _ => self.value(key),
            };
            pairs.push(format!("{key}={v}"));
        }
        Ok(written(self.name(), pairs))
    }

    /// A whole-number key.
    pub fn int(&self, key: &str) -> u64 {
        self.value(key).parse().expect("checked by the grammar")
    }

    /// A whole-number key whose default is derived (`None` if not given).
    pub fn int_given(&self, key: &str) -> Option<u64> {
        self.given(key).map(|_| self.int(key))
    }

    /// A fraction key (of either fraction type).
    pub fn fraction(&self, key: &str) -> f64 {
        // A `FractionTo` key may exceed 1; the grammar checked its range.
        self.value(key).parse().expect("checked by the grammar")
    }

    /// A fraction-or-auto key: `None` for `auto`.
    pub fn fraction_or_auto(&self, key: &str) -> Option<f64> {
        fraction(&self.value(key))
    }

    /// A choice key, as the table spells it.
    pub fn choice(&self, key: &str) -> &'static str {
        let v = self.value(key);
        match self.entry.param(key).map(|p| p.ty) {
            Some(Ty::Choice(words)) => words
                .iter()
                .find(|w| **w == v)
                .expect("checked by the grammar"),
            _ => panic!("'{key}' is not a choice"),
        }
    }

    /// An on/off key.
    pub fn switch(&self, key: &str) -> bool {
        switch(&self.value(key)).expect("checked by the grammar")
    }

    /// A positive-number key.
    pub fn number(&self, key: &str) -> f64 {
        positive(&self.value(key)).expect("checked by the grammar")
    }

    /// A bytes key, `None` if not given and its default is derived.
    pub fn bytes(&self, key: &str) -> Option<usize> {
        let v = self.value(key);
        (!v.is_empty()).then(|| bytes(&v).expect("checked by the grammar") as usize)
    }

    /// A mix key: its shares in order.
    pub fn mix(&self, key: &str) -> Vec<f64> {
        let v = self.value(key);
        match self.entry.param(key).map(|p| p.ty) {
            Some(Ty::Mix(n, total, whole)) => {
                mix(&v, n, total, whole).expect("checked by the grammar")
            }
            _ => panic!("'{key}' is not a mix"),
        }
    }

    /// A count-share-or-auto key.
    pub fn amount(&self, key: &str) -> Amount {
        amount(&self.value(key)).expect("checked by the grammar")
    }

    /// A size-in-pages key.
    pub fn size(&self, key: &str) -> Size {
        Size::parse(&self.value(key)).expect("checked by the grammar")
    }
}

/// Splits a comma-separated list of specs of `table`'s kind: a piece
/// `key=value` (an `=` before any `:`) continues the spec before it, so
/// `lru,cflru,w=0.25,casa` is three specs. Each is parsed by `parse_one`.
pub fn split_list<T>(
    table: &'static Table,
    list: &str,
    parse_one: impl Fn(&str) -> Result<T>,
) -> Result<Vec<T>> {
    let mut specs: Vec<String> = Vec::new();
    if list.trim().is_empty() {
        return Err(Error::invalid(format!("no {} given", table.what)));
    }
    for piece in list.split(',').map(str::trim) {
        if piece.is_empty() {
            return Err(Error::invalid(format!(
                "empty item in the list '{}' (two commas in a row, or one at an end)",
                list.trim()
            )));
        }
        match specs.last_mut() {
            Some(last) if is_pair(piece) => {
                last.push(if last.contains(':') { ',' } else { ':' });
                last.push_str(piece);
            }
            None if is_pair(piece) => {
                return Err(Error::invalid(format!(
                    "'{piece}' is a parameter but no {} comes before it",
                    table.what
                )))
            }
            _ => specs.push(piece.to_owned()),
        }
    }
    if specs.is_empty() {
        return Err(Error::invalid(format!("no {} given", table.what)));
    }
    specs.iter().map(|s| parse_one(s)).collect()
}

/// `canonical` (a spec of `table`'s kind) with the keys at their defaults
/// left out: what tables for people show. A spec that does not parse is
/// returned as it is.
pub fn short(table: &'static Table, canonical: &str) -> String {
    // A spec written by position or unnamed (a device, a method) is short
    // as it is.
    if table.lead || table.unnamed.is_some() {
        return canonical.to_owned();
    }
    let Ok(g) = parse(table, canonical) else {
        return canonical.to_owned();
    };
    let kept: Vec<String> = g
        .pairs
        .iter()
        .filter_map(|(p, v)| {
            let nested = |t: &str| match p.ty {
                Ty::Spec(inner) => short(inner, t),
                _ => t.to_owned(),
            };
            let (v, default) = (nested(v), nested(p.default));
            let same = v.eq_ignore_ascii_case(&default)
                || matches!((v.parse::<f64>(), default.parse::<f64>()), (Ok(a), Ok(b)) if a == b);
            (!same).then(|| format!("{}={v}", p.key))
        })
        .collect();
    if kept.is_empty() {
        g.entry.name.to_owned()
    } else {
        format!("{}:{}", g.entry.name, kept.join(","))
    }
}

#[cfg(test)]
mod tests;
