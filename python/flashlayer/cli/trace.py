"""``flashlayer trace``: statistics, conversion, generation and capture of
traces."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flashlayer import _native, capture, progress
from flashlayer._native import FlashlayerError
from flashlayer.analyze import FIT_SHARE as FIT
from flashlayer.analyze import WINDOWS
from flashlayer.cli import trace_fit
from flashlayer.cli.common import (
    Parser,
    UsageError,
    add_force,
    add_read_opts,
    emit_json,
    float_arg,
    int_arg,
    object_sizes,
    open_with_progress,
    out_format,
    paragraph,
    report_written,
)
from flashlayer.files import atomic_output


def cmd_trace_stats(a: argparse.Namespace) -> None:
    t = open_with_progress(a.trace, a.format, a.page_size, a.json)
    s: dict[str, Any] = {"trace": str(a.trace), **t.stats()}
    sizes = object_sizes(a.trace, a.format)
    if sizes is not None:
        s.update({f"object_bytes_{k}": sizes[k] for k in ("min", "max", "mean")})
    if a.json:
        emit_json(s)
        return
    width = max(len(k) for k in s)
    for k, v in s.items():
        text = f"{v:.4f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v)
        print(f"{k.ljust(width)}  {text}")


def cmd_trace_analyze(a: argparse.Namespace) -> None:
    from flashlayer.analyze import analyze, plot

    t = open_with_progress(a.trace, a.format, a.page_size, a.json)
    with progress.bar(None, f"analyzing {Path(a.trace).name}", quiet=a.json):
        r = analyze(t, a.windows)
    r["trace"] = str(a.trace)
    written = plot(r, Path(a.plot), a.force) if a.plot is not None else []
    if a.json:
        emit_json(r)
        return
    p = r["popularity"]
    print(f"{a.trace}: {r['requests']:,} requests ({r['write_share']:.1%} writes), {r['distinct_pages']:,} pages, "
          f"{r['first_references']:,} first references ({r['first_references'] / r['requests']:.1%})")
    fit = (f"Zipf alpha {p['alpha']:.3f} (R² {p['r2']:.3f} over the {p['ranks_fitted']:,} hottest pages, "
           f"{FIT:.0%} of the requests)" if "alpha" in p else "one page, no Zipf fit")
    print(f"popularity: {fit}; hottest 20% of pages take {r['hot20_share']:.1%}")
    for op, h in r["reuse_time"].items():
        total = sum(h["count"]) or 1
        cells = ", ".join(f"<{2 * lo:,}: {c / total:.0%}" for lo, c in zip(h["lower"], h["count"], strict=True) if c / total >= 0.05)
        print(f"reuse time, {op}: {cells or 'none'} (bins holding 5% or more)")
    sd = r["stack_distance"]
    half = next((s for s, h in zip(sd["sizes"], sd["hits_within"], strict=True) if h >= 0.5 * r["requests"]), None)
    print("LRU: half the requests hit in " + (f"{half:,} pages" if half else "no buffer (most are first references)"))
    t_ = r["over_time"]
    print(f"over {len(t_['end'])} spans: write share {min(t_['write_share']):.1%}–{max(t_['write_share']):.1%}, "
          f"working set {min(t_['working_set']):,}–{max(t_['working_set']):,} pages")
    for w in written:
        print(f"wrote {w}")


def cmd_trace_convert(a: argparse.Namespace) -> None:
    if Path(a.output).resolve() == Path(a.input).resolve():
        raise UsageError("input and output are the same file")
    n = atomic_output(
        Path(a.output),
        lambda tmp: _native.convert(a.input, tmp, a.from_format, a.to_format or out_format(a.output, "--to"),
                                    a.page_size),
        a.force,
    )
    report_written(a, n, a.output)


def cmd_gen_zipf(a: argparse.Namespace) -> None:
    out_format(a.out)
    n = atomic_output(
        Path(a.out), lambda tmp: _native.gen_zipf(tmp, a.requests, a.pages, a.alpha, a.write_ratio, a.seed), a.force
    )
    report_written(a, n, a.out)


def cmd_gen_ace(a: argparse.Namespace) -> None:
    out_format(a.out)
    n = atomic_output(
        Path(a.out), lambda tmp: _native.gen_ace(tmp, a.operations, a.pages, a.reads, a.skew, a.hot), a.force
    )
    report_written(a, n, a.out)


def cmd_gen_concat(a: argparse.Namespace) -> None:
    out_format(a.out)
    n = atomic_output(Path(a.out), lambda tmp: _native.concat(a.inputs, tmp, a.disjoint, a.format, a.page_size),
                      a.force)
    report_written(a, n, a.out)


def workload_spec(a: argparse.Namespace) -> str:
    """``trace gen tpcc --warehouses 2 --mix 50,40,4,3,3``: the flags of a
    workload are the keys of its spec (``flashlayer list workloads``),
    spelled with dashes; a mix is given with commas or slashes. Returns the
    canonical spec, checked by the engine."""
    (params,) = [ps for name, _, ps in _native.table("workload") if name == a.generator]
    spec = a.generator
    for key, _default, _allowed, _help in params:
        value = getattr(a, key)
        if value is not None:
            spec += ("," if ":" in spec else ":") + f"{key}={value.replace(',', '/')}"
    try:
        return _native.canonical("workload", spec)
    except FlashlayerError as e:
        raise UsageError(str(e)) from None


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def cmd_gen_workload(a: argparse.Namespace) -> None:
    out_format(a.out)
    spec = workload_spec(a)
    report: dict[str, Any] = {}
    with progress.bar(None, f"{a.generator}: loading", quiet=a.json) as bar:
        last = 0

        def tick(done: int, total: int) -> None:
            nonlocal last
            bar.describe(f"{a.generator}: {done:,}/{total:,} steps")
            bar.advance(done - last)
            last = done

        def write(tmp: Path) -> int:
            report.update(_native.gen_workload(spec, tmp, a.seed, None, a.with_bytes, a.frames, tick))
            return int(report["requests"])

        atomic_output(Path(a.out), write, a.force)
    report["output"] = a.out
    report["seed"] = a.seed
    report["params"] = {k: _number(v) for k, v in _native.spec_parts("workload", spec)[1].items()}
    if a.json:
        emit_json(report)
        return
    print(
        f"wrote {report['requests']:,} requests to {a.out}: {report['steps']:,} steps in {report['run_seconds']:.1f} s "
        f"({report['steps_per_second']:,.0f}/s) after a {report['load_seconds']:.1f} s load; "
        f"database {report['db_pages']:,} pages",
        file=sys.stderr,
    )


def cmd_capture_postgres(a: argparse.Namespace) -> None:
    command = list(a.command)
    if command and command[0] == "--":
        command = command[1:]
    out_format(a.out)
    summary: dict[str, Any] = {}

    def write(tmp: Path) -> int:
        opts = capture.CaptureOptions(
            out=tmp, pg_bin=Path(a.pg_bin) if a.pg_bin else None, seconds=a.seconds, clients=a.clients,
            scale=a.scale, shared_buffers=a.shared_buffers, command=command, workload=a.workload,
            subscribers=a.subscribers, warehouses=a.warehouses, scale_factor=a.scale_factor, skew=a.skew,
            transactions=a.transactions,
        )
        summary.update(capture.capture(opts, quiet=a.json))
        return int(summary["requests"])

    _captured(a, write, summary, "")


def _captured(a: argparse.Namespace, write: Callable[[Path], int], summary: dict[str, Any], over: str) -> None:
    """Writes a capture's trace to ``a.out`` through `write` (which fills
    `summary`), then reports it: JSON, or one line naming the `over` count
    (``files``) when given."""
    atomic_output(Path(a.out), write, a.force)
    summary["output"] = a.out
    if a.json:
        emit_json(summary)
        return
    spread = f" over {summary[over]:,} {over}" if over else ""
    print(f"wrote {summary['requests']:,} requests ({summary['writes']:,} writes){spread} to {a.out}", file=sys.stderr)


def cmd_capture_strace(a: argparse.Namespace) -> None:
    from flashlayer import capture_strace

    command = list(a.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("give the command to trace after --, e.g. flashlayer trace capture strace --out t.csv.gz "
                         "-- make")
    out_format(a.out)
    summary: dict[str, Any] = {}

    def write(tmp: Path) -> int:
        opts = capture_strace.StraceOptions(out=tmp, command=command, page_size=a.page_size)
        summary.update(capture_strace.capture(opts, quiet=a.json))
        return int(summary["requests"])

    _captured(a, write, summary, "files")


def add(sub: Any) -> None:
    t = sub.add_parser("trace", help="inspect, convert and generate traces")
    tsub = t.add_subparsers(dest="trace_command", required=True, metavar="ACTION", parser_class=Parser)

    st = tsub.add_parser("stats", help="requests, writes, distinct pages, skew",
                         description="Summary of a trace. hot20_share is the share of requests that go to the "
                         "hottest 20% of pages (ceil(0.2 x distinct) pages by request count).")
    st.add_argument("trace")
    add_read_opts(st)
    st.add_argument("--json", action="store_true", help="print a JSON object")
    st.set_defaults(func=cmd_trace_stats)

    an = tsub.add_parser("analyze", help="reuse, popularity and write share over time, with figures",
                         description=paragraph("""
                             The shape of a trace, as libCacheSim's trace analyzer gives it: reuse time
                             (requests since the page's last request) for reads and writes apart, LRU stack
                             distance, popularity by rank with a Zipf fit (least squares over the ranks holding
                             99% of the requests), and over the trace, cut into --windows spans: the write
                             share, the distinct pages (working set) and the first references (cold misses)."""),
                         epilog="Example:\n  flashlayer trace analyze data/traces/pg15-tpcb-s5.csv.gz --plot "
                         "tpcb-shape")
    an.add_argument("trace")
    add_read_opts(an)
    an.add_argument("--windows", type=int_arg(1, "--windows"), default=WINDOWS, metavar="N",
                    help=f"spans of the time series (default: {WINDOWS})")
    an.add_argument("--plot", metavar="DIR", help="draw reuse.png, popularity.png and time.png into DIR")
    add_force(an)
    an.add_argument("--json", action="store_true", help="print every histogram and series as a JSON object")
    an.set_defaults(func=cmd_trace_analyze)

    cv = tsub.add_parser("convert", help="convert between formats",
                         description="Convert IN (any input format) to OUT (csv, csv.gz or flt). The output is "
                         "written to a temporary file and renamed only when complete.")
    cv.add_argument("input", metavar="IN")
    cv.add_argument("output", metavar="OUT")
    add_read_opts(cv, "--from")
    cv.add_argument("--to", dest="to_format", metavar="F", help="output format csv or flt (default: from OUT's name)")
    add_force(cv)
    cv.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    cv.set_defaults(func=cmd_trace_convert)

    _add_gen(tsub)
    trace_fit.add(tsub)
    _add_capture(tsub)


def _add_gen(tsub: Any) -> None:
    """``trace gen``: one subcommand per generator."""
    gen = tsub.add_parser("gen", help="generate synthetic traces")
    gsub = gen.add_subparsers(dest="generator", required=True, metavar="WORKLOAD", parser_class=Parser)
    z = gsub.add_parser("zipf", help="Zipf-distributed page references",
                        description="Rank k is requested with probability proportional to 1/k^alpha; ranks are "
                        "scattered over page ids 0..pages-1 by a fixed permutation. Deterministic for a seed.")
    zd = _native.generator_defaults("zipf")
    z.add_argument("--requests", type=int_arg(1, "--requests"), default=None, help=f"default: {zd['requests']:,}")
    z.add_argument("--pages", type=int_arg(1, "--pages"), default=None,
                   help=f"page universe (default: {zd['pages']:,})")
    z.add_argument("--alpha", type=float_arg(0.0, None, "--alpha", lo_open=True), default=None,
                   help=f"Zipf exponent > 0 (default: {zd['alpha']:g})")
    z.add_argument("--write-ratio", type=float_arg(0.0, 1.0, "--write-ratio"), default=None,
                   help=f"probability that a request is a write (default: {zd['write_ratio']:g})")
    z.add_argument("--seed", type=int_arg(0, "--seed"), default=None, help=f"random seed (default: {zd['seed']})")
    z.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    add_force(z)
    z.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    z.set_defaults(func=cmd_gen_zipf)
    ace = gsub.add_parser(
        "ace", help="ACE's synthetic workload (Papon & Athanassoulis 2023)",
        description=paragraph("""
            The generator of ACE's simulator (BU-DiSC/ACE-codebase) and buffer manager (BU-DiSC/parametric_io):
            each operation reads with probability --reads percent (else writes) and falls on the first --hot
            percent of the pages with probability --skew percent, uniformly within its region. The draws are
            glibc's rand() from its default seed, in the authors' order, so the same flags give the operations
            of their workload.txt (the flags are their -x, -n, -e, -s, -d). The defaults are their mixed skewed
            workload over the 344,066 pages of their figure 7."""),
        epilog="Example:\n  flashlayer trace gen ace --reads 10 --out wis.flt   # their write-intensive skewed workload",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    d = _native.generator_defaults("ace")
    ace.add_argument("--operations", type=int_arg(1, "--operations"), default=None,
                     help=f"operations, their -x (default: {d['operations']:,})")
    ace.add_argument("--pages", type=int_arg(1, "--pages", 1 << 24), default=None,
                     help=f"pages on the disk, their -n (default: {d['pages']:,})")
    for flag, what in (("--reads", "operations that read, their -e"),
                       ("--skew", "operations on the hot region, their -s"),
                       ("--hot", "pages in the hot region, their -d")):
        ace.add_argument(flag, type=float_arg(0.0, 100.0, flag), default=None,
                         help=f"percent of {what} (default: {d[flag[2:]]:g})")
    ace.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    add_force(ace)
    ace.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    ace.set_defaults(func=cmd_gen_ace)
    for name, about, params in _native.table("workload"):
        w = gsub.add_parser(name, help=about, description=about + ". The load phase is not recorded; every page fix "
                            "of the run is one request (W if the page was modified). Deterministic for a seed. "
                            "Output: .flt, .csv or .csv.gz. Each flag is a key of the workload's spec "
                            "('flashlayer list workloads'); the run's spec is reported as 'params'.")
        for key, default, allowed, help_text in params:
            # argparse expands % in help texts; these are written for people.
            text = f"{help_text}: {allowed} (default: {default})".replace("%", "%%")
            w.add_argument("--" + key.replace("_", "-"), dest=key, default=None, metavar="V", help=text)
        w.add_argument("--seed", type=int_arg(0, "--seed"), default=0, help="random seed (default: 0)")
        w.add_argument("--with-bytes", action="store_true",
                       help="also record the byte ranges each write changed (for PDL and IPL)")
        w.add_argument("--frames", type=int_arg(8, "--frames"), default=None,
                       help="frames of the generating buffer pool; bounds memory only, the trace does not depend "
                       f"on it (default: {_native.generator_defaults('workload')['frames']:,})")
        w.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
        add_force(w)
        w.add_argument("--json", action="store_true", help="print the generation report as JSON")
        w.set_defaults(func=cmd_gen_workload)
    c = gsub.add_parser("concat", help="join traces in phases (CASA's CONCAT)",
                        description=paragraph("""
                            Join traces one after another, e.g. OLTP DSS OLTP DSS as in CASA section 5.1.
                            Deterministic; takes no seed. With --disjoint each distinct input gets its own
                            page-id space (tag in the top 8 bits), and an input named twice refers to the same
                            pages."""))
    c.add_argument("inputs", nargs="+", metavar="IN")
    c.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    add_force(c)
    c.add_argument("--disjoint", action="store_true", help="keep the inputs' pages apart (default: shared ids)")
    add_read_opts(c)
    c.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    c.set_defaults(func=cmd_gen_concat)


def _add_capture(tsub: Any) -> None:
    """``trace capture``: PostgreSQL and strace."""
    cap = tsub.add_parser("capture", help="record the buffer reference string of a real database")
    csub = cap.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=Parser)
    pg = csub.add_parser(
        "postgres",
        help="trace an unmodified PostgreSQL with bpftrace",
        description=paragraph("""
            Start a throwaway PostgreSQL cluster on a free loopback port, attach bpftrace to the probe
            buffer__read__done (one R per page request) and to MarkBufferDirty (one W when a page is modified),
            run a workload, and write 'page,op' with page id (relfilenode << 34) | (fork << 32) | block. Needs
            root, bpftrace and Debian's postgresql package (built with dtrace probes). --workload tpcb (the
            default) initialises pgbench (not traced) and traces a timed pgbench run; --workload tatp loads
            TATP's four tables with --subscribers subscribers (not traced) and traces pgbench running TATP's
            seven transactions in TATP's mix; --workload tpcc loads TPC-C's nine tables with --warehouses
            warehouses (not traced) and traces pgbench running TPC-C's five transactions (PL/pgSQL functions) in
            TPC-C's mix; --workload tpch generates TPC-H's tables at --scale-factor with tpchgen-cli and loads
            them (not traced) and traces psql running TPC-H's 22 queries once, in order; --workload bank loads
            pgbench's tables at --scale and traces TPC-B's transaction on skewed accounts (--skew), CASA's bank
            trace stand-in; '-- COMMAND ...' traces any command instead, run with PGHOST, PGPORT, PGUSER and
            PGDATABASE pointing at the cluster."""),
    )
    d = capture.CaptureOptions
    pg.add_argument("--workload", choices=capture.WORKLOADS, default=d.workload,
                    help="what runs: tpcb (pgbench's built-in TPC-B-like script), bank, tatp, tpcc (pgbench scripts) or "
                    f"tpch (psql) (default: {d.workload})")
    pg.add_argument("--subscribers", type=int_arg(1, "--subscribers"), default=d.subscribers,
                    help=f"with --workload tatp: subscribers loaded (default: {d.subscribers:,})")
    pg.add_argument("--warehouses", type=int_arg(1, "--warehouses"), default=d.warehouses,
                    help=f"with --workload tpcc: warehouses loaded, about 110 MB each (default: {d.warehouses})")
    pg.add_argument("--scale-factor", type=float_arg(0.01, None, "--scale-factor"), default=d.scale_factor,
                    help=f"with --workload tpch: TPC-H scale factor, about 1.6 GB a unit in PostgreSQL (default: "
                    f"{d.scale_factor})")
    pg.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    add_force(pg)
    pg.add_argument("--seconds", type=int_arg(1, "--seconds"), default=d.seconds, help=f"pgbench run time (default: {d.seconds})")
    pg.add_argument("--clients", type=int_arg(1, "--clients"), default=d.clients, help=f"pgbench clients (default: {d.clients})")
    pg.add_argument("--scale", type=int_arg(1, "--scale"), default=d.scale,
                    help=f"with --workload tpcb or bank: pgbench scale factor (default: {d.scale})")
    pg.add_argument("--skew", type=float_arg(0.0, None, "--skew", lo_open=True), default=d.skew,
                    help=f"with --workload bank: how skewed the account drawn is, the parameter of pgbench's "
                    f"random_exponential (larger: hotter few accounts; default: {d.skew:g})")
    pg.add_argument("--transactions", type=int_arg(1, "--transactions"), default=None,
                    help="run this many transactions in all (split over --clients) instead of --seconds")
    pg.add_argument("--shared-buffers", default=d.shared_buffers,
                    help=f"the cluster's shared_buffers (default: {d.shared_buffers})")
    pg.add_argument("--pg-bin", metavar="DIR", help="server bin folder (default: newest /usr/lib/postgresql/*/bin)")
    pg.add_argument("--json", action="store_true", help="print a summary (requests, writes, relation filenodes)")
    pg.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: a workload to trace instead of pgbench")
    pg.set_defaults(func=cmd_capture_postgres)
    sx = csub.add_parser(
        "strace",
        help="trace the file page references of any command with strace",
        description=paragraph("""
            Run COMMAND under strace -f and turn every read and write system call on a regular file into page
            requests: one R (read) or W (write) per page of the bytes it moved, page id (file number << 32) |
            (offset / page size), files numbered in order of first use. Pages a process maps with mmap are not
            seen. HyPro's MLK trace (a Linux kernel build) was recorded this way; scripts/capture-mlk records
            flashlayer's stand-in, a Linux 6.1 tinyconfig build."""),
    )
    sx.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    add_force(sx)
    sx.add_argument("--page-size", type=int_arg(512, "--page-size"), default=4096,
                    help="bytes per page, a power of two (default: 4096, the Linux page cache's)")
    sx.add_argument("--json", action="store_true", help="print a summary (requests, writes, files, processes)")
    sx.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: the command to trace")
    sx.set_defaults(func=cmd_capture_strace)

