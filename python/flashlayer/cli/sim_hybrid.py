"""``flashlayer sim`` over hybrid stores (a flash and a magnetic disk side
by side, Koltsidas & Viglas 2008): the ``--hybrid`` spelling of their store
specs, and their table."""

from __future__ import annotations

import argparse
from typing import Any

from flashlayer import _native
from flashlayer.cli.common import (
    groups,
    check_devices,
    UsageError,
    int_arg,
    print_table,
    table_cells,
    split,
)

COLUMNS = [
    ("placement", "placement"),
    ("policy", "policy"),
    ("buffer", "buffer"),
    ("miss_ratio", "miss ratio"),
    ("flash_reads", "flash reads"),
    ("flash_writes", "flash writes"),
    ("magnetic_reads", "mag reads"),
    ("magnetic_writes", "mag writes"),
    ("migrations", "migrations"),
    ("pages_on_flash", "on flash"),
    ("vt", "virtual time"),
    ("rps", "req/s"),
]


def stores(a: argparse.Namespace) -> list[str]:
    """``--hybrid conservative,optimal`` with ``--flash``, ``--magnetic``,
    ``--flash-capacity`` and ``--defer``: a spelling of one hybrid store
    spec per placement."""
    keys = "".join(f",{k}={v}" for k, v in (("flash", a.flash), ("magnetic", a.magnetic),
                                              ("capacity", a.flash_capacity), ("defer", a.defer or None))
                   if v is not None)
    return [f"hybrid:placement={p.lower()}{keys}" for p in split(a.hybrid, "placements")]


def check(a: argparse.Namespace) -> None:
    """Flags that go only with ``--hybrid``."""
    if a.hybrid is None:
        for flag, value in (("--flash", a.flash), ("--magnetic", a.magnetic),
                            ("--flash-capacity", a.flash_capacity), ("--defer", a.defer or None)):
            if value is not None:
                raise UsageError(f"{flag} applies with --hybrid PLACEMENTS")
        return
    check_devices((("--flash", a.flash), ("--magnetic", a.magnetic)))


def print_rows(out: list[dict[str, Any]]) -> None:
    """One table per pair of disks, their costs above it."""
    for group in groups(out, lambda r: f"{r['device']}|{r['flash_capacity']}|{r['defer']}"):
        first = group[0]
        f, m = (_native.device(d) for d in first["device"].split("+", 1))
        cap = (f"at most {first['flash_capacity']:,} pages on flash" if first["flash_capacity"]
               else "no flash capacity limit")
        deferred = f"migrations deferred in batches of {first['defer']}" if first["defer"] else "migrations at eviction"
        print(f"flash {f['name']}: read {f['read']:g}, write {f['write']:g}; magnetic {m['name']}: read {m['read']:g}, "
              f"write {m['write']:g} ({'us' if f['unit'] == 'us' else 'cost units'}); {cap}; {deferred}; virtual time "
              "includes migrations")
        for r in group:
            table_cells(r, f["unit"])
        print_table(group, COLUMNS)


def add_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--hybrid", metavar="PLACEMENT[,...]",
                   help="a spelling of --store hybrid:placement=P for each P: pages live on a flash and a magnetic "
                   "disk side by side (Koltsidas & Viglas 2008), placed by each of: conservative, optimistic, hybrid "
                   "(sections 4.1-4.3), optimal (the offline optimum of the recorded physical operations: two "
                   "passes), m-only, f-only")
    s.add_argument("--flash", metavar="SPEC",
                   help="with --hybrid: the flash disk's device (default: koltsidas08-flash, read 1, write 118)")
    s.add_argument("--magnetic", metavar="SPEC",
                   help="with --hybrid: the magnetic disk's device (default: koltsidas08-magnetic, read 23, write 12)")
    s.add_argument("--flash-capacity", type=int_arg(1, "--flash-capacity"), metavar="P",
                   help="with --hybrid: at most P pages on flash; when full, pages with the highest estimated "
                   "saving stay (default: no limit)")
    s.add_argument("--defer", type=int_arg(0, "--defer"), default=0, metavar="N",
                   help="with --hybrid: defer migrations and move them in sequential batches of N pages (default: "
                   "0, move at eviction)")
