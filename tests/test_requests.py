"""Requests from Python: a trace in memory, a workload generated into one,
and a cache served one request at a time, each equal to a replay of the
same requests."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import flashlayer
from flashlayer import FlashlayerError

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "data" / "traces" / "pg15-tpcb-s5.csv.gz"
OFFLINE = {"belady", "costopt-ub"}
#: Every kind of store without data, sized for a small trace.
STORES = ["cost:device=ratio:1:8", "ftl", "hybrid", "tier:scheme=hypro,ssd=20%"]
#: What differs between two runs of the same requests.
TIMING = {"seconds", "requests_per_second", "trace"}


def _dense(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The first `n` requests of the shipped TPC-B trace, pages renumbered
    in order of first appearance (so a page's number is its dense id)."""
    t = flashlayer.Trace.open(TRACE)
    pairs = list(itertools.islice(t, n))
    pages = np.array([p for p, _ in pairs], dtype=np.uint64)
    _, first, inverse = np.unique(pages, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse].astype(np.uint64), np.array([op == "W" for _, op in pairs])


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    keys = (set(a) | set(b)) - TIMING
    assert {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}


def _online() -> list[str]:
    """The built-in online policies (not those tests register in Python,
    named ``py-*``, which may fail on purpose)."""
    return [name for name, _, _ in flashlayer.table("policy") if name not in OFFLINE and not name.startswith("py-")]


@pytest.mark.parametrize("store", STORES)
def test_cache_request_loop_and_arrays_equal_simulate_for_every_policy(store: str) -> None:
    pages, writes = _dense(4000)
    trace = flashlayer.trace_of(pages, writes)
    n = int(pages.max()) + 1
    for policy in _online():
        try:
            want = flashlayer.simulate(trace, policy, 64, store)
        except FlashlayerError as e:
            with pytest.raises(FlashlayerError, match=str(e)[:40].replace("(", r"\(").replace(")", r"\)")):
                flashlayer.Cache(policy, 64, store, pages=n)
            continue
        loop = flashlayer.Cache(policy, 64, store, pages=n)
        hits = [loop.request(int(p), bool(w)) for p, w in zip(pages, writes, strict=True)]
        _same(dict(loop.result()), dict(want))
        arrays = flashlayer.Cache(policy, 64, store, pages=n)
        assert arrays.requests(pages, writes).tolist() == hits
        _same(dict(arrays.result()), dict(want))
        assert sum(hits) == want["hits"], policy


def test_cache_without_declared_pages_equals_simulate_on_a_cost_store() -> None:
    pages, writes = _dense(4000)
    for policy in ("lru", "clock", "arc", "cflru", "casa", "s3fifo"):
        want = flashlayer.simulate(flashlayer.trace_of(pages * 7 + 3, writes), policy, 50, device="ratio:1:64")
        c = flashlayer.Cache(policy, 50, device="ratio:1:64")
        c.requests(pages * 7 + 3, writes)
        _same(dict(c.result()), dict(want))
        assert c.pages == int(pages.max()) + 1


def test_cache_flush_at_end_writes_the_dirty_pages_as_simulate_does() -> None:
    pages, writes = _dense(2000)
    want = flashlayer.simulate(flashlayer.trace_of(pages, writes), "lru", 32, flush_at_end=True)
    c = flashlayer.Cache("lru", 32)
    c.requests(pages, writes)
    _same(dict(c.result(flush_at_end=True)), dict(want))


def test_cache_hand_worked_lru() -> None:
    c = flashlayer.Cache("lru", 2)
    assert [c.request(p, write=(p == 2)) for p in (1, 2, 1, 3, 2)] == [False, False, True, False, False]
    r = c.result()
    # 3 evicts 2 (dirty): one write-back; 2 evicts 1 (clean).
    assert (r["hits"], r["misses"], r["physical_writes"], r["dirty_at_end"]) == (1, 4, 1, 1)


@pytest.mark.parametrize(("make", "why"), [
    (lambda: flashlayer.Cache("belady", 10), "future"),
    (lambda: flashlayer.Cache("lru", 10, "flash"), "buffer pool"),
    (lambda: flashlayer.Cache("lru", 10, "ftl"), "declare"),
    (lambda: flashlayer.Cache("lru", "5%"), "declared"),
    (lambda: flashlayer.Cache("lru", 0), "at least 1"),
])
def test_cache_refuses_what_cannot_work(make: Any, why: str) -> None:
    with pytest.raises(FlashlayerError, match=why):
        make()


def test_cache_refuses_a_page_outside_the_declared_ones() -> None:
    c = flashlayer.Cache("lru", 4, pages=10)
    with pytest.raises(FlashlayerError, match=r"outside the declared pages 0\.\.10"):
        c.request(10)


