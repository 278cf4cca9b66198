"""``flashlayer bench``: simulator throughput per policy."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer.cli.common import add_read_opts, emit_json, float_arg, int_arg, print_table, split


def run(a: argparse.Namespace) -> None:
    from flashlayer import bench

    policies = [_native.policy_name(p) for p in split(a.policies, "policies")]
    result = bench.run(
        requests=a.requests,
        pages=a.pages,
        alpha=a.alpha,
        write_ratio=a.write_ratio,
        buffer_pages=a.buffer,
        policies=policies,
        repeat=a.repeat,
        seed=a.seed,
        trace_path=Path(a.trace) if a.trace else None,
        format=a.format,
        page_size=a.page_size,
        quiet=a.json,
    )
    if a.json:
        emit_json(result)
        return
    t = result["trace"]
    origin = f"Zipf alpha {t['alpha']}, seed {t['seed']}" if t["alpha"] is not None else t["path"]
    print(
        f"trace: {t['requests']:,} requests, {t['distinct_pages']:,} distinct pages, "
        f"{t['write_share']:.1%} writes ({origin}); buffer {result['buffer_pages']:,} pages; "
        f"best of {result['repeat']}"
    )
    print_table(
        result["policies"],
        [("policy", "policy"), ("requests_per_second", "req/s"), ("vs_lru", "vs LRU"),
         ("seconds", "seconds"), ("miss_ratio", "miss ratio"), ("target", "target req/s"), ("meets_target", "meets")],
    )


def add(sub: Any) -> None:
    b = sub.add_parser("bench", help="measure simulator throughput per policy",
                       description="Generate a Zipf trace (default: 10M requests over 1.1M pages, ~1.05M distinct, 20% "
                       "writes), convert it to flt, and time each policy end to end (open + replay), single-threaded, "
                       "best of --repeat runs. Reports requests/s and the ratio to LRU.")
    b.add_argument("--requests", type=int_arg(1, "--requests"), default=10_000_000)
    b.add_argument("--pages", type=int_arg(1, "--pages"), default=1_100_000, help="Zipf page universe (default: 1,100,000; gives ~1.05M distinct)")
    b.add_argument("--alpha", type=float_arg(0.0, None, "--alpha", lo_open=True), default=0.8)
    b.add_argument("--write-ratio", type=float_arg(0.0, 1.0, "--write-ratio"), default=0.2)
    b.add_argument("--buffer", type=int_arg(1, "--buffer"), default=45_000, help="buffer pages (default: 45,000)")
    b.add_argument("--policies", default="lru,fifo,clock,2q,arc,belady", metavar="P[,P...]")
    b.add_argument("--repeat", type=int_arg(1, "--repeat"), default=3, help="runs per policy; best is kept (default: 3)")
    b.add_argument("--seed", type=int_arg(0, "--seed"), default=42)
    b.add_argument("--trace", metavar="PATH", help="use this trace instead of generating one (converted to flt first)")
    add_read_opts(b)
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=run)
