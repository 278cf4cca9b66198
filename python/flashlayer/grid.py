"""Sweeps past one machine: a grid of traces × policies × buffer sizes ×
stores (any store spec: cost models, hybrid placements, tiers, files),
run on this machine's cores or as Ray tasks, one row per cell, written to
Parquet as the cells finish (``flashlayer sweep``, `sweep_grid`).

A grid file is TOML (``flashlayer sweep --example`` prints one). Every
cell's row holds the grid values, every field of ``sim --json``, the
trace's content hash (SHA-256 of the trace file), the flashlayer version,
the cell's wall time and ``error`` (None, or why the cell failed: a failed
cell is a row too, and the sweep goes on). The file has every column any
row has, whichever cell finished first; a row without one holds null.

Each trace is converted to ``flt`` once, by the driver, into a temporary
folder of the run's own, removed at its end; local workers open that file.
Ray workers get it through Ray's object store: the driver puts the bytes
once and each task replays them from memory, so a cluster needs no shared
file system and a node writes no file.

The grid is checked whole before any cell runs: each value, each value
given once, and each combination of a policy and a store on each trace
opened as its run would open it (`flashlayer._native.check`), so a
combination that ``sim`` refuses is refused here, one line each. A file
store never names one of the grid's traces. ``resume`` keeps a row only
while its trace's content hash is the trace's now. Ctrl-C stops every
running cell at its next million requests and keeps the rows finished.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import math
import os
import shutil
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashlayer import __version__, _native
from flashlayer._native import FlashlayerError
from flashlayer.checks import distinct, whole_or_none

#: Keys a grid file may have, with what each holds.
KEYS = {
    "traces": "trace files: paths or globs (relative to the grid file), or tables {path, format, page_size}",
    "format": "input format of every trace given as a plain path (default: detected)",
    "page_size": "page size in bytes for block traces given as a plain path",
    "policies": "policy specs with parameters, as in 'sim --policy'",
    "buffers": "buffer sizes: pages, or 'P%' of each trace's distinct pages",
    "stores": "store specs, as in 'sim --store' ('flashlayer list stores'; default: ['cost'])",
    "devices": "device cost models: the shorthand of cost stores ('cost:device=D'); not with stores",
    "flush_at_end": "write the pages still dirty at the end (default: each store's own)",
}
TRACE_KEYS = {"path", "format", "page_size"}

EXAMPLE = """\
# A flashlayer sweep grid: every combination of the lists below is one cell,
# one row of the result. Run it with
#   flashlayer sweep grid.toml --out results.parquet [--engine ray]

# Trace files: paths or globs, relative to this file. A table gives a format
# or page size for one trace: {path = "x.blk", format = "spc", page_size = 4096}
traces = ["data/traces/pg15-tpcc-sysbench-w2.csv.gz", "data/traces/pg15-tpcb-*.csv.gz"]

# Policies with parameters, as in 'flashlayer sim --policy' ('flashlayer list policies').
# Offline policies: belady on every store but a HyPro tier (whose SSD serves
# requests DRAM never sees), costopt-ub on cost stores only.
policies = ["lru", "arc", "cflru:w=0.25", "casa", "fdbuffer", "cfdc", "wblandlord"]

# Buffer sizes: pages, or a share of each trace's distinct pages.
buffers = ["1%", "3%", "10%", 2000]

# Stores ('flashlayer list stores'): cost models, a flash + magnetic disk,
# a DRAM / SSD / disk hierarchy, ... Default ["cost"] (a cost model of ratio:1:1).
stores = ["cost:device=ratio:1:8", "cost:device=fdbuffer-intel", "hybrid:placement=optimal",
          "tier:scheme=hypro,ssd=5%", "tier:scheme=lc,ssd=20%"]
# or, for cost models only, their shorthand:
# devices = ["ratio:1:1", "ratio:1:8", "fdbuffer-intel"]

# Write the dirty pages left at the end (default: each store's own, as in 'sim').
# flush_at_end = true
"""


@dataclass(frozen=True)
class TraceSpec:
    """One trace of a grid."""

    path: Path
    format: str | None = None
    page_size: int | None = None


@dataclass
class Grid:
    """A checked grid: every value valid, every trace present."""

    source: str
    traces: list[TraceSpec]
    policies: list[str]
    buffers: list[int | str]
    stores: list[str] = field(default_factory=list)
    flush_at_end: bool | None = None

    def cells(self) -> list[Cell]:
        return [Cell(t, p, str(b), s) for t in self.traces for p in self.policies
                for b in self.buffers for s in self.stores]


@dataclass(frozen=True)
class Cell:
    """One cell of a grid."""

    trace: TraceSpec
    policy: str
    buffer: str
    store: str

    @property
    def key(self) -> str:
        """The cell's identity in a results file (for ``--resume``)."""
        return f"{self.trace.path}|{self.policy}|{self.buffer}|{self.store}"


