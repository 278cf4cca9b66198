"""LRU cost curves: misses, dirty write-backs and virtual time against
buffer size, for every size at once, from one pass over a trace
(`flashlayer.curves.lru_curve`, ``flashlayer curve``).

The pass is exact (Mattson's stack algorithm extended to write-backs; the
counting rule is in the Rust module ``curve``) unless a sample is asked
for: ``sample=R`` (SHARDS at a fixed rate) or ``sample_size=S`` (SHARDS
keeping at most S pages, bounded memory whatever the trace).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flashlayer import _native
from flashlayer.checks import items, whole_or_none
from flashlayer.replay import BufferSpec, TraceLike, open_trace


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
