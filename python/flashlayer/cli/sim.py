"""``flashlayer sim``: replay a trace through policies × buffer sizes ×
devices."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer._native import FlashlayerError
from flashlayer.cli.common import (
    EPILOG_DEVICES,
    UsageError,
    add_force,
    add_read_opts,
    buffer_specs,
    columns,
    command,
    duration,
    emit_json,
    groups,
    int_arg,
    open_with_progress,
    paragraph,
    policy_help,
    policy_specs,
    print_table,
    table_cells,
)
from flashlayer.files import atomic_output

COLUMNS = columns("policy", "buffer_pages", "requests", "hits", "miss_ratio", "physical_reads", "physical_writes",
                  "dirty_evictions", "dirty_at_end", "virtual_time", "requests_per_second")


def print_results(rows: list[dict[str, Any]]) -> None:
    """One table per device, its costs and unit above it."""
    for group in groups(rows, lambda r: str(r["device"])):
        name = group[0]["device"]
        d = _native.device(name)
        unit = "us" if d["unit"] == "us" else "cost units"
        flushed = " dirty pages written at the end;" if group[0].get("flush_at_end") else ""
        print(f"device {name}: read {d['read']:g}, write {d['write']:g} {unit};{flushed} "
              f"virtual time = physical I/O x costs")
        for r in group:
            table_cells(r, d["unit"])
        cols = COLUMNS
        if any(r.get("read_ahead") for r in group):
            # ACE's prefetching variant: the pages it read ahead, and how
            # many of them were requested while buffered.
            at = [n for n, _ in cols].index("dirty_at_end") + 1
            cols = [*cols[:at], *columns("read_ahead", "read_ahead_used"), *cols[at:]]
        print_table(group, cols)


FLASH_COLUMNS = columns("policy", "buffer_pages", "requests", "miss_ratio", "physical_reads", "physical_writes",
                        "chip_reads", "chip_programs", "chip_spare_programs", "chip_erases", "virtual_time",
                        "requests_per_second")


def print_flash(rows: list[dict[str, Any]]) -> None:
    """One table per flash method."""
    for group in groups(rows, lambda r: f"{r['flash_method']}/{r['flash_changed']}"):
        m, changed = group[0]["flash_method"], group[0]["flash_changed"]
        what = ("writes change the bytes the trace's byte ranges say" if changed is None else
                f"each write changes the page's first {changed:,} bytes (changed={changed})")
        print(f"store flash:method={m} on a NAND chip of PDL Table 1 (read 110, program 1,010, erase 1,500 us), twice "
              f"the trace's pages; {what}; dirty pages flushed at the end")
        for r in group:
            table_cells(r, "us")
        print_table(group, FLASH_COLUMNS)


FTL_COLUMNS = columns("policy", "buffer_pages", "miss_ratio", "physical_reads", "physical_writes", "ftl_relocations",
                      "ftl_erases", "ftl_write_amplification", "virtual_time", "requests_per_second")


def print_ftl(rows: list[dict[str, Any]]) -> None:
    """One table per FTL store: what the policy wrote, and what the flash
    did for it."""
    for group in groups(rows, lambda r: str(r["store"])):
        d = _native.device(group[0]["device"])
        f = group[0]
        print(f"store {group[0]['store']}: {f['ftl_blocks']:,} blocks; read {d['read']:g}, program {d['write']:g}, "
              f"erase {d['erase'] or 0:g} {d['unit']}; uniform random writes would amplify "
              f"{f['ftl_uniform_greedy_write_amplification']:.2f}x under greedy collection")
        for r in group:
            table_cells(r, d["unit"])
            r["ftl_write_amplification"] = f"{r['ftl_write_amplification']:.3f}"
        print_table(group, FTL_COLUMNS)


FILE_COLUMNS = columns("policy", "buffer_pages", "requests", "miss_ratio", "physical_reads", "physical_writes",
                       "measured_io_seconds", "virtual_time", "requests_per_second")


def print_file(rows: list[dict[str, Any]]) -> None:
    """One table per file store: the I/O as this machine measured it, and
    the time the store's device model prices it at."""
    for group in groups(rows, lambda r: str(r["store"])):
        d = _native.device(group[0]["device"])
        unit = "us" if d["unit"] == "us" else "cost units"
        print(f"store {_native.short_spec('store', group[0]['store'])}: a buffer pool over a real file; measured I/O "
              f"= reads, writes and fsyncs as timed on this machine; modelled time = I/O x {d['name']}'s costs "
              f"(read {d['read']:g}, write {d['write']:g} {unit}); dirty pages written at the end")
        for r in group:
            table_cells(r, d["unit"])
            r["measured_io_seconds"] = duration(r["measured_io_seconds"] * 1e6, "us")
        print_table(group, FILE_COLUMNS)


