"""Traces from anywhere: standard input and pipes, and any csv by its
columns (``--format csv:page=...,op=...``), errors naming the line and the
column."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import flashlayer

ROOT = Path(__file__).resolve().parent.parent
CLI = str(ROOT / ".venv" / "bin" / "flashlayer")


def _sim(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, "sim", "-", "--policy", "lru", "--buffer", "2", "--json", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def _counts(stdin: str, *args: str) -> tuple[int, int, int]:
    """Requests, hits and writes of ``sim -`` on `stdin`."""
    p = _sim(stdin, *args)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    r = r[0] if isinstance(r, list) else r
    return r["requests"], r["hits"], r["writes"]


def test_a_trace_piped_to_standard_input_is_read() -> None:
    assert _counts("page,op\n1,R\n2,W\n1,R\n") == (3, 1, 1)


def test_any_csv_is_read_by_its_columns() -> None:
    assert _counts("time;type;id\n1;get;7\n2;SET;9\n3;get;7\n", "--format",
                   "csv:page=id,op=type,sep=semicolon") == (3, 1, 1)


def test_a_bad_line_is_named_with_its_column_and_exit_2() -> None:
    p = _sim("id,type\n1,get\n2,del\n", "--format", "csv:page=id,op=type")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "-:3: column 'type': op 'del' is neither a read" in p.stderr
    p = _sim("id;type\n1;get\n")
    assert p.returncode == 2 and "-: cannot tell the trace format" in p.stderr


def test_python_opens_a_csv_by_its_columns(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("7|put\n9|get\n")
    t = flashlayer.Trace.open(f, format="csv:page=1,op=2,sep=pipe,header=off")
    assert list(t) == [(7, "W"), (9, "R")]


def test_oracle_object_sizes_are_reported_and_said_to_be_unused(tmp_path: Path) -> None:
    import numpy as np

    rec = np.zeros(3, dtype=[("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    rec["id"], rec["size"], rec["next"] = [5, 6, 5], [100, 4000, 100], [2, -1, -1]
    f = tmp_path / "t.oracleGeneral.bin"
    f.write_bytes(rec.tobytes())
    assert flashlayer._native.object_sizes(f) == {"records": 3, "min": 100, "max": 4000, "mean": 1400.0}
    assert flashlayer._native.object_sizes(ROOT / "data" / "traces" / "pg15-tpcb-s5.csv.gz") is None
    p = subprocess.run([CLI, "trace", "stats", str(f), "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["object_bytes_max"] == 4000
    assert p.stderr.count("object sizes (100–4,000 bytes, mean 1,400) are not used") == 1


def test_a_column_past_the_first_line_is_named_and_a_named_op_column_means_a_header() -> None:
    p = _sim("id;kind\n1;R\n", "--format", "csv:page=9,op=kind,sep=semicolon")
    assert p.returncode == 2 and "-:1: page=9: the first line has 2 fields" in p.stderr, p.stderr
    # op named, page by position: the first line is the header.
    assert _counts("id;kind\n1;R\n1;W\n", "--format", "csv:page=1,op=kind,sep=semicolon") == (2, 1, 1)


def test_spaces_separate_as_a_run(tmp_path: Path) -> None:
    f = tmp_path / "aligned.txt"
    f.write_text("   7    R\n  12    W\n   7    R\n")
    t = flashlayer.Trace.open(f, format="csv:page=1,op=2,sep=space,header=off")
    assert list(t) == [(7, "R"), (12, "W"), (7, "R")]
