//! The one grammar of every spec users type: policies, stores, hierarchy
//! schemes (`DESIGN.md` §2).
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
//! Lists (`lru,cflru:w=0.25,casa`) follow one continuation rule
//! ([`split_list`]): a piece of the form `key=value` (an `=` before any
//! `:`) continues the spec before it.
//!
//! Each kind prints its canonical spec with every key written out (what
//! JSON and Parquet rows carry); [`short`] leaves out the keys at their
//! defaults, for tables people read.

use crate::error::{Error, Result};

/// The type of a key's value.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A whole number from the first to the second ([`NO_MAX`]: no upper
    /// limit).
    Int(u64, u64),
    /// A fraction from 0 to 1.
    Fraction,
    /// A fraction from 0 to this.
    FractionTo(f64),
    /// A fraction from 0 to 1, or `auto`.
    FractionOrAuto,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// `on` or `off` (also `true`/`false`, `1`/`0`).
    Switch,
    /// A spec of the kind of this table (its own keys following).
    Spec(&'static Table),
    /// Checked by the kind's builder; the text says what is allowed.
    Other(&'static str),
    /// Like [`Ty::Other`], for a value that may hold `key=value` pieces of
    /// its own (a device spec `read=1,write=8`): the pieces after it with
    /// these keys continue it.
    Keyed(&'static [&'static str], &'static str),
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
            Ty::FractionTo(max) => format!("a fraction from 0 to {max}"),
            Ty::FractionOrAuto => "auto, or a fraction from 0 to 1".to_owned(),
            Ty::Choice(words) => match words {
                [.., last] if words.len() > 1 => {
                    format!("{} or {last}", words[..words.len() - 1].join(", "))
                }
                _ => words.join(", "),
            },
            Ty::Switch => "on or off".to_owned(),
            Ty::Spec(t) => format!("a {} spec", t.what),
            Ty::Other(text) | Ty::Keyed(_, text) => text.to_owned(),
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
}

impl Table {
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
    let (name, rest) = match text.split_once(':') {
        Some((n, r)) => (n.trim(), Some(r)),
        None => (text, None),
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
        let Some((k, v)) = piece.split_once('=').filter(|_| is_pair(piece)) else {
            return Err(g.error(format!("expected key=value, got '{piece}'")));
        };
        let k = k.trim().to_ascii_lowercase();
        if let Some(i) = open {
            let (continues, spec) = match g.pairs[i].0.ty {
                Ty::Spec(inner) => (accepts(inner, &g.pairs[i].1, &k), true),
                Ty::Keyed(keys, _) => (keys.contains(&k.as_str()), false),
                _ => (false, false),
            };
            if continues {
                let value = &mut g.pairs[i].1;
                // A spec's first key follows its name after a colon.
                value.push(if spec && !value.contains(':') {
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
        if matches!(param.ty, Ty::Spec(_) | Ty::Keyed(..)) {
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
        let name = text.split_once(':').map_or(text, |(n, _)| n).trim();
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
            Ty::FractionTo(max) => fraction(&lower).is_some_and(|x| x <= max),
            Ty::FractionOrAuto => lower == "auto" || fraction(&lower).is_some(),
            Ty::Choice(words) => words.contains(&lower.as_str()),
            Ty::Switch => switch(&lower).is_some(),
            Ty::Spec(inner) => {
                return parse(inner, v)
                    .map(|_| ())
                    .map_err(|e| self.error(format!("{}: {e}", param.key)))
            }
            Ty::Other(_) | Ty::Keyed(..) => true,
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
            Ty::Spec(_) | Ty::Other(_) | Ty::Keyed(..) => v.to_owned(),
            _ => v.to_ascii_lowercase(),
        }
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
        fraction(&self.value(key)).expect("checked by the grammar")
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
}

/// A size in pages: a whole number of pages (at least 1), or `P%` of a
/// trace's distinct pages (0 < P ≤ 100, rounded, at least 1 page).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    /// Pages.
    Pages(u64),
    /// A percentage of the trace's distinct pages.
    Percent(f64),
}

impl Size {
    /// What [`Size::parse`] takes, in words.
    pub const ALLOWED: &'static str =
        "a whole number of pages (at least 1), or P% of the trace's distinct pages (0 < P <= 100)";

    /// Parses `N` or `P%`.
    pub fn parse(text: &str) -> Result<Size> {
        let t = text.trim();
        let bad = || Error::invalid(format!("bad size '{t}': expected {}", Size::ALLOWED));
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(bad());
            }
            return Ok(Size::Percent(p));
        }
        match t.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Size::Pages(n)),
            _ => Err(bad()),
        }
    }

    /// Pages, for a trace of `distinct` pages.
    pub fn pages(self, distinct: usize) -> usize {
        match self {
            Size::Pages(n) => usize::try_from(n).unwrap_or(usize::MAX),
            Size::Percent(p) => ((distinct as f64 * p / 100.0).round_ties_even() as usize).max(1),
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Pages(n) => write!(f, "{n}"),
            Size::Percent(p) => write!(f, "{p}%"),
        }
    }
}

fn fraction(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x))
}

