"""``flashlayer trace analyze`` and the reductions of ``flashlayer report``:
hand-worked traces, and the figures written where asked and nowhere else."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import flashlayer
from flashlayer.analyze import analyze
from flashlayer.reductions import reductions

ROOT = Path(__file__).resolve().parent.parent


def test_reuse_times_and_first_references_of_a_hand_worked_trace() -> None:
    # 1 2 1 3 2 1: reads at 0,1,3,4 and writes at 2 (page 1, reuse 2) and 5 (page 1, reuse 3).
    t = flashlayer.trace_of([(1, "R"), (2, "R"), (1, "W"), (3, "R"), (2, "R"), (1, "W")])
    a = analyze(t, windows=2)
    assert a["first_references"] == 3
    # Reads: page 2 again after 3 requests (bin [2, 4)); writes: after 2 and 3 (both in [2, 4)).
    assert a["reuse_time"]["reads"] == {"lower": [1, 2], "count": [0, 1]}
    assert a["reuse_time"]["writes"] == {"lower": [1, 2], "count": [0, 2]}
    assert a["over_time"] == {"end": [3, 6], "write_share": [1 / 3, 1 / 3], "working_set": [2, 3],
                              "first_references": [2, 1]}
    # Stack distances: 1 (d=2), 1 (d=3), 2 (d=3): 1 hit within 2 pages, 3 within 3.
    sd = dict(zip(a["stack_distance"]["sizes"], a["stack_distance"]["hits_within"], strict=True))
    assert sd[2] == 1 and sd[3] == 3


def test_the_zipf_fit_finds_the_exponent_of_a_zipf_trace() -> None:
    z = flashlayer.generate("zipf", requests=400_000, pages=50_000, alpha=0.9, write_ratio=0.2)
    a = analyze(z)
    assert a["popularity"]["alpha"] == pytest.approx(0.9, abs=0.1) and a["popularity"]["r2"] > 0.95
    assert sum(a["over_time"]["first_references"]) == a["first_references"] == a["distinct_pages"]
    assert np.mean(a["over_time"]["write_share"]) == pytest.approx(0.2, abs=0.01)


def test_trace_analyze_cli_writes_its_figures_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flashlayer.cli import main

    trace = ROOT / "data" / "traces" / "pg15-tpcb-s5.csv.gz"
    main(["trace", "analyze", str(trace), "--plot", str(tmp_path / "shape"), "--json"])
    r = json.loads(capsys.readouterr().out)
    assert r["requests"] == len(flashlayer.Trace.open(trace)) and len(r["over_time"]["end"]) == 100
    assert sorted(p.name for p in (tmp_path / "shape").iterdir()) == ["popularity.png", "reuse.png", "time.png"]
    # A file of the user's own is never written over.
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "reuse.png").write_text("mine")
    with pytest.raises(SystemExit) as e:
        main(["trace", "analyze", str(trace), "--plot", str(mine)])
    assert e.value.code == 2 and (mine / "reuse.png").read_text() == "mine"


def test_a_trace_of_one_page_is_analyzed_without_a_zipf_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flashlayer.cli import main

    trace = tmp_path / "one.csv"
    trace.write_text("page,op\n7,R\n7,W\n7,R\n")
    main(["trace", "analyze", str(trace), "--plot", str(tmp_path / "shape")])
    assert "popularity: one page, no Zipf fit" in capsys.readouterr().out
    assert "alpha" not in analyze(flashlayer.Trace.open(trace))["popularity"]


def _row(trace: str, policy: str, vt: float, misses: int, writes: int) -> dict[str, object]:
    return {"trace": trace, "policy": policy, "grid_store": "cost:device=ratio:1:8", "buffer_spec": "5%",
            "buffer_pages": 10, "virtual_time": vt, "misses": misses, "physical_writes": writes, "error": None}


def test_reductions_against_a_baseline_are_one_minus_the_ratio_per_trace() -> None:
    rows = [_row("a", "lru", 100.0, 10, 4), _row("a", "arc", 80.0, 8, 4),
            _row("b", "lru", 50.0, 5, 0), _row("b", "arc", 60.0, 6, 1)]
    figures, table = reductions(rows, "lru")
    by = {t["metric"]: t for t in table}
    assert by["virtual time"]["traces"] == 2 and by["virtual time"]["min"] == pytest.approx(-0.2)
    assert by["virtual time"]["max"] == pytest.approx(0.2) and by["virtual time"]["median"] == pytest.approx(0.0)
    # The baseline wrote nothing on b: that trace is left out of the writes' box.
    assert by["writes"]["traces"] == 1 and by["writes"]["mean"] == pytest.approx(0.0)
    assert len(figures) == 3 and all("boxes" in f for f in figures.values())
    with pytest.raises(flashlayer.FlashlayerError, match="not among the sweep's policies"):
        reductions(rows, "casa")
