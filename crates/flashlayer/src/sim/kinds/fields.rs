//! What a result row holds, declared once: every row's fields ([`ROW`])
//! and each kind's own, beside its entry ([`super::Kind::FIELDS`]). A row
//! is flat: one value a field, the same shape for every kind (a kind's
//! fields follow the common ones). Rust's rows ([`super::Replayed::row`])
//! and the CLI's column headers come from these declarations; Python's row
//! type (`flashlayer.results.SimResult`) and the field lists of
//! `docs/USAGE.md` are written from them by `scripts/fields.py` (a test
//! runs its check).

/// The type of a field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A whole number.
    Count,
    /// A number.
    Number,
    /// A name or a spec.
    Text,
    /// On or off.
    Switch,
    /// A whole number, or none where it does not apply.
    MaybeCount,
    /// A number, or none where it does not apply.
    MaybeNumber,
}

impl FieldType {
    /// The type's name as Python writes it.
    pub fn python(self) -> &'static str {
        match self {
            FieldType::Count => "int",
            FieldType::Number => "float",
            FieldType::Text => "str",
            FieldType::Switch => "bool",
            FieldType::MaybeCount => "int | None",
            FieldType::MaybeNumber => "float | None",
        }
    }
}

/// One field of a result row.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in a row.
    pub name: &'static str,
    /// The type of its value.
    pub ty: FieldType,
    /// Its unit (`""`: a plain count, a ratio or a name).
    pub unit: &'static str,
    /// Its column's header in the CLI's tables.
    pub label: &'static str,
    /// What it is, in one line.
    pub doc: &'static str,
    /// Whether the API fills it (`flashlayer.simulate` and the CLI: what
    /// the caller asked for, which the engine does not see), not the
    /// engine's row.
    pub by_api: bool,
}

impl Field {
    /// A field's declaration.
    pub const fn new(
        name: &'static str,
        ty: FieldType,
        unit: &'static str,
        label: &'static str,
        doc: &'static str,
    ) -> Field {
        Field {
            name,
            ty,
            unit,
            label,
            doc,
            by_api: false,
        }
    }

    /// A field the API fills.
    pub const fn by_api(self) -> Field {
        Field {
            by_api: true,
            ..self
        }
    }
}

pub(crate) use FieldType::{Count, Number, Switch, Text};

/// A kind's own fields, declared once: a struct with a member per field
/// and its [`Field`] list in the same order (`FIELDS`). A kind's `report`
/// fills the struct and `fields` puts each value under its member's name,
/// so a name is written once and the compiler holds every value to a
/// declared field. A field the API fills (`by_api` after its type) is a
/// member of type `()`, left out of the engine's row.
macro_rules! kind_row {
    ($(#[$meta:meta])* struct $row:ident {
        $($name:ident: $rty:ty = $ty:ident $($api:ident)?, $unit:literal, $label:literal, $doc:literal;)*
    }) => {
        $(#[$meta])*
        struct $row {
            $($name: $rty,)*
        }

        impl $row {
            /// The fields, in a row's order.
            const FIELDS: &'static [$crate::sim::kinds::fields::Field] = &[$(
                $crate::sim::kinds::fields::Field::new(
                    stringify!($name),
                    $crate::sim::kinds::fields::FieldType::$ty,
                    $unit,
                    $label,
                    $doc,
                )$(.$api())?,
            )*];

            /// The values the engine fills, under their fields' names.
            fn fields(self) -> $crate::types::Fields {
                let all = [$((stringify!($name), $crate::types::Value::from(self.$name)),)*];
                all.into_iter().zip(Self::FIELDS).filter(|(_, f)| !f.by_api).map(|(kv, _)| kv).collect()
            }
        }
    };
}
pub(crate) use kind_row;

/// The fields every row has, in the order a row holds them; a kind's own
/// follow. `buffer_spec` and `buffer_share` are the API's: the size as
/// the caller asked for it, which the engine does not see.
pub static ROW: &[Field] = &[
    Field::new(
        "policy",
        Text,
        "",
        "policy",
        "the policy's canonical spec, every parameter written out",
    ),
    Field::new(
        "buffer_pages",
        Count,
        "pages",
        "buffer",
        "the buffer's size (the DRAM level's on a tier)",
    ),
    Field::new(
        "device",
        Text,
        "",
        "device",
        "the device that priced the run (both disks on a hybrid store)",
    ),
    Field::new(
        "cost_unit",
        Text,
        "",
        "unit",
        "the unit of the virtual time: us, or units for a ratio",
    ),
    Field::new("requests", Count, "", "requests", "requests replayed"),
    Field::new("reads", Count, "", "reads", "read requests"),
    Field::new("writes", Count, "", "writes", "write requests"),
    Field::new("hits", Count, "", "hits", "requests the buffer served"),
    Field::new("misses", Count, "", "misses", "requests it did not"),
    Field::new(
        "miss_ratio",
        Number,
        "",
        "miss ratio",
        "misses over requests",
    ),
    Field::new(
        "physical_reads",
        Count,
        "",
        "phys reads",
        "pages read from the store (read ahead included)",
    ),
    Field::new(
        "physical_writes",
        Count,
        "",
        "phys writes",
        "pages written to the store",
    ),
    Field::new(
        "dirty_evictions",
        Count,
        "",
        "dirty evictions",
        "victims written back before they left",
    ),
    Field::new(
        "dirty_at_end",
        Count,
        "",
        "dirty at end",
        "dirty pages buffered at the end",
    ),
    Field::new(
        "read_ahead",
        Count,
        "",
        "read ahead",
        "pages read ahead, unrequested (ACE's pf=on)",
    ),
    Field::new(
        "read_ahead_used",
        Count,
        "",
        "used",
        "pages read ahead that were requested while buffered",
    ),
    Field::new(
        "virtual_time",
        Number,
        "cost_unit",
        "virtual time",
        "physical I/O priced by the devices",
    ),
    Field::new("seconds", Number, "s", "seconds", "wall time of the replay"),
    Field::new(
        "requests_per_second",
        Number,
        "1/s",
        "req/s",
        "requests over wall time",
    ),
    Field::new("trace", Text, "", "trace", "the trace's path as given"),
    Field::new("store", Text, "", "store", "the store's canonical spec"),
    Field::new("store_name", Text, "", "kind", "the store's kind"),
    Field::new(
        "flush_at_end",
        Switch,
        "",
        "flushed",
        "whether the dirty pages left at the end were written and counted",
    ),
    Field::new(
        "buffer_spec",
        Text,
        "",
        "asked",
        "the buffer's size as asked (pages, or P% of the distinct pages)",
    )
    .by_api(),
    Field::new(
        "buffer_share",
        Number,
        "",
        "share",
        "the buffer's share of the trace's distinct pages",
    )
    .by_api(),
];
