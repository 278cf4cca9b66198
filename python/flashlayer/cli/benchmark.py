"""``flashlayer bench``: five benchmarks, one subcommand each, each with
its own flags: ``policies`` (simulator throughput per policy),
``libcachesim`` (the same beside libCacheSim), ``pool`` (threads sharing
one buffer pool), ``oltp`` (TPC-C and TPC-B terminals over a pool and a
real file) and ``flash`` (the NAND emulator and the flash methods)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, compare, replay
from flashlayer._native import FlashlayerError
from flashlayer.cli.common import (
    UsageError,
    add_force,
    add_read_opts,
    buffer_specs,
    command,
    emit_json,
    float_arg,
    int_arg,
    paragraph,
    policy_help,
    policy_specs,
    print_table,
    rate,
)
from flashlayer.files import MARKDOWN_MARK, atomic_output, check_writable

#: ``bench policies``: every policy of the engine's table at its defaults, but
#: costopt-ub (its planner's iterations dwarf any per-request cost), and two
#: variants: FD-Buffer writing clusters, Koltsidas with a fixed cost segment.
DEFAULT_POLICIES = ",".join([*(p for p in replay.policies(builtin=True) if p != "costopt-ub"), "fdbuffer:cluster=64",
                             "koltsidas:lambda=0.5"])
#: ``bench libcachesim``: the policies libCacheSim also has (the one list,
#: :data:`flashlayer.compare.POLICIES`).
COMPARED_POLICIES = ",".join(compare.POLICIES)


#: Flash methods timed by ``bench flash``.
FLASH_METHODS = ["ipu", "opu", "ipl:18k", "ipl:64k", "pdl:256", "pdl:2k"]


def _flash(a: argparse.Namespace) -> None:
    ops, secs = 0, float("inf")
    for _ in range(a.repeat):
        n, s = _native.chip_bench()
        ops, secs = n, min(secs, s)
    chip = {"page_operations": ops, "seconds": secs, "per_second": ops / secs}
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
          f"best of {a.repeat}: {rate(chip['per_second'])} page operations/s")
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
         ("direct", "file I/O")],
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


def _markdown_target(a: argparse.Namespace) -> None:
    """Refuses a --markdown page that may not be written, before timing."""
    if a.markdown is not None:
        try:
            check_writable(Path(a.markdown), a.force)
        except FlashlayerError as e:
            raise UsageError(f"--markdown: {e}") from None


def _policies(a: argparse.Namespace) -> None:
    from flashlayer import bench

    _markdown_target(a)
    policies = policy_specs(a.policies or DEFAULT_POLICIES)
    buffers = buffer_specs(a.buffer)
    if len(buffers) != 1:
        raise UsageError("bench policies takes one buffer size")
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
                    "`vs LRU` is the ratio of its best time to plain LRU's, timed in the same rounds (each "
                    "round times every row once); `per round` is the least and the greatest of the rounds' "
                    "own ratios, how far the machine moved the ratio.",
                    _command(a), heading, _cells(result), BENCH_COLUMNS, a.force)
    if a.json:
        emit_json(result)
        return
    print(heading)
    print_table(_cells(result), BENCH_COLUMNS)
    if a.markdown is not None:
        print(f"\nwrote {a.markdown}")


BENCH_COLUMNS = [("policy", "policy"), ("rps", "req/s"), ("x", "vs LRU"), ("spread", "per round"),
                 ("seconds", "seconds"), ("miss_ratio", "miss ratio")]


def _heading(result: dict[str, Any]) -> str:
    t = result["trace"]
    origin = f"Zipf alpha {t['alpha']}, seed {t['seed']}" if t["alpha"] is not None else t["path"]
    return (f"trace: {t['requests']:,} requests, {t['distinct_pages']:,} distinct pages, "
            f"{t['write_share']:.1%} writes ({origin}); buffer {result['buffer_pages']:,} pages; "
            f"best of {result['repeat']} interleaved rounds")


def _cells(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**r, "policy": _native.short_spec("policy", r["policy"]), "rps": rate(r["requests_per_second"]),
             "x": f"{r['vs_lru']:.2f}" if r["vs_lru"] is not None else None,
             "spread": _spread(r["vs_lru_rounds"])} for r in result["policies"]]


def _spread(rounds: list[float] | None) -> str | None:
    """The least and greatest per-round ratio to LRU, as `0.30–0.33`."""
    return None if rounds is None else f"{rounds[0]:.2f}–{rounds[1]:.2f}"


def _command(a: argparse.Namespace) -> str:
    """The bench command line that reproduces this run."""
    libcachesim = a.bench_command == "libcachesim"
    parts = [f"flashlayer bench {a.bench_command}"]
    if a.trace:
        parts.append(f"--trace {a.trace}")
        if a.format:
            parts.append(f"--format {a.format}")
        if a.page_size is not None:
            parts.append(f"--page-size {a.page_size}")
    elif not libcachesim:
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

    from flashlayer.version import __version__

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


def _compare(a: argparse.Namespace) -> None:

    _markdown_target(a)
    policies = policy_specs(a.policies or COMPARED_POLICIES)
    buffers = buffer_specs(a.buffer)
    if len(buffers) != 1 or not isinstance(buffers[0], int):
        raise UsageError("bench libcachesim: --buffer is one cache size in objects")
    result = compare.run(Path(a.trace) if a.trace else None, buffers[0], policies, a.repeat, quiet=a.json,
                         format=a.format, page_size=a.page_size)
    t = result["trace"]
    heading = (f"trace: {t['name']}, {t['requests']:,} requests, {t['distinct_pages']:,} distinct objects; cache "
               f"{result['cache_objects']:,} objects; libCacheSim {result['libcachesim_version']}; in-process "
               f"replay, median of {result['repeat']} interleaved rounds")
    rows = [{**r, "x": f"{r['speedup']:.1f}x",
             "ls": f"{r['libcachesim_seconds']:.3f}", "fs": f"{r['flashlayer_seconds']:.3f}"}
            for r in result["policies"]]
    columns = [("policy", "policy"), ("ls", "libCacheSim s"), ("fs", "flashlayer s"), ("x", "speedup"),
               ("libcachesim_miss_ratio", "their miss ratio"),
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


def _trace_opts(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--trace", metavar="PATH", help=f"{what} (converted to flt first)")
    add_read_opts(p)


def _output_opts(p: argparse.ArgumentParser, page: str | None) -> None:
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    if page is not None:
        p.add_argument("--markdown", metavar="MD",
                       help="also write the table as a Markdown page with the command that regenerates it and the "
                       f"machine it ran on (the repository's {page} is written this way)")
        add_force(p)


def _repeat(p: argparse.ArgumentParser, default: int, what: str) -> None:
    p.add_argument("--repeat", type=int_arg(1, "--repeat"), default=default, help=f"{what} (default: {default})")


def _threads(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threads", type=thread_counts, default=None, metavar="N[,N...]",
                   help="thread counts, increasing (default: 1,2,4,8,16)")


def add(sub: Any) -> None:
    b = sub.add_parser("bench", help="benchmarks: policies, libcachesim, pool, oltp, flash",
                       description="Five benchmarks, one subcommand each; 'flashlayer bench COMMAND --help' lists "
                       "its flags.")
    bsub = b.add_subparsers(dest="bench_command", required=True, metavar="{policies,libcachesim,pool,oltp,flash}")

    p = command(
        bsub, "policies", help="simulator throughput per policy",
        description=paragraph("""
            Generate a Zipf trace (default: 10M requests over 1.1M pages, ~1.05M distinct, 20% writes), convert
            it to flt, and time each policy end to end (open + replay), single-threaded, best of --repeat runs,
            interleaved (each round times every row once, so a row and LRU are timed close together). Reports
            requests/s, the ratio of the best times to LRU's and, per round, the least and greatest of the
            rounds' own ratios (how far the machine moved it). With LRU among the policies, more rows time LRU
            over a hybrid flash + magnetic store (placement hybrid, Koltsidas Table 1 costs), each DRAM / SSD /
            disk scheme (hypro, tac, face, lc; DRAM = --buffer under LRU, SSD = 5x the buffer, HyPro Table 4
            devices) and the one-pass LRU curve, exact and SHARDS-sampled at 1%."""),
        epilog="Example:\n  flashlayer bench policies --policies lru,arc,casa --requests 2000000 --pages 220000 "
        "--buffer 9000")
    p.add_argument("--requests", type=int_arg(1, "--requests"), default=10_000_000,
                   help="Zipf requests (default: 10,000,000)")
    p.add_argument("--pages", type=int_arg(1, "--pages"), default=1_100_000,
                   help="Zipf page universe (default: 1,100,000; gives ~1.05M distinct)")
    p.add_argument("--alpha", type=float_arg(0.0, None, "--alpha", lo_open=True), default=0.8,
                   help="Zipf exponent (default: 0.8)")
    p.add_argument("--write-ratio", type=float_arg(0.0, 1.0, "--write-ratio"), default=0.2,
                   help="share of writes (default: 0.2)")
    p.add_argument("--seed", type=int_arg(0, "--seed"), default=42, help="seed of the Zipf trace (default: 42)")
    p.add_argument("--buffer", default="45000", metavar="N",
                   help="buffer pages, or P%% of the trace's distinct pages (default: 45000)")
    p.add_argument("--policies", default=None, metavar="P[,P...]",
                   help=f"policies to time, with parameters as in 'sim --policy' (default: {DEFAULT_POLICIES}; "
                   f"all: {policy_help()})")
    _trace_opts(p, "time this trace instead of a generated one")
    _repeat(p, 3, "rounds; each times every row once and a row's best is kept")
    _output_opts(p, "docs/PERFORMANCE.md")
    p.set_defaults(func=_policies)

    c = bsub.add_parser(
        "libcachesim", help="each policy libCacheSim also has, timed by both on the same trace",
        description=paragraph("""
            Time libCacheSim on the same trace and cache size beside flashlayer, in-process, median of --repeat
            rounds (each runs libCacheSim, then flashlayer), and compare miss ratios. Without --trace uses
            libCacheSim's own 10M-request Twitter trace (fetched once from PyPI's libcachesim source). Needs pip
            install 'flashlayer[compare]'."""))
    c.add_argument("--buffer", default="45000", metavar="N", help="cache size in objects (default: 45000)")
    c.add_argument("--policies", default=None, metavar="P[,P...]",
                   help=f"policies to compare (default: {COMPARED_POLICIES})")
    _trace_opts(c, "compare on this trace instead of libCacheSim's Twitter trace")
    _repeat(c, 3, "runs per policy and side; the median is kept")
    _output_opts(c, "docs/LIBCACHESIM.md")
    c.set_defaults(func=_compare)

    po = bsub.add_parser(
        "pool", help="threads sharing one buffer pool",
        description=paragraph("""
            Time threads sharing one buffer pool (LRU): fixes/s at each --threads count for four workloads:
            'hits' (10,000 frames, all loaded, reads only), 'latency' (1,000 frames, Zipf 0.8 over 10,000 pages,
            20% writes, a memory store that sleeps 100 µs per page read and written), 'file' (the same over a
            real file in the temporary directory, O_DIRECT where the file system allows it) and 'hybrid' (as
            'latency', over the hybrid store of a flash and a magnetic memory store: a store that listens to
            request order, whose misses the pool runs whole under its lock)."""))
    _threads(po)
    po.add_argument("--seed", type=int_arg(0, "--seed"), default=42,
                    help="seed of the threads' strings (default: 42)")
    _repeat(po, 3, "rounds; each times every row once and a row's best is kept")
    _output_opts(po, None)
    po.set_defaults(func=_pool)

    o = bsub.add_parser(
        "oltp", help="TPC-C and TPC-B terminals on threads over a pool and a real file",
        description=paragraph("""
            Time terminals on threads running TPC-C (1 warehouse, 2,000 transactions, 1,000 frames of 8 KiB) and
            TPC-B (1 branch, 10,000 transactions, 200 frames) over one buffer pool and a real file in the
            temporary directory (O_DIRECT where the file system allows it): transactions/s at each --threads
            count under each of --policies. Each run loads its database anew, and fails unless afterwards every
            B+-tree and heap passes its checker and the workload's consistency conditions hold. Takes a few
            minutes."""))
    _threads(o)
    o.add_argument("--policies", default=None, metavar="P[,P...]",
                   help="the pool's policies, with parameters as in 'sim --policy' (default: lru,fdbuffer)")
    o.add_argument("--seed", type=int_arg(0, "--seed"), default=42,
                   help="seed of each database's load and its terminals (terminal t draws from seed + 1 + t) "
                   "(default: 42)")
    _repeat(o, 1, "rounds; each times every row once and a row's best is kept")
    _output_opts(o, None)
    o.set_defaults(func=_oltp)

    f = bsub.add_parser(
        "flash", help="the NAND emulator and each flash method's update operations",
        description="Time the NAND emulator (page operations/s of an in-memory chip of 256 blocks) and each "
        f"flash method's update operations/s in steady state ({', '.join(FLASH_METHODS)}).")
    _repeat(f, 3, "rounds; a row's best is kept")
    _output_opts(f, None)
    f.set_defaults(func=_flash)
