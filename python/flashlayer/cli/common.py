"""What every command shares: one-line usage errors, argument parsers,
tables, JSON output, and outputs written whole or not at all."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from flashlayer import _native, progress
from flashlayer._native import FlashlayerError
from flashlayer.checks import INT_MAX, distinct

EXIT_USAGE = 2

EPILOG_DEVICES = (
    "device specs: a preset (see 'flashlayer list devices'), 'ratio:1:N' (read 1, write N), "
    "or 'read=R,write=W[,seq_read=..,seq_write=..,erase=..,unit=us|units]'. Default: ratio:1:1."
)


class UsageError(Exception):
    """A mistake in the command line, reported as a one-line error."""


def paragraph(text: str) -> str:
    """A description written over several lines in the source, as one
    paragraph: argparse prints it as given."""
    return " ".join(text.split())


def command(sub: Any, name: str, *, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
    """A subcommand whose --help gives `description`, then `epilog` (its
    examples) as written, line breaks kept."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=description, epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


class Parser(argparse.ArgumentParser):
    """Reports usage mistakes as one line (see ``main``), not argparse's
    two-line usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def split(value: str, what: str) -> list[str]:
    items = [v.strip() for v in value.split(",")]
    if not value.strip() or any(not v for v in items):
        raise UsageError(f"expected one or more {what} separated by single commas, found '{value}'")
    return items


def policy_specs(value: str | list[str]) -> list[str]:
    """``--policy lru,cflru:w=0.25,casa``: canonical specs, every parameter
    written out. A ``key=value`` piece continues the policy before it. A
    repeated flag (a list) adds its policies to those before."""
    if isinstance(value, list):
        return distinct("policy", [spec for v in value for spec in policy_specs(v)])
    return _native.canonical_list("policy", value)


def policy_help() -> str:
    """Every policy with its parameters and defaults, for ``--help``."""
    parts = []
    for name, _, params in _native.table("policy"):
        if params:
            parts.append(name + ":" + ",".join(f"{k}={d}" for k, d, _, _ in params))
        else:
            parts.append(name)
    return ", ".join(parts)


def buffer_specs(value: str | list[str]) -> list[int | str]:
    """``--buffer 1%,5%,2000``: page counts (>= 1) or shares of the trace's
    distinct pages (``P%`` with 0 < P <= 100), checked now, resolved per
    trace by `flashlayer.replay.resolve_buffer`."""
    from flashlayer.replay import resolve_buffer

    if isinstance(value, list):
        # A repeated flag adds its sizes to those before.
        try:
            return distinct("buffer size", [b for v in value for b in buffer_specs(v)])
        except FlashlayerError as e:
            raise UsageError(f"--buffer: {e}") from None
    out: list[int | str] = []
    for item in split(value, "buffer sizes"):
        spec: int | str = item if item.endswith("%") else _int_or_text(item)
        try:
            resolve_buffer(spec, 1)
        except FlashlayerError as e:
            raise UsageError(f"--buffer: {e}") from None
        out.append(spec)
    return out


def _int_or_text(item: str) -> int | str:
    try:
        return int(item)
    except ValueError:
        return item


def int_arg(lo: int, name: str, hi: int = INT_MAX) -> Callable[[str], int]:
    def parse(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, found '{s}'") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lo}, found {v}")
        if v > hi:
            raise argparse.ArgumentTypeError(f"{name} must be at most {hi:,}, found {v:,}")
        return v

    return parse


def float_arg(lo: float, hi: float | None, name: str, lo_open: bool = False) -> Callable[[str], float]:
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


_document: TextIO | None = None


@contextlib.contextmanager
def stdout_for_json(on: bool) -> Iterator[None]:
    """With ``--json``, stdout carries the one JSON document and nothing
    else: while the command runs, anything else printed to stdout (a
    library's chatter, such as Ray's "(raylet) A worker died" lines) goes to
    stderr, and ``emit_json`` writes to the real stdout."""
    global _document
    if not on:
        yield
        return
    _document = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _document = None


def emit_json(obj: Any) -> None:
    out = _document or sys.stdout
    json.dump(obj, out, indent=2)
    out.write("\n")


#: The magnitude from which a table shows a float in scientific notation.
SCIENTIFIC_FROM = 1e15


def fmt_cell(v: Any, decimals: int | None = None) -> str:
    """One value as a table shows it: whole numbers with thousands
    separators, a float with `decimals` places (its column's, so that a
    column reads in one format; by default four significant digits), in
    scientific notation only from 1e15 on, where a float's digits past the
    sixteenth are noise."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int) and decimals is not None:
        # A whole number in a column of fractions, with the column's places.
        v = float(v)
    if isinstance(v, float):
        if v != v or v in (math.inf, -math.inf):
            return str(v)
        if abs(v) >= SCIENTIFIC_FROM:
            return f"{v:.4g}"
        return f"{v:,.{_decimals([v]) if decimals is None else decimals}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _decimals(values: Sequence[float]) -> int:
    """The places that show the smallest of `values` (not 0) with four
    significant digits: 0 for values of 1,000 and more, at most 6."""
    small = min((abs(v) for v in values if v and v == v and abs(v) != math.inf), default=0.0)
    if small == 0 or small >= 1000:
        return 0
    return min(6, max(0, 3 - math.floor(math.log10(small))))


