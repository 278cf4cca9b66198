"""Cost curves of any policy by sampling (`flashlayer.curves.policy_curve`,
``flashlayer curve --policy P --sample R``): a replay per size on a spatial
sample of the pages, counts scaled by 1/R, against the full replays, on the
shipped bank trace and libCacheSim's Twitter trace (a million requests or
more each)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import flashlayer
from flashlayer import FlashlayerError, compare
from flashlayer.curves import SAMPLED_FLOOR, policy_curve

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "data" / "traces" / "pg15-bank-s100.csv.gz"
#: The stated accuracy at a 1% sample (docs/POLICIES.md): mean absolute
#: error of the miss ratio, mean relative error of the virtual time.
MISS_RATIO_MAE = 0.01
TIME_MRE = 0.03


def _errors(trace: flashlayer.Trace, policy: str) -> tuple[float, float, dict[str, object]]:
    s = policy_curve(trace, policy, device="ratio:1:8", sample=0.01, points=12)
    e = policy_curve(trace, policy, device="ratio:1:8", sizes=s["sizes"])
    mr = np.abs(np.array(s["miss_ratio"]) - np.array(e["miss_ratio"])).mean()
    vt = np.abs(np.array(s["virtual_time"]["ratio:1:8"]) / np.array(e["virtual_time"]["ratio:1:8"]) - 1).mean()
    return float(mr), float(vt), s


@pytest.mark.parametrize("policy", ["lru", "clock", "arc", "s3fifo", "cflru", "lirs", "casa"])
def test_a_one_percent_sample_of_the_bank_trace_is_within_the_stated_error(policy: str) -> None:
    t = flashlayer.Trace.open(BANK)
    mr, vt, s = _errors(t, policy)
    assert mr <= MISS_RATIO_MAE and vt <= TIME_MRE, (policy, mr, vt)
    assert s["sizes"][0] == round(SAMPLED_FLOOR / s["rate"]) and s["sizes"][-1] == t.pages
    assert s["requests"] == len(t) and 0 < s["sampled"] < len(t)


@pytest.fixture(scope="module")
def twitter(tmp_path_factory: pytest.TempPathFactory) -> flashlayer.Trace:
    """libCacheSim's Twitter trace (10M requests), converted once."""
    flt = tmp_path_factory.mktemp("twitter") / "twitter.flt"
    flashlayer._native.convert(compare.fetch_twitter(quiet=True), flt, "oracle", "flt", None)
    return flashlayer.Trace.open(flt)


@pytest.mark.xdist_group("policy-curve-twitter")
@pytest.mark.parametrize("policy", ["lru", "arc", "s3fifo"])
def test_a_one_percent_sample_of_libcachesims_twitter_trace_is_within_the_stated_error(
        policy: str, twitter: flashlayer.Trace) -> None:
    mr, vt, _ = _errors(twitter, policy)
    assert mr <= MISS_RATIO_MAE and vt <= TIME_MRE, (policy, mr, vt)


def test_the_exact_policy_curve_is_the_sweep_and_lrus_is_the_one_pass_curve() -> None:
    t = flashlayer.Trace.open(ROOT / "data" / "traces" / "pg15-tpcb-s5.csv.gz")
    sizes = [10, 100, 1000]
    e = policy_curve(t, "lru", device="ratio:1:8", sizes=sizes)
    one_pass = flashlayer.lru_curve(t, ["ratio:1:8"], sizes=sizes)
    assert e["misses"] == one_pass["misses"] and e["writebacks"] == one_pass["writebacks"]
    rows = flashlayer.sweep(t, ["arc"], sizes, device="ratio:1:8")
    a = policy_curve(t, "arc", device="ratio:1:8", sizes=sizes)
    assert a["miss_ratio"] == [r["miss_ratio"] for r in rows]


def test_a_sampled_curve_refuses_what_would_not_shrink_with_the_sample() -> None:
    with pytest.raises(FlashlayerError, match="ssd=P%"):
        policy_curve(BANK, "lru", "tier:ssd=500", sample=0.01)
    with pytest.raises(FlashlayerError, match="not both"):
        policy_curve(BANK, "lru", sample=0.01, sample_size=100)


def test_curve_cli_with_a_policy_prints_json_and_draws(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flashlayer.cli import main

    png = tmp_path / "c.png"
    assert main(["curve", str(BANK), "--policy", "cflru", "--sample", "0.01", "--points", "4",
                 "--device", "ratio:1:8", "--plot", str(png), "--json"]) in (0, None)
    r = json.loads(capsys.readouterr().out)
    assert r["policy"].startswith("cflru") and len(r["sizes"]) == 4 and not r["exact"] and png.stat().st_size > 0
    with pytest.raises(SystemExit) as e:
        main(["curve", str(BANK), "--store", "ftl"])
    assert e.value.code == 2 and "--store needs --policy" in capsys.readouterr().err


def test_a_sampled_curve_refuses_sizes_below_its_resolution() -> None:
    trace = ROOT / "data" / "traces" / "pg15-tpcb-s5.csv.gz"
    with pytest.raises(FlashlayerError, match=r"a sampled buffer of 10 pages holds 1 sampled pages, below the 100 .* "
                       r"the smallest accurate size is 10203 pages"):
        policy_curve(trace, "lru", sample=0.01, sizes=[10, 96])
    exact = policy_curve(trace, "lru", sizes=[10, 96])
    assert exact["miss_ratio"][0] > exact["miss_ratio"][1]
