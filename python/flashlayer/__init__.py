"""flashlayer: I/O-asymmetry-aware storage management for databases.

The Python front of a Rust engine. Typical use::

    import flashlayer
    r = flashlayer.simulate("trace.csv.gz", "lru", 1000, device="ratio:1:64")
    print(r["miss_ratio"], r["virtual_time"])

    rows = flashlayer.sweep("trace.flt", ["lru", "arc"], ["1%", "5%", 2000],
                            device=["ratio:1:1", "ratio:1:64"])

Every long call releases the GIL, so threads run simulations in parallel.
"""

from __future__ import annotations

from os import PathLike

# Before the submodules: they put it in their results.
__version__ = "0.1.0"

from flashlayer._native import (
    FlashlayerError,
    FlashStore,
    NandChip,
    PowerCut,
    Trace,
    crash_test,
    formats,
    policies,
    presets,
)
from flashlayer.results import DeviceInfo, GenReport, Preset, Series, SimResult, TraceStats
from flashlayer.sweep import resolve_buffer, simulate, sweep, sweep_hybrid
from flashlayer.bounds import cost_bounds
from flashlayer.curves import lru_curve
from flashlayer.grid import sweep_grid

__all__ = [
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
    "formats",
    "policies",
    "presets",
    "simulate",
    "sweep",
    "sweep_hybrid",
    "cost_bounds",
    "lru_curve",
    "sweep_grid",
    "__version__",
]


TraceLike = str | PathLike[str] | Trace
