"""Every policy flashlayer shares with libCacheSim gives libCacheSim's miss
ratio on libCacheSim's own sample trace (``cloudPhysicsIO``, from its
source distribution), at sizes from a small to a large share of its 48,974
objects: exactly where flashlayer follows libCacheSim, and within a stated
bound where it follows the policy's paper instead (said in ``list
policies`` and the README)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from flashlayer import _native, compare, files

lcs = pytest.importorskip("libcachesim")

SIZES = [100, 1_000, 5_000, 10_000, 20_000]
#: Same decisions as libCacheSim 0.3.5, so the same misses.
#: (2Q differs on purpose where a ghost hit meets a full Am, which this
#: trace does not produce at these sizes: libCacheSim bounds Am at B − Kin.)
EXACT = ["lru", "fifo", "2q", "arc", "sieve", "s3fifo", "lfu", "slru", "lruk", "belady"]
#: The parameters that make a policy that differs by default decide as
#: libCacheSim 0.3.5 does.
#: W-TinyLFU's, wherever its main cache (B − ⌊B/100⌋ pages) is a multiple of
#: 5; at 100 pages (main 99) libCacheSim's SLRU evicts on a hit, which no
#: policy of the calling protocol does (the policy's module doc).
AS_LIBCACHESIM = {"clock": "clock:bit_on_admit=off", "wtinylfu": "wtinylfu:sketch=libcachesim"}
#: Different on purpose, by less than this much miss ratio here: CLOCK sets
#: a page's bit on admission (libCacheSim only on hits): 0.0482 apart at
#: 10,000 objects, 0.0064 on the Twitter trace at 1,000; LIRS keeps the
#: paper's rule for a hit on a resident HIR page outside S (libCacheSim also
#: demotes a LIR page then, which can evict on a hit): 0.00008 at 20,000.
#: W-TinyLFU's sketch lays its counters out its own way (a page's in one
#: 4 KiB block, 8-bit), so its collisions differ: at most 0.0014 apart here
#: (at 10,000 objects), 0.0021 on the Twitter trace (at 100,000).
DOCUMENTED = {"clock": 0.05, "lirs": 0.001, "wtinylfu": 0.005}


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("lcs")
    raw = compare.data_file("cloudPhysicsIO.oracleGeneral.bin")
    rec = np.frombuffer(raw, dtype=[("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    # Rewritten with exact next-access times (Belady reads them) and size 1.
    oracle = folder / "cloudPhysicsIO.oracleGeneral.bin"
    compare.write_oracle(rec["id"].astype(np.uint64), oracle)
    flt = folder / "cloudPhysicsIO.flt"
    _native.convert(oracle, flt, "oracle", "flt", None)
    return oracle, _native.Trace.open(flt)


def _theirs(oracle: Path, policy: str, size: int) -> float:
    reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE,
                             lcs.ReaderInitParam(ignore_obj_size=True))
    cls = getattr(lcs, compare.POLICIES[policy])
    cache = cls(size, reader=reader) if policy == "belady" else cls(size)
    return float(cache.process_trace(reader)[0])


@pytest.mark.parametrize("policy", EXACT)
def test_policy_misses_exactly_as_libcachesim(policy: str, traces: tuple[Path, object]) -> None:
    oracle, trace = traces
    for size in SIZES:
        ours = _native.replay(trace, policy, size)["miss_ratio"]
        assert ours == pytest.approx(_theirs(oracle, policy, size), abs=1e-12), (policy, size)


@pytest.mark.parametrize("policy", sorted(AS_LIBCACHESIM))
def test_a_documented_difference_has_parameters_that_give_libcachesims_misses(policy: str,
                                                                              traces: tuple[Path, object]) -> None:
    oracle, trace = traces
    for size in SIZES:
        if policy == "wtinylfu" and (size - size // 100) % 5:
            continue
        ours = _native.replay(trace, AS_LIBCACHESIM[policy], size)["miss_ratio"]
        assert ours == pytest.approx(_theirs(oracle, policy, size), abs=1e-12), (policy, size)


@pytest.mark.parametrize("policy", sorted(DOCUMENTED))
def test_policy_that_follows_its_paper_stays_within_its_stated_bound(policy: str,
                                                                     traces: tuple[Path, object]) -> None:
    oracle, trace = traces
    for size in SIZES:
        ours = _native.replay(trace, policy, size)["miss_ratio"]
        assert abs(ours - _theirs(oracle, policy, size)) <= DOCUMENTED[policy], (policy, size)


def test_every_policy_libcachesim_has_is_compared() -> None:
    assert set(EXACT) | set(DOCUMENTED) == set(compare.POLICIES)
    assert not set(compare.UNCOMPARED) & set(compare.POLICIES)


def test_libcachesim_clockpro_keeps_its_first_objects_so_it_is_not_compared(traces: tuple[Path, object]) -> None:
    """Why ``clockpro`` is in ``compare.UNCOMPARED``: libCacheSim's ClockPro
    misses exactly as a cache that admits its first ⌊0.5·B⌋ distinct objects
    and nothing after; ours, a working CLOCK-Pro, misses far less and beside
    LIRS, which the paper says it approximates."""
    oracle, trace = traces
    ids = np.fromfile(oracle, dtype=[("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])["id"]
    for size in SIZES:
        kept: set[int] = set()
        misses = 0
        for x in ids.tolist():
            if x not in kept:
                misses += 1
                if len(kept) < size // 2:
                    kept.add(x)
        frozen = misses / len(ids)
        reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 lcs.ReaderInitParam(ignore_obj_size=True))
        theirs = float(getattr(lcs, compare.UNCOMPARED["clockpro"][0])(size).process_trace(reader)[0])
        assert theirs == pytest.approx(frozen, abs=1e-12), size
        ours = _native.replay(trace, "clockpro", size)["miss_ratio"]
        lirs = _native.replay(trace, "lirs", size)["miss_ratio"]
        assert ours < theirs - 0.03 and abs(ours - lirs) < 0.02, (size, ours, lirs)


def test_bench_libcachesim_rows_time_both_sides_and_write_a_page(traces: tuple[Path, object], tmp_path: Path) -> None:
    """``bench libcachesim`` times each policy on both sides, says whether
    the miss ratios agree, and ``--markdown`` writes the table with the
    command that regenerates it."""
    oracle, _ = traces
    flt, page = oracle.parent / "cloudPhysicsIO.flt", tmp_path / "LIBCACHESIM.md"
    args = ["bench", "libcachesim", "--trace", str(flt), "--buffer", "1000", "--repeat", "1", "--policies",
            "lru,sieve,belady"]
    rows = {r["policy"]: r for r in json.loads(run_cli(*args, "--json", check=True).stdout)["policies"]}
    assert list(rows) == ["lru", "sieve", "belady"]
    for r in rows.values():
        assert r["speedup"] == pytest.approx(r["libcachesim_seconds"] / r["flashlayer_seconds"])
        assert r["same_miss_ratio"], r
    run_cli(*args, "--markdown", str(page), check=True)
    text = page.read_text()
    assert f"flashlayer {' '.join(args)} --markdown {page}" in text
    table = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| `")]
    assert [c[0].strip() for c in table] == ["`lru`", "`sieve`", "`belady`"]


def test_processes_filling_the_cache_at_once_each_publish_a_whole_file(tmp_path: Path) -> None:
    """Test workers fetch libCacheSim's source into one cache at once: each
    writes a file of its own and renames it, so none fails on another's
    rename or sees a half-written file, and no temporary file is left."""
    out = tmp_path / "libcachesim.tar.gz"
    started = threading.Barrier(4)
    failures: list[BaseException] = []

    def write(tmp: Path) -> None:
        started.wait()  # every writer holds its temporary file at once
        tmp.write_bytes(b"x" * 100_000)

    def fill() -> None:
        try:
            files.atomic_output(out, write, force=True)
        except BaseException as e:  # reported below, from the main thread
            failures.append(e)

    threads = [threading.Thread(target=fill) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert out.read_bytes() == b"x" * 100_000
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]
