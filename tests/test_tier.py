"""The DRAM / SSD / disk hierarchy (HyPro, TAC, FaCE, lazy cleaning) from
Python and the CLI, and ``reproduce hypro``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flashlayer
from flashlayer.tiers import SCHEMES, scheme_list, sweep_tier
from tests.conftest import run_cli

PG = "data/traces/pg15-tpcb-s5.csv.gz"
TIER_FIELDS = {"scheme", "ssd_pages", "ssd_reads", "ssd_writes", "hdd_reads", "hdd_writes", "elevations", "sinks",
               "io_time", "ssd_hits", "hdd_misses", "cleanings"}


def test_sim_tier_runs_every_scheme_and_size_with_the_issue_fields() -> None:
    p = run_cli("sim", PG, "--tier", "hypro:p_sink=0.15,seed=1,tac,face,lc:dirty=0.5", "--buffer", "1%",
                "--ssd", "1.25%,20%", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [r["scheme_name"] for r in rows] == ["hypro", "hypro", "tac", "tac", "face", "face", "lc", "lc"]
    assert rows[0]["scheme"] == "hypro:p_sink=0.15,p_elevate=auto,seed=1,window=10000,ssd=lru"
    for r in rows:
        assert TIER_FIELDS <= set(r)
        assert r["device"] == "hypro-ssd+hypro-hdd" and r["policy"] == "lru"
        assert r["hits"] + r["ssd_hits"] + r["hdd_misses"] == r["requests"]
        # The total I/O time is each device's operations at Table 4's prices.
        ssd = r["ssd_reads"] * 271 + r["ssd_writes"] * 803
        hdd = r["hdd_reads"] * 12700 + r["hdd_writes"] * 13700
        assert r["io_time"] == pytest.approx(ssd + hdd)
    small, large = rows[2], rows[3]
    assert small["ssd_pages"] < large["ssd_pages"]
    assert large["io_time"] < small["io_time"], "a larger SSD saves disk time for TAC"
    tac = [r for r in rows if r["scheme_name"] == "tac"]
    assert all(r["ssd_dirty"] == 0 and r["cleanings"] == 0 for r in tac), "TAC writes through"


def test_sim_tier_prints_a_table_with_the_devices() -> None:
    p = run_cli("sim", PG, "--tier", "face", "--buffer", "1%", "--ssd", "5%", "--ssd-device", "hypro-ssd-lowend",
                check=True)
    assert "SSD hypro-ssd-lowend: read 271, write 2012" in p.stdout
    assert "FaCE(group=64, second_chance=on)" in p.stdout


def test_simulate_tier_matches_sweep_tier_and_is_reproducible_by_seed() -> None:
    a = flashlayer.simulate(PG, "lru", "1%", tier="hypro:seed=3", ssd_pages="5%", series_every=50_000)
    b = sweep_tier(PG, ["hypro:seed=3"], ["1%"], ["5%"])[0]
    for key in ("io_time", "ssd_reads", "hdd_writes", "elevations", "sinks", "p_sink", "p_elevate"):
        assert a[key] == b[key], key
    assert a["buffer_spec"] == "1%" and a["ssd_spec"] == "5%"
    series = a["tier_series"]
    assert len(series["requests"]) == len(series["state"]["p_sink"]) > 5
    c = flashlayer.simulate(PG, "lru", "1%", tier="hypro:seed=4,p_sink=0.5,p_elevate=0.1", ssd_pages="5%")
    d = flashlayer.simulate(PG, "lru", "1%", tier="hypro:seed=5,p_sink=0.5,p_elevate=0.1", ssd_pages="5%")
    assert c["io_time"] != d["io_time"], "a different seed draws differently"


def test_simulate_tier_refuses_settings_that_do_not_apply() -> None:
    with pytest.raises(flashlayer.FlashlayerError, match="needs ssd_pages"):
        flashlayer.simulate(PG, "lru", "1%", tier="lc")
    with pytest.raises(flashlayer.FlashlayerError, match="apply with tier="):
        flashlayer.simulate(PG, "lru", "1%", ssd_pages=100)
    with pytest.raises(flashlayer.FlashlayerError, match="do not apply"):
        flashlayer.simulate(PG, "lru", "1%", tier="lc", ssd_pages=100, device="ratio:1:4")


def test_scheme_lists_continue_parameters_and_write_out_defaults() -> None:
    assert scheme_list("hypro:p_sink=0.1,seed=2,lc,dirty=0.3") == [
        "hypro:p_sink=0.1,p_elevate=auto,seed=2,window=10000,ssd=lru", "lc:dirty=0.3,ssd=lru"]
    assert scheme_list(list(SCHEMES))[1:] == ["tac:extent=32", "face:group=64,second_chance=on", "lc:dirty=0.5,ssd=lru"]
    with pytest.raises(flashlayer.FlashlayerError, match="continues no scheme"):
        scheme_list("dirty=0.5")
    with pytest.raises(flashlayer.FlashlayerError, match="given twice"):
        scheme_list("lc,lc")


@pytest.mark.parametrize(("args", "message"), [
    (["--tier", "hypro:p_sink=1.5", "--ssd", "5%"], "p_sink must be 'auto' or a probability in [0, 1]"),
    (["--tier", "hypro", "--ssd", "0"], "--ssd: an SSD size must be at least 1 page"),
    (["--tier", "nosuch", "--ssd", "5%"], "unknown scheme 'nosuch'"),
    (["--tier", "lc"], "--tier needs --ssd"),
    (["--ssd", "5%", "--policy", "lru"], "--ssd applies with --tier"),
    (["--tier", "lc", "--ssd", "5%", "--device", "ratio:1:4"], "--device does not apply with --tier"),
    (["--tier", "lc", "--ssd", "5%", "--hdd-device", "nosuch"], "--hdd-device"),
    (["--tier", "hypro:ssd=clock", "--ssd", "5%"], "use ssd=lru or ssd=fifo"),
    ([], "--policy is required"),
])
def test_sim_tier_bad_values_give_one_line_and_exit_2(args: list[str], message: str) -> None:
    p = run_cli("sim", PG, "--buffer", "1%", *args)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr


def test_reproduce_hypro_draws_the_papers_figures_and_states_its_claims(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    run_cli("reproduce", "hypro", "--quick", "--out", str(out), check=True)
    results = json.loads((out / "results.json").read_text())
    names = {f.split("/", 1)[1] for f in results["figures"] if f.startswith("hypro/")}
    assert {"fig5a", "fig5b", "fig6a", "fig6b", "fig6c", "tuning"} <= names
    for name in names:
        assert (out / "figures" / "hypro" / f"{name}.png").stat().st_size > 10_000
    claims = {c["id"]: c for c in results["claims"] if c["paper"] == "hypro"}
    assert {"hypro-most-settings", "hypro-up-to-half", "hypro-best-p-sink", "hypro-best-p-elevate",
            "hypro-tac-small-ssd-tpcb", "hypro-auto-within-5pct"} <= set(claims)
    for c in claims.values():
        assert c["paper_value"] and c["ours"] and (c["holds"] or c["gap"])
    fig6 = results["figures"]["hypro/fig6c"]
    assert set(fig6["series"]) == {"HyPro", "TAC", "FaCE", "LC"} and fig6["x"] == [1.25, 2.5, 5.0, 10.0, 20.0]
    checks = {c["id"]: c for c in results["checks"] if c["id"].startswith("hypro-")}
    assert all(c["holds"] for c in checks.values()), checks


def test_list_schemes_names_every_scheme_with_its_defaults() -> None:
    rows = json.loads(run_cli("list", "schemes", "--json", check=True).stdout)
    assert [r["name"] for r in rows] == list(SCHEMES)
    assert "default 0.5" in rows[3]["description"] and "from 0.2" in rows[0]["description"]