def print_table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> None:
    """Plain aligned text: readable in a terminal, greppable in a pipe.
    Each column's numbers in one format: whole numbers as they are, and in
    a column with fractions every number with the same places. Values that
    are already strings are printed as they are."""
    places: dict[str, int | None] = {}
    for key, _ in columns:
        nums = [v for r in rows if isinstance(v := r.get(key), (int, float)) and not isinstance(v, bool)]
        places[key] = _decimals(nums) if any(isinstance(v, float) for v in nums) else None
    cells = [[fmt_cell(r.get(key, ""), places[key]) for key, _ in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (_, h) in enumerate(columns)]
    print("  ".join(h.rjust(w) for (_, h), w in zip(columns, widths, strict=True)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))


def share(v: float) -> str:
    """A buffer's share of the trace's distinct pages, as a percentage; a
    buffer larger than the trace holds all of it."""
    return f"{v:.1%}" if v <= 1 else "all, >100%"


def rate(v: float) -> str:
    """41.2M, 950K: requests per second as people say them."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if v >= div:
            return f"{v / div:.1f}{suffix}"
    return f"{v:.0f}"


def duration(v: float, unit: str) -> str:
    """Virtual time with its unit: microseconds as s, ms or us, whichever
    reads best; abstract cost units as a plain number; from 1e15 on, in
    scientific notation (:data:`SCIENTIFIC_FROM`)."""
    if abs(v) >= SCIENTIFIC_FROM:
        return f"{v:.4g}" + (" us" if unit == "us" else "")
    if unit != "us":
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.4g}"
    for div, suffix in ((1e6, "s"), (1e3, "ms")):
        if abs(v) >= div:
            return f"{v / div:,.2f} {suffix}"
    return f"{v:,.0f} us"


def out_format(path: str, flag: str | None = None) -> str:
    """The trace format an output's name asks for; `flag` is the option
    that names the format instead, where the command has one."""
    name = Path(path).name.lower()
    if name.endswith(".flt"):
        return "flt"
    if name.endswith(".csv") or name.endswith(".csv.gz"):
        return "csv"
    instead = f", or pass {flag}" if flag else ""
    raise UsageError(f"{path}: cannot tell the output format from the name; use .flt, .csv or .csv.gz{instead}")


FORCE_HELP = ("replace an output that flashlayer did not write (without it such an output is refused; a folder "
              "flashlayer wrote, and a file it wrote, are replaced without it); a folder's other files are kept")


OUT_DIR_HELP = ("output folder: created if missing; an existing folder flashlayer wrote has its files replaced; "
                "any other non-empty folder is refused (see --force)")


def add_force(p: argparse.ArgumentParser) -> None:
    """``--force``: the one flag that lets a command write over what
    flashlayer did not write (:mod:`flashlayer.files`)."""
    p.add_argument("--force", action="store_true", help=FORCE_HELP)


def report_written(a: argparse.Namespace, n: int, out: str) -> None:
    if getattr(a, "json", False):
        emit_json({"output": out, "requests": n})
    else:
        print(f"wrote {n:,} requests to {out}", file=sys.stderr)


def add_read_opts(p: argparse.ArgumentParser, fmt_flag: str = "--format") -> None:
    names = ", ".join(n for n, _ in _native.formats())
    p.add_argument(fmt_flag, dest="format" if fmt_flag == "--format" else "from_format", metavar="F",
                   help=f"input trace format ({names}); default: detected from the extension, magic bytes or "
                   "first line. gzip and zstd compression is found from the magic bytes. csv maps any columns: "
                   "csv:page=COLUMN,op=COLUMN|none,sep=comma|semicolon|tab|space|pipe,header=auto|on|off,"
                   "reads=V/V,writes=V/V (a column by header name or number from 1; defaults page, op, comma, "
                   "auto, r/read/get, w/write/set/put/update), e.g. csv:page=id,op=type,sep=semicolon. A trace "
                   "path '-' reads standard input")
    p.add_argument("--page-size", type=int_arg(0, "--page-size"), metavar="BYTES",
                   help="block traces only (vscsi, msr, spc): bytes per page; each page a request touches is one "
                   "reference; 0 keeps one reference per request keyed by its start byte (default: 4096)")


def open_with_progress(path: str, format: str | None, page_size: int | None, quiet: bool) -> _native.Trace:
    """Opens a trace; converting a large text trace takes a while, so a
    pulsing bar shows that something happens."""
    from flashlayer.replay import open_trace

    with progress.bar(None, f"reading {Path(path).name}", quiet=quiet):
        trace = open_trace(path, format, page_size)
    sizes = object_sizes(path, format)
    if sizes is not None and sizes["max"] > 1:
        print(f"note: {path}: the oracleGeneral object sizes ({sizes['min']:,}–{sizes['max']:,} bytes, mean "
              f"{sizes['mean']:,.0f}) are not used: each object is one page of the buffer", file=sys.stderr)
    return trace


@functools.cache
def object_sizes(path: str, format: str | None) -> dict[str, Any] | None:
    """An oracleGeneral trace's object sizes (``trace stats`` reports them;
    a page cache does not use them), None for another format; read once a
    command."""
    return None if path == "-" else _native.object_sizes(path, format)


@functools.cache
def _labels() -> dict[str, str]:
    """Each result field's column header, as the engine declares it."""
    return {name: label for _, fields in _native.row_fields() for name, _, _, label, _, _ in fields}