def test_traces_from_pairs_arrays_and_frames_are_one_trace() -> None:
    pairs = [(5, "R"), (7, "W"), (5, "W"), (9, "r")]
    from_pairs = flashlayer.trace_of(pairs)
    from_arrays = flashlayer.trace_of(np.array([5, 7, 5, 9]), [False, True, True, False])
    from_ops = flashlayer.trace_of([5, 7, 5, 9], ["R", "W", "W", "R"])
    want = [(5, "R"), (7, "W"), (5, "W"), (9, "R")]
    from_native = flashlayer.Trace.from_arrays([5, 7, 5, 9], ["R", "W", "W", "R"])
    for t in (from_pairs, from_arrays, from_ops, from_native):
        assert list(t) == want and t.pages == 3 and len(t) == 4
    pa = pytest.importorskip("pyarrow")
    frame = pa.table({"page": [5, 7, 5, 9], "op": ["R", "W", "W", "R"]})
    assert list(flashlayer.trace_of(frame)) == want
    r = flashlayer.simulate(pairs, "lru", 1)
    assert (r["requests"], r["writes"], r["hits"]) == (4, 2, 0)


@pytest.mark.parametrize(("requests", "writes", "why"), [
    ([-1, 2], None, "negative"),
    ([1.5, 2], None, "whole numbers"),
    ([1, 2], [True], "2 pages but write flags"),
    ([1, 2], ["R", "X"], "request 1: op 'X'"),
    ([(1, "R"), (2,)], None, "request 1: expected a \\(page, op\\) pair"),
])
def test_bad_requests_in_memory_are_named(requests: Any, writes: Any, why: str) -> None:
    with pytest.raises(FlashlayerError, match=why):
        flashlayer.trace_of(requests, writes)


def test_a_generated_workload_is_a_trace_in_memory() -> None:
    z = {"requests": 5000, "pages": 500, "alpha": 0.9, "write_ratio": 0.3}
    t = flashlayer.generate("zipf", seed=3, **z)
    assert len(t) == 5000 and 0 < t.pages <= 500 and list(t) == list(flashlayer.generate("zipf", seed=3, **z))
    assert flashlayer.simulate(t, "lru", 50)["requests"] == 5000
    tpcb = flashlayer.generate("tpcb", transactions=200)
    assert len(tpcb) > 200 and tpcb.stats()["writes"] > 0
    # What is not given takes the engine's defaults; what it does not take is refused, by name.
    small = flashlayer.generate("zipf", requests=1000, pages=10)
    assert len(small) == 1000 and small.stats()["distinct_pages"] <= 10
    assert flashlayer._native.generator_defaults("zipf") == {
        "requests": 1_000_000, "pages": 100_000, "alpha": 0.99, "write_ratio": 0.2, "seed": 0}
    with pytest.raises(FlashlayerError, match="zipf takes requests, pages, alpha, write_ratio; unknown skew"):
        flashlayer.generate("zipf", requests=10, skew=0.5)


def test_python_refuses_what_the_cli_refuses_in_its_words() -> None:
    with pytest.raises(flashlayer.FlashlayerError, match="no requests: an empty in-memory trace"):
        flashlayer.simulate([], "lru", 2)
    with pytest.raises(flashlayer.FlashlayerError, match="no requests: an empty in-memory trace"):
        flashlayer.Trace.from_arrays([], [])
    with pytest.raises(flashlayer.FlashlayerError, match="--requests must be at least 1"):
        flashlayer.generate("zipf", requests=0, pages=10, alpha=0.9, write_ratio=0.1)


def test_page_ids_up_to_2_to_the_64_are_taken_from_python_lists() -> None:
    ids = [13053225291711363978, 61177148907475485, 13053225291711363978]
    t = flashlayer.trace_of(ids)
    assert [p for p, _ in t] == ids
    assert flashlayer.trace_of([(i, "R") for i in ids]).stats()["distinct_pages"] == 2
    c = flashlayer.Cache("lru", 2)
    assert list(c.requests(ids)) == [False, False, True]
    with pytest.raises(flashlayer.FlashlayerError, match="page numbers run from 0 to 2\\*\\*64 - 1"):
        flashlayer.trace_of([2**64])
    with pytest.raises(flashlayer.FlashlayerError, match=r"request 1 has page 1\.5"):
        flashlayer.trace_of([1, 1.5])


def test_generate_takes_aces_workload_with_the_engines_defaults_and_names_every_kind() -> None:
    small = flashlayer.generate("ace", operations=1000, pages=500)
    assert len(small) == 1000 and small.stats()["distinct_pages"] <= 500
    assert flashlayer._native.generator_defaults("ace") == {"operations": 2_000_000, "pages": 344_066, "reads": 50.0,
                                                  "skew": 90.0, "hot": 10.0}
    with pytest.raises(flashlayer.FlashlayerError, match="generate takes zipf, ace, tpcc"):
        flashlayer.generate("nope")
    with pytest.raises(flashlayer.FlashlayerError, match="seed must be 0"):
        flashlayer.generate("ace", seed=3, operations=10)
