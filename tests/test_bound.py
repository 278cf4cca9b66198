"""``flashlayer bound``: a lower bound no policy beats, a schedule that
``sim --policy costopt-ub`` replays at exactly the reported upper bound,
never above Belady; WB-Landlord as a policy; ``reproduce bounds``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flashlayer.bounds import cost_bounds
from tests.conftest import assert_claim_complete, quick_section, run_cli

PG = "data/traces/pg15-tpcb-s5.csv.gz"


def test_bound_json_brackets_every_policy_and_costopt_ub_replays_the_upper_bound() -> None:
    p = run_cli("bound", PG, "--buffer", "1%,200", "--device", "ratio:1:8", "--iterations", "15",
                "--policy", "lru,cflru,fdbuffer,wblandlord,belady", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [r["buffer_pages"] for r in rows] == [96, 200]
    for r in rows:
        assert r["compulsory"] <= r["lower"] <= r["upper"] <= r["belady"]
        assert all(v["above_bound"] >= 0 for v in r["policies"].values())
        assert r["policies"]["belady"]["virtual_time"] == r["belady"]
        sim = json.loads(run_cli("sim", PG, "--policy", "costopt-ub:iterations=15", "--buffer", str(r["buffer_pages"]),
                                 "--device", "ratio:1:8", "--json", check=True).stdout)[0]
        assert sim["virtual_time"] == r["upper"]


def test_writes_cheaper_in_batches_lower_the_bound_so_clustering_cannot_beat_it() -> None:
    plain, batched = (cost_bounds(PG, [100], [d], iterations=5)[0]
                      for d in ("read=1,write=8", "read=1,write=8,seq_write=1"))
    assert batched["lower"] < plain["lower"]
    assert batched["upper"] == plain["upper"]


@pytest.mark.parametrize(("args", "message"), [
    (["sim", PG, "--policy", "costopt-lb", "--buffer", "10"], "is a lower bound on every policy's cost"),
    (["sim", PG, "--policy", "costopt-ub", "--buffer", "10", "--store", "tier:scheme=face,ssd=100"],
     "costopt-ub plans its schedule for the read and write costs of one device"),
    (["sim", PG, "--policy", "belady", "--buffer", "10", "--store", "tier:scheme=hypro,ssd=100"],
     "belady is offline, and HyPro"),
    (["bound", PG, "--buffer", "10", "--iterations", "-1"], "--iterations"),
    (["bound", PG, "--buffer", "0"], "buffer"),
    (["bound", PG, "--buffer", "10", "--device", "ratio:1:x"], "--device"),
    (["sim", PG, "--policy", "costopt-ub:iterations=x", "--buffer", "10"], "iterations"),
])
def test_bad_bound_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    p = run_cli(*args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and "Traceback" not in p.stderr


@pytest.mark.xdist_group("reproduce-bounds")
def test_reproduce_bounds_draws_a_figure_per_trace_and_ratio(tmp_path: Path) -> None:
    out = tmp_path / "r"
    results = quick_section("bounds", out)
    assert {f"bounds/{t}-1-{r}" for t in ("tpcc", "tpcb", "tatp") for r in (1, 8, 64)} <= set(results["figures"])
    assert (out / "figures" / "bounds" / "tpcc-1-64.png").stat().st_size > 10_000
    sound = next(c for c in results["claims"] if c["id"] == "bounds-sound")
    assert sound["holds"], sound["gap"]
    for c in results["claims"]:
        assert_claim_complete(c)
    fig = results["figures"]["bounds/tpcb-1-8"]
    bound = [v for v in fig["series"]["bound"] if v is not None]
    upper = [v for v in fig["series"]["costopt-ub"] if v is not None]
    assert len(bound) == 3 and all(lb <= ub for lb, ub in zip(bound, upper, strict=True))
