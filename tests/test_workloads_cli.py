"""`flashlayer trace gen <workload>`: flags, outputs, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from flashlayer import _native


@pytest.mark.parametrize(
    ("workload", "flags"),
    [
        ("tpcc", ["--transactions", "300"]),
        ("tpcb", ["--transactions", "300"]),
        ("tatp", ["--transactions", "300"]),
        ("tpch", ["--scale-factor", "0.001", "--queries", "10"]),
        ("btree", ["--records", "3000", "--queries", "500", "--read-only", "0.4", "--update-only", "0.4"]),
        ("pdl-updates", ["--pages", "100", "--operations", "300", "--updates-till-write", "2"]),
    ],
)
def test_each_workload_writes_a_trace_and_reports(tmp_path: Path, workload: str, flags: list[str]) -> None:
    out = tmp_path / f"{workload}.flt"
    p = run_cli("trace", "gen", workload, *flags, "--seed", "3", "--with-bytes", "--out", str(out), "--json", check=True)
    r = json.loads(p.stdout)
    assert r["workload"] == workload and r["seed"] == 3 and r["requests"] > 0
    s = json.loads(run_cli("trace", "stats", str(out), "--json", check=True).stdout)
    assert s["requests"] == r["requests"]
    # Defaults are reported with the parameters actually used.
    assert r["params"]["page_size"] in (2048, 4096, 8192)


def test_tpcc_flags_reach_the_engine(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    p = run_cli("trace", "gen", "tpcc", "--transactions", "200", "--mix", "0,100,0,0,0", "--seed", "1", "--out", str(out), "--json", check=True)
    r = json.loads(p.stdout)
    assert r["summary"]["payment"] == 200 and r["summary"]["new_order"] == 0
    assert out.read_text().startswith("page,op\n")


def test_with_bytes_csv_has_the_changed_column(tmp_path: Path) -> None:
    out = tmp_path / "p.csv"
    run_cli("trace", "gen", "pdl-updates", "--pages", "10", "--operations", "5", "--with-bytes", "--out", str(out), check=True)
    lines = out.read_text().splitlines()
    assert lines[0] == "page,op,changed"
    assert all(line.split(",")[1] == "W" and ":" in line.split(",")[2] for line in lines[1:])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["tpcc", "--warehouses", "0"], "workload 'tpcc': bad value '0' for 'warehouses'; expected a whole number from 1 to 4294967295"),
        (["tpcc", "--mix", "50,50,4,4,4"], "summing to 100"),
        (["tpch", "--mix", "0.5,0.5,0.5"], "summing to 1"),
        (["btree", "--read-prob", "-0.2"], "workload 'btree': bad value '-0.2' for 'read_prob'; expected a fraction from 0 to 1"),
        (["btree", "--read-only", "0.7", "--update-only", "0.7", "--records", "10"], "exceed 1"),
        (["pdl-updates", "--changed-share", "1.5"], "bad value '1.5' for 'changed_share'; expected a fraction above 0, at most 1"),
        (["tatp", "--page-size", "100"], "bad value '100' for 'page_size'; expected a whole number from 512 to 32768"),
        (["tpcc", "--page-size", "70000"], "bad value '70000' for 'page_size'; expected a whole number from 512 to 32768"),
    ],
)
def test_nonsense_workload_parameters_are_one_line_errors(tmp_path: Path, args: list[str], needle: str) -> None:
    out = tmp_path / "x.flt"
    p = run_cli("trace", "gen", *args, "--out", str(out))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flashlayer: error: ") and needle in lines[0], p.stderr
    assert not out.exists()


def test_workload_specs_and_flags_are_one_grammar_with_the_engines_defaults(tmp_path: Path) -> None:
    rows = {r["name"]: r for r in json.loads(run_cli("list", "workloads", "--json", check=True).stdout)}
    assert set(rows) == {"tpcc", "tpcb", "tatp", "tpch", "btree", "pdl-updates"}
    assert {p["key"]: p["default"] for p in rows["tpcc"]["params"]} == {
        "warehouses": "1", "transactions": "100000", "mix": "45/43/4/4/4", "page_size": "8192"}
    a, b = tmp_path / "a.flt", tmp_path / "b.flt"
    flags = json.loads(run_cli("trace", "gen", "tpcb", "--transactions", "300", "--branches", "2", "--seed", "3",
                               "--out", str(a), "--json", check=True).stdout)
    assert flags["spec"] == "tpcb:branches=2,transactions=300,page_size=8192"
    spec = _native.gen_workload("tpcb:transactions=300,branches=2", b, 3)
    assert spec["spec"] == flags["spec"] and a.read_bytes() == b.read_bytes(), "a spec and its flags are the same run"