fn switch(v: &str) -> Option<bool> {
    match v {
        "on" | "true" | "1" => Some(true),
        "off" | "false" | "0" => Some(false),
        _ => None,
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
    let Ok(g) = parse(table, canonical) else {
        return canonical.to_owned();
    };
    let kept: Vec<String> = g
        .pairs
        .iter()
        .filter_map(|(p, v)| {
            let v = match p.ty {
                Ty::Spec(inner) => short(inner, v),
                _ => v.clone(),
            };
            let default = match p.ty {
                Ty::Spec(inner) => short(inner, p.default),
                _ => p.default.to_owned(),
            };
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
mod tests {
    use super::*;

    const INNER: Table = Table {
        what: "policy",
        entries: &[
            Entry {
                name: "lru",
                description: "",
                params: &[],
            },
            Entry {
                name: "pool",
                description: "",
                params: &[
                    Param {
                        key: "dirty",
                        ty: Ty::Choice(&["lru", "fifo"]),
                        default: "lru",
                        help: "",
                    },
                    Param {
                        key: "w",
                        ty: Ty::Fraction,
                        default: "0.5",
                        help: "",
                    },
                ],
            },
        ],
        more: None,
    };
    static OUTER: Table = Table {
        what: "scheme",
        entries: &[Entry {
            name: "cache",
            description: "",
            params: &[
                Param {
                    key: "dirty",
                    ty: Ty::Fraction,
                    default: "0.5",
                    help: "",
                },
                Param {
                    key: "n",
                    ty: Ty::Int(1, NO_MAX),
                    default: "8",
                    help: "",
                },
                Param {
                    key: "level",
                    ty: Ty::Spec(&INNER),
                    default: "lru",
                    help: "",
                },
                Param {
                    key: "on",
                    ty: Ty::Switch,
                    default: "on",
                    help: "",
                },
            ],
        }],
        more: None,
    };

    #[test]
    fn defaults_come_from_the_table_and_values_are_typed() {
        let g = parse(&OUTER, "CACHE:n=3").unwrap();
        assert_eq!((g.int("n"), g.fraction("dirty")), (3, 0.5));
        assert!(g.switch("on"));
        assert_eq!(g.value("level"), "lru");
    }

    #[test]
    fn pieces_after_a_nested_spec_continue_it_when_they_are_its_keys() {
        let g = parse(&OUTER, "cache:dirty=0.2,level=pool:w=0.1,dirty=fifo,n=4").unwrap();
        assert_eq!(g.fraction("dirty"), 0.2);
        assert_eq!(g.value("level"), "pool:w=0.1,dirty=fifo");
        assert_eq!(g.int("n"), 4);
        let l = split_list(&OUTER, "cache:n=2,level=pool,w=0.3,cache", |s| {
            parse(&OUTER, s).map(|g| g.value("level"))
        })
        .unwrap();
        assert_eq!(l, ["pool:w=0.3", "lru"]);
    }

    #[test]
    fn errors_name_the_kind_the_key_and_what_is_allowed() {
        let e = |s: &str| parse(&OUTER, s).unwrap_err().to_string();
        assert!(e("nosuch").contains("unknown scheme 'nosuch'; valid schemes: cache"));
        assert!(e("cache:n=0").contains(
            "scheme 'cache': bad value '0' for 'n'; expected a whole number of at least 1"
        ));
        assert!(e("cache:x=1")
            .contains("scheme 'cache' has no parameter 'x'; its parameters: dirty, n, level, on"));
        assert!(e("cache:n=1,n=2").contains("given twice"));
        assert!(e("cache:n").contains("expected key=value"));
        assert!(e("cache:level=pool:w=2").contains("level: policy 'pool': bad value '2' for 'w'"));
        // A key after a bad nested value still continues the spec it names.
        assert!(e("cache:level=nosuch,n=2").contains("level: unknown policy 'nosuch'"));
        assert!(e("cache:on=maybe").contains("expected on or off"));
        assert!(split_list(&OUTER, "n=1,cache", |s| parse(&OUTER, s).map(|_| ())).is_err());
        assert!(split_list(&OUTER, " , ", |s| parse(&OUTER, s).map(|_| ())).is_err());
        assert!(split_list(&OUTER, "cache,,cache", |s| parse(&OUTER, s).map(|_| ())).is_err());
        assert!(split_list(&OUTER, "cache,", |s| parse(&OUTER, s).map(|_| ())).is_err());
        assert!(e("cache:").contains("':' must be followed by key=value"));
        assert!(e("cache:n=2,").contains("empty item"));
    }

    #[test]
    fn the_short_form_leaves_out_defaults() {
        assert_eq!(
            short(&OUTER, "cache:dirty=0.5,n=8,level=lru,on=on"),
            "cache"
        );
        assert_eq!(
            short(
                &OUTER,
                "cache:dirty=0.50,n=3,level=pool:dirty=lru,w=0.25,on=on"
            ),
            "cache:n=3,level=pool:w=0.25"
        );
    }
}
