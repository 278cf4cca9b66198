"""Each policy's reduction of cost against a baseline policy across the
traces of a sweep (``flashlayer report --baseline P``): the figure the
caching literature draws (a box per policy over the traces), with its
table.

A reduction is ``1 - metric(policy) / metric(baseline)`` on the same trace,
store and buffer size as asked (``buffer_spec``: ``5%`` is 5% of each
trace's pages): above 0 the policy does better. Metrics: virtual time,
misses and physical writes. A trace where the baseline's metric is 0 (or
either run failed) is left out of that box.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from flashlayer import _native
from flashlayer._native import FlashlayerError

#: What a reduction is computed on, and how the figures name it.
METRICS = {"virtual_time": "virtual time", "misses": "misses", "physical_writes": "writes"}


def reductions(rows: list[dict[str, Any]], baseline: str) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Box-plot figures (one per store, buffer size and metric) and table
    rows (policy, store, buffer, metric, traces, median, mean, min, max)
    of each policy's reduction against `baseline` over the traces."""
    ok = [r for r in rows if r.get("error") is None]
    base = _native.canonical("policy", baseline)
    if base not in {r["policy"] for r in ok}:
        raise FlashlayerError(f"baseline {baseline!r} is not among the sweep's policies: "
                              + ", ".join(sorted({r["policy"] for r in ok})))
    cells: dict[tuple[str, str], dict[str, dict[str, dict[str, Any]]]] = {}
    for r in ok:
        key = (_native.short_spec("store", r["grid_store"]), str(r.get("buffer_spec", r["buffer_pages"])))
        cells.setdefault(key, {}).setdefault(r["policy"], {})[Path(r["trace"]).name] = r
    figures: dict[str, dict[str, Any]] = {}
    table: list[dict[str, Any]] = []
    for n, ((store, buffer), by_policy) in enumerate(sorted(cells.items())):
        ref = by_policy.get(base, {})
        for metric, label in METRICS.items():
            boxes: dict[str, list[float]] = {}
            for policy, by_trace in sorted(by_policy.items()):
                if policy == base:
                    continue
                values = [1 - r[metric] / ref[t][metric] for t, r in by_trace.items()
                          if t in ref and ref[t][metric]]
                if not values:
                    continue
                short = _native.short_spec("policy", policy)
                boxes[short] = values
                v = np.asarray(values)
                table.append({"policy": short, "store": store, "buffer": buffer, "metric": label,
                              "traces": len(values), "median": float(np.median(v)), "mean": float(v.mean()),
                              "min": float(v.min()), "max": float(v.max())})
            if boxes:
                figures[f"reduction/{n:03d}-{metric}"] = {
                    "title": f"{label} reduction against {_native.short_spec('policy', base)}: {store}, buffer "
                             f"{buffer}, over {max(len(v) for v in boxes.values())} traces",
                    "x_label": "policy", "y_label": f"1 - {label} / baseline's", "boxes": boxes,
                }
    return figures, table
