"""The paper-scale captures and their cache, against a real, throwaway
PostgreSQL: each preset at a small scale, reuse by hash, a capture
interrupted before it finishes, a cache changed by hand.

Like ``test_capture.py`` these need root, bpftrace and Debian's postgresql
package; in CI (FLASHLAYER_REQUIRE_CAPTURE=1) a missing one fails them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from flashlayer import capture, tracecache
from flashlayer._native import FlashlayerError
from flashlayer.experiments import casa
from tests.conftest import run_cli
from tests.test_capture import needs_capture

#: Each preset shrunk to a few seconds: the same workload and options.
SMALL: dict[str, dict[str, Any]] = {
    "pg15-tpcb-s150": {"scale": 1, "seconds": 2, "clients": 2},
    "pg15-tatp-1m": {"subscribers": 2_000, "seconds": 2, "clients": 2},
    "pg15-tpcc-w50": {"warehouses": 1, "seconds": 2, "clients": 2},
    "pg15-tpcc-w20": {"warehouses": 1, "seconds": 2, "clients": 2},
    "pg15-tpch-sf05": {"scale_factor": 0.01},
}

#: One capture at a time: a capture fails if bpftrace loses events, which a
#: second server busy beside it makes likelier.
pytestmark = pytest.mark.xdist_group("postgres")


@pytest.fixture(autouse=True)
def _needs_postgres() -> None:
    needs_capture()


class Counting:
    """The real capture, counted; optionally interrupted once it has
    written its trace (as a Ctrl-C between the capture and its record)."""

    def __init__(self, interrupt: bool = False) -> None:
        self.calls = 0
        self.interrupt = interrupt

    def __call__(self, opts: capture.CaptureOptions, quiet: bool = True) -> dict[str, Any]:
        self.calls += 1
        summary = capture.capture(opts, quiet=quiet)
        if self.interrupt:
            assert opts.out.is_file()
            raise KeyboardInterrupt
        return summary


@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_preset_records_its_workload_at_a_small_scale(name: str, tmp_path: Path) -> None:
    preset = tracecache.CAPTURES[name].scaled(**SMALL[name])
    got = tracecache.ensure([preset], tmp_path)[preset.name]
    rec = got.record
    assert got.path.name == preset.file_name() and got.path.is_file()
    workload = preset.options["workload"]
    assert rec["requests"] > 1000 and rec["writes"] < rec["requests"] and rec["distinct_pages"] > 10
    if workload == "tpch":
        # The queries only read; autovacuum's ANALYZE writes a few catalog pages.
        assert rec["writes"] <= rec["requests"] // 1000
    else:
        assert rec["writes"] > rec["requests"] // 100
    assert rec["command"].startswith(f"flashlayer trace capture postgres --workload {workload} ")
    table = {"tpcb": "pgbench_accounts", "tatp": "subscriber", "tpcc": "stock", "tpch": "lineitem"}[workload]
    assert table in rec["relations"]
    # The record beside the trace says what the report prints.
    on_disk = json.loads(got.path.with_name(got.path.name.removesuffix(".csv.gz") + ".json").read_text())
    assert on_disk == rec
    assert tracecache.describe(got)["sha256"] == rec["sha256"]


def test_a_capture_is_reused_by_the_hash_of_its_inputs(tmp_path: Path) -> None:
    preset = tracecache.CAPTURES["pg15-tpcb-s150"].scaled(**SMALL["pg15-tpcb-s150"])
    runner = Counting()
    first = tracecache.ensure([preset], tmp_path, runner=runner)[preset.name]
    again = tracecache.ensure([preset], tmp_path, runner=runner)[preset.name]
    assert runner.calls == 1, "an unchanged capture is not recorded again"
    assert again.path == first.path and again.record == first.record
    assert tracecache.plan([preset], tmp_path) == ([], 0)
    # Other inputs, another key: recorded anew beside the first.
    other = preset.scaled(seconds=3)
    assert other.key() != preset.key()
    assert tracecache.plan([other], tmp_path)[0] == [other]


def test_an_interrupted_capture_leaves_nothing_that_looks_complete_and_the_next_run_records_it(tmp_path: Path) -> None:
    preset = tracecache.CAPTURES["pg15-tpcb-s150"].scaled(**SMALL["pg15-tpcb-s150"])
    with pytest.raises(KeyboardInterrupt):
        tracecache.ensure([preset], tmp_path, runner=Counting(interrupt=True))
    assert list(tmp_path.iterdir()) == [], "no trace, no record, no partial file"
    # A capture killed outright leaves its partial file: the next run removes it and records the trace whole.
    stale = tmp_path / (preset.file_name() + ".partial.csv.gz")
    stale.write_bytes(b"half a trace")
    runner = Counting()
    got = tracecache.ensure([preset], tmp_path, runner=runner)[preset.name]
    assert runner.calls == 1 and not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [preset.file_name(), preset.file_name().removesuffix(".csv.gz") + ".json"])
    assert got.record["requests"] > 1000


def test_a_trace_changed_by_hand_is_refused_with_what_to_do(tmp_path: Path) -> None:
    preset = tracecache.CAPTURES["pg15-tpcb-s150"].scaled(**SMALL["pg15-tpcb-s150"])
    got = tracecache.ensure([preset], tmp_path)[preset.name]
    with open(got.path, "ab") as f:
        f.write(b"\0")
    with pytest.raises(FlashlayerError, match="do not match the SHA-256 its record"):
        tracecache.lookup(preset, tmp_path)


def test_reproduce_full_runs_a_section_on_its_captures_and_records_them(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    # The section's captures, already in the cache (small ones, under the presets' names and keys).
    for name in casa.CAPTURES:
        preset = tracecache.CAPTURES[name]
        got = tracecache.ensure([preset.scaled(**SMALL[name])], cache)[f"{name}-scaled"]
        os.replace(got.path, cache / preset.file_name())
        record = got.path.with_name(got.path.name.removesuffix(".csv.gz") + ".json")
        os.replace(record, cache / (preset.file_name().removesuffix(".csv.gz") + ".json"))
    out = tmp_path / "report"
    # CASA's section: its full run replays the captures, fits the bank trace and bounds the generated TPC-C, a few
    # minutes (HyPro's fits Table 3's traces at the paper's scale, 27.2 million references for MLK, whatever
    # the captures' size).
    p = run_cli("reproduce", "casa", "--full", "--cache", str(cache), "--out", str(out), check=True, timeout=1800)
    assert "capturing" not in p.stderr, "nothing is recorded when the cache holds it"
    results = json.loads((out / "results.json").read_text())
    assert set(results["meta"]["captures"]) == set(casa.CAPTURES)
    tpcc = results["meta"]["captures"]["pg15-tpcc-w50"]
    # The record says what produced the file (here the small capture moved under the preset's name).
    assert tpcc["command"] == tracecache.CAPTURES["pg15-tpcc-w50"].scaled(**SMALL["pg15-tpcc-w50"]).command()
    # Table 1 sets the paper's OLTP trace beside the captured one.
    row = results["tables"]["casa/table1"]["rows"][0]
    assert row[0].startswith("OLTP") and row[3].endswith(f"/ {tpcc['distinct_pages']:,}")
    html = (out / "index.html").read_text()
    assert "<h2 id='captures'>Paper-scale captures</h2>" in html and tpcc["sha256"] in html
