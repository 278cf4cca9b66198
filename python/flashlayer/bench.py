"""``flashlayer bench``: simulator throughput per policy, end to end.

The default workload: a Zipf-like trace of 10M requests with
about 1M distinct pages and 20% writes, already converted to ``flt``, and a
45,000-page buffer. Each measurement opens the trace (map, CRC and id
validation) and replays it single-threaded. The runs are interleaved: each
of ``repeat`` rounds times every row once, so a row and LRU, whose ratio
each row reports, are timed minutes apart at most, whatever the rest of
the machine does in between. The best of a row's runs is kept,
since slower runs only add noise from the rest of the machine; the least
and greatest of the rounds' own ratios to LRU are kept too, so that a reader
sees how far the machine moved a ratio.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer._native import Trace
from flashlayer.replay import resolve_buffer

#: The row timing LRU over a hybrid flash + magnetic store (placement
#: ``hybrid``, Koltsidas Table 1).
HYBRID_ROW = "lru on a hybrid store (placement hybrid)"
#: Rows timing each DRAM / SSD / disk scheme (DRAM: the buffer, under LRU;
#: SSD: five times the buffer).
TIER_SCHEMES = ("hypro", "tac", "face", "lc")
TIER_SSD_FACTOR = 5
#: Rows timing ``flashlayer curve --policy`` (a replay per size, one thread),
#: on the whole trace and on a 1% sample: the policy and the sizes besides
#: the benchmark's buffer (its miss ratio is the curve's there).
CURVE_POLICY = "arc"
CURVE_SIZES = [10_000, 20_000, 100_000, 200_000, 500_000]
POLICY_CURVE_ROWS = {f"{CURVE_POLICY} curve, a replay at each of 6 sizes": None,
                     f"{CURVE_POLICY} curve, MINISIM 1% (a replay at each size the sample resolves)": 0.01}
#: The row timing a policy written in Python: LRU from an ordered dict
#: (``flashlayer.requests.PythonLru``, registered as ``python-lru``).
PYTHON_ROW = "python-lru (a policy written in Python)"

#: Rows timing ``flashlayer curve`` (LRU at every size in one pass), exact
#: and SHARDS-sampled at 1%, by their sampling rate.
CURVE_ROWS = {"LRU curve, exact (every size, one pass)": None,
              "LRU curve, SHARDS 1% (every size, one pass)": 0.01}


def tier_row(scheme: str) -> str:
    """The bench row name of a hierarchy scheme."""
    return f"{scheme} tier (DRAM = buffer, SSD = {TIER_SSD_FACTOR}x buffer)"


@dataclass
class _Row:
    """One timed row: `replay` runs it on an open trace and returns its
    miss ratio."""

    name: str
    replay: Callable[[Trace], float]
    miss_ratio: float = 0.0
    #: The seconds of each round, in order.
    rounds: list[float] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """The row's best time."""
        return min(self.rounds)


def run(
    *,
    requests: int,
    pages: int,
    alpha: float,
    write_ratio: float,
    buffer: int | str,
    policies: list[str],
    repeat: int,
    seed: int,
    trace_path: Path | None = None,
    format: str | None = None,
    page_size: int | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="flashlayer-bench-") as tmp:
        generated = trace_path is None
        path = Path(tmp) / "bench.flt"
        if trace_path is None:
            with progress.bar(None, f"generating {requests:,} Zipf requests", quiet=quiet):
                _native.gen_zipf(path, requests, pages, alpha, write_ratio, seed)
        else:
            # Timed runs start from flt, as for the default workload.
            with progress.bar(None, f"converting {trace_path.name} to flt", quiet=quiet):
                _native.convert(trace_path, path, format, "flt", page_size)
        trace = _native.Trace.open(path)
        stats = trace.stats()
        buffer_pages = resolve_buffer(buffer, trace.pages)
        del trace
        rows = _rows(policies, buffer_pages)
        with progress.bar(len(rows) * repeat, f"benchmarking ({repeat} interleaved rounds)", quiet=quiet) as bar:
            for _ in range(repeat):
                for row in rows:
                    _time(row, path)
                    bar.advance()
        lru = next((r for r in rows if r.name == "lru"), None)
        out: list[dict[str, Any]] = []
        for row in rows:
            rps = stats["requests"] / row.seconds
            rounds = None if lru is None else [a / b for a, b in zip(lru.rounds, row.rounds, strict=True)]
            out.append({
                "policy": row.name,
                "seconds": row.seconds,
                "requests_per_second": rps,
                "miss_ratio": row.miss_ratio,
                "vs_lru": None if lru is None else lru.seconds / row.seconds,
                "vs_lru_rounds": None if rounds is None else [min(rounds), max(rounds)],
            })
        return {
            "trace": {
                "path": str(trace_path) if trace_path else "generated",
                "requests": stats["requests"],
                "distinct_pages": stats["distinct_pages"],
                "write_share": stats["write_share"],
                "hot20_share": stats["hot20_share"],
                "alpha": alpha if generated else None,
                "seed": seed if generated else None,
            },
            "buffer_pages": buffer_pages,
            "buffer_share": buffer_pages / stats["distinct_pages"],
            "repeat": repeat,
            "policies": out,
        }


