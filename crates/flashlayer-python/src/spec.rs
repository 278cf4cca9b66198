//! The engine's tables for Python: specs of the one grammar (policies,
//! hierarchy schemes, stores) in canonical and short form, and devices.

use crate::err;
use flashlayer::device::{DeviceModel, PRESETS};
use flashlayer::policy::{PolicySpec, POLICIES};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Validates a device spec and returns its costs.
#[pyfunction]
fn device<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyDict>> {
    device_dict(py, &DeviceModel::parse(spec).map_err(err)?)
}

/// A device's costs as the dict of `device()` and `presets()`.
fn device_dict<'py>(py: Python<'py>, m: &DeviceModel) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(m, [read, write, seq_read, seq_write, erase]),
    )?;
    d.set_item("unit", m.unit.as_str())?;
    d.set_item("k", m.concurrency)?;
    Ok(d)
}

/// The canonical form of one spec of `kind` (`policy`, `scheme`, `workload`,
/// `method`, `store`),
/// every parameter written out; an error naming what is wrong.
#[pyfunction]
fn canonical(kind: &str, text: &str) -> PyResult<String> {
    spec_table(kind)?;
    canonical_of(kind, text).map_err(err)
}

fn canonical_of(kind: &str, text: &str) -> flashlayer::Result<String> {
    Ok(match kind {
        "policy" => PolicySpec::parse(text)?.to_string(),
        "scheme" => flashlayer::tier::SchemeSpec::parse(text)?.to_string(),
        "workload" => flashlayer::workload::WorkloadSpec::parse(text)?.to_string(),
        "method" => flashlayer::flash::Method::parse(text)?.to_string(),
        _ => flashlayer::sim::StoreSpec::parse(text)?.to_string(),
    })
}

/// The pieces of one spec of `kind`: its name and, in its canonical
/// form's order, each key with its value as that form writes it (a nested
/// spec whole, in its own canonical form). Python reads a spec through
/// these, never by taking its text apart.
#[pyfunction]
fn spec_parts<'py>(
    py: Python<'py>,
    kind: &str,
    text: &str,
) -> PyResult<(&'static str, Bound<'py, PyDict>)> {
    let table = spec_table(kind)?;
    let canonical = canonical_of(kind, text).map_err(err)?;
    let given = flashlayer::spec::parse(table, &canonical).map_err(err)?;
    let values = PyDict::new(py);
    for (key, value) in given.pairs() {
        values.set_item(key, value)?;
    }
    Ok((given.name(), values))
}

/// Splits and validates a comma-separated list of specs of `kind` by the
/// one continuation rule (a `key=value` piece continues the spec before
/// it); returns canonical specs.
#[pyfunction]
fn canonical_list(kind: &str, list: &str) -> PyResult<Vec<String>> {
    let table = spec_table(kind)?;
    let specs =
        flashlayer::spec::split_list(table, list, |s| canonical_of(kind, s)).map_err(err)?;
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].contains(s) {
            return Err(err(flashlayer::Error::invalid(format!(
                "{} '{s}' is given twice",
                table.what
            ))));
        }
    }
    Ok(specs)
}

/// A parameter: (key, default, allowed values, help).
type ParamRow = (&'static str, &'static str, String, &'static str);

/// The table of one kind of spec (`policy`, `scheme`, `store`).
fn spec_table(kind: &str) -> PyResult<&'static flashlayer::spec::Table> {
    Ok(match kind {
        "policy" => &POLICIES,
        "scheme" => &flashlayer::tier::SCHEMES,
        "store" => &flashlayer::sim::STORES,
        "workload" => &flashlayer::workload::WORKLOADS,
        "method" => &flashlayer::flash::METHODS,
        other => {
            return Err(err(flashlayer::Error::invalid(format!(
                "unknown kind of spec '{other}': expected policy, scheme, store, workload or method"
            ))))
        }
    })
}

/// `[(name, description, [(key, default, allowed, help)])]` of every spec
/// of one kind (`policy`, `scheme`, `store`): the engine's table.
#[pyfunction]
fn table(kind: &str) -> PyResult<Vec<(&'static str, &'static str, Vec<ParamRow>)>> {
    Ok(spec_table(kind)?
        .all()
        .into_iter()
        .map(|e| {
            let params = e
                .params
                .iter()
                .map(|q| (q.key, q.default, q.allowed(), q.help))
                .collect();
            (e.name, e.description, params)
        })
        .collect())
}

/// `[(name, serves)]` of every policy, built-in ones in the table's order
/// and then registered ones: what each can serve as, as it declares
/// (`serves` holds `offline`, `pool` and `ace_base`, the engine's
/// [`flashlayer::policy::Serves`]).
#[pyfunction]
fn policy_roles() -> Vec<(&'static str, Vec<&'static str>)> {
    POLICIES
        .all()
        .into_iter()
        .map(|e| {
            let kind = flashlayer::policy::PolicySpec::parse(e.name)
                .expect("a listed policy's name parses")
                .kind;
            let s = kind.serves();
            let registered = matches!(kind, flashlayer::policy::PolicyKind::Registered(_));
            let roles = [
                (s.offline, "offline"),
                (s.pool, "pool"),
                (s.ace_base, "ace_base"),
                (registered, "registered"),
            ];
            let named = roles.iter().filter(|(on, _)| *on).map(|(_, r)| *r);
            (e.name, named.collect())
        })
        .collect()
}

/// One declared field of a result row: (name, Python type, unit, column
/// header, doc, whether the API fills it).
type FieldRow = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
);

/// The fields of a result row, as the engine declares them
/// ([`flashlayer::sim::ROW`], [`flashlayer::sim::KIND_FIELDS`]): `{"": every
/// row's, KIND: that kind's}`, each in a row's order.
#[pyfunction]
fn row_fields() -> Vec<(&'static str, Vec<FieldRow>)> {
    let rows = |fields: &'static [flashlayer::sim::Field]| {
        let row =
            |f: &flashlayer::sim::Field| (f.name, f.ty.python(), f.unit, f.label, f.doc, f.by_api);
        fields.iter().map(row).collect()
    };
    let kinds = flashlayer::sim::KIND_FIELDS
        .iter()
        .map(|(k, f)| (*k, rows(f)));
    std::iter::once(("", rows(flashlayer::sim::ROW)))
        .chain(kinds)
        .collect()
}

/// `text` with the keys at their defaults left out, for tables people read.
#[pyfunction]
fn short_spec(kind: &str, text: &str) -> PyResult<String> {
    Ok(flashlayer::spec::short(spec_table(kind)?, text))
}

/// Every device preset with its costs and source.
#[pyfunction]
fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for p in PRESETS {
        let model = DeviceModel::preset(p.name).expect("every preset is a device");
        let d = device_dict(py, &model)?;
        d.set_item("source", p.source)?;
        out.append(d)?;
    }
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(
        m,
        [
            device,
            canonical,
            canonical_list,
            spec_parts,
            table,
            policy_roles,
            row_fields,
            short_spec,
            presets
        ]
    );
    Ok(())
}
