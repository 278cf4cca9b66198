"""LRU cost curves: misses, dirty write-backs and virtual time against
buffer size, for every size at once, from one pass over a trace
(`flashlayer.curves.lru_curve`, ``flashlayer curve``).

The pass is exact (Mattson's stack algorithm extended to write-backs; the
counting rule is in the Rust module ``curve``) unless a sample is asked
for: ``sample=R`` (SHARDS at a fixed rate) or ``sample_size=S`` (SHARDS
keeping at most S pages, bounded memory whatever the trace).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.replay import BufferSpec, TraceLike, open_trace, resolve_buffer

#: Sizes drawn by default: log-spaced from 1 page to the distinct pages.
DEFAULT_POINTS = 50


def log_sizes(pages: int, points: int) -> list[int]:
    """About `points` sizes log-spaced from 1 to `pages`, whole, ascending."""
    if points < 2:
        raise FlashlayerError(f"--points must be at least 2, got {points}")
    top = max(1, pages)
    out = sorted({max(1, round(math.exp(math.log(top) * i / (points - 1)))) for i in range(points)})
    return out


def lru_curve(
    trace: TraceLike,
    devices: Sequence[str] = ("ratio:1:1",),
    *,
    sizes: Sequence[BufferSpec] | None = None,
    points: int = DEFAULT_POINTS,
    sample: float | None = None,
    sample_size: int | None = None,
    format: str | None = None,
    page_size: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]:
    """LRU's misses, write-backs and virtual time on each device at `sizes`
    (pages or ``"P%"`` of the distinct pages; default: `points` sizes
    log-spaced from 1 page to all of them). Returns ``{"sizes", "misses",
    "writebacks", "miss_ratio", "virtual_time": {device: [...]}, "requests",
    "pages", "sampled", "exact", "seconds"}``; sampled counts are estimates
    (floats)."""
    models = {d: _native.device(d) for d in devices}
    if not models:
        raise FlashlayerError("expected at least one device")
    units = {m["unit"] for m in models.values()}
    t = open_trace(trace, format, page_size)
    c = _native.lru_curve(t, sample, sample_size, None, progress)
    pages = max(1, round(c["pages"]))
    chosen = [resolve_buffer(s, t.pages) for s in sizes] if sizes is not None else log_sizes(pages, points)
    width, misses, writebacks = c["width"], c["misses"], c["writebacks"]

    def at(values: list[float], size: int, beyond: float) -> float:
        i = size // width
        return values[i] if i < len(values) else beyond

    m = [at(misses, s, c["cold"]) for s in chosen]
    w = [at(writebacks, s, 0.0) for s in chosen]
    exact = sample is None and sample_size is None
    if exact:
        m = [int(x) for x in m]
        w = [int(x) for x in w]
    requests = c["requests"]
    return {
        "sizes": chosen,
        "misses": m,
        "writebacks": w,
        "miss_ratio": [x / requests if requests else 0.0 for x in m],
        "virtual_time": {d: [mi * md["read"] + wi * md["write"] for mi, wi in zip(m, w)]
                         for d, md in models.items()},
        "cost_unit": units.pop() if len(units) == 1 else "mixed",
        "requests": requests,
        "pages": c["pages"],
        "sampled": c["sampled"],
        "exact": exact,
        "seconds": c["seconds"],
    }