def _rows(policies: list[str], buffer_pages: int) -> list[_Row]:
    """Every row to time: the policies; with LRU among them, LRU over a
    hybrid store (every request also updates its page's placement
    counters, every eviction decides a placement), each hierarchy scheme
    (every request goes through DRAM's policy, every DRAM miss through the
    scheme's decisions), and the one-pass LRU curve, exact and sampled (its
    miss ratio is the curve's at the benchmark's buffer)."""

    def policy_row(policy: str) -> _Row:
        def replay(t: Trace) -> float:
            return float(_native.replay(t, policy, buffer_pages)["miss_ratio"])

        return _Row(policy, replay)

    def hybrid(t: Trace) -> float:
        return float(_native.replay(t, "lru", buffer_pages, "hybrid")["miss_ratio"])

    def tier_row_of(scheme: str) -> _Row:
        def replay(t: Trace) -> float:
            return float(_native.replay(t, "lru", buffer_pages, f"tier:ssd={TIER_SSD_FACTOR * buffer_pages},scheme={scheme}")["miss_ratio"])

        return _Row(tier_row(scheme), replay)

    def curve_row(name: str, rate: float | None) -> _Row:
        def replay(t: Trace) -> float:
            return float(_native.lru_curve(t, [buffer_pages], sample=rate)["miss_ratio"][0])

        return _Row(name, replay)

    def policy_curve_row(name: str, rate: float | None) -> _Row:
        def replay(t: Trace) -> float:
            from flashlayer.curves import SAMPLED_FLOOR, policy_curve

            # A sampled curve answers from the size whose sampled buffer
            # holds twice SAMPLED_FLOOR pages (a sample's share of the pages
            # falls short of its rate by chance): the benchmark's buffer, or
            # that, and the curve's sizes above it.
            first = buffer_pages if rate is None else max(buffer_pages, math.ceil(2 * SAMPLED_FLOOR / rate))
            sizes = [first, *(s for s in CURVE_SIZES if rate is None or s > first)]
            c = policy_curve(t, CURVE_POLICY, sizes=sizes, sample=rate, workers=1)
            return float(c["miss_ratio"][0])

        return _Row(name, replay)

    def python_lru(t: Trace) -> float:
        from flashlayer.requests import register_python_lru

        return float(_native.replay(t, register_python_lru(), buffer_pages)["miss_ratio"])

    rows = [policy_row(p) for p in policies]
    if "lru" not in policies:
        return rows
    rows.append(_Row(HYBRID_ROW, hybrid))
    rows.extend(tier_row_of(s) for s in TIER_SCHEMES)
    rows.extend(curve_row(name, rate) for name, rate in CURVE_ROWS.items())
    rows.extend(policy_curve_row(name, rate) for name, rate in POLICY_CURVE_ROWS.items())
    rows.append(_Row(PYTHON_ROW, python_lru))
    return rows


def _time(row: _Row, path: Path) -> None:
    """One timed run of `row`, opening the trace first (map, CRC and id
    validation), kept among its rounds. Every run replays the same trace
    the same way, so any run's miss ratio is the row's."""
    start = time.perf_counter()
    t = _native.Trace.open(path)
    row.miss_ratio = row.replay(t)
    row.rounds.append(time.perf_counter() - start)
    del t


