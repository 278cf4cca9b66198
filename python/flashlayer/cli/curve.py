"""``flashlayer curve``: LRU's misses, write-backs and virtual time at every
buffer size from one pass over a trace, or any policy's from a replay per
size, on the trace or on a spatial sample of it."""

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
    paragraph,
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
    if a.store is not None and a.policy is None:
        raise UsageError("--store needs --policy: the one-pass curve is LRU's on --device cost stores")
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    if a.policy is not None:
        return _policy(a, trace, devices, sizes)
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
    _show(a, r, "LRU")


def _policy(a: argparse.Namespace, trace: Any, devices: list[str] | None, sizes: list[Any] | None) -> None:
    """A replay per size of --policy, on the trace or on a sample of it."""
    from flashlayer.curves import policy_curve

    how = "on the whole trace" if a.sample is None and a.sample_size is None else "on a sample"
    n = len(sizes) if sizes is not None else a.points or _native.CURVE_POINTS
    with progress.bar(n * len(a.store or devices or [None]), f"{a.policy}: a replay per size {how}",
                      quiet=a.json) as bar:
        r = policy_curve(trace, a.policy, a.store, device=devices, sizes=sizes, points=a.points, sample=a.sample,
                         sample_size=a.sample_size, on_done=lambda _: bar.advance())
    if a.plot is not None:
        from flashlayer.plots import render_curve

        atomic_output(Path(a.plot), lambda tmp: render_curve(r, tmp, title=f"{r['policy']}, {Path(a.trace).name}"),
                      a.force)
    if a.json:
        r.pop("rows")
    _show(a, r, r["policy"])


def _show(a: argparse.Namespace, r: dict[str, Any], who: str) -> None:
    if a.json:
        emit_json(r)
        return
    how = "exact" if r["exact"] else f"sampled ({r['sampled']:,} of {r['requests']:,} requests)"
    print(f"{who} on {Path(a.trace).name}: {r['requests']:,} requests, {r['pages']:,.0f} distinct pages, {how}")
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
        sub, "curve", help="misses, write-backs and virtual time against buffer size, for LRU or any policy",
        description=paragraph("""
            Without --policy, one pass over TRACE computes LRU's misses and dirty write-backs at every buffer
            size from 1 page to the distinct pages (stack distances in a Fenwick tree; a write-back is counted
            from the distances too, exactly as the simulator's LRU would count it), so the virtual time at every
            size on every --device follows; --sample R samples pages spatially (SHARDS, fixed rate),
            --sample-size S keeps at most S pages (SHARDS, fixed size: bounded memory whatever the trace). With
            --policy P, any online policy (a registered one too) is replayed at each size on each --device or
            --store without data: on the whole trace, or with --sample R / --sample-size S on the requests to a
            spatial sample of the pages with a buffer of C*R pages, every count scaled by 1/R (MINISIM); sampled
            default sizes start where a sampled buffer holds 100 pages."""),
        epilog="Examples:\n  flashlayer curve data/traces/pg15-tpcc-sysbench-w2.csv.gz --device ratio:1:1 "
        "--device ratio:1:64 --plot curve.png\n"
        "  flashlayer curve data/traces/pg15-bank-s100.csv.gz --policy cflru --sample 0.01 --device ratio:1:8\n"
        "  flashlayer curve data/traces/pg15-bank-s100.csv.gz --policy arc --store tier:scheme=hypro,ssd=5% "
        "--sample 0.01",
    )
    c.add_argument("trace", help="trace file (any format sim reads)")
    add_read_opts(c)
    c.add_argument("--policy", metavar="P",
                   help="any online policy spec: a replay per size instead of LRU's one pass (default: LRU's pass)")
    c.add_argument("--store", action="append", metavar="SPEC",
                   help="with --policy: a store without data (cost, ftl, hybrid, tier); repeat for several")
    c.add_argument("--device", action="append", metavar="SPEC",
                   help="device cost model for the virtual time; repeat for several (default: ratio:1:1)")
    c.add_argument("--sizes", metavar="N[,N...]",
                   help="buffer sizes to report: pages or P%% of the distinct pages (default: --points sizes)")
    c.add_argument("--points", type=int_arg(2, "--points"), default=None, metavar="N",
                   help="report N sizes log-spaced from 1 page to the distinct pages (default: 50)")
    c.add_argument("--sample", type=float_arg(0.0, 1.0, "--sample", lo_open=True), default=None, metavar="R",
                   help="sample pages at rate R in (0, 1], e.g. 0.01: SHARDS for LRU's pass, MINISIM with --policy "
                        "(default: exact)")
    c.add_argument("--sample-size", type=int_arg(1, "--sample-size"), default=None, metavar="S",
                   help="sample at most S pages (SHARDS's fixed size; with --policy the S pages of smallest hash) "
                        "(default: exact)")
    c.add_argument("--plot", metavar="PNG", help="also draw miss ratio, write-backs and virtual time against size")
    add_force(c)
    c.add_argument("--json", action="store_true",
                   help='print {"sizes", "misses", "writebacks", "miss_ratio", "virtual_time": {DEVICE: [...]}, ...}')
    c.set_defaults(func=run)
