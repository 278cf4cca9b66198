"""``flashlayer sim``: replay a trace through policies × buffer sizes ×
devices."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer.cli.common import (
    EPILOG_DEVICES,
    UsageError,
    atomic_output,
    add_read_opts,
    buffer_specs,
    emit_json,
    int_arg,
    open_with_progress,
    policy_help,
    policy_specs,
    print_table,
    table_cells,
)

COLUMNS = [
    ("policy", "policy"),
    ("buffer", "buffer"),
    ("requests", "requests"),
    ("hits", "hits"),
    ("miss_ratio", "miss ratio"),
    ("physical_reads", "phys reads"),
    ("physical_writes", "phys writes"),
    ("dirty_evictions", "dirty evictions"),
    ("dirty_at_end", "dirty at end"),
    ("vt", "virtual time"),
    ("rps", "req/s"),
]


def print_results(rows: list[dict[str, Any]]) -> None:
    """One table per device, its costs and unit above it."""
    devices: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        devices.setdefault(r["device"], []).append(r)
    for i, (name, group) in enumerate(devices.items()):
        d = _native.device(name)
        unit = "us" if d["unit"] == "us" else "cost units"
        flushed = " dirty pages written at the end;" if group[0].get("flush_at_end") else ""
        if i:
            print()
        print(f"device {name}: read {d['read']:g}, write {d['write']:g} {unit};{flushed} "
              f"virtual time = physical I/O x costs")
        for r in group:
            table_cells(r, d["unit"])
        print_table(group, COLUMNS)


FLASH_COLUMNS = [
    ("policy", "policy"),
    ("buffer", "buffer"),
    ("requests", "requests"),
    ("miss_ratio", "miss ratio"),
    ("physical_reads", "pool reads"),
    ("physical_writes", "pool writes"),
    ("chip_reads", "chip reads"),
    ("chip_programs", "chip programs"),
    ("chip_erases", "erases"),
    ("vt", "chip time"),
    ("rps", "req/s"),
]


def _flash_stores(a: argparse.Namespace) -> list[str]:
    """The methods of ``--store flash:METHOD`` flags; empty for the model."""
    stores: list[str] = a.store or ["model"]
    if stores == ["model"]:
        return []
    methods = []
    for st in stores:
        if not st.startswith("flash:"):
            raise UsageError(f"--store {st}: expected 'model' or 'flash:METHOD', METHOD one of "
                             "ipu, opu, ipl:SIZE, pdl:SIZE (e.g. flash:pdl:256)")
        methods.append(_native.flash_method(st[len("flash:"):]))
    if a.device:
        raise UsageError("--device prices the model store; on a flash store the time is the chip's (drop --device)")
    if a.series_every:
        raise UsageError("--series-every is not available with a flash store")
    return methods


def _run_flash(a: argparse.Namespace, methods: list[str], policies: list[str], buffers: list[int | str]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from flashlayer.sweep import resolve_buffer

    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    names = [_native.policy_name(p) for p in policies]
    sizes = [resolve_buffer(b, trace.pages) for b in buffers]
    grid = [(m, p, b) for m in methods for p in names for b in sizes]
    with progress.bar(len(grid), f"replaying {Path(a.trace).name} on flash ({len(grid)} runs)", quiet=a.json) as bar, \
            ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(_native.run_on_flash, trace, p, b, m) for m, p, b in grid]
        out: list[dict[str, Any]] = []
        for f in futures:
            out.append(f.result())
            bar.advance()
    for r in out:
        r["buffer_share"] = r["buffer_pages"] / trace.pages
    if a.json:
        emit_json(out)
        return
    for i, m in enumerate(methods):
        group = [r for r in out if r["flash"]["method"] == m]
        if i:
            print()
        print(f"store flash:{m} on a NAND chip of PDL Table 1 (read 110, program 1,010, erase 1,500 us), twice the "
              "trace's pages; writes change the bytes the trace's byte ranges say; dirty pages flushed at the end")
        for r in group:
            table_cells(r, "us")
            r["chip_reads"] = r["flash"]["reads"]
            r["chip_programs"] = r["flash"]["programs"] + r["flash"]["spare_programs"]
            r["chip_erases"] = r["flash"]["erases"]
        print_table(group, FLASH_COLUMNS)


def run(a: argparse.Namespace) -> None:
    from flashlayer.sweep import sweep

    from flashlayer.cli import sim_hybrid, sim_tier

    if a.policy is None:
        if a.tier is None:
            raise UsageError("--policy is required (e.g. --policy lru,cflru,casa)")
        a.policy = "lru"
    policies = policy_specs(a.policy)
    buffers = buffer_specs(a.buffer)
    sim_tier.check(a)
    if a.tier is not None:
        return sim_tier.run(a, policies, buffers)
    sim_hybrid.check(a)
    if a.hybrid is not None:
        return sim_hybrid.run(a, policies, buffers)
    methods = _flash_stores(a)
    if methods:
        if a.plot is not None:
            raise UsageError("--plot draws model-store runs; use --json with a flash store")
        return _run_flash(a, methods, policies, buffers)
    devices: list[str] = a.device or ["ratio:1:1"]
    for d in devices:
        _native.device(d)
    for d in devices:
        if devices.count(d) > 1:
            raise UsageError(f"--device {d} is given twice")
    if a.plot is not None:
        from flashlayer.plots import check_png_path

        check_png_path(Path(a.plot))
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    runs = len(policies) * len(buffers) * len(devices)
    total = runs * len(trace)
    with progress.bar(total, f"simulating {Path(a.trace).name} ({runs} runs)", quiet=a.json) as bar:
        rows = sweep(
            trace,
            policies,
            buffers,
            devices,
            series_every=a.series_every,
            flush_at_end=a.flush_at_end,
            workers=a.jobs,
            on_progress=bar.advance,
        )
    out: list[dict[str, Any]] = [dict(r) for r in rows]
    if a.plot is not None:
        from flashlayer.plots import render_results

        def draw(tmp: Path) -> int:
            render_results(out, tmp, title=Path(a.trace).name)
            return 0

        atomic_output(Path(a.plot), draw)
    if a.json:
        emit_json(out)
    else:
        print_results(out)
        if a.plot is not None:
            print(f"\nwrote {a.plot}")


def add(sub: Any) -> None:
    s = sub.add_parser(
        "sim", help="replay a trace through policies, buffer sizes and devices",
        description="Replay TRACE through every device x policy x buffer size and report hits, misses, "
        "physical I/O and virtual time (the sum of physical I/Os x the device's costs). Runs go in parallel. "
        "A miss costs a physical read (also for a write request: the page is read before it is modified); "
        "a dirty victim costs a physical write. Dirty pages left in the buffer at the end are counted in "
        "'dirty at end' and not written, unless --flush-at-end.",
        epilog=EPILOG_DEVICES + "\n\nExample:\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz "
        "--policy lru,arc,belady --buffer 1%,5%,2000 --device ratio:1:1 --device ratio:1:64 --plot sim.png"
        "\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,koltsidas:lambda=0.5 --buffer 2% "
        "--hybrid conservative,optimistic,hybrid,optimal"
        "\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --tier hypro,tac,face,lc --buffer 1% "
        "--ssd 1.25%,5%,20%",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("trace", help="trace file (csv, flt, vscsi, msr, spc, oracle; gzip or zstd compressed or not)")
    s.add_argument("--policy", metavar="P[,P...]",
                   help=f"policies, each NAME or NAME:KEY=VALUE[,KEY=VALUE...]; a KEY=VALUE piece continues "
                   f"the policy before it, e.g. lru,cflru:w=0.25,casa. With defaults: {policy_help()} "
                   "(see 'flashlayer list policies'). Required, except with --tier (DRAM's policy, default lru)"),
    s.add_argument("--buffer", required=True, metavar="N[,N...]",
                   help="buffer sizes: pages (>= 1) or P%% of the trace's distinct pages (rounded, at least 1 "
                   "page), e.g. 1%%,5%%,2000")
    s.add_argument("--device", action="append", metavar="SPEC",
                   help="device cost model; repeat the flag for several devices (specs contain commas) "
                   "(default: ratio:1:1)")
    add_read_opts(s)
    s.add_argument("--flush-at-end", action="store_true",
                   help="write the dirty pages left in the buffer at the end and count them in the physical "
                   "writes and virtual time (default: left unwritten, counted in dirty_at_end)")
    s.add_argument("--store", action="append", metavar="STORE",
                   help="where pages live: 'model' (the default: a device cost model, --device) or "
                   "'flash:METHOD' (a buffer pool over a NAND flash store, METHOD ipu, opu, ipl:SIZE or pdl:SIZE, "
                   "e.g. flash:pdl:256; a write changes the bytes the trace's byte ranges say, and the time is the "
                   "chip's). Repeat for several stores")
    from flashlayer.cli import sim_hybrid, sim_tier

    sim_hybrid.add_args(s)
    sim_tier.add_args(s)
    s.add_argument("--series-every", type=int_arg(0, "--series-every"), default=0, metavar="N",
                   help="record a time series point every N requests (JSON output only; default: 0, off)")
    s.add_argument("--jobs", type=int_arg(1, "--jobs"), default=None, metavar="J",
                   help="parallel runs (default: number of CPUs)")
    s.add_argument("--plot", metavar="PNG",
                   help="also draw miss ratio and virtual time against buffer size (a panel per device) to PNG")
    s.add_argument("--json", action="store_true", help="print a JSON list of result objects")
    s.set_defaults(func=run)
