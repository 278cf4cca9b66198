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

from flashlayer.grid.rows import DRAWN, HEAD, Rows, columns, read_rows, run_cell, write_rows
from flashlayer.grid.run import Prepared, check_cells, prepare, sweep_grid
from flashlayer.grid.spec import EXAMPLE, KEYS, Cell, Grid, TraceSpec, content_hash, load_grid, parse_grid

__all__ = ["DRAWN", "EXAMPLE", "HEAD", "KEYS", "Cell", "Grid", "Prepared", "Rows", "TraceSpec", "check_cells",
           "columns", "content_hash", "load_grid", "parse_grid", "prepare", "read_rows", "run_cell", "sweep_grid",
           "write_rows"]
