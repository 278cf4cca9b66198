"""``flashlayer sim --hybrid``: replay a trace over a flash and a magnetic
disk side by side (Koltsidas & Viglas 2008), every placement × policy ×
buffer size."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer.cli.common import (
    check_devices,
    UsageError,
    emit_json,
    int_arg,
    open_with_progress,
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


def placements(value: str) -> list[str]:
    """``--hybrid conservative,optimal``: placement names, checked."""
    from flashlayer.sweep import PLACEMENTS

    out = [p.lower() for p in split(value, "placements")]
    for p in out:
        if p not in PLACEMENTS:
            raise UsageError(f"--hybrid: unknown placement '{p}'; valid placements: {', '.join(PLACEMENTS)}")
        if out.count(p) > 1:
            raise UsageError(f"--hybrid: placement '{p}' is given twice")
    return out


def check(a: argparse.Namespace) -> None:
    """Flags that do not go with ``--hybrid``, or only with it."""
    if a.hybrid is None:
        for flag, value in (("--flash", a.flash), ("--magnetic", a.magnetic),
                            ("--flash-capacity", a.flash_capacity), ("--defer", a.defer or None)):
            if value is not None:
                raise UsageError(f"{flag} applies with --hybrid PLACEMENTS")
        return
    if a.device:
        raise UsageError("--device prices a single-device store; with --hybrid use --flash and --magnetic")
    if a.store:
        raise UsageError("--store and --hybrid are different stores; give one")
    if a.series_every:
        raise UsageError("--series-every is not available with --hybrid")
    if a.plot is not None:
        raise UsageError("--plot draws single-device runs; use --json with --hybrid")
    check_devices((("--flash", a.flash), ("--magnetic", a.magnetic)))


def run(a: argparse.Namespace, policies: list[str], buffers: list[int | str]) -> None:
    from flashlayer.sweep import sweep_hybrid

    names = placements(a.hybrid)
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    total = len(names) * len(policies) * len(buffers)
    with progress.bar(total, f"replaying {Path(a.trace).name} on flash + magnetic ({total} runs)",
                      quiet=a.json) as bar:
        rows = sweep_hybrid(trace, policies, buffers, names, flash=a.flash, magnetic=a.magnetic,
                            flash_capacity=a.flash_capacity, defer=a.defer, flush_at_end=a.flush_at_end,
                            workers=a.jobs, on_done=lambda _: bar.advance())
    out: list[dict[str, Any]] = [dict(r) for r in rows]
    if a.json:
        emit_json(out)
        return
    f = _native.device(a.flash or "koltsidas08-flash")
    m = _native.device(a.magnetic or "koltsidas08-magnetic")
    cap = f"at most {a.flash_capacity:,} pages on flash" if a.flash_capacity else "no flash capacity limit"
    deferred = f"migrations deferred in batches of {a.defer}" if a.defer else "migrations at eviction"
    print(f"flash {f['name']}: read {f['read']:g}, write {f['write']:g}; magnetic {m['name']}: read {m['read']:g}, "
          f"write {m['write']:g} ({'us' if f['unit'] == 'us' else 'cost units'}); {cap}; {deferred}; virtual time "
          "includes migrations")
    for r in out:
        table_cells(r, f["unit"])
    print_table(out, COLUMNS)


def add_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--hybrid", metavar="PLACEMENT[,...]",
                   help="pages live on a flash and a magnetic disk side by side (Koltsidas & Viglas 2008), placed "
                   "by each of: conservative, optimistic, hybrid (sections 4.1-4.3), optimal (the offline optimum "
                   "of the recorded physical operations: two passes), m-only, f-only (default: none, one device priced by "
                   "--device)")
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
