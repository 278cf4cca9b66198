"""``flashlayer curve``: LRU's misses, write-backs and virtual time at every
buffer size from one pass over a trace."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer.cli.common import (
    UsageError,
    add_force,
    add_read_opts,
    buffer_specs,
    check_devices,
    command,
    emit_json,
    float_arg,
    int_arg,
    open_with_progress,
    print_table,
)
from flashlayer.files import atomic_output


def run(a: argparse.Namespace) -> None:
    from flashlayer.curves import lru_curve

    devices: list[str] | None = a.device
    check_devices([("--device", d) for d in devices or []])
    if a.sizes is not None and a.points is not None:
        raise UsageError("give --sizes or --points, not both")
    if a.sample is not None and a.sample_size is not None:
        raise UsageError("give --sample or --sample-size, not both")
    sizes = buffer_specs(a.sizes) if a.sizes is not None else None
    if a.plot is not None:
        from flashlayer.plots import check_png_path

        check_png_path(Path(a.plot), a.force)
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    with progress.bar(len(trace), f"one pass over {Path(a.trace).name}", quiet=a.json) as bar:
        last = 0

        def tick(n: int) -> None:
            nonlocal last
            bar.advance(n - last)
            last = n

        r = lru_curve(trace, devices, sizes=sizes, points=a.points, sample=a.sample,
                      sample_size=a.sample_size, progress=tick)
    if a.plot is not None:
        from flashlayer.plots import render_curve

        atomic_output(Path(a.plot), lambda tmp: render_curve(r, tmp, title=Path(a.trace).name), a.force)
    if a.json:
        emit_json(r)
        return
    how = "exact" if r["exact"] else f"sampled ({r['sampled']:,} of {r['requests']:,} requests)"
    print(f"LRU on {Path(a.trace).name}: {r['requests']:,} requests, {r['pages']:,.0f} distinct pages, {how}")
    rows: list[dict[str, Any]] = []
    for i, s in enumerate(r["sizes"]):
        row: dict[str, Any] = {"size": f"{s:,}", "ratio": f"{r['miss_ratio'][i]:.4f}",
                               "misses": f"{r['misses'][i]:,.0f}", "wb": f"{r['writebacks'][i]:,.0f}"}
        for d in r["virtual_time"]:
            row[d] = f"{r['virtual_time'][d][i]:,.4g}"
        rows.append(row)
    print_table(rows, [("size", "pages"), ("ratio", "miss ratio"), ("misses", "misses"), ("wb", "write-backs"),
                       *((d, f"time {d}") for d in r["virtual_time"])])
    if a.plot is not None:
        print(f"\nwrote {a.plot}")


def add(sub: Any) -> None:
    c = command(
        sub, "curve", help="LRU misses, write-backs and virtual time at every buffer size, one pass",
        description="One pass over TRACE computes LRU's misses and dirty write-backs at every buffer size from 1 "
        "page to the distinct pages (stack distances in a Fenwick tree; a write-back is counted from the "
        "distances too, exactly as the simulator's LRU would count it), so the virtual time at every size on "
        "every --device follows. --sample R samples pages spatially (SHARDS, fixed rate), --sample-size S keeps "
        "at most S pages (SHARDS, fixed size: bounded memory whatever the trace).",
        epilog="Example:\n  flashlayer curve data/traces/pg15-tpcc-sysbench-w2.csv.gz --device ratio:1:1 "
        "--device ratio:1:64 --plot curve.png",
    )
    c.add_argument("trace", help="trace file (any format sim reads)")
    add_read_opts(c)
    c.add_argument("--device", action="append", metavar="SPEC",
                   help="device cost model for the virtual time; repeat for several (default: ratio:1:1)")
    c.add_argument("--sizes", metavar="N[,N...]",
                   help="buffer sizes to report: pages or P%% of the distinct pages (default: --points sizes)")
    c.add_argument("--points", type=int_arg(2, "--points"), default=None, metavar="N",
                   help="report N sizes log-spaced from 1 page to the distinct pages (default: 50)")
    c.add_argument("--sample", type=float_arg(0.0, 1.0, "--sample", lo_open=True), default=None, metavar="R",
                   help="SHARDS at sampling rate R in (0, 1], e.g. 0.01 (default: exact)")
    c.add_argument("--sample-size", type=int_arg(1, "--sample-size"), default=None, metavar="S",
                   help="SHARDS keeping at most S pages (default: exact)")
    c.add_argument("--plot", metavar="PNG", help="also draw miss ratio, write-backs and virtual time against size")
    add_force(c)
    c.add_argument("--json", action="store_true",
                   help='print {"sizes", "misses", "writebacks", "miss_ratio", "virtual_time": {DEVICE: [...]}, ...}')
    c.set_defaults(func=run)