def columns(*names: str) -> list[tuple[str, str]]:
    """Table columns for the result fields `names`, each headed by the
    label the engine declares for it (``_native.row_fields``)."""
    labels = _labels()
    return [(n, labels[n]) for n in names]


def table_cells(r: dict[str, Any], unit: str) -> None:
    """Writes the printed form of the cells every replay table shares into
    result row `r`: ``policy`` as short as it can be said (its defaults
    left out; JSON keeps the canonical spec), ``buffer_pages`` with its
    share of the trace, ``virtual_time`` in `unit` and
    ``requests_per_second``."""
    r["policy"] = _native.short_spec("policy", r["policy"])
    part = r.get("buffer_share")
    r["buffer_pages"] = f"{r['buffer_pages']:,}" + (f" ({share(part)})" if part is not None else "")
    r["virtual_time"] = duration(r["virtual_time"], unit)
    r["requests_per_second"] = rate(r["requests_per_second"])


def check_devices(flags: Sequence[tuple[str, str | None]]) -> None:
    """Each ``(flag, spec)`` given names a device, or a one-line error
    names the flag."""
    for flag, spec in flags:
        if spec is not None:
            try:
                _native.device(spec)
            except _native.FlashlayerError as e:
                raise UsageError(f"{flag}: {e}") from None


def groups(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> Iterator[list[dict[str, Any]]]:
    """`rows` grouped by `key`, in the order the keys first appear, for one
    table each; a blank line is printed between groups."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(key(r), []).append(r)
    for i, group in enumerate(by.values()):
        if i:
            print()
        yield group
