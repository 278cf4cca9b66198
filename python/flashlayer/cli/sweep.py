"""``flashlayer sweep``: a grid of traces × policies × buffers × devices on
this machine's cores or a Ray cluster, one Parquet row per cell."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from flashlayer import progress
from flashlayer.cli.common import UsageError, add_force, command, emit_json, int_arg, paragraph


def run(a: argparse.Namespace) -> None:
    from flashlayer.grid import EXAMPLE, load_grid, sweep_grid
    from flashlayer.report import find_traces

    if a.example:
        # The shipped traces by absolute path: the grid runs wherever it is
        # saved.
        shipped = find_traces(None, ["pg15-tpcc-sysbench-w2.csv.gz"]).resolve()
        sys.stdout.write(EXAMPLE.replace('"data/traces/', f'"{shipped.as_posix()}/'))
        return
    if a.grid is None or a.out is None:
        raise UsageError("give a grid file and --out FILE.parquet (or --example for a grid to start from)")
    if a.address is not None and a.engine != "ray":
        raise UsageError("--address applies with --engine ray")
    grid = load_grid(Path(a.grid))
    out = Path(a.out)
    cells = len(grid.cells())
    with progress.bar(cells, f"sweeping {cells:,} cells ({a.engine})", quiet=a.json) as bar:
        def advance(row: dict[str, Any]) -> None:
            bar.advance()

        rows = sweep_grid(grid, engine=a.engine, out=out, address=a.address, jobs=a.jobs, resume=a.resume,
                          on_row=advance, force=a.force, on_notice=lambda m: print(m, file=sys.stderr))
    failed = sum(1 for r in rows if r.get("error") is not None)
    if a.json:
        emit_json({"out": str(out), "cells": cells, "rows": len(rows), "ran": rows.ran, "failed": failed})
    else:
        print(f"wrote {out}: {len(rows):,} rows of {cells:,} cells ({rows.ran:,} run now), {failed:,} failed")
        for r in rows:
            if r.get("error") is not None:
                print(f"  failed: {r['cell']}: {r['error']}", file=sys.stderr)
    if failed:
        sys.exit(1)


def add(sub: Any) -> None:
    c = command(
        sub, "sweep", help="a grid of traces x policies x buffers x stores, locally or on Ray, to Parquet",
        description=paragraph("""
            Runs every cell of a TOML grid (traces x policies x buffer sizes x stores: cost models, hybrid
            placements, tiers, ...) and writes one row per cell to a Parquet file as cells finish: the grid
            values, every field of 'sim --json', the trace's SHA-256, the flashlayer version, the cell's wall
            time and its error, if any (a failed cell does not stop the sweep; the exit code is 1 if any
            failed). The file has every column any row has. Each trace is converted to flt once, into a
            temporary folder removed at the end. --engine local uses this machine's cores; --engine ray submits
            the cells as Ray tasks (pip install 'flashlayer[ray]'). The grid is checked completely before any
            cell runs: every value, each given once, and every combination of a policy and a store opened on
            each trace as its run would open it (a combination 'sim' refuses is refused, one line each). Ctrl-C
            stops the running cells at their next million requests and keeps the finished rows."""),
        epilog="Examples:\n  flashlayer sweep --example > grid.toml\n"
        "  flashlayer sweep grid.toml --out results.parquet --jobs 4\n"
        "  flashlayer sweep grid.toml --out results.parquet --engine ray --address auto --resume\n"
        "  flashlayer report results.parquet --out report",
    )
    c.add_argument("grid", nargs="?", help="grid file (TOML)")
    c.add_argument("--out", metavar="FILE.parquet", help="results file (written as cells finish)")
    c.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="where the cells run (default: local)")
    c.add_argument("--address", metavar="ADDR",
                   help="with --engine ray: the cluster ('auto', or host:port; default: start a local Ray)")
    c.add_argument("--jobs", type=int_arg(1, "--jobs"), default=None, metavar="N",
                   help="cells at once (default: this machine's CPUs; with a local Ray, its CPUs)")
    c.add_argument("--resume", action="store_true",
                   help="skip the cells already in --out without an error; failed cells, and cells whose trace's content "
                   "has changed since (its SHA-256), run again")
    c.add_argument("--example", action="store_true", help="print a commented grid to start from")
    add_force(c)
    c.add_argument("--json", action="store_true", help='print {"out", "cells", "rows", "ran", "failed"}')
    c.set_defaults(func=run)
