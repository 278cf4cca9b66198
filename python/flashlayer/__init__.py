"""flashlayer: I/O-asymmetry-aware storage management for databases.

The Python front of a Rust engine. Typical use::

    import flashlayer
    r = flashlayer.simulate("trace.csv.gz", "lru", 1000, device="ratio:1:64")
    print(r["miss_ratio"], r["virtual_time"])

    r = flashlayer.simulate("trace.flt", "cfdc", "2%",
                            store="tier:scheme=hypro,ssd=5%")

    rows = flashlayer.sweep("trace.flt", ["lru", "arc"], ["1%", "5%", 2000],
                            device=["ratio:1:1", "ratio:1:64"])

    r = flashlayer.simulate([(1, "R"), (2, "W"), (1, "R")], "lru", 2)
    cache = flashlayer.Cache("cflru", 100, device="ratio:1:64")
    hit = cache.request(42, write=True)

A policy, a store, a hierarchy scheme: each is a spec of one grammar,
``NAME[:KEY=VALUE,...]``; ``table(kind)`` lists the names, keys and
defaults the engine knows.

Every long call releases the GIL, so threads run simulations in parallel.
"""

from __future__ import annotations

from flashlayer._native import (
    BufferPool,
    FlashlayerError,
    FlashStore,
    NandChip,
    PowerCut,
    Trace,
    canonical,
    crash_test,
    formats,
    presets,
    register_policy,
    table,
)
from flashlayer.arrays import trace_of
from flashlayer.bounds import cost_bounds
from flashlayer.curves import lru_curve
from flashlayer.fit import fit_trace
from flashlayer.grid import sweep_grid
from flashlayer.replay import TraceLike, resolve_buffer, simulate, sweep
from flashlayer.requests import Cache, generate
from flashlayer.results import DeviceInfo, GenReport, Preset, Series, SimResult, TraceStats
from flashlayer.version import __version__

__all__ = [
    "BufferPool",
    "Cache",
    "DeviceInfo",
    "FlashStore",
    "FlashlayerError",
    "GenReport",
    "NandChip",
    "PowerCut",
    "Preset",
    "Series",
    "SimResult",
    "Trace",
    "TraceLike",
    "TraceStats",
    "__version__",
    "canonical",
    "cost_bounds",
    "crash_test",
    "fit_trace",
    "formats",
    "generate",
    "lru_curve",
    "presets",
    "register_policy",
    "resolve_buffer",
    "simulate",
    "sweep",
    "sweep_grid",
    "table",
    "trace_of",
]