#: Flags that do not set a store: each store is set by its --store spec.
#: Given one, the command says which spec key to use.
NOT_FLAGS = {
    "hybrid": ("--hybrid", "--store hybrid:placement=P, one --store per placement"),
    "flash": ("--flash", "--store hybrid:flash=SPEC"),
    "magnetic": ("--magnetic", "--store hybrid:magnetic=SPEC"),
    "flash_capacity": ("--flash-capacity", "--store hybrid:capacity=P"),
    "defer": ("--defer", "--store hybrid:defer=N"),
    "tier": ("--tier", "--store tier:scheme=S,ssd=SIZE, one --store per scheme and size"),
    "ssd": ("--ssd", "--store tier:scheme=S,ssd=SIZE"),
    "ssd_device": ("--ssd-device", "--store tier:ssd_device=SPEC"),
    "hdd_device": ("--hdd-device", "--store tier:hdd_device=SPEC"),
}


def stores(a: argparse.Namespace) -> list[str]:
    """The stores of the command line, as canonical specs: ``--store SPEC``
    (repeatable), or its shorthand for cost stores, ``--device SPEC``, or
    the default store, ``cost``."""
    from flashlayer.replay import stores_of

    for dest, (flag, spec) in NOT_FLAGS.items():
        if getattr(a, dest) is not None:
            raise UsageError(f"{flag}: stores are set by their spec: {spec} ('flashlayer list stores')")
    given = [flag for flag, v in (("--store", a.store), ("--device", a.device)) if v]
    if len(given) > 1:
        raise UsageError("--store and --device both name the store; give one (--device D is --store cost:device=D)")
    from flashlayer.replay import replacing

    try:
        specs = stores_of(a.store, a.device)
        return [replacing(s) for s in specs] if a.force else specs
    except FlashlayerError as e:
        raise UsageError(f"{given[0] if given else '--store'}: {e}") from None


def run(a: argparse.Namespace) -> None:
    from flashlayer.cli import sim_hybrid, sim_tier
    from flashlayer.replay import sweep

    if a.series_every is not None and not a.json:
        raise UsageError("--series-every records time series, which only --json prints; add --json")
    specs = stores(a)
    kinds = {s.split(":", 1)[0] for s in specs}
    if a.policy is None:
        if kinds != {"tier"}:
            raise UsageError("--policy is required (e.g. --policy lru,cflru,casa)")
        a.policy = _native.TIER_DRAM_POLICY
    policies = policy_specs(a.policy)
    buffers = buffer_specs(a.buffer)
    if a.plot is not None:
        from flashlayer.plots import check_png_path

        check_png_path(Path(a.plot), a.force)
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    runs = len(policies) * len(buffers) * len(specs)
    with progress.bar(runs * len(trace), f"replaying {Path(a.trace).name} ({runs} runs)", quiet=a.json) as bar:
        rows = sweep(
            trace,
            policies,
            buffers,
            specs,
            series_every=a.series_every,
            flush_at_end=True if a.flush_at_end else None,
            workers=a.jobs,
            on_progress=bar.advance,
        )
    out: list[dict[str, Any]] = [dict(r) for r in rows]
    if a.plot is not None:
        from flashlayer.plots import render_results

        atomic_output(Path(a.plot), lambda tmp: render_results(out, tmp), a.force)
    if a.json:
        emit_json(out)
        return
    # A kind with columns of its own has a printer; any other kind's rows
    # carry the metrics every store has.
    printers = {"file": print_file, "flash": print_flash, "ftl": print_ftl, "hybrid": sim_hybrid.print_rows, "tier": sim_tier.print_rows}
    order = [name for name, _, _ in _native.table("store")]
    for i, kind in enumerate(sorted({r["store_name"] for r in out}, key=order.index)):
        if i:
            print()
        printers.get(kind, print_results)([r for r in out if r["store_name"] == kind])
    if a.plot is not None:
        print(f"\nwrote {a.plot}")


