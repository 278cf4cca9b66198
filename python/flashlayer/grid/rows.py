"""A sweep's rows: one per cell, read from and written to Parquet with
every column any row has."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.grid.spec import Cell, Grid
from flashlayer.version import __version__


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
