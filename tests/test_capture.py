"""`flashlayer trace capture postgres` against a real, throwaway PostgreSQL.

The capture test needs root, bpftrace and Debian's postgresql package;
`scripts/test` installs them when it runs as root and then sets
FLASHLAYER_REQUIRE_CAPTURE=1, so in CI a missing prerequisite fails the test
instead of skipping it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

REQUIRED = os.environ.get("FLASHLAYER_REQUIRE_CAPTURE") == "1"


def _prerequisites() -> str | None:
    if os.geteuid() != 0:
        return "not root"
    if shutil.which("bpftrace") is None:
        return "bpftrace missing"
    if not list(Path("/usr/lib/postgresql").glob("*/bin/postgres")):
        return "postgresql missing"
    return None


def test_capture_records_a_pgbench_run(tmp_path: Path) -> None:
    missing = _prerequisites()
    if missing:
        if REQUIRED:
            pytest.fail(f"capture prerequisites missing in CI: {missing}")
        pytest.skip(f"capture prerequisites missing: {missing}")
    out = tmp_path / "pg.flt"
    p = run_cli("trace", "capture", "postgres", "--out", str(out), "--seconds", "2", "--clients", "2", "--json", check=True)
    summary = json.loads(p.stdout)
    assert summary["requests"] > 1000
    assert summary["reads"] > 0 and summary["writes"] > 0
    s = json.loads(run_cli("trace", "stats", str(out), "--json", check=True).stdout)
    assert s["requests"] == summary["requests"] and s["writes"] == summary["writes"]
    pgbench = {name: node for name, node in summary["relations"].items() if name.startswith("pgbench_")}
    assert {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history"} <= pgbench.keys()
    # Page ids decode to (relfilenode, fork, block); pgbench's relations take
    # most requests, and every one of its tables is both read and written.
    csv = tmp_path / "pg.csv"
    run_cli("trace", "convert", str(out), str(csv), check=True)
    by_rel: dict[int, set[str]] = {}
    in_pgbench = 0
    lines = csv.read_text().splitlines()[1:]
    for line in lines:
        page, op = line.split(",")
        rel = int(page) >> 34
        by_rel.setdefault(rel, set()).add(op)
        in_pgbench += rel in pgbench.values()
    assert in_pgbench > len(lines) // 2
    for table in ("pgbench_accounts", "pgbench_branches", "pgbench_tellers"):
        assert by_rel.get(pgbench[table]) == {"R", "W"}, table


def _capture_error(env: dict[str, str]) -> str:
    cmd = [sys.executable, "-m", "flashlayer.cli", "trace", "capture", "postgres", "--out", "/tmp/never.flt"]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, cwd=ROOT, timeout=300)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flashlayer: error: trace capture postgres: "), p.stderr
    assert not Path("/tmp/never.flt").exists()
    return lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="the other checks come after the root check")
def test_capture_says_exactly_what_is_missing(tmp_path: Path) -> None:
    no_tools = str(tmp_path)
    assert "bpftrace not found" in _capture_error({"PATH": no_tools})
    if shutil.which("bpftrace"):
        assert "no PostgreSQL server" in _capture_error({"FLASHLAYER_PG_ROOT": str(tmp_path)})


def test_capture_refuses_to_run_without_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from flashlayer import capture
    from flashlayer._native import FlashlayerError

    monkeypatch.setattr(capture.os, "geteuid", lambda: 1000)
    with pytest.raises(FlashlayerError, match="needs root: bpftrace attaches uprobes"):
        capture.check_prerequisites(capture.CaptureOptions(out=tmp_path / "x.flt"))
