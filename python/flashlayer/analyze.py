"""A trace's shape (``flashlayer trace analyze``), in the manner of
libCacheSim's trace analyzer: how soon pages come back (reuse time in
requests, and LRU stack distance), how popularity falls with rank (with a
Zipf fit), and how the write share, the working set and the first
references move over the trace.

- **Reuse time** of a request: the requests since the previous request
  to its page (first references have none), reads and writes apart, in
  power-of-two bins.
- **Stack distance**: the distinct pages since the previous request to
  its page, from the engine's one-pass LRU curve (a request at distance
  ``d`` hits exactly in buffers of ``d`` pages or more).
- **Popularity**: requests per page by rank; the Zipf exponent is the
  slope of ``log(requests)`` against ``log(rank)`` fitted by least squares
  over the ranks holding 99% of the requests (the long tail of pages seen
  once or twice flattens the head's slope otherwise).
- **Over time**: the trace cut into ``windows`` equal spans of requests;
  in each, the write share, the distinct pages (the working set) and the
  first references (cold misses of any buffer).
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: Spans of the time series, unless given.
WINDOWS = 100
#: The popularity fit covers the ranks that hold this share of requests.
FIT_SHARE = 0.99


def _requests(t: Trace) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    w = np.frombuffer(t.words(), dtype="<u4")
    return (w & 0x7FFF_FFFF).astype(np.int64), (w >> 31).astype(bool)


def _reuse_times(pages: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per request, the requests since the last one to its page (-1 for a
    first reference)."""
    order = np.argsort(pages, kind="stable")
    sorted_pages = pages[order]
    gaps = np.full(len(pages), -1, dtype=np.int64)
    same = sorted_pages[1:] == sorted_pages[:-1]
    gaps[order[1:][same]] = order[1:][same] - order[:-1][same]
    return gaps


def _log2_histogram(values: NDArray[np.int64]) -> dict[str, list[int]]:
    """Counts in bins [1, 2), [2, 4), ... of the positive `values`."""
    v = values[values > 0]
    if not len(v):
        return {"lower": [], "count": []}
    bins = np.floor(np.log2(v)).astype(np.int64)
    counts = np.bincount(bins)
    return {"lower": [1 << i for i in range(len(counts))], "count": [int(c) for c in counts]}


def _zipf(counts: NDArray[np.int64]) -> dict[str, float]:
    """The Zipf fit of the popularity; none (an empty dict) for fewer than
    two distinct pages, where a line has nothing to fit."""
    if len(counts) < 2:
        return {}
    ranked = np.sort(counts)[::-1].astype(float)
    cum = np.cumsum(ranked) / ranked.sum()
    n = max(2, int(np.searchsorted(cum, FIT_SHARE)) + 1)
    x, y = np.log(np.arange(1, n + 1)), np.log(ranked[:n])
    slope, intercept = np.polyfit(x, y, 1)
    fitted = slope * x + intercept
    r2 = 1 - float(((y - fitted) ** 2).sum()) / max(float(((y - y.mean()) ** 2).sum()), 1e-300)
    return {"alpha": float(-slope), "r2": r2, "ranks_fitted": n}


def _over_time(pages: NDArray[np.int64], writes: NDArray[np.bool_], firsts: NDArray[np.bool_],
               windows: int) -> dict[str, list[float]]:
    edges = np.linspace(0, len(pages), min(windows, len(pages)) + 1).astype(np.int64)
    out: dict[str, list[float]] = {"end": [], "write_share": [], "working_set": [], "first_references": []}
    for lo, hi in pairwise(edges):
        out["end"].append(int(hi))
        out["write_share"].append(float(writes[lo:hi].mean()))
        out["working_set"].append(len(np.unique(pages[lo:hi])))
        out["first_references"].append(int(firsts[lo:hi].sum()))
    return out


def analyze(trace: Trace, windows: int = WINDOWS) -> dict[str, Any]:
    """The shape of `trace` (module docs): a JSON-ready dict."""
    if windows < 1:
        raise FlashlayerError(f"windows must be at least 1, got {windows}")
    pages, writes = _requests(trace)
    if not len(pages):
        raise FlashlayerError("the trace has no requests")
    gaps = _reuse_times(pages)
    firsts = gaps < 0
    counts = np.bincount(pages)
    curve = _native.lru_curve(trace)
    misses = np.asarray(curve["misses"], dtype=float)
    sizes = np.asarray(curve["sizes"], dtype=np.int64)
    return {
        "trace": str(trace.path),
        **trace.stats(),
        "first_references": int(firsts.sum()),
        "reuse_time": {"reads": _log2_histogram(gaps[~writes]), "writes": _log2_histogram(gaps[writes])},
        "stack_distance": {"sizes": sizes.tolist(), "hits_within": (len(pages) - misses).tolist()},
        "popularity": {"top": np.sort(counts)[::-1][:1000].tolist(), **_zipf(counts)},
        "over_time": _over_time(pages, writes, firsts, windows),
    }


def plot(a: dict[str, Any], folder: Path, force: bool = False) -> list[Path]:
    """Draws the analysis into `folder`: ``reuse.png``, ``popularity.png``
    and ``time.png``; returns their paths."""
    import matplotlib.pyplot as plt

    from flashlayer.files import atomic_output, png_software

    folder.mkdir(parents=True, exist_ok=True)
    name = Path(a["trace"]).name

    def save(fig: Any, path: Path) -> None:
        fig.tight_layout()
        fig.savefig(path, format="png", metadata=png_software())
        plt.close(fig)

    def reuse(path: Path) -> None:
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4), dpi=110)
        for op, h in a["reuse_time"].items():
            left.step(h["lower"], h["count"], where="post", label=op)
        left.set(xscale="log", yscale="log", xlabel="reuse time (requests since the page's last)",
                 ylabel="requests", title=f"{name}: reuse time")
        left.legend()
        sd = a["stack_distance"]
        right.plot(sd["sizes"], np.asarray(sd["hits_within"]) / a["requests"])
        right.set(xscale="log", xlabel="stack distance (distinct pages)", ylabel="share of requests within",
                  title="LRU stack distance (hit ratio of a buffer that size)")
        save(fig, path)

    def popularity(path: Path) -> None:
        fig, ax = plt.subplots(figsize=(6, 4), dpi=110)
        top = np.asarray(a["popularity"]["top"], dtype=float)
        ranks = np.arange(1, len(top) + 1)
        ax.loglog(ranks, top, ".", markersize=3, label="requests per page")
        p = a["popularity"]
        if "alpha" in p:
            fit = top[0] * ranks ** -p["alpha"]
            ax.loglog(ranks, fit, "-", label=f"Zipf alpha {p['alpha']:.2f} (R² {p['r2']:.2f})")
        ax.set(xlabel="rank", ylabel="requests", title=f"{name}: popularity (top {len(top):,} pages)")
        ax.legend()
        save(fig, path)

    def over_time(path: Path) -> None:
        t = a["over_time"]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4), dpi=110)
        for ax, key, label in zip(axes, ("write_share", "working_set", "first_references"),
                                  ("write share", "distinct pages in the span", "first references"), strict=True):
            ax.plot(t["end"], t[key])
            ax.set(xlabel="requests", ylabel=label, title=f"{name}: {label}")
        save(fig, path)

    out = []
    for file, draw in (("reuse.png", reuse), ("popularity.png", popularity), ("time.png", over_time)):
        atomic_output(folder / file, draw, force)
        out.append(folder / file)
    return out
