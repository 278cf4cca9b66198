"""``flashlayer sweep``: a grid checked before any cell runs, the same rows
from the local engine and from a real local Ray cluster, failed cells as
rows, a killed sweep that keeps its finished rows and resumes with the
missing ones, and ``flashlayer report``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from flashlayer import sweep_grid
from flashlayer.grid import read_rows
from tests.conftest import TRACES, run_cli

TPCB = TRACES / "pg15-tpcb-s5.csv.gz"
TATP = TRACES / "pg15-tatp-100k.csv.gz"


def grid(tmp: Path, text: str) -> Path:
    p = tmp / "grid.toml"
    p.write_text(text)
    return p


SMALL = f"""
traces = ["{TPCB}", "{TATP}"]
policies = ["lru", "cflru:w=0.25", "wblandlord"]
buffers = ["1%", 500]
devices = ["ratio:1:1", "ratio:1:8"]
"""


def strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("cell_seconds", "seconds", "requests_per_second")}
            for r in rows]


def test_local_and_ray_engines_give_the_same_rows(tmp_path: Path) -> None:
    g = grid(tmp_path, SMALL)
    local = sweep_grid(g, out=tmp_path / "local.parquet", jobs=2)
    ray = sweep_grid(g, engine="ray", out=tmp_path / "ray.parquet", jobs=2)
    assert len(local) == 2 * 3 * 2 * 2 and all(r["error"] is None for r in local)
    assert strip(local) == strip(ray)
    assert strip(read_rows(tmp_path / "ray.parquet")) == strip(ray)
    # Each row is the simulator's row for its cell, with the trace's hash.
    sim = json.loads(run_cli("sim", str(TPCB), "--policy", "wblandlord", "--buffer", "500", "--device", "ratio:1:8",
                             "--json", check=True).stdout)[0]
    row = next(r for r in local if r["cell"].startswith(str(TPCB)) and r["grid_policy"] == "wblandlord"
               and r["grid_buffer"] == "500" and r["grid_store"] == "cost:device=ratio:1:8")
    assert (row["virtual_time"], row["misses"]) == (sim["virtual_time"], sim["misses"])
    assert len(row["trace_hash"]) == 64 and row["flashlayer_version"]
    assert local.to_pandas().shape[0] == len(local)


@pytest.mark.parametrize("engine", ["local", "ray"])
def test_a_failing_cell_is_a_row_and_the_sweep_goes_on(tmp_path: Path, engine: str) -> None:
    # A combination that cannot work is refused before any cell runs; a
    # cell can still fail as it runs: its database file's folder is missing.
    missing = tmp_path / "no" / "such" / "db"
    g = grid(tmp_path, f"""
traces = ["{TPCB}"]
policies = ["lru"]
buffers = [200]
stores = ["hybrid", "file:path={missing}"]
""")
    p = run_cli("sweep", str(g), "--out", str(tmp_path / "r.parquet"), "--engine", engine, "--jobs", "2", "--json")
    assert p.returncode == 1, p.stderr
    assert json.loads(p.stdout)["failed"] == 1
    rows = read_rows(tmp_path / "r.parquet")
    ok, bad = [r for r in rows if r["error"] is None], [r for r in rows if r["error"] is not None]
    assert [r["grid_store"].split(":")[0] for r in ok] == ["hybrid"] and ok[0]["migrations"] is not None
    assert str(missing) in bad[0]["error"] and "No such file" in bad[0]["error"]


def test_a_killed_sweep_keeps_its_rows_and_resume_runs_only_the_rest(tmp_path: Path) -> None:
    g = grid(tmp_path, f"""
traces = ["{TPCB}"]
policies = ["lru", "arc", "belady", "cflru", "casa", "fdbuffer", "wblandlord", "2q"]
buffers = [50, 100, 200, 400, 800, 1600]
devices = ["ratio:1:1", "ratio:1:2", "ratio:1:4", "ratio:1:8", "ratio:1:16", "ratio:1:64"]
""")
    out = tmp_path / "r.parquet"
    proc = subprocess.Popen([sys.executable, "-m", "flashlayer.cli", "sweep", str(g), "--out", str(out), "--jobs", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = read_rows(out)
    cells = 8 * 6 * 6
    assert 0 < len(kept) < cells, "killed before the end, after the first write"
    p = run_cli("sweep", str(g), "--out", str(out), "--resume", "--json", check=True)
    summary = json.loads(p.stdout)
    assert summary == {"out": str(out), "cells": cells, "rows": cells, "ran": cells - len(kept), "failed": 0}
    again = read_rows(out)
    assert len({r["cell"] for r in again}) == cells
    fresh = sweep_grid(g, jobs=2)
    assert strip(again) == strip(fresh)


def test_report_draws_time_and_miss_ratio_per_trace_and_device(tmp_path: Path) -> None:
    g = grid(tmp_path, SMALL)
    sweep_grid(g, out=tmp_path / "r.parquet", jobs=2)
    run_cli("report", str(tmp_path / "r.parquet"), "--out", str(tmp_path / "rep"), check=True)
    pngs = sorted((tmp_path / "rep" / "figures" / "sweep").glob("*.png"))
    assert len(pngs) == 2 * 2 * 2  # traces x devices x (time, miss ratio)
    assert all(p.stat().st_size > 10_000 for p in pngs)
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "pg15-tpcb-s5.csv.gz, cost:device=ratio:1:8: virtual time" in html and "24 cells, 0 failed" in html


@pytest.mark.parametrize(("text", "message"), [
    ('traces = ["x"]\npolicies = ["lru"]\nbuffers = [1]\ncolour = 1\n', "colour: unknown key"),
    ('traces = ["nosuch/*.csv"]\npolicies = ["lru"]\nbuffers = [1]\n', "traces: 'nosuch/*.csv' matches no file"),
    (f'traces = ["{TPCB}"]\npolicies = ["lru", "cflru:w=2"]\nbuffers = [1]\n', "policies:"),
    (f'traces = ["{TPCB}"]\npolicies = ["lru"]\nbuffers = [0]\n', "buffers:"),
    (f'traces = ["{TPCB}"]\npolicies = ["lru"]\nbuffers = [10]\ndevices = ["ratio:1:x"]\n', "devices:"),
    (f'traces = ["{TPCB}"]\npolicies = ["lru"]\nbuffers = [10]\nstores = ["tier:ssd=0"]\n', "stores: store 'tier': bad value '0' for 'ssd'"),
    (f'traces = ["{TPCB}"]\npolicies = ["lru"]\nbuffers = [10]\nstores = ["cost"]\ndevices = ["ratio:1:2"]\n',
     "devices: devices are the shorthand of cost stores"),
    ('traces = [', "not valid TOML"),
])
def test_a_bad_grid_fails_before_any_cell_with_file_key_and_problem(tmp_path: Path, text: str, message: str) -> None:
    g = grid(tmp_path, text)
    p = run_cli("sweep", str(g), "--out", str(tmp_path / "r.parquet"))
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"flashlayer: error: {g}") and message in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.parquet").exists()


def test_the_example_grid_is_valid() -> None:
    from flashlayer.grid import parse_grid

    example = run_cli("sweep", "--example", check=True).stdout
    g = parse_grid(example, "example", TRACES.parent.parent)
    assert len(g.cells()) == 2 * 7 * 4 * 5
    # The shipped traces by absolute path: the grid runs saved anywhere.
    elsewhere = parse_grid(example, "example", Path("/"))
    assert len(elsewhere.cells()) == len(g.cells())


def test_a_ray_worker_killed_mid_cell_loses_no_rows_and_json_stays_clean(tmp_path: Path) -> None:
    import psutil

    # Cells of a second or more (the planner of costopt-ub), so one is
    # running when its worker is killed; Ray runs the task again. Only this
    # sweep's own workers are killed: other tests run Ray sweeps beside it.
    g = grid(tmp_path, f"""
traces = ["{TATP}"]
policies = ["costopt-ub:iterations=40", "lru"]
buffers = ["1%", "3%", "10%"]
devices = ["ratio:1:8"]
""")
    out = tmp_path / "r.parquet"
    cli = subprocess.Popen([sys.executable, "-m", "flashlayer.cli", "sweep", str(g), "--out", str(out), "--engine", "ray",
                            "--jobs", "2", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and cli.poll() is None and time.monotonic() < deadline:
        for p in psutil.Process(cli.pid).children(recursive=True):
            try:
                title = " ".join(p.cmdline()) + " " + p.name()
            except psutil.Error:
                continue
            if "_ray_cell" in title:
                p.kill()
                killed = p.pid
                break
        time.sleep(0.05)
    stdout, stderr = cli.communicate(timeout=600)
    assert killed is not None, "no Ray worker was seen running a cell"
    assert cli.returncode == 0, stderr
    # Ray reports the dead worker on the driver's stdout; with --json that
    # report goes to stderr and stdout stays one JSON document.
    assert json.loads(stdout) == {"out": str(out), "cells": 6, "rows": 6, "ran": 6, "failed": 0}
    rows = read_rows(out)
    assert len(rows) == 6 and all(r["error"] is None for r in rows), [r["error"] for r in rows]
    assert strip(rows) == strip(sweep_grid(g, jobs=2))
