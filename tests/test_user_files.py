"""A command writes only what it was asked to write, and every row says
what it measured: database files, a marked folder's cleanup, the flash
store's database, rows that name their trace and store, sweeps that check
the whole grid first, traces from pipes, and tables in one format per
column."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRACES, run_cli

PG = str(TRACES / "pg15-tpcc-sysbench-w2.csv.gz")


def _csv(path: Path, rows: list[tuple[int, str]]) -> Path:
    path.write_text("page,op\n" + "".join(f"{p},{o}\n" for p, o in rows))
    return path


def _trace(tmp_path: Path) -> Path:
    return _csv(tmp_path / "victim.csv", [(1, "R"), (2, "W"), (3, "R"), (1, "W")])


def _one_line_error(p: subprocess.CompletedProcess[str], *words: str) -> None:
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, p.stderr


# 1. The file store: never the trace, never a file flashlayer did not write.

def test_the_file_store_never_writes_over_the_trace_it_reads(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    before = trace.read_bytes()
    for extra in ([], ["--force"]):
        p = run_cli("sim", str(trace), "--policy", "lru", "--buffer", "2", "--store", f"file:path={trace}", *extra)
        _one_line_error(p, "is the trace this run reads")
    assert trace.read_bytes() == before


def test_the_file_store_refuses_a_users_file_without_force(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    precious = tmp_path / "precious.db"
    precious.write_bytes(b"ten bytes!")
    p = run_cli("sim", str(trace), "--policy", "lru", "--buffer", "2", "--store", f"file:path={precious}")
    _one_line_error(p, "not a database file flashlayer wrote", "--force")
    assert precious.read_bytes() == b"ten bytes!"
    # Its own database, from an earlier run, is used again; --force takes
    # the user's file and says so in the row.
    db = tmp_path / "new.db"
    for _ in range(2):
        run_cli("sim", str(trace), "--policy", "lru,fifo", "--buffer", "2", "--store", f"file:path={db}", check=True)
    p = run_cli("sim", str(trace), "--policy", "lru", "--buffer", "2", "--store", f"file:path={precious}", "--force",
                "--json", check=True)
    assert ",replace=on," in json.loads(p.stdout)[0]["store"]


# 2. A marked folder's cleanup: only what is still flashlayer's (also in
# tests/test_outputs.py, through write_folder).

def test_report_keeps_the_figures_a_user_replaced(tmp_path: Path) -> None:
    grid = tmp_path / "g.toml"
    grid.write_text(f'traces = ["{PG}"]\npolicies = ["lru", "arc"]\nbuffers = [200, 800]\n'
                    'stores = ["cost:device=ratio:1:1", "cost:device=ratio:1:8"]\n')
    run_cli("sweep", str(grid), "--out", str(tmp_path / "r2.parquet"), check=True)
    out = tmp_path / "report-r2"
    run_cli("report", str(tmp_path / "r2.parquet"), "--out", str(out), check=True)
    figures = sorted((out / "figures").rglob("*.png"))
    assert len(figures) >= 2
    mine = figures[-1]
    from PIL import Image

    Image.new("RGB", (3, 3)).save(mine)
    theirs = mine.read_bytes()
    text = figures[-2]
    text.write_text("my notes\n")
    # Fewer figures this time: one device.
    grid.write_text(f'traces = ["{PG}"]\npolicies = ["lru", "arc"]\nbuffers = [200, 800]\n')
    run_cli("sweep", str(grid), "--out", str(tmp_path / "r1.parquet"), check=True)
    p = run_cli("report", str(tmp_path / "r1.parquet"), "--out", str(out))
    if p.returncode == 2:
        # The new report draws a figure of the same name: nothing moves.
        assert "not written by flashlayer" in p.stderr
    else:
        assert "kept" in p.stderr, p.stderr
    assert mine.read_bytes() == theirs and text.read_text() == "my notes\n"


# 3. The flash store starts from a written database, on a chip of a size
# the user can give.

def test_the_flash_store_reads_every_missed_page_from_the_chip(tmp_path: Path) -> None:
    ro = _csv(tmp_path / "ro.csv", [((i * 7919) % 1000, "R") for i in range(20_000)])
    p = run_cli("sim", str(ro), "--policy", "lru", "--buffer", "100", "--store", "flash:changed=64", "--json",
                check=True)
    r = json.loads(p.stdout)[0]
    assert r["chip_reads"] == r["physical_reads"] > 0 and r["chip_programs"] == 0
    assert r["virtual_time"] >= 110 * r["physical_reads"]
    small = _trace(tmp_path)
    run_cli("sim", str(small), "--policy", "lru", "--buffer", "2", "--store", "flash:changed=8", check=True)
    p = run_cli("sim", str(small), "--policy", "lru", "--buffer", "2", "--store", "flash:changed=8,blocks=3")
    _one_line_error(p, "blocks=3 is too few", "blocks=7")
    listing = run_cli("list", "stores", check=True).stdout
    assert "programmed once before the run" in listing and "blocks" in listing


def test_a_chip_refuses_a_second_store_from_python() -> None:
    from flashlayer import FlashStore, NandChip
    from flashlayer._native import FlashlayerError

    chip = NandChip(blocks=16)
    first = FlashStore(chip, "pdl:256", logical_pages=64)
    with pytest.raises(FlashlayerError, match="holds a pdl:256 store already"):
        FlashStore(chip, "pdl:256", logical_pages=64)
    with pytest.raises(FlashlayerError, match="recover it with that method"):
        FlashStore.recover(chip, "opu", logical_pages=64)
    assert first is not None


# 4. Rows name their trace and store; plot draws a line per (trace,
# policy, store, device).

def test_rows_name_their_trace_and_plots_keep_traces_and_stores_apart(tmp_path: Path) -> None:
    a = _trace(tmp_path)
    b = _csv(tmp_path / "other.csv", [(i % 7, "R") for i in range(50)])
    rows: list[dict[str, Any]] = []
    for t in (a, b):
        rows += json.loads(run_cli("sim", str(t), "--policy", "lru", "--buffer", "1,2", "--json", check=True).stdout)
    assert {r["trace"] for r in rows} == {str(a), str(b)}
    joined = tmp_path / "joined.json"
    joined.write_text(json.dumps(rows))
    p = run_cli("plot", str(joined), "--out", str(tmp_path / "j.png"), check=True)
    assert "2 panel row(s)" in p.stdout
    # One run twice with different numbers cannot be drawn as one line.
    bad = [rows[0], {**rows[0], "miss_ratio": 0.5}]
    joined.write_text(json.dumps(bad))
    p = run_cli("plot", str(joined), "--out", str(tmp_path / "k.png"))
    _one_line_error(p, "are one run")
    # sim --plot draws any store, as plot does.
    p = run_cli("sim", PG, "--policy", "lru", "--buffer", "1%", "--store", "hybrid", "--store", "ftl",
                "--plot", str(tmp_path / "h.png"))
    assert p.returncode == 0 and (tmp_path / "h.png").stat().st_size > 0, p.stderr


def test_plot_draws_stores_of_one_device_as_separate_lines() -> None:
    from flashlayer.plots import _line_label

    rows = [{"policy": "lru", "store": "ftl:device=d", "store_name": "ftl"},
            {"policy": "lru", "store": "cost:device=d", "store_name": "cost"}]
    assert [_line_label(r, rows) for r in rows] == ["lru on ftl", "lru on cost"]
    assert _line_label(rows[0], rows[:1]) == "lru"


# 5 and 7. Sweeps.

def _sweep(tmp_path: Path, body: str, *extra: str) -> subprocess.CompletedProcess[str]:
    grid = tmp_path / "g.toml"
    grid.write_text(body)
    return run_cli("sweep", str(grid), "--out", str(tmp_path / "r.parquet"), *extra)


def test_resume_reruns_a_cell_whose_trace_changed(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    t = _trace(tmp_path)
    body = f'traces = ["{t}"]\npolicies = ["lru"]\nbuffers = [2]\n'
    assert _sweep(tmp_path, body).returncode == 0
    with t.open("a") as f:
        f.write("5,R\n6,W\n7,R\n")
    p = _sweep(tmp_path, body, "--resume")
    assert p.returncode == 0 and "has changed since" in p.stderr and "(1 run now)" in p.stdout, p.stdout + p.stderr
    (row,) = pq.read_table(tmp_path / "r.parquet").to_pylist()
    assert row["requests"] == 7 and row["trace"] == str(t)


@pytest.mark.parametrize("values,what", [
    ('policies = ["lru", "lru"]\nbuffers = [2]', "policy 'lru' is given twice"),
    ('policies = ["lru"]\nbuffers = [2, "2"]', "buffer size '2' is given twice"),
])
def test_a_grid_value_given_twice_is_refused(tmp_path: Path, values: str, what: str) -> None:
    t = _trace(tmp_path)
    p = _sweep(tmp_path, f'traces = ["{t}"]\n{values}\n')
    _one_line_error(p, what)
    assert not (tmp_path / "r.parquet").exists()


def test_a_grid_is_refused_whole_for_each_combination_sim_refuses(tmp_path: Path) -> None:
    t = _trace(tmp_path)
    p = _sweep(tmp_path, f'traces = ["{t}"]\npolicies = ["lru", "casa:cost=measured", "belady"]\nbuffers = [2]\n'
               'stores = ["cost", "tier:scheme=hypro"]\n')
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    # casa:cost=measured on both stores, belady on HyPro: one line each.
    assert len(lines) == 3, p.stderr
    assert sum("measures none" in x for x in lines) == 2 and sum("is offline" in x for x in lines) == 1
    assert not (tmp_path / "r.parquet").exists()
    p = _sweep(tmp_path, f'traces = ["{t}"]\npolicies = ["lru"]\nbuffers = [2]\nstores = ["file:path={t}"]\n')
    _one_line_error(p, "names the trace")


def test_ctrl_c_stops_a_sweep_and_keeps_its_finished_rows(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    big = tmp_path / "big.flt"
    run_cli("trace", "gen", "zipf", "--requests", "20000000", "--pages", "1000000", "--out", str(big), check=True)
    grid = tmp_path / "g.toml"
    grid.write_text(f'traces = ["{big}"]\npolicies = ["lru", "watt", "arc", "lirs", "clock", "2q"]\n'
                    'buffers = [1000]\nstores = ["tier:scheme=hypro"]\n')
    out = tmp_path / "r.parquet"
    p = subprocess.Popen([sys.executable, "-m", "flashlayer.cli", "sweep", str(grid), "--out", str(out), "--jobs", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not out.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("every cell finished before the interrupt")
    assert p.returncode == 130 and "interrupted" in err, err
    rows = pq.read_table(out).to_pylist()
    assert 1 <= len(rows) < 6 and all(r["error"] is None and r["requests"] == 20_000_000 for r in rows)


# 6. Pipes, own outputs, messages.

def test_a_trace_from_a_pipe_replays_as_from_its_file(tmp_path: Path) -> None:
    t = _trace(tmp_path)
    from_file = json.loads(run_cli("sim", str(t), "--policy", "lru", "--buffer", "2", "--json", check=True).stdout)[0]
    for name in ("-", "/dev/stdin"):
        p = subprocess.run([sys.executable, "-m", "flashlayer.cli", "sim", name, "--policy", "lru", "--buffer", "2",
                            "--json"], input=t.read_text(), capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        row = json.loads(p.stdout)[0]
        assert (row["misses"], row["physical_writes"], row["trace"]) == (
            from_file["misses"], from_file["physical_writes"], name)
    p = subprocess.run([sys.executable, "-m", "flashlayer.cli", "sim", "-", "--policy", "lru", "--buffer", "2"],
                       input="page,op\n1,R\n2,X\n", capture_output=True, text=True)
    _one_line_error(p, "-:3: expected op R or W")


def test_trace_outputs_are_replaced_by_the_command_that_wrote_them(tmp_path: Path) -> None:
    t = _trace(tmp_path)
    for out in ("c.csv", "z.csv.gz", "c.flt"):
        for _ in range(2):
            run_cli("trace", "convert", str(t), str(tmp_path / out), check=True)
    for _ in range(2):
        run_cli("trace", "gen", "zipf", "--requests", "10", "--pages", "5", "--out", str(tmp_path / "z.csv.gz"),
                check=True)
    # Changed since: not flashlayer's any more.
    with (tmp_path / "c.csv").open("a") as f:
        f.write("9,R\n")
    p = run_cli("trace", "convert", str(t), str(tmp_path / "c.csv"))
    _one_line_error(p, "not written by flashlayer")


def test_messages_say_what_is_wrong(tmp_path: Path) -> None:
    p = run_cli("trace", "gen", "pdl-updates", "--pages", "2000", "--operations", "1000",
                "--out", str(tmp_path / "p.flt"))
    assert p.returncode == 0 and "database 2,000 pages" in p.stderr, p.stderr
    big = _csv(tmp_path / "big.csv", [(2**64, "R")])
    _one_line_error(run_cli("sim", str(big), "--policy", "lru", "--buffer", "2"), "too large")


# 8. Tables.

def test_a_table_prints_each_column_in_one_format(capsys: pytest.CaptureFixture[str]) -> None:
    from flashlayer.cli.common import print_table, share

    print_table([{"m": 0.14, "v": 13510.0, "n": 9336}, {"m": 0.138, "v": 9336.5, "n": 12},
                 {"m": 0.1395, "v": 7.0, "n": 3}], [("m", "miss ratio"), ("v", "time"), ("n", "count")])
    lines = capsys.readouterr().out.splitlines()
    cells = [line.split() for line in lines[1:]]
    assert [c[0] for c in cells] == ["0.1400", "0.1380", "0.1395"]
    assert [c[1] for c in cells] == ["13,510.000", "9,336.500", "7.000"]
    assert not any("e+" in line for line in lines)
    assert share(0.5) == "50.0%" and share(2e10) == "all, >100%"


def test_the_file_stores_table_shows_the_measured_time(tmp_path: Path) -> None:
    t = _trace(tmp_path)
    p = run_cli("sim", str(t), "--policy", "lru", "--buffer", "100000000000", "--store",
                f"file:path={tmp_path / 'db'}", check=True)
    assert "measured I/O" in p.stdout and "modelled time" in p.stdout and "(all, >100%)" in p.stdout, p.stdout
    assert "e+" not in p.stdout


def test_a_ray_cell_replays_its_trace_from_memory(tmp_path: Path) -> None:
    # What a Ray task gets: the flt bytes, replayed without writing a file.
    from flashlayer import _native, simulate

    t = _trace(tmp_path)
    flt = tmp_path / "t.flt"
    run_cli("trace", "convert", str(t), str(flt), check=True)
    mem = _native.Trace.from_flt(flt.read_bytes(), t)
    a, b = simulate(mem, "lru", 2), simulate(str(t), "lru", 2)
    assert (a["misses"], a["physical_writes"], a["trace"]) == (b["misses"], b["physical_writes"], str(t))
    with pytest.raises(_native.FlashlayerError, match="shorter than the 40-byte flt header"):
        _native.Trace.from_flt(b"nonsense", t)
