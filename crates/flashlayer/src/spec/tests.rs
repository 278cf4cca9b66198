//! The grammar on hand-made tables: nesting, continuation, short forms.

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
    lead: false,
    unnamed: None,
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
    lead: false,
    unnamed: None,
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
    assert!(e("cache:n=0")
        .contains("scheme 'cache': bad value '0' for 'n'; expected a whole number of at least 1"));
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