def _fail(source: str, key: str, problem: str) -> FlashlayerError:
    return FlashlayerError(f"{source}: {key}: {problem}")


def _list(source: str, raw: dict[str, Any], key: str, kinds: tuple[type, ...], default: list[Any] | None = None
          ) -> list[Any]:
    if key not in raw:
        if default is None:
            raise _fail(source, key, "missing (expected a list)")
        return default
    v = raw[key]
    if not isinstance(v, list) or not v:
        raise _fail(source, key, f"expected a non-empty list, got {v!r}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, kinds):
            raise _fail(source, key, f"unexpected value {x!r}")
    return list(v)


def _buffer(source: str, key: str, v: int | str) -> int | str:
    from flashlayer.replay import resolve_buffer

    try:
        resolve_buffer(v, 1)
    except FlashlayerError as e:
        raise _fail(source, key, str(e)) from None
    return v


def parse_grid(text: str, source: str = "<grid>", base: Path | None = None) -> Grid:
    """Checks a grid (TOML text) completely: any problem raises one line
    naming `source`, the key and the problem, before anything runs."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FlashlayerError(f"{source}: not valid TOML: {e}") from None
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise _fail(source, unknown[0], f"unknown key (keys: {', '.join(KEYS)})")
    base = base or Path.cwd()
    fmt = raw.get("format")
    page_size = raw.get("page_size")
    if fmt is not None and not isinstance(fmt, str):
        raise _fail(source, "format", f"expected a format name, got {fmt!r}")
    if page_size is not None and (isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1):
        raise _fail(source, "page_size", f"expected a whole number of bytes, got {page_size!r}")
    traces: list[TraceSpec] = []
    for entry in _list(source, raw, "traces", (str, dict)):
        if isinstance(entry, dict):
            extra = sorted(set(entry) - TRACE_KEYS)
            if extra or "path" not in entry:
                raise _fail(source, "traces", f"a trace table takes path, format, page_size; got {entry!r}")
            pattern, tfmt, tps = str(entry["path"]), entry.get("format"), entry.get("page_size")
        else:
            pattern, tfmt, tps = entry, fmt, page_size
        full = pattern if os.path.isabs(pattern) else str(base / pattern)
        matches = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
        if not matches:
            raise _fail(source, "traces", f"'{pattern}' matches no file")
        for m in matches:
            if not Path(m).is_file():
                raise _fail(source, "traces", f"{m}: no such file")
            traces.append(TraceSpec(Path(m), tfmt, tps))
    try:
        distinct("trace", [t.path.resolve() for t in traces])
    except FlashlayerError as e:
        raise _fail(source, "traces", str(e)) from None
    policies = []
    for p in _list(source, raw, "policies", (str,)):
        try:
            policies.append(_native.canonical("policy", p))
        except FlashlayerError as e:
            raise _fail(source, "policies", str(e)) from None
    buffers = [_buffer(source, "buffers", b) for b in _list(source, raw, "buffers", (int, str))]
    for key, what, values in (("policies", "policy", policies), ("buffers", "buffer size", buffers)):
        try:
            distinct(what, values)
        except FlashlayerError as e:
            raise _fail(source, key, str(e)) from None
    from flashlayer.replay import stores_of

    if "stores" in raw and "devices" in raw:
        raise _fail(source, "devices", "devices are the shorthand of cost stores; give stores or devices")
    key = "devices" if "devices" in raw else "stores"
    given = _list(source, raw, key, (str,), ["cost"])
    try:
        stores = stores_of(None, given) if key == "devices" else stores_of(given, None)
    except FlashlayerError as e:
        raise _fail(source, key, str(e)) from None
    for spec in stores:
        db = _file_path(spec)
        for t in traces:
            if db is not None and (base / db).exists() and os.path.samefile(base / db, t.path):
                raise _fail(source, key, f"'{spec}' names the trace {t.path} as its database file; name another")
    flush = raw.get("flush_at_end")
    if flush is not None and not isinstance(flush, bool):
        raise _fail(source, "flush_at_end", f"expected true or false, got {flush!r}")
    return Grid(source, traces, policies, buffers, stores, flush)


def _file_path(store: str) -> str | None:
    """The database file a canonical file store spec names, if any."""
    if not store.startswith("file:path="):
        return None
    return store[len("file:path="):].split(",page_size=", 1)[0]


def load_grid(path: Path) -> Grid:
    """Reads and checks a grid file (globs relative to its folder)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise FlashlayerError(f"{path}: not a grid file (TOML text expected; byte {e.start} is not UTF-8)") from None
    return parse_grid(text, str(path), path.parent)


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_cell(cell: Cell, trace: Path | _native.Trace, trace_hash: str, flush_at_end: bool | None,
             stop: threading.Event | None = None) -> dict[str, Any]:
    """Runs one cell on `trace` (the trace converted to flt, or opened) and
    returns its row; a failure is a row with ``error``. A set `stop` ends
    the run at its next million requests (`Stopped`)."""
    from flashlayer.replay import Stopped, simulate

    def tick(_: int) -> None:
        if stop is not None and stop.is_set():
            raise Stopped

    row = _head(cell, trace_hash)
    start = time.perf_counter()
    try:
        t = trace if isinstance(trace, _native.Trace) else _native.Trace.open(trace)
        r = simulate(t, cell.policy, _spec(cell.buffer), cell.store, flush_at_end=flush_at_end, on_progress=tick)
        for k, v in r.items():
            # Time series are lists of points per run: not a row's fields;
            # the trace is the grid's, not the copy the cell read.
            if k not in ("series", "tier_series", "trace"):
                row[k] = v
    except FlashlayerError as e:
        row["error"] = str(e)
    row["cell_seconds"] = time.perf_counter() - start
    return row


def _head(cell: Cell, trace_hash: str, error: str | None = None) -> dict[str, Any]:
    """The grid values of a cell's row."""
    return {"cell": cell.key, "trace": str(cell.trace.path), "trace_hash": trace_hash, "grid_policy": cell.policy,
            "grid_buffer": cell.buffer, "grid_store": cell.store,
            "flashlayer_version": __version__, "error": error}


def _spec(s: str) -> int | str:
    return s if s.endswith("%") else int(s)


class Rows(list[dict[str, Any]]):
    """The rows of a sweep; ``to_pandas()`` makes a DataFrame (pandas
    installed). ``ran`` counts the cells this call ran (the rest came from
    the results file, with ``resume``)."""

    ran: int = 0

    def to_pandas(self) -> Any:
        try:
            import pandas as pd
        except ImportError:
            raise FlashlayerError("to_pandas needs pandas: pip install pandas") from None
        return pd.DataFrame(list(self))


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise FlashlayerError("Parquet output needs pyarrow: pip install 'flashlayer[ray]' (or pip install "
                              "pyarrow)") from None
    return pa, pq


#: The columns every row has, in this order; a cell that ran adds the
#: fields of ``sim --json`` after them, and ``cell_seconds`` ends each row.
HEAD = ("cell", "trace", "trace_hash", "grid_policy", "grid_buffer", "grid_store", "flashlayer_version", "error")
#: The columns `flashlayer report` draws from, besides `HEAD`.
DRAWN = ("policy", "buffer_pages", "virtual_time", "miss_ratio")


def read_rows(path: Path) -> Rows:
    """The rows of a results file that ``sweep`` wrote; a file that is not
    one is refused with one line."""
    _, pq = _pyarrow()
    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow raises several kinds for a bad file
        raise FlashlayerError(f"{path}: not a readable Parquet file ({str(e).splitlines()[0] if str(e) else e})"
                              ) from None
    missing = [c for c in HEAD if c not in table.column_names]
    if missing:
        raise FlashlayerError(f"{path}: not a results file of 'flashlayer sweep' (no column {missing[0]})")
    rows = Rows(table.to_pylist())
    if any(r.get("error") is None for r in rows):
        absent = [c for c in DRAWN if c not in table.column_names]
        if absent:
            raise FlashlayerError(f"{path}: its cells that ran have no column {absent[0]}; run the sweep again")
    return rows


def columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column any row has: `HEAD`, then the others in the order they
    first appear, ``cell_seconds`` last."""
    seen = dict.fromkeys(HEAD)
    for r in rows:
        seen.update(dict.fromkeys(r))
    seen.pop("cell_seconds", None)
    return [*seen, "cell_seconds"]


def write_rows(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """Writes `rows` to `path` atomically (a temporary file, then a
    rename), so the file is always a complete Parquet file with every
    column any row has (a row without one holds null there), marked as
    flashlayer's (:mod:`flashlayer.files`)."""
    from flashlayer.files import OWN_MARK, atomic_output

    pa, pq = _pyarrow()
    names = columns(rows)
    table = pa.table({c: [r.get(c) for r in rows] for c in names})
    table = table.replace_schema_metadata({OWN_MARK: __version__})
    atomic_output(path, lambda tmp: pq.write_table(table, tmp), force=True)


def _in_order(grid: Grid, rows: Rows) -> Rows:
    """`rows` in grid order, whichever engine ran the cells and in what
    order they finished; rows of cells no longer in the grid last."""
    order = {c.key: i for i, c in enumerate(grid.cells())}
    out = Rows(sorted(rows, key=lambda r: order.get(r["cell"], len(order))))
    out.ran = rows.ran
    return out


def check_cells(grid: Grid, cells: Sequence[Cell], prep: Prepared) -> None:
    """Refuses, before any cell runs, every combination of a policy and a
    store that its run would refuse on a trace of `cells` (the store
    opened and the policy built, no request served): one line each."""
    problems: dict[str, None] = {}
    # Per combination, its smallest buffer: the one a size limit refuses.
    combos: dict[tuple[TraceSpec, str, str], list[str]] = {}
    for c in cells:
        combos.setdefault((c.trace, c.policy, c.store), []).append(c.buffer)
    opened: dict[TraceSpec, _native.Trace] = {}
    for (trace, policy, store), buffers in combos.items():
        t = opened.setdefault(trace, _native.Trace.open(prep.flt[trace]))
        pages = min(_native.size_pages(_spec(b), t.pages) for b in buffers)
        try:
            _native.check(t, policy, pages, store, grid.flush_at_end)
        except FlashlayerError as e:
            problems[f"{grid.source}: {policy} on {store}: {e}"] = None
    if problems:
        raise FlashlayerError("\n".join(problems))


@dataclass
class Prepared:
    """The traces of a grid converted once: flt path and content hash."""

    flt: dict[TraceSpec, Path]
    hashes: dict[TraceSpec, str]


def prepare(grid: Grid, folder: Path, progress: Callable[[str], None] | None = None) -> Prepared:
    """Converts each trace to flt once into `folder` (reused when the
    folder already has it, by content hash)."""
    folder.mkdir(parents=True, exist_ok=True)
    flt: dict[TraceSpec, Path] = {}
    hashes: dict[TraceSpec, str] = {}
    for t in dict.fromkeys(grid.traces):
        if progress:
            progress(str(t.path))
        h = content_hash(t.path)
        out = folder / f"{h[:32]}-{t.format or 'auto'}-{t.page_size or 0}.flt"
        if not out.is_file():
            tmp = out.with_suffix(".part.flt")
            _native.convert(t.path, tmp, t.format, "flt", t.page_size)
            os.replace(tmp, out)
        flt[t], hashes[t] = out, h
    return Prepared(flt, hashes)


def _local(cells: list[Cell], prep: Prepared, flush: bool | None, jobs: int) -> Iterator[dict[str, Any]]:
    stop = threading.Event()
    pool = ThreadPoolExecutor(jobs)
    try:
        pending: set[Future[dict[str, Any]]] = {
            pool.submit(run_cell, c, prep.flt[c.trace], prep.hashes[c.trace], flush, stop) for c in cells}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()
    finally:
        # Abandoned (Ctrl-C, or the caller stopped reading): the running
        # cells stop at their next progress call, the queued ones never start.
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


def _ray(cells: list[Cell], prep: Prepared, flush: bool | None, address: str | None, jobs: int
         ) -> Iterator[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise FlashlayerError("--engine ray needs Ray: pip install 'flashlayer[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
        else:
            # "local": a Ray of its own, never one `ray start` left running.
            ray.init(address="local", num_cpus=jobs, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR)
    try:
        refs = {t: ray.put(prep.flt[t].read_bytes()) for t in prep.flt}
        remote = ray.remote(num_cpus=1, max_retries=1)(_ray_cell)
        tasks = {remote.remote(c, prep.hashes[c.trace], refs[c.trace], flush): c for c in cells}
        pending = list(tasks)
        while pending:
            # Up to 256 results a call, or what is ready within a second:
            # one call per result would pass the whole pending list each
            # time, quadratic in the cells.
            done, pending = ray.wait(pending, num_returns=min(len(pending), 256), timeout=1.0)
            for ref in done:
                cell = tasks[ref]
                try:
                    yield ray.get(ref)
                except Exception as e:  # a worker died twice, or the task raised
                    first = str(e).splitlines()[0] if str(e) else ""
                    yield {**_head(cell, prep.hashes[cell.trace], f"{type(e).__name__}: {first}"),
                           "cell_seconds": math.nan}
    finally:
        if started:
            ray.shutdown()


def _ray_cell(cell: Cell, trace_hash: str, data: bytes, flush: bool | None) -> dict[str, Any]:
    """A Ray task: the trace's bytes arrive through the object store and
    are replayed from memory; the node writes no file."""
    return run_cell(cell, _native.Trace.from_flt(data, cell.trace.path), trace_hash, flush)


def sweep_grid(
    grid: Grid | str | Path,
    *,
    engine: str = "local",
    out: Path | None = None,
    address: str | None = None,
    jobs: int | None = None,
    resume: bool = False,
    flush_every: float = 1.0,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    force: bool = False,
    on_notice: Callable[[str], None] | None = None,
) -> Rows:
    """Runs every cell of `grid` (a `Grid`, or a grid file's path) and
    returns the rows. With `out` (a ``.parquet`` path) the rows are written
    as they arrive, at most every `flush_every` seconds and at the end, so a
    sweep killed half-way keeps what it finished; `resume` skips the cells
    already in `out` without an error (a failed cell runs again). An
    existing `out` that flashlayer did not write is refused unless
    `force` (:mod:`flashlayer.files`). `on_notice` hears what the sweep
    decided on its own (cells run again because their trace changed).
    `engine` is ``"local"`` (`jobs`
    threads, default: this machine's CPUs) or ``"ray"`` (tasks on the
    cluster at `address`, or on a local Ray started with `jobs` CPUs).
    The rows are the same whichever engine ran them, but for the wall
    times (``cell_seconds``, ``seconds``, ``requests_per_second``)."""
    if not isinstance(grid, Grid):
        grid = load_grid(Path(grid))
    if engine not in ("local", "ray"):
        raise FlashlayerError(f"engine must be 'local' or 'ray', got '{engine}'")
    jobs = whole_or_none("jobs", jobs, 1)
    rows = Rows()
    if out is not None:
        out = Path(out)
        _pyarrow()
        if not out.name.lower().endswith(".parquet"):
            raise FlashlayerError(f"{out}: a sweep's results are written as Parquet; use a name ending in .parquet")
        if resume and out.is_file():
            # Failed cells run again.
            rows = Rows(r for r in read_rows(out) if r.get("error") is None)
        else:
            from flashlayer.files import check_writable

            check_writable(out, force)
    jobs = jobs or os.cpu_count() or 1
    # The traces converted once, in a folder of the run's own: nothing is
    # written beside the user's files but `out`.
    folder = Path(tempfile.mkdtemp(prefix="flashlayer-sweep-"))
    try:
        prep = prepare(grid, folder)
        # A row is kept while its trace is the one it ran on.
        now = {c.key: prep.hashes[c.trace] for c in grid.cells()}
        stale = [r for r in rows if r["cell"] in now and r.get("trace_hash") != now[r["cell"]]]
        if stale:
            rows = Rows(r for r in rows if r not in stale)
            if on_notice:
                n = len(stale)
                on_notice(f"{n:,} {'cell' if n == 1 else 'cells'} of {out} ran on a trace that has changed since; "
                          f"{'it runs' if n == 1 else 'they run'} again")
        done = {r["cell"] for r in rows}
        cells = [c for c in grid.cells() if c.key not in done]
        check_cells(grid, cells, prep)
        stream = (_local(cells, prep, grid.flush_at_end, jobs) if engine == "local"
                  else _ray(cells, prep, grid.flush_at_end, address, jobs))
        last, cost = time.monotonic(), 0.0
        try:
            for row in stream:
                rows.append(row)
                rows.ran += 1
                if on_row:
                    on_row(row)
                # Each write rewrites the file: at most a tenth of the time goes
                # to writing, however many rows there are.
                if out is not None and time.monotonic() - last >= max(flush_every, 10 * cost):
                    t0 = time.monotonic()
                    write_rows(rows, out)
                    last = time.monotonic()
                    cost = last - t0
        except BaseException:
            # Interrupted: the rows finished so far are kept.
            if out is not None and rows:
                write_rows(_in_order(grid, rows), out)
            raise
        rows = _in_order(grid, rows)
        if out is not None:
            write_rows(rows, out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows
