"""``flashlayer report``: figures of a sweep's Parquet results as an HTML
page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer.cli.common import OUT_DIR_HELP, add_force, command, paragraph


def run(a: argparse.Namespace) -> None:
    from flashlayer.grid import read_rows
    from flashlayer.report import sweep_report

    path = Path(a.results)
    if not path.is_file():
        raise FileNotFoundError(2, "no such file", str(path))
    rows = read_rows(path)
    baseline = a.baseline
    if baseline is None and any(r["policy"] == "lru" for r in rows):
        baseline = "lru"
    figures = sweep_report(rows, Path(a.out), path.name, a.force, baseline)
    print(f"wrote {a.out}/index.html: {len(figures)} figures from {len(rows):,} rows")


def add(sub: Any) -> None:
    c = command(
        sub, "report", help="figures of a sweep's results.parquet as an HTML page",
        description=paragraph("""
            For each trace and device (or placement, or tier scheme) of a 'flashlayer sweep' results file:
            virtual time and miss ratio against buffer size, one series per policy, as PNGs and an HTML page
            (failed cells listed); first, each policy's reduction of virtual time, misses and writes against
            --baseline (1 - policy's / baseline's, on the same trace, store and buffer size as asked) as box
            plots over the traces, with a table of median, mean, min and max. The folder is written in full or
            not at all."""),
        epilog="Example (a grid over several traces; 'flashlayer sweep --example' shows one):\n"
        "  flashlayer sweep grid.toml --out results.parquet\n"
        "  flashlayer report results.parquet --baseline lru --out report",
    )
    c.add_argument("results", help="a results file of 'flashlayer sweep'")
    c.add_argument("--out", required=True, metavar="DIR", help=OUT_DIR_HELP)
    c.add_argument("--baseline", metavar="POLICY",
                   help="the policy reductions are against (default: lru if the sweep ran it, else none drawn)")
    add_force(c)
    c.set_defaults(func=run)