def add(sub: Any) -> None:
    s = command(
        sub, "sim", help="replay a trace through policies, buffer sizes and stores",
        description=paragraph("""
            Replay TRACE through every store x policy x buffer size and report hits, misses, physical I/O and
            virtual time (the sum of physical I/Os x the devices' costs). Runs go in parallel. Every policy runs
            on every store through one protocol, or the combination is refused with one line. On a cost store a
            miss costs a physical read (also for a write request: the page is read before it is modified) and a
            dirty victim a physical write; dirty pages left at the end are counted in 'dirty at end' and not
            written, unless --flush-at-end."""),
        epilog=EPILOG_DEVICES + "\n\nExample:\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz "
        "--policy lru,arc,belady --buffer 1%,5%,2000 --device ratio:1:1 --device ratio:1:64 --plot sim.png"
        "\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,koltsidas:lambda=0.5 --buffer 2% "
        "--store hybrid:placement=optimistic --store hybrid:placement=optimal"
        "\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,cfdc --buffer 1% "
        "--store tier:scheme=hypro,p_sink=0.15,ssd=5% --store tier:scheme=lc,ssd=20%"
        "\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy casa:cost=measured --buffer 1% "
        "--store file:direct=on",
    )
    s.add_argument("trace", help="trace file (csv, flt, vscsi, msr, spc, oracle; gzip or zstd compressed or not)")
    s.add_argument("--policy", action="append", metavar="P[,P...]",
                   help=f"policies, each NAME or NAME:KEY=VALUE[,KEY=VALUE...]; a KEY=VALUE piece continues "
                   f"the policy before it, e.g. lru,cflru:w=0.25,casa; repeat the flag to add more. With "
                   f"defaults: {policy_help()} "
                   "(see 'flashlayer list policies'). Required, except on tier stores only (DRAM's policy, "
                   f"default {_native.TIER_DRAM_POLICY})"),
    s.add_argument("--buffer", required=True, action="append", metavar="N[,N...]",
                   help="buffer sizes: pages (>= 1) or P%% of the trace's distinct pages (rounded, at least 1 "
                   "page), e.g. 1%%,5%%,2000; repeat the flag to add more")
    s.add_argument("--device", action="append", metavar="SPEC",
                   help="device cost model: the shorthand of --store cost:device=SPEC; repeat the flag for several "
                   "devices (specs contain commas) (default: ratio:1:1)")
    add_read_opts(s)
    s.add_argument("--flush-at-end", action="store_true",
                   help=paragraph("""
                       write the dirty pages left in the buffer at the end and count them in the physical writes
                       and virtual time (default: each store's own; cost, hybrid and tier leave them unwritten,
                       counted in dirty_at_end; file and flash always end with a flush)"""))
    s.add_argument("--store", action="append", metavar="SPEC",
                   help=paragraph("""
                       where pages live, a store spec NAME[:KEY=VALUE,...]: cost (a device cost model, the
                       default), file (a buffer pool over a real file, timed), flash (a buffer pool over a NAND
                       flash store), ftl (an SSD whose page-mapped translation layer collects garbage), hybrid
                       (a flash and a magnetic disk side by side), tier (DRAM over an SSD cache over a disk).
                       Repeat for several stores; keys and defaults: 'flashlayer list stores'. --device D is
                       --store cost:device=D"""))
    for flag, _ in NOT_FLAGS.values():
        s.add_argument(flag, help=argparse.SUPPRESS)
    s.add_argument("--series-every", type=int_arg(1, "--series-every"), default=None, metavar="N",
                   help="record a time series point every N requests (N at least 1), with the policy's and the "
                   "store's state (needs --json, the one output that carries them; default: off)")
    s.add_argument("--jobs", type=int_arg(1, "--jobs"), default=None, metavar="J",
                   help="parallel runs (default: number of CPUs)")
    s.add_argument("--plot", metavar="PNG",
                   help="also draw miss ratio and virtual time against buffer size to PNG, as 'flashlayer plot' "
                   "draws the --json rows: a row of panels per device, a line per policy and store")
    add_force(s)
    s.add_argument("--json", action="store_true", help="print a JSON list of result objects")
    s.set_defaults(func=run)
