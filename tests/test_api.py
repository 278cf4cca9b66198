"""The Python API: simulate, sweep, Trace; cross-checked against a plain
Python LRU on random traces."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashlayer
from flashlayer import FlashlayerError, Trace


def python_lru(trace: list[tuple[int, str]], cap: int) -> dict[str, int]:
    buf: OrderedDict[int, bool] = OrderedDict()
    hits = misses = writes_back = 0
    for page, op in trace:
        if page in buf:
            hits += 1
            buf.move_to_end(page)
            buf[page] = buf[page] or op == "W"
            continue
        misses += 1
        if len(buf) == cap:
            _, dirty = buf.popitem(last=False)
            writes_back += dirty
        buf[page] = op == "W"
    return {"hits": hits, "misses": misses, "physical_writes": writes_back, "dirty_at_end": sum(buf.values())}


@settings(max_examples=60, deadline=None)
@given(
    trace=st.lists(st.tuples(st.integers(0, 40), st.sampled_from("RW")), min_size=1, max_size=300),
    cap=st.integers(1, 12),
)
def test_simulate_lru_matches_a_python_reference(tmp_path_factory: pytest.TempPathFactory, trace: list[tuple[int, str]], cap: int) -> None:
    p = tmp_path_factory.mktemp("t") / "t.csv"
    p.write_text("page,op\n" + "".join(f"{a},{b}\n" for a, b in trace))
    r = flashlayer.simulate(p, "lru", cap)
    want = python_lru(trace, cap)
    assert {k: r[k] for k in want} == want
    assert r["physical_reads"] == r["misses"]


def test_trace_open_iterates_original_ids_and_reports_stats(small_csv: Path) -> None:
    t = Trace.open(small_csv)
    assert len(t) == 8 and t.pages == 5
    assert list(t)[:3] == [(1, "R"), (2, "W"), (1, "R")]
    s = t.stats()
    assert (s["requests"], s["writes"], s["distinct_pages"]) == (8, 3, 5)


def test_sweep_runs_the_grid_in_order_and_in_parallel(small_csv: Path) -> None:
    t = Trace.open(small_csv)
    seen: list[str] = []
    lock = threading.Lock()

    def done(r: dict[str, object]) -> None:
        with lock:
            seen.append(str(r["policy"]))

    rows = flashlayer.sweep(t, ["clock", "2q"], [1, 3], device="fdbuffer-intel", workers=2, on_done=done)
    clock = "clock:bit_on_admit=on"
    assert [(r["policy"], r["buffer_pages"]) for r in rows] == [(clock, 1), (clock, 3), ("2q", 1), ("2q", 3)]
    assert sorted(seen) == ["2q", "2q", clock, clock]
    assert all(r["device"] == "fdbuffer-intel" for r in rows)


def test_series_every_records_points(small_csv: Path) -> None:
    r = flashlayer.simulate(small_csv, "lru", 2, series_every=2)
    assert r["series"]["requests"] == [2, 4, 6, 8]
    assert r["series"]["hits"][-1] == r["hits"]


def test_api_errors_are_flashlayer_errors(small_csv: Path) -> None:
    with pytest.raises(FlashlayerError, match="unknown policy 'mru'"):
        flashlayer.simulate(small_csv, "mru", 2)
    with pytest.raises(FlashlayerError, match="at least 1 page"):
        flashlayer.simulate(small_csv, "lru", 0)
    with pytest.raises(FlashlayerError, match="unknown device"):
        flashlayer.sweep(small_csv, ["lru"], [2], device="floppy")
    assert issubclass(FlashlayerError, ValueError)


def test_presets_cite_their_sources() -> None:
    presets = {p["name"]: p for p in flashlayer.presets()}
    assert presets["pdl10-mlc-nand"]["erase"] == 1500.0
    assert presets["hypro-hdd"]["write"] == 13700.0
    assert "Table 1" in presets["koltsidas08-flash"]["source"]
