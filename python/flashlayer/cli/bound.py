"""``flashlayer bound``: the cost no policy can beat on a trace, the best
schedule found, and how far given policies lie above it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import progress
from flashlayer.bounds import DEFAULT_ITERATIONS
from flashlayer.cli.common import (
    add_read_opts,
    buffer_specs,
    check_devices,
    command,
    emit_json,
    int_arg,
    open_with_progress,
    paragraph,
    policy_specs,
    print_table,
)
from flashlayer.replay import policy_labels


def run(a: argparse.Namespace) -> None:
    from flashlayer.bounds import cost_bounds

    devices: list[str | None] = a.device or [None]
    check_devices([("--device", d) for d in devices if d is not None])
    buffers = buffer_specs(a.buffer)
    policies = policy_specs(a.policy) if a.policy else []
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    steps = len(buffers) * len(devices) * max(1, a.iterations)
    rows: list[dict[str, Any]] = []
    with progress.bar(steps, f"bounding {Path(a.trace).name}", quiet=a.json) as bar:
        for b in buffers:
            for d in devices:
                rows += cost_bounds(trace, [b], [d], policies=policies, flush_at_end=a.flush_at_end,
                                    iterations=a.iterations, progress=lambda _: bar.advance(1))
    if a.json:
        emit_json(rows)
        return
    print(f"{Path(a.trace).name}: {len(trace):,} requests, {trace.pages:,} distinct pages; "
          f"lower = costopt-lb (no policy costs less), upper = costopt-ub (a real schedule)")
    table: list[dict[str, Any]] = []
    for r in rows:
        row: dict[str, Any] = {"buffer": f"{r['buffer_pages']:,}", "device": r["device"],
                               "lower": f"{r['lower']:,.6g}", "upper": f"{r['upper']:,.6g}",
                               "gap": f"{r['gap']:.1f}%", "belady_cost": f"{r['belady']:,.6g}"}
        for p, v in r["policies"].items():
            row[p] = f"+{v['above_bound']:.1f}%"
        table.append(row)
    names = list(rows[0]["policies"]) if rows else []
    label = policy_labels(names)
    print_table(table, [("buffer", "pages"), ("device", "device"), ("lower", "lower bound"),
                        ("upper", "upper bound"), ("gap", "gap"), ("belady_cost", "Belady"),
                        *((p, f"{label[p]} vs bound") for p in names)])


def add(sub: Any) -> None:
    c = command(
        sub, "bound", help="the cost no policy can beat (costopt-lb), the best schedule found (costopt-ub)",
        description=paragraph("""
            For each buffer size and device, a lower bound on the virtual time of every policy on TRACE (a
            Lagrangian relaxation of writeback-aware caching: each page's keep-or-evict choices priced by one
            multiplier per request for the buffer's capacity; sound at every iteration), and the cost of the
            best schedule its planner found (replayed like any policy; 'flashlayer sim --policy costopt-ub' runs
            it), which is never above Belady's (except with --flush-at-end on a device whose sequential writes
            are cheaper: which dirty pages are left for the flush is not what the schedule plans). The true
            optimum lies between the two. With --policy, each policy is replayed too and shown as a percentage
            above the lower bound. Writes are charged at the device's cheaper of random and sequential write, so
            the bound also holds for policies that cluster writes."""),
        epilog="Example:\n  flashlayer bound data/traces/pg15-tpcc-sysbench-w2.csv.gz --buffer 1%,3% "
        "--device ratio:1:8 --policy lru,cflru,fdbuffer,wblandlord",
    )
    c.add_argument("trace", help="trace file (any format sim reads)")
    add_read_opts(c)
    c.add_argument("--buffer", required=True, action="append", metavar="N[,N...]",
                   help="buffer sizes: pages or P%% of the distinct pages; repeat the flag to add more")
    c.add_argument("--device", action="append", metavar="SPEC",
                   help="device cost model; repeat for several (default: ratio:1:1)")
    c.add_argument("--policy", action="append", metavar="P[,P...]",
                   help="also replay these policies and show each one's cost above the bound; repeat the flag "
                   "to add more")
    c.add_argument("--iterations", type=int_arg(0, "--iterations"), default=DEFAULT_ITERATIONS, metavar="N",
                   help=f"planner iterations (default: {DEFAULT_ITERATIONS}; more: a tighter bound, slower)")
    c.add_argument("--flush-at-end", action="store_true",
                   help="charge the pages still dirty at the end (default: off, as in sim)")
    c.add_argument("--json", action="store_true",
                   help="print one object per buffer and device: lower, upper, belady, gap, policies, ...")
    c.set_defaults(func=run)
