"""Requests from Python: a workload generated straight into a trace in
memory (:func:`generate`), and a policy over a store served one request at
a time (:class:`Cache`), as libCacheSim's ``cache.get(req)`` is.

A trace in memory (:func:`flashlayer.arrays.trace_of`) is accepted
wherever a trace path is (``simulate``, ``sweep``, ``lru_curve``).
"""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace
from flashlayer.arrays import pages_array, writes_array
from flashlayer.replay import annotate, stores_of
from flashlayer.results import SimResult

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

def generate(kind: str, seed: int = 0, **params: Any) -> Trace:
    """Generates workload `kind` into a trace in memory: ``"zipf"``
    (``requests``, ``pages``, ``alpha`` and ``write_ratio`` as ``flashlayer
    trace gen zipf`` takes them, e.g. ``generate("zipf", requests=100_000,
    pages=10_000, alpha=0.99, write_ratio=0.2)``), ``"ace"`` (ACE's synthetic workload: ``operations``,
    ``pages``, ``reads``, ``skew``, ``hot`` as ``flashlayer trace gen ace``
    takes them; glibc's default seed, so `seed` must stay 0) or a database
    workload of ``flashlayer list workloads`` (``generate("tpcc",
    transactions=1000)``). Parameters not given take the engine's
    defaults (``flashlayer._native.generator_defaults``)."""
    with tempfile.TemporaryDirectory(prefix="flashlayer-gen-") as tmp:
        out = Path(tmp) / "trace.flt"
        if kind in ("zipf", "ace"):
            takes = [k for k in _native.generator_defaults(kind) if k != "seed"]
            extra = sorted(set(params) - set(takes))
            if extra:
                raise FlashlayerError(f"{kind} takes {', '.join(takes)}; unknown {', '.join(extra)}")
        if kind == "zipf":
            _native.gen_zipf(out, seed=seed, **params)
        elif kind == "ace":
            if seed != 0:
                raise FlashlayerError("ace draws from glibc's default seed, as its authors' generator does: "
                                      "seed must be 0")
            _native.gen_ace(out, **params)
        else:
            known = ["zipf", "ace", *(name for name, _, _ in _native.table("workload"))]
            if not any(kind == k or kind.startswith(f"{k}:") for k in known):
                raise FlashlayerError(f"unknown workload '{kind}'; generate takes {', '.join(known)}")
            _native.gen_workload(kind, out, seed, params or None)
        return Trace.from_flt(out.read_bytes(), f"{kind}(seed={seed})")


class Cache:
    """`policy` with a buffer of `capacity` pages over `store` (default
    ``cost``, a cost model of ``ratio:1:1``; `device` is its shorthand, as
    in ``simulate``), served one request at a time.

    `pages`, if given, declares the pages ``0..pages``: requests must name
    them, a buffer may be ``"P%"`` of them, and any store without data
    (``cost``, ``ftl``, ``hybrid``, ``tier``) can be used. Without it pages
    are met as they come and only ``cost`` can be. The counters and virtual
    time of :meth:`result` are the row ``simulate`` gives for the same
    requests (for pages named in order of first appearance).

    >>> c = Cache("lru", 2)
    >>> [c.request(p, write=(p == 2)) for p in (1, 2, 1, 3, 2)]
    [False, False, True, False, False]
    >>> c.result()["physical_writes"]
    1
    """

    def __init__(self, policy: str, capacity: int | str, store: str | None = None, *,
                 device: str | None = None, pages: int | None = None) -> None:
        (spec,) = stores_of(store, device)
        self._c = _native.Cache(policy, capacity, spec, pages)
        self._capacity = capacity

    def request(self, page: int, write: bool = False) -> bool:
        """Serves one request; returns whether it hit."""
        return self._c.request(page, write)

    def requests(self, pages: ArrayLike, writes: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Serves every request of `pages` (with `writes` as in
        :func:`trace_of`) in Rust, the GIL released; returns whether each
        hit."""
        p = pages_array(pages)
        w = writes_array(writes, len(p))
        return np.frombuffer(self._c.serve(p.tobytes(), w.tobytes()), dtype=np.bool_)

    @property
    def pages(self) -> int:
        """Distinct pages: declared, or met so far."""
        return self._c.pages

    def result(self, flush_at_end: bool | None = None) -> SimResult:
        """The row ``simulate`` gives for the requests so far (``trace`` is
        ``"<requests>"``); `flush_at_end` writes the dirty pages first."""
        return annotate(self._c.result(flush_at_end), self._capacity, self._c.pages)

    def __repr__(self) -> str:
        return repr(self._c)



class PythonLru:
    """LRU written in Python, the protocol of ``register_policy`` at its
    smallest: an ordered dict of the pages from least to most recently
    requested."""

    def __init__(self, capacity: int) -> None:
        self.pages: OrderedDict[int, None] = OrderedDict()

    def admit(self, page: int, write: bool) -> None:
        self.pages[page] = None

    def hit(self, page: int, write: bool) -> None:
        self.pages.move_to_end(page)

    def evict(self) -> int:
        return self.pages.popitem(last=False)[0]

    def reinstate(self, page: int, dirty: bool) -> None:
        self.pages[page] = None
        self.pages.move_to_end(page, last=False)

    def remove(self, page: int) -> None:
        del self.pages[page]


def register_python_lru() -> str:
    """Registers :class:`PythonLru` as ``python-lru`` (the benchmark's
    Python policy); returns the name."""
    _native.register_policy(
        "python-lru", PythonLru, "LRU written in Python (flashlayer.requests.PythonLru)", replace=True
    )
    return "python-lru"
