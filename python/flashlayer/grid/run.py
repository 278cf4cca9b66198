"""Running a grid: its traces converted once, its cells checked whole, then
run on this machine's threads or as Ray tasks (`sweep_grid`)."""

from __future__ import annotations

import logging
import math
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.checks import whole_or_none
from flashlayer.grid.rows import Rows, _head, _in_order, _pyarrow, _spec, read_rows, run_cell, write_rows
from flashlayer.grid.spec import Cell, Grid, TraceSpec, content_hash, load_grid


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
