"""The ``flashlayer`` command.

Every subcommand has ``--help``. User mistakes print one line
``flashlayer: error: ...`` to stderr and exit with code 2; no traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from flashlayer import _native, progress
from flashlayer._native import FlashlayerError

EXIT_USAGE = 2

EPILOG_DEVICES = (
    "device specs: a preset (see 'flashlayer list devices'), 'ratio:1:N' (read 1, write N), "
    "or 'read=R,write=W[,seq_read=..,seq_write=..,erase=..,unit=us|units]'. Default: ratio:1:1."
)


class UsageError(Exception):
    """A mistake in the command line, reported as a one-line error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _die(message: str) -> NoReturn:
    print(f"flashlayer: error: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def _split(value: str, what: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise UsageError(f"expected one or more {what} separated by commas, found '{value}'")
    return items


def _positive_ints(value: str, what: str) -> list[int]:
    out = []
    for item in _split(value, what):
        try:
            n = int(item)
        except ValueError:
            raise UsageError(f"{what} must be whole numbers, found '{item}'") from None
        if n < 1:
            raise UsageError(f"{what} must be at least 1, found {n}")
        out.append(n)
    return out


def _int_arg(lo: int, name: str) -> Callable[[str], int]:
    def parse(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, found '{s}'") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lo}, found {v}")
        return v

    return parse


def _float_arg(lo: float, hi: float | None, name: str, lo_open: bool = False) -> Callable[[str], float]:
    def parse(s: str) -> float:
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, found '{s}'") from None
        bad_lo = v <= lo if lo_open else v < lo
        if bad_lo or (hi is not None and v > hi) or v != v:
            rng = f"({lo}, {hi}]" if lo_open else f"[{lo}, {hi}]"
            if hi is None:
                rng = f"> {lo}" if lo_open else f">= {lo}"
            raise argparse.ArgumentTypeError(f"{name} must be in {rng}, found {s}")
        return v

    return parse


def _emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _print_table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> None:
    """Plain aligned text: readable in a terminal, greppable in a pipe."""

    def fmt(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, float):
            if v == 0 or 1e-3 <= abs(v) < 1e7:
                return f"{v:,.4f}".rstrip("0").rstrip(".")
            return f"{v:.4g}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)

    cells = [[fmt(r.get(key, "")) for key, _ in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (_, h) in enumerate(columns)]
    print("  ".join(h.rjust(w) for (_, h), w in zip(columns, widths, strict=True)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))


def _atomic_output(out: Path, write: Callable[[Path], int]) -> int:
    """Writes through a temporary file in the same folder, renamed only on
    success, so a failed run never leaves a partial file under `out`."""
    out = out.resolve()
    if not out.parent.is_dir():
        raise FlashlayerError(f"{out.parent}: no such directory")
    # The temporary name ends like `out`, so writers that pick the format
    # from the extension pick the same one.
    suffix = "".join(out.suffixes) or ".tmp"
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent)
    os.close(fd)
    try:
        n = write(Path(tmp))
        os.replace(tmp, out)
        return n
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# --- sim -------------------------------------------------------------------

SIM_COLUMNS = [
    ("policy", "policy"),
    ("buffer_pages", "buffer"),
    ("requests", "requests"),
    ("miss_ratio", "miss ratio"),
    ("physical_reads", "phys reads"),
    ("physical_writes", "phys writes"),
    ("dirty_at_end", "dirty at end"),
    ("virtual_time", "virtual time"),
    ("requests_per_second", "req/s"),
]


def cmd_sim(a: argparse.Namespace) -> None:
    from flashlayer.sweep import open_trace, sweep

    policies = _split(a.policy, "policies")
    buffers = _positive_ints(a.buffer, "buffer sizes")
    for p in policies:
        _native.policy_name(p)
    if a.device is not None:
        _native.device(a.device)
    trace = _open_with_progress(a.trace, a.format, a.page_size, a.json)
    total = len(policies) * len(buffers) * len(trace)
    with progress.bar(total, f"simulating {Path(a.trace).name} ({len(policies) * len(buffers)} runs)", quiet=a.json) as bar:
        rows = sweep(
            trace,
            policies,
            buffers,
            a.device,
            series_every=a.series_every,
            workers=a.jobs,
            on_progress=bar.advance,
        )
    if a.json:
        _emit_json(rows)
    else:
        _print_table(rows, SIM_COLUMNS)


# --- trace -----------------------------------------------------------------


def _open_with_progress(path: str, format: str | None, page_size: int | None, quiet: bool) -> _native.Trace:
    """Opens a trace; converting a large text trace takes a while, so a
    pulsing bar shows that something happens."""
    from flashlayer.sweep import open_trace

    with progress.bar(None, f"reading {Path(path).name}", quiet=quiet):
        return open_trace(path, format, page_size)


def cmd_trace_stats(a: argparse.Namespace) -> None:
    t = _open_with_progress(a.trace, a.format, a.page_size, a.json)
    s: dict[str, Any] = {"trace": str(a.trace), **t.stats()}
    if a.json:
        _emit_json(s)
        return
    width = max(len(k) for k in s)
    for k, v in s.items():
        text = f"{v:.4f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v)
        print(f"{k.ljust(width)}  {text}")


def cmd_trace_convert(a: argparse.Namespace) -> None:
    if Path(a.output).resolve() == Path(a.input).resolve():
        raise UsageError("input and output are the same file")
    n = _atomic_output(
        Path(a.output),
        lambda tmp: _native.convert(a.input, tmp, a.from_format, a.to_format or _out_format(a.output), a.page_size),
    )
    _report_written(a, n, a.output)


def _out_format(path: str) -> str:
    name = Path(path).name.lower()
    if name.endswith(".flt"):
        return "flt"
    if name.endswith(".csv") or name.endswith(".csv.gz"):
        return "csv"
    raise UsageError(f"{path}: cannot tell the output format from the name; use .flt, .csv or .csv.gz, or pass --to")


def _report_written(a: argparse.Namespace, n: int, out: str) -> None:
    if getattr(a, "json", False):
        _emit_json({"output": out, "requests": n})
    else:
        print(f"wrote {n:,} requests to {out}", file=sys.stderr)


def cmd_gen_zipf(a: argparse.Namespace) -> None:
    _out_format(a.out)
    n = _atomic_output(
        Path(a.out), lambda tmp: _native.gen_zipf(tmp, a.requests, a.pages, a.alpha, a.write_ratio, a.seed)
    )
    _report_written(a, n, a.out)


def cmd_gen_concat(a: argparse.Namespace) -> None:
    _out_format(a.out)
    n = _atomic_output(Path(a.out), lambda tmp: _native.concat(a.inputs, tmp, a.disjoint, a.format, a.page_size))
    _report_written(a, n, a.out)


# Workload flags: (flag, parameter name, parse, default, help). Defaults are
# the engine's; they are repeated here so that --help can state them.
def _mix_ints(s: str) -> list[int]:
    parts = s.split(",")
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 5 whole percentages like 45,43,4,4,4, found '{s}'") from None
    if len(vals) != 5 or any(v < 0 for v in vals) or sum(vals) != 100:
        raise argparse.ArgumentTypeError(f"expected 5 percentages >= 0 summing to 100, found '{s}'")
    return vals


def _mix_shares(s: str) -> list[float]:
    try:
        vals = [float(p) for p in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 3 shares like 0.2,0.4,0.4, found '{s}'") from None
    if len(vals) != 3 or any(not 0 <= v <= 1 for v in vals) or abs(sum(vals) - 1) > 1e-9:
        raise argparse.ArgumentTypeError(f"expected 3 shares in [0, 1] summing to 1, found '{s}'")
    return vals


def _share(name: str) -> Callable[[str], float]:
    return _float_arg(0.0, 1.0, name)


PAGE = ("--page-size", "page_size", _int_arg(512, "--page-size"), None, "page size in bytes, 512-32768")
WORKLOADS: dict[str, tuple[str, list[tuple[str, str, Callable[[str], Any], Any, str]]]] = {
    "tpcc": (
        "TPC-C: nine tables on B+-trees and a heap, five transactions, NURand (TPC-C 5.11)",
        [
            ("--warehouses", "warehouses", _int_arg(1, "--warehouses"), 1, "scale in warehouses"),
            ("--transactions", "transactions", _int_arg(1, "--transactions"), 100_000, "transactions to run"),
            ("--mix", "mix", _mix_ints, "45,43,4,4,4",
             "percent New-Order,Payment,Order-Status,Delivery,Stock-Level (sum 100)"),
            (*PAGE[:3], 8192, PAGE[4]),
        ],
    ),
    "tpcb": (
        "TPC-B as pgbench runs it: accounts, tellers, branches, history",
        [
            ("--branches", "branches", _int_arg(1, "--branches"), 1, "scale in branches (pgbench -s)"),
            ("--transactions", "transactions", _int_arg(1, "--transactions"), 100_000, "transactions to run"),
            (*PAGE[:3], 8192, PAGE[4]),
        ],
    ),
    "tatp": (
        "TATP (TM1): four tables, seven transactions in the standard mix, NURand subscriber ids",
        [
            ("--scale", "scale", _int_arg(1, "--scale"), 1, "subscribers in units of 100,000"),
            ("--transactions", "transactions", _int_arg(1, "--transactions"), 100_000, "transactions to run"),
            (*PAGE[:3], 8192, PAGE[4]),
        ],
    ),
    "tpch": (
        "TPC-H-like DSS: lineitem scans, order ranges and order lookups through an index (read-only)",
        [
            ("--scale-factor", "scale_factor", _float_arg(0.0, 100.0, "--scale-factor", lo_open=True), 0.01,
             "TPC-H scale factor (1.0 = 1.5M orders, ~6M lineitems)"),
            ("--queries", "queries", _int_arg(1, "--queries"), 100, "queries to run"),
            ("--mix", "mix", _mix_shares, "0.2,0.4,0.4", "shares of scan,range,lookup queries (sum 1)"),
            (*PAGE[:3], 8192, PAGE[4]),
        ],
    ),
    "btree": (
        "Koltsidas & Viglas 2008 section 6: B+-tree of 16-byte keys and 80-byte payloads, query sets by page class",
        [
            ("--records", "records", _int_arg(1, "--records"), 1_000_000, "records in the tree"),
            ("--queries", "queries", _int_arg(1, "--queries"), 100_000, "queries in the query set"),
            ("--repeat", "repeat", _int_arg(1, "--repeat"), 1, "times the query set runs"),
            ("--read-only", "read_only", _share("--read-only"), 0.0, "share of keys only read (first in key order)"),
            ("--update-only", "update_only", _share("--update-only"), 0.0, "share of keys only written (next)"),
            ("--interesting", "interesting", _share("--interesting"), 0.0, "share of keys in the interesting set (next)"),
            ("--interesting-read-prob", "interesting_read_prob", _share("--interesting-read-prob"), 0.5,
             "read probability of interesting keys"),
            ("--read-prob", "read_prob", _share("--read-prob"), 0.5, "read probability of the remaining keys"),
            ("--range-share", "range_share", _share("--range-share"), 0.2, "share of reads that are range queries"),
            ("--range-len", "range_len", _int_arg(1, "--range-len"), 100, "records per range query"),
            ("--insert-share", "insert_share", _share("--insert-share"), 0.3, "share of writes that are inserts"),
            (*PAGE[:3], 4096, PAGE[4]),
        ],
    ),
    "pdl-updates": (
        "Kim, Whang & Song 2010 section 5.1: synthetic update operations on a relation",
        [
            ("--pages", "pages", _int_arg(1, "--pages"), 51_200, "pages in the relation"),
            ("--operations", "operations", _int_arg(1, "--operations"), 100_000, "operations"),
            ("--update-share", "update_share", _share("--update-share"), 1.0, "%UpdateOps as a fraction"),
            ("--updates-till-write", "updates_till_write", _int_arg(1, "--updates-till-write"), 1,
             "N_updates_till_write: updates applied in memory per operation"),
            ("--changed-share", "changed_share", _float_arg(0.0, 1.0, "--changed-share", lo_open=True), 0.02,
             "%ChangedByOneU_Op as a fraction of the page"),
            (*PAGE[:3], 2048, PAGE[4]),
        ],
    ),
}


def cmd_gen_workload(a: argparse.Namespace) -> None:
    _out_format(a.out)
    _, flags = WORKLOADS[a.generator]
    params: dict[str, Any] = {}
    for _flag, name, parse, default, _help in flags:
        value = getattr(a, name)
        if value is None:
            # Defaults given as text ("45,43,4,4,4") go through the parser.
            value = parse(default) if isinstance(default, str) else default
        params[name] = value
    report: dict[str, Any] = {}
    with progress.bar(None, f"{a.generator}: loading", quiet=a.json) as bar:
        last = 0

        def tick(done: int, total: int) -> None:
            nonlocal last
            bar.describe(f"{a.generator}: {done:,}/{total:,} steps")
            bar.advance(done - last)
            last = done

        def write(tmp: Path) -> int:
            report.update(_native.gen_workload(a.generator, tmp, a.seed, params, a.with_bytes, a.frames, tick))
            return int(report["requests"])

        _atomic_output(Path(a.out), write)
    report["output"] = a.out
    report["seed"] = a.seed
    report["params"] = params
    if a.json:
        _emit_json(report)
        return
    print(
        f"wrote {report['requests']:,} requests to {a.out}: {report['steps']:,} steps in {report['run_seconds']:.1f} s "
        f"({report['steps_per_second']:,.0f}/s) after a {report['load_seconds']:.1f} s load; "
        f"database {report['db_pages']:,} pages",
        file=sys.stderr,
    )


def cmd_capture_postgres(a: argparse.Namespace) -> None:
    from flashlayer import capture

    command = list(a.command)
    if command and command[0] == "--":
        command = command[1:]
    _out_format(a.out)
    summary: dict[str, Any] = {}

    def write(tmp: Path) -> int:
        opts = capture.CaptureOptions(
            out=tmp, pg_bin=Path(a.pg_bin) if a.pg_bin else None, seconds=a.seconds, clients=a.clients,
            scale=a.scale, shared_buffers=a.shared_buffers, command=command,
        )
        summary.update(capture.capture(opts, quiet=a.json))
        return int(summary["requests"])

    _atomic_output(Path(a.out), write)
    summary["output"] = a.out
    if a.json:
        _emit_json(summary)
    else:
        print(f"wrote {summary['requests']:,} requests ({summary['writes']:,} writes) to {a.out}", file=sys.stderr)


# --- list ------------------------------------------------------------------


def cmd_list(a: argparse.Namespace) -> None:
    if a.what == "policies":
        rows: list[dict[str, Any]] = [{"name": n, "description": d} for n, d in _native.policies()]
    elif a.what == "formats":
        rows = [{"name": n, "description": d} for n, d in _native.formats()]
    else:
        rows = _native.presets()
    if a.json:
        _emit_json(rows)
        return
    if a.what == "devices":
        _print_table(
            rows,
            [("name", "preset"), ("read", "read"), ("write", "write"), ("seq_write", "seq write"),
             ("erase", "erase"), ("unit", "unit")],
        )
        print()
        for r in rows:
            print(f"{r['name']}: {r['source']}")
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name'].ljust(width)}  {r['description']}")


# --- bench and reproduce -----------------------------------------------------


def cmd_bench(a: argparse.Namespace) -> None:
    from flashlayer import bench

    policies = [_native.policy_name(p) for p in _split(a.policies, "policies")]
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
        _emit_json(result)
        return
    t = result["trace"]
    origin = f"Zipf alpha {t['alpha']}, seed {t['seed']}" if t["alpha"] is not None else t["path"]
    print(
        f"trace: {t['requests']:,} requests, {t['distinct_pages']:,} distinct pages, "
        f"{t['write_share']:.1%} writes ({origin}); buffer {result['buffer_pages']:,} pages; "
        f"best of {result['repeat']}"
    )
    _print_table(
        result["policies"],
        [("policy", "policy"), ("requests_per_second", "req/s"), ("vs_lru", "vs LRU"),
         ("seconds", "seconds"), ("miss_ratio", "miss ratio"), ("target", "target req/s"), ("meets_target", "meets")],
    )


def cmd_reproduce(a: argparse.Namespace) -> None:
    from flashlayer import experiments, report

    papers = a.papers or list(experiments.EXPERIMENTS)
    for p in papers:
        if p not in experiments.EXPERIMENTS:
            raise UsageError(f"unknown section '{p}'; sections: {', '.join(experiments.EXPERIMENTS)}")
    mode = "full" if a.full else "quick"
    out = Path(a.out)
    results = report.reproduce(papers, mode, out, traces_dir=Path(a.traces) if a.traces else None, quiet=a.json)
    if a.json:
        _emit_json(results)
    else:
        held = sum(1 for c in results["claims"] if c["holds"])
        print(f"wrote {out / 'index.html'} and {out / 'results.json'}: "
              f"{len(results['figures'])} figures, {held}/{len(results['claims'])} claims hold")


# --- parser ------------------------------------------------------------------


def _add_read_opts(p: argparse.ArgumentParser, fmt_flag: str = "--format") -> None:
    names = ", ".join(n for n, _ in _native.formats())
    p.add_argument(fmt_flag, dest="format" if fmt_flag == "--format" else "from_format", metavar="F",
                   help=f"input trace format ({names}); default: detected from the extension, magic bytes or first line")
    p.add_argument("--page-size", type=_int_arg(0, "--page-size"), metavar="BYTES",
                   help="block traces only (vscsi, msr, spc): bytes per page; each page a request touches is one "
                   "reference; 0 keeps one reference per request keyed by its start byte (default: 4096)")


def build_parser() -> argparse.ArgumentParser:
    policy_names = ", ".join(n for n, _ in _native.policies())
    root = _Parser(
        prog="flashlayer",
        description="Flash-aware storage management: replay page traces through buffer policies and device "
        "cost models, convert and generate traces, benchmark the engine, and reproduce the papers.",
        epilog="Examples:\n"
        "  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,arc,belady --buffer 500,1000 "
        "--device ratio:1:64\n"
        "  flashlayer trace stats trace.flt --json\n"
        "  flashlayer trace gen zipf --requests 1000000 --pages 100000 --out z.flt --seed 1\n"
        "  flashlayer reproduce --quick --out report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    s = sub.add_parser("sim", help="replay a trace through policies and buffer sizes",
                       description="Replay TRACE through every policy x buffer size and report hits, misses, "
                       "physical I/O and virtual time (sum of I/Os x device costs). Runs go in parallel.",
                       epilog=EPILOG_DEVICES)
    s.add_argument("trace", help="trace file (csv, csv.gz, flt, vscsi, msr, spc, oracle)")
    s.add_argument("--policy", required=True, metavar="P[,P...]", help=f"policies: {policy_names}")
    s.add_argument("--buffer", required=True, metavar="N[,N...]", help="buffer sizes in pages (each >= 1)")
    s.add_argument("--device", metavar="SPEC", help="device cost model (default: ratio:1:1)")
    _add_read_opts(s)
    s.add_argument("--series-every", type=_int_arg(0, "--series-every"), default=0, metavar="N",
                   help="record a time series point every N requests (JSON output only; default: 0, off)")
    s.add_argument("--jobs", type=_int_arg(1, "--jobs"), default=None, metavar="J",
                   help="parallel runs (default: number of CPUs)")
    s.add_argument("--json", action="store_true", help="print a JSON list of result objects")
    s.set_defaults(func=cmd_sim)

    t = sub.add_parser("trace", help="inspect, convert and generate traces")
    tsub = t.add_subparsers(dest="trace_command", required=True, metavar="ACTION", parser_class=_Parser)

    st = tsub.add_parser("stats", help="requests, writes, distinct pages, skew",
                         description="Summary of a trace. hot20_share is the share of requests that go to the "
                         "hottest 20%% of pages (ceil(0.2 x distinct) pages by request count).")
    st.add_argument("trace")
    _add_read_opts(st)
    st.add_argument("--json", action="store_true", help="print a JSON object")
    st.set_defaults(func=cmd_trace_stats)

    cv = tsub.add_parser("convert", help="convert between formats",
                         description="Convert IN (any input format) to OUT (csv, csv.gz or flt). The output is "
                         "written to a temporary file and renamed only when complete.")
    cv.add_argument("input", metavar="IN")
    cv.add_argument("output", metavar="OUT")
    _add_read_opts(cv, "--from")
    cv.add_argument("--to", dest="to_format", metavar="F", help="output format csv or flt (default: from OUT's name)")
    cv.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    cv.set_defaults(func=cmd_trace_convert)

    gen = tsub.add_parser("gen", help="generate synthetic traces")
    gsub = gen.add_subparsers(dest="generator", required=True, metavar="WORKLOAD", parser_class=_Parser)
    z = gsub.add_parser("zipf", help="Zipf-distributed page references",
                        description="Rank k is requested with probability proportional to 1/k^alpha; ranks are "
                        "scattered over page ids 0..pages-1 by a fixed permutation. Deterministic for a seed.")
    z.add_argument("--requests", type=_int_arg(1, "--requests"), default=1_000_000, help="default: 1,000,000")
    z.add_argument("--pages", type=_int_arg(1, "--pages"), default=100_000, help="page universe (default: 100,000)")
    z.add_argument("--alpha", type=_float_arg(0.0, None, "--alpha", lo_open=True), default=0.99,
                   help="Zipf exponent > 0 (default: 0.99)")
    z.add_argument("--write-ratio", type=_float_arg(0.0, 1.0, "--write-ratio"), default=0.2,
                   help="probability that a request is a write (default: 0.2)")
    z.add_argument("--seed", type=_int_arg(0, "--seed"), default=0, help="random seed (default: 0)")
    z.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    z.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    z.set_defaults(func=cmd_gen_zipf)
    for name, (about, flags) in WORKLOADS.items():
        w = gsub.add_parser(name, help=about, description=about + ". The load phase is not recorded; every page fix "
                            "of the run is one request (W if the page was modified). Deterministic for a seed. "
                            "Output: .flt, .csv or .csv.gz.")
        for flag, dest, parse, default, help_text in flags:
            w.add_argument(flag, dest=dest, type=parse, default=None, help=f"{help_text} (default: {default})")
        w.add_argument("--seed", type=_int_arg(0, "--seed"), default=0, help="random seed (default: 0)")
        w.add_argument("--with-bytes", action="store_true",
                       help="also record the byte ranges each write changed (for PDL and IPL)")
        w.add_argument("--frames", type=_int_arg(8, "--frames"), default=16384,
                       help="frames of the generating buffer pool; bounds memory only, the trace does not depend "
                       "on it (default: 16384)")
        w.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
        w.add_argument("--json", action="store_true", help="print the generation report as JSON")
        w.set_defaults(func=cmd_gen_workload)
    c = gsub.add_parser("concat", help="join traces in phases (CASA's CONCAT)",
                        description="Join traces one after another, e.g. OLTP DSS OLTP DSS as in CASA section 5.1. "
                        "Deterministic; takes no seed. With --disjoint each distinct input gets its own page-id "
                        "space (tag in the top 8 bits), and an input named twice refers to the same pages.")
    c.add_argument("inputs", nargs="+", metavar="IN")
    c.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    c.add_argument("--disjoint", action="store_true", help="keep the inputs' pages apart (default: shared ids)")
    _add_read_opts(c)
    c.add_argument("--json", action="store_true", help="print {output, requests} as JSON")
    c.set_defaults(func=cmd_gen_concat)

    cap = tsub.add_parser("capture", help="record the buffer reference string of a real database")
    csub = cap.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=_Parser)
    pg = csub.add_parser(
        "postgres",
        help="trace an unmodified PostgreSQL with bpftrace",
        description="Start a throwaway PostgreSQL cluster on a free loopback port, attach bpftrace to the probe "
        "buffer__read__done (one R per page request) and to MarkBufferDirty (one W when a page is modified), run "
        "a workload, and write 'page,op' with page id (relfilenode << 34) | (fork << 32) | block. Needs root, "
        "bpftrace and Debian's postgresql package (built with dtrace probes). The default workload initialises "
        "pgbench (not traced) and traces a timed pgbench run; '-- COMMAND ...' traces any command instead, run "
        "with PGHOST, PGPORT, PGUSER and PGDATABASE pointing at the cluster.",
    )
    pg.add_argument("--out", required=True, help="output path: .flt, .csv or .csv.gz")
    pg.add_argument("--seconds", type=_int_arg(1, "--seconds"), default=10, help="pgbench run time (default: 10)")
    pg.add_argument("--clients", type=_int_arg(1, "--clients"), default=4, help="pgbench clients (default: 4)")
    pg.add_argument("--scale", type=_int_arg(1, "--scale"), default=1, help="pgbench scale factor (default: 1)")
    pg.add_argument("--shared-buffers", default="16MB", help="the cluster's shared_buffers (default: 16MB)")
    pg.add_argument("--pg-bin", metavar="DIR", help="server bin folder (default: newest /usr/lib/postgresql/*/bin)")
    pg.add_argument("--json", action="store_true", help="print a summary (requests, writes, relation filenodes)")
    pg.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: a workload to trace instead of pgbench")
    pg.set_defaults(func=cmd_capture_postgres)

    ls = sub.add_parser("list", help="list policies, device presets or trace formats")
    ls.add_argument("what", choices=["policies", "devices", "formats"])
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    b = sub.add_parser("bench", help="measure simulator throughput per policy",
                       description="Generate a Zipf trace (default: 10M requests over 1.1M pages, ~1.05M distinct, 20%% "
                       "writes), convert it to flt, and time each policy end to end (open + replay), single-threaded, "
                       "best of --repeat runs. Reports requests/s and the ratio to LRU.")
    b.add_argument("--requests", type=_int_arg(1, "--requests"), default=10_000_000)
    b.add_argument("--pages", type=_int_arg(1, "--pages"), default=1_100_000, help="Zipf page universe (default: 1,100,000; gives ~1.05M distinct)")
    b.add_argument("--alpha", type=_float_arg(0.0, None, "--alpha", lo_open=True), default=0.8)
    b.add_argument("--write-ratio", type=_float_arg(0.0, 1.0, "--write-ratio"), default=0.2)
    b.add_argument("--buffer", type=_int_arg(1, "--buffer"), default=45_000, help="buffer pages (default: 45,000)")
    b.add_argument("--policies", default="lru,fifo,clock,2q,arc,belady", metavar="P[,P...]")
    b.add_argument("--repeat", type=_int_arg(1, "--repeat"), default=3, help="runs per policy; best is kept (default: 3)")
    b.add_argument("--seed", type=_int_arg(0, "--seed"), default=42)
    b.add_argument("--trace", metavar="PATH", help="use this trace instead of generating one (converted to flt first)")
    _add_read_opts(b)
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bench)

    r = sub.add_parser("reproduce", help="run the papers' experiments and write a report",
                       description="Run experiment sections and write OUT/index.html (figures and a table of "
                       "claims: the paper's value beside ours and whether it holds) and OUT/results.json.")
    r.add_argument("papers", nargs="*", metavar="SECTION", help="sections to run (default: all); now: baselines")
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer buffer sizes (the default)")
    mode.add_argument("--full", action="store_true", help="more buffer sizes and policies")
    r.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    r.add_argument("--traces", metavar="DIR", help="folder with the PostgreSQL traces (default: the repository's data/traces)")
    r.add_argument("--json", action="store_true", help="also print results.json to stdout")
    r.set_defaults(func=cmd_reproduce)
    return root


def main(argv: Sequence[str] | None = None) -> None:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        args.func(args)
    except (UsageError, FlashlayerError) as e:
        _die(str(e))
    except FileNotFoundError as e:
        _die(f"{e.filename}: no such file or directory")
    except PermissionError as e:
        _die(f"{e.filename}: permission denied")
    except IsADirectoryError as e:
        _die(f"{e.filename}: is a directory")
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        _die(f"{where}{e.strerror or e}")
    except KeyboardInterrupt:
        print("flashlayer: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); nothing left to say.
        os._exit(0)


if __name__ == "__main__":
    main()