#: ``bench pool``: threads sharing one buffer pool (LRU), per workload: the
#: sizes, and fixes in all per run (split among the threads).
POOL_THREADS = (1, 2, 4, 8, 16)
POOL_PAGE_SIZE = 4096
POOL_ALPHA = 0.8
POOL_WRITE_RATIO = 0.2
POOL_LATENCY_US = 100.0
POOL_WORKLOADS: dict[str, dict[str, Any]] = {
    # Every page fits and is loaded first; reads only: the hit path alone.
    "hits": {"frames": 10_000, "pages": 10_000, "fixes": 2_000_000},
    # A memory store that sleeps POOL_LATENCY_US per page read and written.
    "latency": {"frames": 1_000, "pages": 10_000, "fixes": 10_000},
    # A real file in the temporary directory, O_DIRECT where allowed.
    "file": {"frames": 1_000, "pages": 10_000, "fixes": 20_000},
    # The hybrid store over two such memory stores (flash and magnetic): a
    # store that listens to request order, whose misses run whole under the
    # pool lock.
    "hybrid": {"frames": 1_000, "pages": 10_000, "fixes": 10_000},
}
def pool(threads: list[int], repeat: int, seed: int = 42, quiet: bool = False) -> dict[str, Any]:
    """Fixes per second of each pool workload at each thread count, best of
    ``repeat`` (rounds interleaved); the speedup over the fewest threads."""
    best: dict[tuple[str, int], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="flashlayer-pool-") as tmp, \
            progress.bar(repeat * len(POOL_WORKLOADS) * len(threads), "threads fixing one pool", quiet=quiet) as bar:
        for _ in range(repeat):
            for name, w in POOL_WORKLOADS.items():
                for t in threads:
                    r = _native.pool_load(name, t, w["fixes"], w["frames"], w["pages"], POOL_ALPHA,
                                          POOL_WRITE_RATIO, POOL_PAGE_SIZE, seed, POOL_LATENCY_US,
                                          str(Path(tmp) / "pool.db") if name == "file" else None)
                    key = (name, t)
                    if key not in best or r["fixes_per_second"] > best[key]["fixes_per_second"]:
                        best[key] = r
                    bar.advance()
    rows = []
    for name in POOL_WORKLOADS:
        base = best[(name, threads[0])]["fixes_per_second"]
        for t in threads:
            r = best[(name, t)]
            row = {"workload": name, "threads": t, "fixes_per_second": r["fixes_per_second"],
                   "vs_first": r["fixes_per_second"] / base, "fixes": r["fixes"], "seconds": r["seconds"],
                   "misses": r["misses"], "direct": r["direct"] if name == "file" else None}
            rows.append(row)
    sizes = {name: {**w, "alpha": POOL_ALPHA, "write_ratio": 0.0 if name == "hits" else POOL_WRITE_RATIO,
                    "latency_us": POOL_LATENCY_US if name in ("latency", "hybrid") else None,
                    "page_size": POOL_PAGE_SIZE}
             for name, w in POOL_WORKLOADS.items()}
    return {"policy": "lru", "repeat": repeat, "workloads": sizes, "rows": rows}


#: ``bench oltp``: terminals on threads running each database workload
#: over one buffer pool and a real file. Per workload: its parameters (a
#: spec of the workloads' grammar) and the pool's frames, a small share of
#: the loaded database so that terminals wait for I/O.
OLTP_THREADS = (1, 2, 4, 8, 16)
OLTP_POLICIES = "lru,fdbuffer"
OLTP_WORKLOADS: dict[str, dict[str, Any]] = {
    # 1 warehouse is about 21,000 8-KiB pages; 1,000 frames hold 5% of them.
    "tpcc": {"params": {"warehouses": 1, "transactions": 2_000}, "frames": 1_000},
    # 1 branch is about 2,700 8-KiB pages; 200 frames hold 7% of them.
    "tpcb": {"params": {"branches": 1, "transactions": 10_000}, "frames": 200},
}


def oltp(threads: list[int], policies: list[str], repeat: int, seed: int = 42, quiet: bool = False,
         workloads: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Transactions per second of each database workload under each policy
    at each terminal count, best of ``repeat`` (rounds interleaved), each
    run loading its own database in a fresh file; every run's database
    passes its checkers and the workload's consistency conditions, or the
    run fails."""
    sizes = OLTP_WORKLOADS if workloads is None else workloads
    best: dict[tuple[str, str, int], dict[str, Any]] = {}
    runs = repeat * len(sizes) * len(policies) * len(threads)
    with tempfile.TemporaryDirectory(prefix="flashlayer-oltp-") as tmp, \
            progress.bar(runs, "terminals on threads", quiet=quiet) as bar:
        for _ in range(repeat):
            for name, w in sizes.items():
                for policy in policies:
                    for t in threads:
                        path = Path(tmp) / f"{name}.db"
                        try:
                            r = _native.run_terminals(name, policy, w["frames"], t, str(path), seed=seed,
                                                      params=w["params"])
                        finally:
                            path.unlink(missing_ok=True)
                        key = (name, policy, t)
                        if key not in best or r["steps_per_second"] > best[key]["steps_per_second"]:
                            best[key] = r
                        bar.advance()
    rows = []
    for name in sizes:
        for policy in policies:
            base = best[(name, policy, threads[0])]["steps_per_second"]
            for t in threads:
                r = best[(name, policy, t)]
                rows.append({"workload": name, "policy": r["policy"], "threads": t,
                             "transactions_per_second": r["steps_per_second"],
                             "vs_first": r["steps_per_second"] / base, "transactions": r["steps"],
                             "seconds": r["seconds"], "reads": r["run"]["reads"], "writes": r["run"]["writes"],
                             "direct": r["direct"], "db_pages": r["db_pages"], "consistency": r["consistency"],
                             "checked": r["checked"]})
    return {"repeat": repeat, "seed": seed,
            "workloads": {name: {**w["params"], "frames": w["frames"]} for name, w in sizes.items()},
            "rows": rows}
