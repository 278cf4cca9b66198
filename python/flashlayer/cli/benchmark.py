"""``flashlayer bench``: simulator throughput per policy, or with ``--flash``
the NAND emulator's page operations and each flash method's updates per
second."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.cli.common import (
    UsageError,
    add_force,
    add_read_opts,
    buffer_specs,
    emit_json,
    float_arg,
    int_arg,
    policy_help,
    policy_specs,
    print_table,
    rate,
)
from flashlayer.files import MARKDOWN_MARK, atomic_output, check_writable


DEFAULT_POLICIES = ("lru,fifo,clock,2q,arc,sieve,s3fifo,lfu,slru,lruk,lirs,wtinylfu,clockpro,belady,cflru,lruwsr,ccflru,casa,fdbuffer,fdbuffer:cluster=64,cfdc,wblandlord,"
                    "koltsidas:lambda=0.5,koltsidas")
#: With --libcachesim: the policies libCacheSim also has.
COMPARED_POLICIES = "lru,fifo,clock,2q,arc,sieve,s3fifo,lfu,slru,lruk,lirs,wtinylfu,belady"


#: Flash methods timed by ``bench --flash``.
FLASH_METHODS = ["ipu", "opu", "ipl:18k", "ipl:64k", "pdl:256", "pdl:2k"]
#: The emulator's goal: page operations per second of an in-memory image.
CHIP_GOAL = 1_000_000


def _flash(a: argparse.Namespace) -> None:
    ops, secs = 0, float("inf")
    for _ in range(a.repeat):
        n, s = _native.chip_bench()
        ops, secs = n, min(secs, s)
    chip = {"page_operations": ops, "seconds": secs, "per_second": ops / secs, "goal": CHIP_GOAL,
            "meets_goal": ops / secs >= CHIP_GOAL}
    methods = []
    for m in FLASH_METHODS:
        best = None
        for _ in range(a.repeat):
            r = _native.flash_updates(m, 64, operations=20_000, warmup_erases_per_block=2.0)
            if best is None or r["seconds"] < best["seconds"]:
                best = r
        assert best is not None
        methods.append({"method": m, "label": best["label"], "updates": best["updates"],
                        "seconds": best["seconds"], "updates_per_second": best["updates"] / best["seconds"],
                        "chip_us_per_update": (best["read"]["time_us"] + best["write"]["time_us"]) / best["updates"]})
    if a.json:
        emit_json({"chip": chip, "methods": methods})
        return
    print(f"NAND emulator (in memory, 256 blocks of 64 pages of 2,048+64 bytes; program, read, erase every block), "
          f"best of {a.repeat}: {rate(chip['per_second'])} page operations/s "
          f"({'meets' if chip['meets_goal'] else 'below'} the goal of {rate(CHIP_GOAL)})")
    print("update operations (read, change 2%, write back) on a 64-block chip in steady state, best of "
          f"{a.repeat}:")
    print_table(
        [{**r, "ups": rate(r["updates_per_second"]), "chip": f"{r['chip_us_per_update']:,.0f}"} for r in methods],
        [("label", "method"), ("ups", "updates/s"), ("seconds", "seconds"), ("chip", "chip µs per update")],
    )


def thread_counts(value: str) -> list[int]:
    """``--threads``: increasing thread counts, each at least 1."""
    counts = [int_arg(1, "--threads")(x) for x in value.split(",")]
    if counts != sorted(set(counts)):
        raise argparse.ArgumentTypeError(f"expected increasing thread counts, got '{value}'")
    return counts


def _pool(a: argparse.Namespace) -> None:
    from flashlayer import bench

    threads = a.threads or list(bench.POOL_THREADS)
    result = bench.pool(threads, a.repeat, seed=a.seed, quiet=a.json)
    if a.json:
        emit_json(result)
        return
    w = result["workloads"]
    print(f"threads fixing one buffer pool (LRU, {w['hits']['page_size']:,}-byte pages), best of {a.repeat}: "
          f"hits: {w['hits']['frames']:,} frames all loaded, reads only; latency: {w['latency']['frames']:,} frames, "
          f"Zipf {w['latency']['alpha']} over {w['latency']['pages']:,} pages, {w['latency']['write_ratio']:.0%} "
          f"writes, {w['latency']['latency_us']:.0f} µs per page read and written; file: the same over a real file; "
          "hybrid: the same over the hybrid store (flash and magnetic memory stores, each with that latency), "
          "whose misses run whole under the pool lock")
    print_table(
        [{**r, "fps": rate(r["fixes_per_second"]), "x": f"{r['vs_first']:.2f}",
          "per": rate(r["fixes_per_second"] / r["threads"]),
          "direct": {True: "O_DIRECT", False: "page cache", None: None}[r["direct"]]} for r in result["rows"]],
        [("workload", "workload"), ("threads", "threads"), ("fps", "fixes/s"), ("per", "per thread"),
         ("x", f"vs {threads[0]} thread{'s' if threads[0] > 1 else ''}"), ("misses", "misses"),
         ("direct", "file I/O"), ("goal", "goal"), ("meets_goal", "meets")],
    )


def _oltp(a: argparse.Namespace) -> None:
    from flashlayer import bench

    threads = a.threads or list(bench.OLTP_THREADS)
    policies = policy_specs(a.policies or bench.OLTP_POLICIES)
    result = bench.oltp(threads, policies, a.repeat, seed=a.seed, quiet=a.json)
    if a.json:
        emit_json(result)
        return
    sizes = ", ".join(f"{name} ({', '.join(f'{k} {v:,}' for k, v in w.items() if k != 'frames')}; "
                      f"{w['frames']:,} frames)" for name, w in result["workloads"].items())
    print(f"terminals on threads over one buffer pool and a real file, best of {a.repeat}: {sizes}; "
          f"every run's B+-trees and heaps pass their checkers and its consistency conditions hold")
    print_table(
        [{**r, "tps": rate(r["transactions_per_second"]), "per": rate(r["transactions_per_second"] / r["threads"]),
          "x": f"{r['vs_first']:.2f}", "policy": _native.short_spec("policy", r["policy"]),
          "direct": "O_DIRECT" if r["direct"] else "page cache"} for r in result["rows"]],
        [("workload", "workload"), ("policy", "policy"), ("threads", "threads"), ("tps", "tx/s"),
         ("per", "per thread"), ("x", f"vs {threads[0]} thread{'s' if threads[0] > 1 else ''}"),
         ("reads", "reads"), ("writes", "writes"), ("direct", "file I/O")],
    )


#: The options each benchmark reads, by destination and flag (``--repeat``
#: and ``--json`` apply to every one); another one given is refused.
OPTIONS = {"requests": "--requests", "pages": "--pages", "alpha": "--alpha", "write_ratio": "--write-ratio",
           "buffer": "--buffer", "policies": "--policies", "threads": "--threads", "seed": "--seed",
           "trace": "--trace", "format": "--format", "page_size": "--page-size", "markdown": "--markdown",
           "force": "--force"}
READS = {
    "policies": {"requests", "pages", "alpha", "write_ratio", "buffer", "policies", "seed", "trace", "format",
                 "page_size", "markdown", "force"},
    "libcachesim": {"buffer", "policies", "trace", "format", "page_size", "markdown", "force"},
    "pool": {"threads", "seed"},
    "oltp": {"threads", "policies", "seed"},
    "flash": set(),
}
#: Each option's default, as the parser has it (filled in by ``add``).
_DEFAULTS: dict[str, Any] = {}


def _refuse_unread(a: argparse.Namespace, mode: str) -> None:
    """One line for an option the chosen benchmark would not read."""
    for dest, flag in OPTIONS.items():
        if dest not in READS[mode] and getattr(a, dest) != _DEFAULTS[dest]:
            which = "the policy benchmark" if mode == "policies" else f"--{mode}"
            takes = [OPTIONS[d] for d in OPTIONS if d in READS[mode]]
            raise UsageError(f"{flag} does not apply to {which} (it takes "
                             f"{', '.join(takes) + ', ' if takes else 'only '}--repeat and --json)")


def run(a: argparse.Namespace) -> None:
    from flashlayer import bench

    if a.flash + a.pool + a.oltp + a.libcachesim > 1:
        raise UsageError("--flash, --pool, --oltp and --libcachesim are separate benchmarks: give one")
    mode = ("flash" if a.flash else "pool" if a.pool else "oltp" if a.oltp else
            "libcachesim" if a.libcachesim else "policies")
    _refuse_unread(a, mode)
    if a.markdown is not None:
        try:
            check_writable(Path(a.markdown), a.force)
        except FlashlayerError as e:
            raise UsageError(f"--markdown: {e}") from None
    if a.repeat is None:
        a.repeat = 1 if a.oltp else 3
    if a.flash:
        return _flash(a)
    if a.pool:
        return _pool(a)
    if a.oltp:
        return _oltp(a)

    default = COMPARED_POLICIES if a.libcachesim else DEFAULT_POLICIES
    policies = policy_specs(a.policies or default)
    if a.libcachesim:
        return _compare(a, policies)
    buffers = buffer_specs(a.buffer)
    if len(buffers) != 1:
        raise UsageError("bench takes one buffer size")
    result = bench.run(
        requests=a.requests,
        pages=a.pages,
        alpha=a.alpha,
        write_ratio=a.write_ratio,
        buffer=buffers[0],
        policies=policies,
        repeat=a.repeat,
        seed=a.seed,
        trace_path=Path(a.trace) if a.trace else None,
        format=a.format,
        page_size=a.page_size,
        quiet=a.json,
    )
    heading = _heading(result)
    if a.markdown is not None:
        _write_page(a.markdown, "Performance",
                    "Simulator throughput per policy, end to end (open an `flt` trace, replay it), single-threaded; "
                    "`vs LRU` is the ratio to plain LRU timed in the same rounds (each round times every row "
                    "once), which is what the goals are stated in.",
                    _command(a), heading, _cells(result), BENCH_COLUMNS, a.force)
    if a.json:
        emit_json(result)
        return
    print(heading)
    print_table(_cells(result), BENCH_COLUMNS)
    if a.markdown is not None:
        print(f"\nwrote {a.markdown}")


BENCH_COLUMNS = [("policy", "policy"), ("rps", "req/s"), ("x", "vs LRU"), ("seconds", "seconds"),
                 ("miss_ratio", "miss ratio"), ("goal", "target req/s"), ("meets_target", "meets")]


def _heading(result: dict[str, Any]) -> str:
    t = result["trace"]
    origin = f"Zipf alpha {t['alpha']}, seed {t['seed']}" if t["alpha"] is not None else t["path"]
    return (f"trace: {t['requests']:,} requests, {t['distinct_pages']:,} distinct pages, "
            f"{t['write_share']:.1%} writes ({origin}); buffer {result['buffer_pages']:,} pages; "
            f"best of {result['repeat']} interleaved rounds")


def _cells(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**r, "policy": _native.short_spec("policy", r["policy"]), "rps": rate(r["requests_per_second"]),
             "goal": rate(r["target"]) if r["target"] else None,
             "x": f"{r['vs_lru']:.2f}" if r["vs_lru"] is not None else None} for r in result["policies"]]


def _command(a: argparse.Namespace) -> str:
    """The bench command line that reproduces this run."""
    parts = ["flashlayer bench"]
    if a.libcachesim:
        parts.append("--libcachesim")
    if a.trace:
        parts.append(f"--trace {a.trace}")
        if a.format:
            parts.append(f"--format {a.format}")
        if a.page_size is not None:
            parts.append(f"--page-size {a.page_size}")
    elif not a.libcachesim:
        parts.append(f"--requests {a.requests} --pages {a.pages} --alpha {a.alpha} --write-ratio {a.write_ratio} "
                     f"--seed {a.seed}")
    parts.append(f"--buffer {a.buffer} --repeat {a.repeat}")
    if a.policies:
        parts.append(f"--policies {a.policies}")
    parts.append(f"--markdown {a.markdown}")
    return " ".join(parts)


def _write_page(path: str, title: str, intro: str, command: str, heading: str, cells: list[dict[str, Any]],
                columns: list[tuple[str, str]], force: bool) -> None:
    """Writes a run as a page of the repository's docs: what it measures,
    the command that regenerates it, the machine it ran on, the table."""
    import datetime
    import os
    import platform

    from flashlayer import __version__

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    lines = [
        MARKDOWN_MARK,
        f"# {title}",
        "",
        f"{intro} Regenerate this page with",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Measured {datetime.date.today().isoformat()} on {cpu} ({os.cpu_count()} CPUs), "
        f"flashlayer {__version__}. {heading[0].upper()}{heading[1:]}.",
        "",
        "| " + " | ".join(h for _, h in columns) + " |",
        "|" + "|".join("---" if k == "policy" else "---:" for k, _ in columns) + "|",
    ]
    for c in cells:
        lines.append("| " + " | ".join("" if c.get(k) is None else f"`{c[k]}`" if k == "policy" else
                                       f"{c[k]:.2f}" if k == "seconds" else f"{c[k]:.4f}" if isinstance(c[k], float)
                                       else str(c[k])
                                       for k, _ in columns) + " |")
    page = "\n".join(lines) + "\n"
    atomic_output(Path(path), lambda tmp: tmp.write_text(page, encoding="utf-8"), force)


def _compare(a: argparse.Namespace, policies: list[str]) -> None:
    from flashlayer import compare

    buffers = buffer_specs(a.buffer)
    if len(buffers) != 1 or not isinstance(buffers[0], int):
        raise UsageError("with --libcachesim, --buffer is one cache size in objects")
    result = compare.run(Path(a.trace) if a.trace else None, buffers[0], policies, a.repeat, quiet=a.json,
                         format=a.format, page_size=a.page_size)
    t = result["trace"]
    heading = (f"trace: {t['name']}, {t['requests']:,} requests, {t['distinct_pages']:,} distinct objects; cache "
               f"{result['cache_objects']:,} objects; libCacheSim {result['libcachesim_version']}; in-process "
               f"replay, median of {result['repeat']} interleaved rounds")
    rows = [{**r, "x": f"{r['speedup']:.1f}x", "g": f">= {r['goal']:.0f}x",
             "ls": f"{r['libcachesim_seconds']:.3f}", "fs": f"{r['flashlayer_seconds']:.3f}"}
            for r in result["policies"]]
    columns = [("policy", "policy"), ("ls", "libCacheSim s"), ("fs", "flashlayer s"), ("x", "speedup"),
               ("g", "goal"), ("meets_goal", "meets"), ("libcachesim_miss_ratio", "their miss ratio"),
               ("flashlayer_miss_ratio", "our miss ratio"), ("same_miss_ratio", "same")]
    if a.markdown is not None:
        _write_page(a.markdown, "flashlayer beside libCacheSim",
                    "Each policy flashlayer shares with libCacheSim, replayed by both in-process on the same "
                    "trace and cache size (the trace already open), single-threaded; a round runs libCacheSim "
                    "then flashlayer, and each side's time is its median over the rounds. Belady's time "
                    "includes computing next uses, which libCacheSim reads from its trace. A miss ratio that "
                    "differs is a documented choice (the README's policy table).",
                    _command(a), heading, rows, columns, a.force)
    if a.json:
        emit_json(result)
        return
    print(heading)
    print_table(rows, columns)
    if a.markdown is not None:
        print(f"\nwrote {a.markdown}")


def add(sub: Any) -> None:
    b = sub.add_parser("bench", help="measure simulator throughput per policy",
                       description="Generate a Zipf trace (default: 10M requests over 1.1M pages, ~1.05M distinct, 20% "
                       "writes), convert it to flt, and time each policy end to end (open + replay), single-threaded, "
                       "best of --repeat runs, interleaved (each round times every row once, so a row and LRU are timed "
                       "close together). Reports requests/s and the ratio to LRU. With LRU among the policies, more rows "
                       "time LRU over a hybrid flash + magnetic store (placement hybrid, Koltsidas Table 1 costs) and "
                       "each DRAM / SSD / disk scheme (hypro, tac, face, lc; DRAM = --buffer under LRU, SSD = 5x the "
                       "buffer, HyPro Table 4 devices); each of these rows' goal is 0.25x plain LRU. --libcachesim, "
                       "--flash, --pool and --oltp are other benchmarks: each refuses an option it does not read.")
    b.add_argument("--requests", type=int_arg(1, "--requests"), default=10_000_000,
                   help="Zipf requests (default: 10,000,000)")
    b.add_argument("--pages", type=int_arg(1, "--pages"), default=1_100_000, help="Zipf page universe (default: 1,100,000; gives ~1.05M distinct)")
    b.add_argument("--alpha", type=float_arg(0.0, None, "--alpha", lo_open=True), default=0.8,
                   help="Zipf exponent (default: 0.8)")
    b.add_argument("--write-ratio", type=float_arg(0.0, 1.0, "--write-ratio"), default=0.2,
                   help="share of writes (default: 0.2)")
    b.add_argument("--buffer", default="45000", metavar="N",
                   help="buffer pages, or P%% of the trace's distinct pages (default: 45000)")
    b.add_argument("--policies", default=None, metavar="P[,P...]",
                   help=f"policies to time, with parameters as in 'sim --policy' (default: {DEFAULT_POLICIES}; "
                   f"with --libcachesim: {COMPARED_POLICIES}; with --oltp: lru,fdbuffer; "
                   f"all: {policy_help()})")
    b.add_argument("--libcachesim", action="store_true",
                   help="time libCacheSim on the same trace and cache size beside us, median of --repeat, and "
                   "compare miss ratios; without --trace uses libCacheSim's own 10M-request Twitter trace "
                   "(fetched once from PyPI's libcachesim source). Goals: 12x libCacheSim's throughput for lru, "
                   "fifo, clock, 2q and arc, 10x for every other policy (Belady's next-use pass included). "
                   "Needs pip install 'flashlayer[compare]'")
    b.add_argument("--flash", action="store_true",
                   help="instead, time the NAND emulator (page operations/s of an in-memory chip) and each flash "
                   f"method's update operations/s in steady state ({', '.join(FLASH_METHODS)})")
    b.add_argument("--pool", action="store_true",
                   help="instead, time threads sharing one buffer pool (LRU): fixes/s at each --threads count for "
                   "three workloads: 'hits' (10,000 frames, all loaded, reads only; goal 10M fixes/s on one "
                   "thread), 'latency' (1,000 frames, Zipf 0.8 over 10,000 pages, 20%% writes, a memory store "
                   "that sleeps 100 µs per page read and written; goal: 16 threads at 8x one thread's rate) and "
                   "'file' (the same over a real file in the temporary directory, O_DIRECT where the file "
                   "system allows it) and 'hybrid' (as 'latency', over the hybrid store of a flash and a "
                   "magnetic memory store: a store that listens to request order, whose misses the pool runs "
                   "whole under its lock)")
    b.add_argument("--oltp", action="store_true",
                   help="instead, time terminals on threads running TPC-C (1 warehouse, 2,000 transactions, 1,000 "
                   "frames of 8 KiB) and TPC-B (1 branch, 10,000 transactions, 200 frames) over one buffer pool "
                   "and a real file in the temporary directory (O_DIRECT where the file system allows it): "
                   "transactions/s at each --threads count under each of --policies (default: lru,fdbuffer). "
                   "Each run loads its database anew, and fails unless afterwards every B+-tree and heap passes "
                   "its checker and the workload's consistency conditions hold. Takes a few minutes")
    b.add_argument("--threads", type=thread_counts, default=None, metavar="N[,N...]",
                   help="with --pool or --oltp: thread counts, increasing (default: 1,2,4,8,16)")
    b.add_argument("--repeat", type=int_arg(1, "--repeat"), default=None,
                   help="rounds; each times every row once and a row's best is kept (with --libcachesim: runs per "
                   "policy, the median) (default: 3; with --oltp: 1)")
    b.add_argument("--seed", type=int_arg(0, "--seed"), default=42,
                   help="seed of the Zipf trace, or with --pool of the threads' strings and with --oltp of each "
                   "database's load and its terminals (terminal t draws from seed + 1 + t) (default: 42)")
    b.add_argument("--trace", metavar="PATH", help="use this trace instead of generating one (converted to flt first)")
    add_read_opts(b)
    b.add_argument("--json", action="store_true", help="print the results as JSON")
    b.add_argument("--markdown", metavar="MD",
                   help="also write the table as a Markdown page with the command that regenerates it and the "
                   "machine it ran on (the repository's docs/PERFORMANCE.md is written this way, and with "
                   "--libcachesim docs/LIBCACHESIM.md)")
    add_force(b)
    b.set_defaults(func=run)
    _DEFAULTS.update({dest: b.get_default(dest) for dest in OPTIONS})
