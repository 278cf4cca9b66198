//! The csv format's keys (`--format csv:page=id,op=type,sep=semicolon,
//! reads=get,writes=set`): which column holds the page and which the op,
//! the separator, whether a header comes first, and which op values are
//! reads and writes. Read by the one grammar ([`crate::spec`]) from the
//! formats' table ([`FORMAT_SPECS`]); without keys the csv format is
//! `page,op` as [`super::csv`] describes it.

use crate::error::{Error, Result};
use crate::spec::{self, Entry, Given, Param, Table, Ty};
use std::sync::Mutex;

/// A column, by its header name or its place (0-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// The column whose header is this (case-insensitive).
    Named(String),
    /// The column at this place, 0 the first.
    At(usize),
}

/// Whether the first line names the columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// It does when its page field is not a whole number.
    Auto,
    /// It does.
    On,
    /// It does not: every line is a request.
    Off,
}

/// How a csv trace's fields map to requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvLayout {
    /// The page's column.
    pub page: Column,
    /// The op's column; `None`: every request is a read.
    pub op: Option<Column>,
    /// The field separator.
    pub sep: u8,
    /// Whether a header comes first.
    pub header: Header,
    /// Op values read as a read (case-insensitive).
    pub reads: Vec<String>,
    /// Op values read as a write (case-insensitive).
    pub writes: Vec<String>,
}

const SEPARATORS: &[(&str, u8)] = &[
    ("comma", b','),
    ("semicolon", b';'),
    ("tab", b'\t'),
    ("space", b' '),
    ("pipe", b'|'),
];

/// The trace formats as the grammar reads them: a name, and for csv its
/// column mapping.
pub static FORMAT_SPECS: Table = Table::of(
    "format",
    &[
        Entry {
            name: "csv",
            description: "text, one request a line: a page column and an op column",
            params: &[
                Param::new("page", Ty::Other("a column: its header name, or its number from 1"), "page", "the page's column"),
                Param::new("op", Ty::Other("a column (its header name or number from 1), or none: every request a read"), "op", "the op's column"),
                Param::new("sep", Ty::Choice(&["comma", "semicolon", "tab", "space", "pipe"]), "comma", "the field separator"),
                Param::new("header", Ty::Choice(&["auto", "on", "off"]), "auto", "whether the first line names the columns (auto: when its page field is not a whole number)"),
                Param::new("reads", Ty::Other("op values separated by /"), "r/read/get", "op values that are reads (case-insensitive)"),
                Param::new("writes", Ty::Other("op values separated by /"), "w/write/set/put/update", "op values that are writes (case-insensitive)"),
            ],
        },
        Entry { name: "flt", description: "flashlayer native binary", params: &[] },
        Entry { name: "vscsi", description: "VMware vscsi v1 block trace", params: &[] },
        Entry { name: "msr", description: "MSR Cambridge block trace csv", params: &[] },
        Entry { name: "spc", description: "UMass/SPC block trace csv", params: &[] },
        Entry { name: "oracle", description: "libCacheSim oracleGeneral", params: &[] },
    ],
);

fn column(g: &Given, key: &str) -> Result<Column> {
    let v = g.value(key);
    let v = v.trim();
    if v.is_empty() {
        return Err(g.error(format!(
            "{key}: expected a column's header name or number from 1"
        )));
    }
    match v.parse::<usize>() {
        Ok(0) => Err(g.error(format!("{key}: columns are numbered from 1"))),
        Ok(n) => Ok(Column::At(n - 1)),
        Err(_) => Ok(Column::Named(v.to_owned())),
    }
}

fn values(g: &Given, key: &str) -> Result<Vec<String>> {
    let out: Vec<String> = g
        .value(key)
        .split('/')
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .collect();
    if out.is_empty() {
        return Err(g.error(format!("{key}: expected op values separated by /")));
    }
    Ok(out)
}

impl CsvLayout {
    /// The layout of a parsed `csv` spec.
    pub fn read(g: &Given) -> Result<CsvLayout> {
        let op = match g.value("op").trim() {
            "none" => None,
            _ => Some(column(g, "op")?),
        };
        let sep = g.value("sep");
        let sep = SEPARATORS
            .iter()
            .find(|(n, _)| *n == sep)
            .map(|(_, b)| *b)
            .expect("the grammar checked the choice");
        let header = match g.value("header").as_str() {
            "on" => Header::On,
            "off" => Header::Off,
            _ => Header::Auto,
        };
        let layout = CsvLayout {
            page: column(g, "page")?,
            op,
            sep,
            header,
            reads: values(g, "reads")?,
            writes: values(g, "writes")?,
        };
        if let Some(v) = layout.reads.iter().find(|v| layout.writes.contains(v)) {
            return Err(g.error(format!("'{v}' is both a read and a write")));
        }
        if layout.op.as_ref() == Some(&layout.page) {
            return Err(g.error("the page and the op are the same column"));
        }
        let named =
            matches!(layout.page, Column::Named(_)) || matches!(layout.op, Some(Column::Named(_)));
        if named && layout.header == Header::Off {
            return Err(g.error("a column named by its header needs header=on or auto"));
        }
        Ok(layout)
    }

    /// The layout kept for the rest of the program (one copy of each
    /// distinct layout), so that read options stay `Copy`.
    pub fn keep(self) -> &'static CsvLayout {
        static KEPT: Mutex<Vec<&'static CsvLayout>> = Mutex::new(Vec::new());
        let mut all = KEPT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(l) = all.iter().find(|l| ***l == self) {
            return l;
        }
        let l: &'static CsvLayout = Box::leak(Box::new(self));
        all.push(l);
        l
    }

    /// The op of `value`, or what is wrong.
    pub(crate) fn op(&self, value: &str) -> std::result::Result<crate::types::Op, String> {
        let v = value.trim().to_ascii_lowercase();
        if self.writes.contains(&v) {
            Ok(crate::types::Op::Write)
        } else if self.reads.contains(&v) {
            Ok(crate::types::Op::Read)
        } else {
            Err(format!(
                "op '{}' is neither a read ({}) nor a write ({})",
                value.trim(),
                self.reads.join("/"),
                self.writes.join("/")
            ))
        }
    }
}

/// A format spec (`csv`, `csv:page=2,op=none`, `oracle`, ...): the format,
/// and for csv with keys, its layout.
pub fn parse_format(text: &str) -> Result<(super::Format, Option<&'static CsvLayout>)> {
    let g = spec::parse(&FORMAT_SPECS, text)?;
    let format = super::Format::parse(g.name())?;
    let keyed = text.contains(':');
    if format == super::Format::Csv && keyed {
        return Ok((format, Some(CsvLayout::read(&g)?.keep())));
    }
    if keyed && format != super::Format::Csv {
        return Err(Error::invalid(format!(
            "the {} format takes no keys",
            g.name()
        )));
    }
    Ok((format, None))
}
