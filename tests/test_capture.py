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
from typing import Any

import pytest

from conftest import ROOT, run_cli

REQUIRED = os.environ.get("FLASHLAYER_REQUIRE_CAPTURE") == "1"

#: One capture at a time: a capture fails if bpftrace loses events, which a
#: second server busy beside it makes likelier.
pytestmark = pytest.mark.xdist_group("postgres")


def _prerequisites() -> str | None:
    if os.geteuid() != 0:
        return "not root"
    if shutil.which("bpftrace") is None:
        return "bpftrace missing"
    if not list(Path("/usr/lib/postgresql").glob("*/bin/postgres")):
        return "postgresql missing"
    return None


def needs_capture() -> None:
    """Skips the test where a capture cannot run, or fails it in CI, where
    ``scripts/test`` installs what captures need."""
    missing = _prerequisites()
    if missing:
        if REQUIRED:
            pytest.fail(f"capture prerequisites missing in CI: {missing}")
        pytest.skip(f"capture prerequisites missing: {missing}")


def test_capture_records_a_pgbench_run(tmp_path: Path) -> None:
    needs_capture()
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


def _ops_by_relation(out: Path, tmp_path: Path) -> dict[int, set[str]]:
    """The operations each relation (by filenode) saw in a captured trace."""
    csv = tmp_path / "trace.csv"
    run_cli("trace", "convert", str(out), str(csv), check=True)
    ops: dict[int, set[str]] = {}
    for line in csv.read_text().splitlines()[1:]:
        page, op = line.split(",")
        ops.setdefault(int(page) >> 34, set()).add(op)
    return ops


def _capture(tmp_path: Path, workload: str, *args: str) -> tuple[dict[str, Any], Path]:
    """Captures `workload` with `args` into a trace under `tmp_path`:
    its JSON summary, checked to name the workload, and the trace."""
    needs_capture()
    out = tmp_path / f"{workload}.flt"
    p = run_cli("trace", "capture", "postgres", "--workload", workload, *args, "--out", str(out), "--json", check=True)
    summary: dict[str, Any] = json.loads(p.stdout)
    assert summary["workload_name"] == workload
    return summary, out


def test_capture_records_tatp_as_pgbench_scripts(tmp_path: Path) -> None:
    summary, out = _capture(tmp_path, "tatp", "--subscribers", "3000", "--seconds", "2", "--clients", "2")
    assert any("get_subscriber_data.sql@35" in part for part in summary["workload"])
    tables = {"subscriber", "access_info", "special_facility", "call_forwarding"}
    assert tables <= summary["relations"].keys()
    ops = _ops_by_relation(out, tmp_path)
    # Every TATP table is read; the subscriber table is also updated
    # (UPDATE_LOCATION, 14% of the mix).
    for t in tables:
        assert "R" in ops.get(summary["relations"][t], set()), t
    assert ops[summary["relations"]["subscriber"]] == {"R", "W"}


def test_capture_records_tpcc_transactions_on_every_table_they_touch(tmp_path: Path) -> None:
    summary, out = _capture(tmp_path, "tpcc", "--warehouses", "1", "--seconds", "3", "--clients", "2")
    assert any("new_order.sql@45" in part for part in summary["workload"])
    assert "warehouses=1" in summary["workload"]
    ops = _ops_by_relation(out, tmp_path)
    rel = summary["relations"]
    # New-Order, Payment and Delivery modify these; items are only read.
    for t in ("warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "stock"):
        assert ops.get(rel[t]) == {"R", "W"}, t
    assert ops[rel["item"]] == {"R"}
    # Order-Status and Payment find customers by last name through its index.
    assert "R" in ops.get(rel["customer_by_name"], set())


def test_capture_records_a_bank_run_of_a_fixed_number_of_transactions(tmp_path: Path) -> None:
    """CASA's bank stand-in: TPC-B's transaction on skewed accounts, run
    for the transactions asked, split over the clients."""
    summary, out = _capture(tmp_path, "bank", "--scale", "1", "--skew", "20", "--transactions", "400", "--clients", "2")
    run = summary["workload"]
    assert run[run.index("-t") + 1] == "200" and "-T" not in run
    assert "skew=20.0" in run and run[-1].endswith("bank/transfer.sql")
    ops = _ops_by_relation(out, tmp_path)
    rel = summary["relations"]
    for t in ("pgbench_accounts", "pgbench_tellers", "pgbench_branches", "pgbench_history"):
        assert ops.get(rel[t]) == {"R", "W"}, t


def test_capture_refuses_a_skew_of_zero() -> None:
    p = run_cli("trace", "capture", "postgres", "--workload", "bank", "--skew", "0", "--out", "x.flt")
    assert p.returncode == 2 and "--skew must be in > 0.0" in p.stderr


def test_capture_records_tpch_queries_reading_every_table(tmp_path: Path) -> None:
    summary, out = _capture(tmp_path, "tpch", "--scale-factor", "0.01")
    assert summary["workload"][-1].endswith("tpch/queries.sql")
    ops = _ops_by_relation(out, tmp_path)
    for t in ("region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"):
        assert ops.get(summary["relations"][t]) == {"R"}, t


def test_capture_refuses_a_scale_factor_below_its_floor() -> None:
    p = run_cli("trace", "capture", "postgres", "--workload", "tpch", "--scale-factor", "0", "--out", "x.flt")
    assert p.returncode == 2 and "--scale-factor" in p.stderr


STRACE_REQUIRED = REQUIRED  # scripts/test installs strace with the capture tools


def test_capture_strace_turns_file_reads_and_writes_into_page_requests(tmp_path: Path) -> None:
    if shutil.which("strace") is None:
        if STRACE_REQUIRED:
            pytest.fail("strace missing in CI")
        pytest.skip("strace missing")
    data = tmp_path / "data.bin"
    script = (
        "import os\n"
        f"fd = os.open({str(data)!r}, os.O_CREAT | os.O_RDWR)\n"
        "os.write(fd, b'x' * 10000)\n"            # pages 0, 1, 2
        "os.pwrite(fd, b'y' * 100, 40960)\n"      # page 10
        "os.lseek(fd, 4096, 0)\n"
        "os.read(fd, 4096)\n"                     # page 1
        "os.close(fd)\n"
    )
    out = tmp_path / "t.csv"
    p = run_cli("trace", "capture", "strace", "--out", str(out), "--json", "--", sys.executable, "-B", "-c",
                script, check=True)
    summary = json.loads(p.stdout)
    assert summary["files"] >= 1 and summary["processes"] >= 1
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    writes = [int(page) for page, op in rows if op == "W"]
    assert len(writes) == 4 and len({w >> 32 for w in writes}) == 1, writes
    file = writes[0] >> 32
    assert sorted(w & 0xFFFF_FFFF for w in writes) == [0, 1, 2, 10]
    reads = [int(page) & 0xFFFF_FFFF for page, op in rows if op == "R" and int(page) >> 32 == file]
    assert reads == [1]


def test_capture_strace_needs_a_command() -> None:
    p = run_cli("trace", "capture", "strace", "--out", "/tmp/never.csv")
    assert p.returncode == 2 and "give the command to trace after --" in p.stderr
