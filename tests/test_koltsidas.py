"""The hybrid flash + magnetic store and the cost-segment buffer from Python
and the CLI, and ``reproduce koltsidas``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flashlayer
from flashlayer import _native
from tests.conftest import assert_claim_complete, quick_section, run_cli

PG = "data/traces/pg15-tpcc-sysbench-w2.csv.gz"
HYBRID_FIELDS = {"placement", "flash_reads", "flash_writes", "magnetic_reads", "magnetic_writes", "migrations",
                 "pages_on_flash"}


def test_sim_hybrid_runs_every_placement_policy_and_buffer(tmp_path: Path) -> None:
    p = run_cli("sim", PG, "--policy", "lru,koltsidas:lambda=0.5", "--buffer", "2%,300",
                *(arg for placement in ("conservative", "optimal", "m-only")
                  for arg in ("--store", f"hybrid:placement={placement}")), "--json", check=True)
    rows = json.loads(p.stdout)
    assert [(r["placement"], r["policy"], r["buffer_pages"]) for r in rows][:2] == [
        ("conservative", "lru", rows[0]["buffer_pages"]), ("conservative", "lru", 300)]
    assert len(rows) == 3 * 2 * 2
    for r in rows:
        assert set(r) >= HYBRID_FIELDS
        assert r["device"] == "koltsidas08-flash+koltsidas08-magnetic"
        # Every page read is a read on one of the disks.
        assert r["flash_reads"] + r["magnetic_reads"] >= r["physical_reads"]
    m_only = [r for r in rows if r["placement"] == "m-only"]
    assert all(r["flash_reads"] == r["flash_writes"] == r["pages_on_flash"] == 0 for r in m_only)
    # The offline optimum is no worse than the online placement, for LRU
    # its replay costs exactly what the dynamic program says.
    for policy in ("lru", "koltsidas:lambda=0.5"):
        by = {r["placement"]: r for r in rows if r["policy"] == policy and r["buffer_pages"] == 300}
        assert by["optimal"]["virtual_time"] <= by["conservative"]["virtual_time"]
    lru_opt = next(r for r in rows if r["placement"] == "optimal" and r["policy"] == "lru")
    assert lru_opt["virtual_time"] == pytest.approx(lru_opt["optimum"])


def test_simulate_on_a_hybrid_store_keeps_its_capacity_and_refuses_bad_specs() -> None:
    r = flashlayer.simulate(PG, "lru", 300, "hybrid:placement=hybrid,capacity=50,defer=8")
    assert r["pages_on_flash"] <= 50 and r["defer"] == 8 and r["flash_capacity"] == 50
    assert r["migrations"] > 0 and r["store_name"] == "hybrid"
    with pytest.raises(flashlayer.FlashlayerError, match="give store= or its shorthand device=, not both"):
        flashlayer.simulate(PG, "lru", 300, "hybrid", device="ratio:1:8")
    with pytest.raises(flashlayer.FlashlayerError, match="store 'hybrid' has no parameter 'device'"):
        flashlayer.simulate(PG, "lru", 300, "hybrid:device=ratio:1:8")
    with pytest.raises(flashlayer.FlashlayerError, match="nosuch"):
        flashlayer.simulate(PG, "lru", 300, "hybrid:placement=nosuch")


@pytest.mark.parametrize(("args", "message"), [
    (["--store", "hybrid:placement=nosuch"],
     "bad value 'nosuch' for 'placement'; expected conservative, optimistic, hybrid, optimal"),
    (["--store", "hybrid:placement=hybrid,capacity=0"], "bad value '0' for 'capacity'; expected a whole number"),
    (["--store", "hybrid", "--device", "ratio:1:4"], "--store and --device both name the store"),
    (["--store", "hybrid:magnetic=nosuchdevice"], "magnetic: unknown device 'nosuchdevice'"),
    (["--store", "hybrid", "--store", "hybrid:placement=hybrid"], "given twice"),
    (["--hybrid", "hybrid"], "--hybrid: stores are set by their spec: --store hybrid:placement=P"),
    (["--flash", "koltsidas08-flash"], "--flash: stores are set by their spec: --store hybrid:flash=SPEC"),
    (["--flash-capacity", "10"], "--flash-capacity: stores are set by their spec: --store hybrid:capacity=P"),
    (["--defer", "4"], "--defer: stores are set by their spec: --store hybrid:defer=N"),
])
def test_bad_hybrid_options_are_one_line_errors(small_csv: Path, args: list[str], message: str) -> None:
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", *args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.parametrize("spec", ["koltsidas:lambda=2", "koltsidas:lambda=-0.1", "koltsidas:lambda=0.5,epoch=3",
                                  "koltsidas:epoch=0"])
def test_bad_lambda_is_an_error(small_csv: Path, spec: str) -> None:
    p = run_cli("sim", str(small_csv), "--policy", spec, "--buffer", "2")
    assert p.returncode == 2 and "koltsidas" in p.stderr, p.stderr


def test_hybrid_sequence_empties_the_pool_and_places_the_read_pages() -> None:
    r = _native.hybrid_sequence([{"read_only": 1.0, "queries": 2000}], [0] * 6, "optimistic", records=20_000,
                                buffer_pages=100)
    runs = r["runs"]
    assert len(runs) == 6 and r["tree_pages"] > 500
    # Every execution starts cold: as many misses each time.
    assert len({x["misses"] for x in runs}) == 1
    # Optimistic moves read pages to flash at their first eviction; later
    # executions read from flash and cost less.
    assert runs[0]["pages_on_flash"] > 0.5 * r["tree_pages"]
    assert runs[-1]["virtual_time"] < 0.2 * runs[0]["virtual_time"]
    with pytest.raises(flashlayer.FlashlayerError, match="names query set 3"):
        _native.hybrid_sequence([{"queries": 10}], [3], records=1000, buffer_pages=10)
    with pytest.raises(flashlayer.FlashlayerError, match="workload 'btree' has no parameter 'nosuch'"):
        _native.hybrid_sequence([{"nosuch": 1}], [0], records=1000, buffer_pages=10)


@pytest.mark.xdist_group("reproduce-koltsidas")
def test_reproduce_koltsidas_draws_the_papers_figures_and_states_its_claims(tmp_path: Path) -> None:
    out = tmp_path / "k"
    saved = quick_section("koltsidas", out)
    figs = saved["figures"]
    want = {"fig9a", "fig9b", "fig10a", "fig10b", "fig11", "fig12", "fig11-flash", "fig12-flash", "totals-seq1",
            "totals-seq2", "fig13", "fig14a", "fig14b", "seq2-vs-reads"}
    assert {f"koltsidas/{w}" for w in want} == set(figs)
    # Sequence 2 at fewer queries a set: more reads a page to the right, Fig. 12's own run the last point.
    reads = figs["koltsidas/seq2-vs-reads"]["x"]
    assert len(reads) == 4 and reads == sorted(reads)
    assert set(figs["koltsidas/seq2-vs-reads"]["series"]) == {"conservative", "hybrid", "optimistic", "M-only"}
    # Fig. 14's I/O at every λ: the table behind its why.
    io = saved["tables"]["koltsidas/fig14b-io"]
    assert [r[0] for r in io["rows"]] == figs["koltsidas/fig14b"]["x"]
    assert set(figs["koltsidas/fig9a"]["series"]) == {"F", "M", "M/F"}
    assert set(figs["koltsidas/fig11"]["series"]) == {"conservative", "optimistic", "hybrid", "optimal"}
    assert figs["koltsidas/totals-seq1"]["categories"] == ["optimal", "optimistic", "hybrid", "conservative",
                                                           "M-only", "F-only"]
    assert len(figs["koltsidas/fig11"]["x"]) == 40 and len(figs["koltsidas/fig12"]["x"]) == 18
    assert set(figs["koltsidas/fig14a"]["series"]) == {"cost segment", "LRU", "lambda=auto"}
    # LRU is the cost segment at λ = 0.
    assert figs["koltsidas/fig14a"]["series"]["cost segment"][0] == figs["koltsidas/fig14a"]["series"]["LRU"][0]
    claims = {c["id"]: c for c in saved["claims"]}
    assert {"koltsidas-seq1-order", "koltsidas-seq2-order", "koltsidas-seq1-distance-to-optimum",
            "koltsidas-seq2-distance-to-optimum", "koltsidas-fig14-a-best-lambda-gain",
            "koltsidas-fig14-b-lambda-auto-near-best", "koltsidas-seq1-adapt-quickly-to-updates",
            "koltsidas-fig13-migrations-constant-across-mixes"} <= set(claims)
    # §6.1's migrations marked where the paper's text puts them.
    assert figs["koltsidas/fig9a"]["paper_x"] == {"M/F's pages migrate: 4th and 7th": [4.0, 7.0]}
    for c in claims.values():
        assert c["source"].startswith("Koltsidas")
        assert_claim_complete(c)
    for fid in figs:
        assert (out / "figures" / f"{fid}.png").stat().st_size > 1000


def test_adapting_to_updates_counts_the_fall_made_in_the_first_three_update_executions() -> None:
    """§6.2: 'all algorithms adapt very quickly to the update workload'.
    Three read executions, then four update executions: a placement that
    makes 90 of its 100 pages' fall by the third update execution adapts
    quickly; one that makes 30 does not, and the why sets the read phase's
    rise beside it."""
    from flashlayer.experiments.koltsidas import _adapt_claim

    seq = [0, 0, 0, 1, 1, 1, 1]
    quick = {"conservative": [40, 80, 100, 40, 20, 10, 0], "optimistic": [100, 100, 100, 10, 10, 10, 0]}
    assert _adapt_claim(seq, quick)["holds"]
    slow = _adapt_claim(seq, {**quick, "hybrid": [20, 60, 100, 90, 80, 70, 0]})
    assert not slow["holds"] and slow["gap"] == "hybrid 30%"
    assert "koltsidas/fig11-flash" in slow["why"]
    # The read phase rose 20, 60, 100: all of it by its third execution.
    assert "initial read phase" in slow["why"] and "hybrid 100%" in slow["why"]


def test_migrations_constant_across_mixes_within_a_tenth_of_their_mean() -> None:
    """§6.3: at each interesting-set size, every mix's pages on flash within
    ±10% of the mixes' mean; the why gives the read-mostly mixes' spread."""
    from flashlayer.experiments.koltsidas import _constant_claim

    mixes = [0.9, 0.7, 0.3]
    even = {"a": [100, 200], "b": [105, 190], "c": [95, 210]}
    assert _constant_claim(even, [0.1, 1.0], mixes)["holds"]
    uneven = {"a": [100, 200], "b": [50, 200], "c": [10, 200]}
    c = _constant_claim(uneven, [0.1, 1.0], mixes)
    assert not c["holds"] and c["gap"] == "not constant at 10%"
    assert "at least 70% read" in c["why"] and "±33% at 10%" in c["why"]
