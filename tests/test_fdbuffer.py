"""FD-Buffer and CFDC from Python and the CLI, and ``reproduce fdbuffer``."""

from __future__ import annotations

from pathlib import Path

import pytest

import flashlayer
from tests.conftest import assert_claim_complete, quick_section


@pytest.mark.parametrize("spec", ["fdbuffer:mc=-1", "fdbuffer:mc=1.5", "fdbuffer:clean=nosuch",
                                  "fdbuffer:clean=belady", "cfdc:cluster=-3", "fdbuffer:mc=5,epoch=10"])
def test_bad_pool_specs_are_flashlayer_errors(small_csv: Path, spec: str) -> None:
    with pytest.raises(flashlayer.FlashlayerError, match=spec.split(":")[0]):
        flashlayer.simulate(small_csv, spec, 2)


def test_fdbuffer_samples_its_split_over_time() -> None:
    r = flashlayer.simulate("data/traces/pg15-tpcc-sysbench-w2.csv.gz", "fdbuffer:epoch=1000", 300,
                            device="fdbuffer-mtron", series_every=20_000)
    state = r["series"]["state"]
    assert set(state) == {"mc", "clean", "dirty"}
    assert all(c is not None and d is not None and c + d <= 300 for c, d in zip(state["clean"], state["dirty"],
                                                                             strict=True))
    assert len(set(state["mc"])) > 1, "mc=auto moves M_c on this trace"


@pytest.mark.xdist_group("reproduce-fdbuffer")
def test_reproduce_fdbuffer_reports_table_1_figures_and_claims(tmp_path: Path) -> None:
    out = tmp_path / "fd"
    saved = quick_section("fdbuffer", out)
    figs = saved["figures"]
    assert {"fdbuffer/fig1", "fdbuffer/mc"} <= set(figs)
    assert set(figs["fdbuffer/fig1"]["series"]) == {"LRU", "CFLRU", "CFDC", "FD-Buffer", "FD-Buffer+clustering",
                                                    "WB-Landlord", "bound"}
    assert figs["fdbuffer/fig1"]["x"] == [1.1, 5.8, 39.6, 121.3]
    table = saved["tables"]["fdbuffer/table1"]["rows"]
    assert table[-1] == ["after warm-up", "6 reads", "2 writes", "8 reads", "1 writes"]
    assert [r[3] for r in table[2:11]] == ["miss"] * 7 + ["hit", "miss"]
    claims = {c["id"]: c for c in saved["claims"]}
    assert claims["fdbuffer-table1-exactly"]["holds"]
    assert {"fdbuffer-gain-grows-with-asymmetry", "fdbuffer-mc-auto-near-best-fixed", "fdbuffer-beats-cflru",
            "fdbuffer-clustered-beats-cfdc", "fdbuffer-hdd-like-lru"} <= set(claims)
    for c in claims.values():
        assert_claim_complete(c)
        assert c["source"].startswith("FD-Buffer") or c["id"].endswith("-above-bound"), c["id"]
    # Every figure of cost per access carries the lower bound, and no policy
    # lies below it.
    for fid in ("fdbuffer/fig1", "fdbuffer/fig1-tpcc", "fdbuffer/fig1-tpcb-pg", "fdbuffer/fig1-tatp"):
        assert claims[f"{fid.replace('/', '-')}-above-bound"]["holds"], fid
    for fid in figs:
        assert (out / "figures" / f"{fid}.png").stat().st_size > 1000
