"""Cost curves: misses, dirty write-backs and virtual time against buffer
size. LRU's for every size at once, from one pass over a trace
(`lru_curve`, ``flashlayer curve``); any online policy's on any store
without data, from a replay per size on the trace or on a spatial sample
of it (`policy_curve`, ``flashlayer curve --policy P --sample R``).

The pass is exact (Mattson's stack algorithm extended to write-backs; the
counting rule is in the Rust module ``curve``) unless a sample is asked
for: ``sample=R`` (SHARDS at a fixed rate) or ``sample_size=S`` (SHARDS
keeping at most S pages, bounded memory whatever the trace).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.checks import items, whole_or_none
from flashlayer.replay import BufferSpec, TraceLike, open_trace, resolve_buffer
from flashlayer.results import SimResult


def lru_curve(
    trace: TraceLike,
    devices: Sequence[str] | None = None,
    *,
    sizes: Sequence[BufferSpec] | None = None,
    points: int | None = None,
    sample: float | None = None,
    sample_size: int | None = None,
    format: str | None = None,
    page_size: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]:
    """LRU's misses, write-backs and virtual time on each device at `sizes`
    (pages or ``"P%"`` of the distinct pages; default: `points` sizes,
    50 unless given, log-spaced from 1 page to all of them), all from the
    engine's one pass. Returns ``{"sizes", "misses", "writebacks",
    "miss_ratio", "virtual_time": {device: [...]}, "cost_unit", "requests",
    "pages", "sampled", "exact", "seconds"}``; sampled counts are estimates
    (floats). `devices` are device specs (default: the engine's,
    ``ratio:1:1``)."""
    devices = None if devices is None else items("devices", devices)
    sizes = None if sizes is None else items("sizes", sizes, (int, str))
    points = whole_or_none("points", points, 2)
    sample_size = whole_or_none("sample_size", sample_size, 1)
    t = open_trace(trace, format, page_size)
    return _native.lru_curve(t, sizes, points, devices, sample, sample_size, None, progress)


#: The smallest sampled buffer a default sampled curve is drawn at: below
#: about 100 pages a sampled buffer's misses stray from the whole trace's
#: (on libCacheSim's Twitter trace at 1%, LRU's miss ratio is 0.042 off at
#: 10 sampled pages, 0.010 at 34, under 0.004 from 119 on).
SAMPLED_FLOOR = 100

#: The counts a sampled run estimates for the whole trace, each scaled by
#: 1/R; the miss ratio is the sample's own.
SCALED = ("hits", "misses", "physical_reads", "physical_writes", "dirty_evictions", "dirty_at_end", "virtual_time")


def policy_curve(
    trace: TraceLike,
    policy: str,
    stores: str | Sequence[str] | None = None,
    *,
    device: str | Sequence[str] | None = None,
    sizes: Sequence[BufferSpec] | None = None,
    points: int | None = None,
    sample: float | None = None,
    sample_size: int | None = None,
    format: str | None = None,
    page_size: int | None = None,
    workers: int | None = None,
    on_done: Callable[[SimResult], None] | None = None,
) -> dict[str, Any]:
    """Any online `policy`'s miss ratio, reads, write-backs and virtual
    time on each store without data at `sizes` (pages or ``"P%"`` of the
    distinct pages): a replay at every size on the whole trace, or, with
    `sample` (a rate R in (0, 1]) or `sample_size` (S pages), on the
    requests to a spatial sample of the pages with a buffer of ``C·R``
    pages, every count scaled by 1/R (MINISIM; the Rust module
    ``curve::sample``), the miss ratio that of the scaled misses to the
    trace's requests (as SHARDS_adj). Default sizes: `points` (the
    engine's ``CURVE_POINTS`` unless given) log-spaced from 1 page
    (sampled: from SAMPLED_FLOOR/R pages, where a sampled buffer holds
    :data:`SAMPLED_FLOOR` pages) to
    the distinct pages. Returns the
    shape of :func:`lru_curve` (``writebacks`` are the physical writes;
    ``virtual_time`` keyed by device for cost stores, else by store) plus
    ``policy``, ``rate``, ``physical_reads`` and ``rows`` (the runs)."""
    from flashlayer.replay import stores_of, sweep

    if sample is not None and sample_size is not None:
        raise FlashlayerError("give sample or sample_size, not both")
    if sizes is not None and points is not None:
        raise FlashlayerError("give sizes or points, not both")
    points = whole_or_none("points", points, 2)
    sample_size = whole_or_none("sample_size", sample_size, 1)
    start = time.perf_counter()
    full = open_trace(trace, format, page_size)
    specs = stores_of(stores, device)
    exact = sample is None and sample_size is None
    # `specs` are canonical (stores_of); their pieces are read once, here.
    parts = {s: _native.spec_parts("store", s) for s in specs}
    fixed = [s for s, (name, keys) in parts.items() if name == "tier" and not keys["ssd"].endswith("%")]
    if fixed and not exact:
        raise FlashlayerError(f"a sampled curve shrinks the store with the sample: give the SSD of {fixed[0]} as a "
                              "share of the pages (ssd=P%)")
    run_on, rate = (full, 1.0) if exact else full.sample(rate=sample, size=sample_size)
    pages = full.pages
    full_reads = int(full.stats()["reads"])
    if sizes is None:
        lo = 1 if exact else min(pages, max(1, round(SAMPLED_FLOOR / rate)))
        n = points or _native.CURVE_POINTS
        chosen = sorted({max(1, round(float(x))) for x in np.geomspace(lo, max(lo, pages), n)})
    else:
        chosen = [resolve_buffer(s, pages) for s in items("sizes", sizes, (int, str))]
    scaled = {c: max(1, round(c * rate)) for c in chosen}
    small = [c for c in chosen if rate < 1 and scaled[c] < SAMPLED_FLOOR and c < pages]
    if small:
        c = small[0]
        raise FlashlayerError(
            f"a sampled buffer of {c} pages holds {scaled[c]} sampled pages, below the {SAMPLED_FLOOR} a sample "
            f"needs to be accurate: at this rate ({rate:.4g}) the smallest accurate size is "
            f"{math.ceil(SAMPLED_FLOOR / rate)} pages; replay {c} pages exactly (no sample), or sample at a rate of "
            f"at least {min(1.0, SAMPLED_FLOOR / c):.4g}")
    rows = sweep(run_on, [policy], sorted(set(scaled.values())), specs, workers=workers, on_done=on_done)
    by = {(r["store"], r["buffer_pages"]): r for r in rows}
    names = {s: (by[(s, scaled[chosen[0]])]["device"] if parts[s][0] == "cost" else _native.short_spec("store", s))
             for s in specs}
    out: dict[str, Any] = {"policy": _native.canonical("policy", policy), "sizes": chosen,
                           "requests": len(full), "pages": pages, "rate": rate, "exact": exact,
                           "sampled": len(run_on), "virtual_time": {}, "rows": []}
    for s in specs:
        runs: list[dict[str, Any]] = [dict(by[(s, scaled[c])]) for c in chosen]
        for c, r in zip(chosen, runs, strict=True):
            r.update({k: r[k] / rate for k in SCALED if k in r and r[k] is not None},
                     buffer_pages=c, buffer_share=c / pages, trace=str(full.path))
            if not exact:
                # As SHARDS_adj: the sample's share of the requests differs
                # from R by chance (a hot page in or out), and the
                # difference lies in the hits; the misses stand.
                r["misses"] = min(r["misses"], len(full))
                r.update(requests=len(full), reads=full_reads, writes=len(full) - full_reads,
                         hits=len(full) - r["misses"], miss_ratio=r["misses"] / max(1, len(full)))
        out["virtual_time"][names[s]] = [r["virtual_time"] for r in runs]
        out["rows"] += runs
    first = out["rows"][:len(chosen)]
    out.update(miss_ratio=[r["miss_ratio"] for r in first], misses=[r["misses"] for r in first],
               physical_reads=[r["physical_reads"] for r in first],
               writebacks=[r["physical_writes"] for r in first], cost_unit=first[0]["cost_unit"],
               seconds=time.perf_counter() - start)
    return out
