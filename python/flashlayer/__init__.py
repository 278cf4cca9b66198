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

from flashlayer.version import __version__

from flashlayer._native import (
    BufferPool,
    FlashlayerError,
    FlashStore,
    NandChip,
    PowerCut,
    Trace,
    crash_test,
    canonical,
    formats,
    presets,
    register_policy,
    table,
)
from flashlayer.results import DeviceInfo, GenReport, Preset, Series, SimResult, TraceStats
from flashlayer.replay import TraceLike, resolve_buffer, simulate, sweep
from flashlayer.arrays import trace_of
from flashlayer.requests import Cache, generate
from flashlayer.bounds import cost_bounds
from flashlayer.curves import lru_curve
from flashlayer.fit import fit_trace
from flashlayer.grid import sweep_grid

__all__ = [
    "BufferPool",
    "Cache",
    "register_policy",
    "generate",
    "trace_of",
    "DeviceInfo",
    "GenReport",
    "Preset",
    "Series",
    "SimResult",
    "TraceStats",
    "resolve_buffer",
    "FlashlayerError",
    "FlashStore",
    "NandChip",
    "PowerCut",
    "crash_test",
    "Trace",
    "TraceLike",
    "canonical",
    "formats",
    "presets",
    "simulate",
    "sweep",
    "table",
    "cost_bounds",
    "lru_curve",
    "fit_trace",
    "sweep_grid",
    "__version__",
]

