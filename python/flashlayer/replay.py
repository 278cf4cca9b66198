"""Running policies over traces: one run (`simulate`) or a grid (`sweep`)
of policies x buffer sizes x stores, all through the engine's one replay.

A store is a spec of the engine's grammar (``flashlayer list stores``):
``cost:device=ratio:1:64`` (the default store is ``cost``, a cost model
of ``ratio:1:1``), ``file:path=db,direct=on``, ``flash:method=pdl:256``,
``hybrid:placement=optimistic``, ``tier:scheme=hypro,p_sink=0.15,ssd=5%``.
``device=SPEC`` is the shorthand of ``cost:device=SPEC``. The engine owns
every default: what is not given is passed as ``None``.

Buffer sizes are page counts or shares of the trace's distinct pages
(``"5%"``); every result row carries the resolved ``buffer_pages``, the
``buffer_share`` it is of the distinct pages, and the ``buffer_spec`` asked
for.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from os import PathLike
from typing import Any, TypeVar

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace
from flashlayer.arrays import trace_of
from flashlayer.checks import distinct, items, whole_or_none
from flashlayer.results import SimResult

#: A trace path, an open :class:`Trace`, or requests in memory (a list of
#: ``(page, op)`` pairs, an array of pages, a pandas or pyarrow frame:
#: :func:`flashlayer.arrays.trace_of`).
TraceLike = str | PathLike[str] | Trace | Sequence[tuple[int, str]] | Any
BufferSpec = int | str
J = TypeVar("J")


def policies(serving: str | None = None, *, builtin: bool = False) -> list[str]:
    """The policies' names in the engine's table order, registered ones last;
    with ``serving`` (``"offline"``, ``"pool"`` or ``"ace_base"``) only those
    that serve as it, as each declares; with `builtin` only the engine's
    own (none registered at run time)."""
    return [name for name, roles in _native.policy_roles()
            if (serving is None or serving in roles) and not (builtin and "registered" in roles)]


def open_trace(trace: TraceLike, format: str | None = None, page_size: int | None = None) -> Trace:
    """Returns `trace` if it is already open, opens it if it is a path,
    else builds it from the requests in memory."""
    if isinstance(trace, (str, PathLike)):
        return Trace.open(os.fspath(trace), format=format, page_size=page_size)
    if format is not None or page_size is not None:
        raise FlashlayerError("format and page_size apply when opening a path, not to an open Trace or requests")
    return trace_of(trace)


def resolve_buffer(spec: BufferSpec, distinct_pages: int) -> int:
    """Pages for a size: a whole number of pages (>= 1), or ``"P%"`` of
    `distinct_pages` (0 < P <= 100), rounded, at least 1 page (the
    engine's rule)."""
    if isinstance(spec, bool) or not isinstance(spec, (int, str)):
        raise FlashlayerError(f"a size is pages or 'P%', not {spec!r}")
    return _native.size_pages(spec, distinct_pages)


def stores_of(store: str | Sequence[str] | None, device: str | Sequence[str] | None) -> list[str]:
    """Canonical store specs from `store` (one spec or a list) or its
    shorthand `device` (one device spec or a list: cost stores); neither:
    the engine's default store."""
    if store is not None and device is not None:
        raise FlashlayerError("give store= or its shorthand device=, not both")
    if device is not None:
        devices = [device] if isinstance(device, str) else items("device", device)
        store = [f"cost:device={d}" for d in devices]
    if store is None:
        store = ["cost"]
    specs = [store] if isinstance(store, str) else items("stores", store)
    out = [_native.canonical("store", s) for s in specs]
    for s in out:
        if out.count(s) > 1:
            raise FlashlayerError(f"store '{s}' is given twice")
    return out


def policy_labels(specs: Sequence[str]) -> dict[str, str]:
    """Each canonical policy spec's label in a legend or a column: the
    policy's name where no other spec has it, else the whole spec."""
    names = [_native.spec_parts("policy", p)[0] for p in specs]
    return {p: (n if names.count(n) == 1 else p) for p, n in zip(specs, names, strict=True)}


def replacing(spec: str) -> str:
    """A canonical store spec allowed to write over an existing file it
    names that flashlayer did not write (a file store's ``replace=on``,
    what ``--force`` says); any other spec as it is."""
    name, params = _native.spec_parts("store", spec)
    if name != "file" or params["replace"] == "on":
        return spec
    return _native.canonical("store", "file:" + ",".join(f"{k}={'on' if k == 'replace' else v}"
                                                         for k, v in params.items()))


def annotate(r: SimResult, spec: BufferSpec, pages: int) -> SimResult:
    """`r` with the buffer size as asked and as a share of `pages`."""
    r["buffer_spec"] = str(spec)
    r["buffer_share"] = r["buffer_pages"] / pages if pages else 0.0
    if "ssd_pages" in r:
        r["ssd_share"] = r["ssd_pages"] / pages if pages else 0.0
    return r


def simulate(
    trace: TraceLike,
    policy: str,
    buffer: BufferSpec,
    store: str | None = None,
    *,
    device: str | None = None,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int | None = None,
    flush_at_end: bool | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> SimResult:
    """Replays `trace` with `policy` and a buffer of `buffer` pages (or
    ``"P%"`` of the trace's distinct pages) over `store`.

    `policy` is a spec with optional parameters, e.g. ``"lru"``,
    ``"cflru:w=0.25"``, ``"casa:cost=model"`` (``flashlayer list
    policies``); `store` a store spec (module docs; default ``cost``, a
    cost model of ``ratio:1:1``), or its shorthand `device`, a device spec
    (a preset name, ``ratio:1:N`` or ``read=R,write=W``). The row's
    ``policy`` and ``store`` are canonical specs with every parameter
    written out.

    `series_every` records a time series every N requests (default: none).
    `flush_at_end` writes the dirty pages left in the buffer at the end
    (default: the store's; off for ``cost``, ``hybrid`` and ``tier``,
    whose dirty pages left are counted in ``dirty_at_end``; on, and not
    to be turned off, for ``file`` and ``flash``). `on_progress(n)` is
    called each time the run has served about a million more requests (n
    is the requests served so far); an exception from it stops the run and
    propagates. A combination that
    cannot work raises `FlashlayerError` naming why. Returns the row of
    ``flashlayer sim --json``, with the fields of the store's kind
    (``flashlayer list stores``). `seconds` and `requests_per_second`
    include opening the trace when a path is given.
    """
    start = time.perf_counter()
    if not isinstance(policy, str):
        raise FlashlayerError(f"policy must be one policy spec, got {policy!r}")
    series_every = whole_or_none("series_every", series_every)
    (spec,) = stores_of(store, device)
    t = open_trace(trace, format, page_size)
    resolve_buffer(buffer, t.pages)
    r = _native.replay(t, policy, buffer, spec, series_every, flush_at_end, on_progress)
    if not isinstance(trace, Trace):
        r["seconds"] = time.perf_counter() - start
        r["requests_per_second"] = r["requests"] / r["seconds"] if r["seconds"] > 0 else 0.0
    return annotate(r, buffer, t.pages)


def sweep(
    trace: TraceLike,
    policies: Sequence[str],
    buffers: Sequence[BufferSpec],
    stores: str | Sequence[str] | None = None,
    *,
    device: str | Sequence[str] | None = None,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int | None = None,
    flush_at_end: bool | None = None,
    workers: int | None = None,
    on_done: Callable[[SimResult], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[SimResult]:
    """Runs every store x policy x buffer size and returns the rows in that
    order (stores outermost). `stores` is one store spec or a list (default
    ``cost``); `device`, one device spec or a list, is their shorthand
    (cost stores). Other arguments as in `simulate`.

    Names, sizes and stores are validated before any run starts. Runs go in
    parallel on `workers` threads (default: the number of CPUs); `on_done`
    is called after each run, and `on_progress(n)` each time a run has
    served about a million more requests (n is that increment), e.g. for a
    progress bar. An exception from either callback, or Ctrl-C, stops the
    sweep and propagates.
    """
    names = distinct("policy", [_native.canonical("policy", p) for p in items("policies", policies)])
    series_every = whole_or_none("series_every", series_every)
    workers = whole_or_none("workers", workers, 1)
    specs = stores_of(stores, device)
    t = open_trace(trace, format, page_size)
    sizes = [(b, resolve_buffer(b, t.pages)) for b in distinct("buffer size", items("buffers", buffers, (int, str)))]
    grid = [(s, p, b) for s in specs for p in names for b in sizes]

    # Set when the sweep fails or is interrupted: running engine calls see it
    # at their next progress callback (every million requests) and stop.
    stop = threading.Event()

    def one(job: tuple[str, str, tuple[BufferSpec, int]]) -> SimResult:
        store, policy, (spec, pages) = job
        last = 0

        def tick(n: int) -> None:
            nonlocal last
            if stop.is_set():
                raise Stopped
            if on_progress is not None:
                on_progress(n - last)
            last = n

        r = _native.replay(t, policy, pages, store, series_every, flush_at_end, tick)
        annotate(r, spec, t.pages)
        if on_done is not None:
            on_done(r)
        return r

    return _parallel(grid, one, workers, stop)


def _parallel(grid: list[J], one: Callable[[J], SimResult], workers: int | None,
              stop: threading.Event) -> list[SimResult]:
    """Runs `one` over `grid` on `workers` threads (default: the CPUs), in
    grid order; the first failure (or Ctrl-C) sets `stop` and propagates."""
    n = workers or os.cpu_count() or 1
    ex = ThreadPoolExecutor(max_workers=max(1, min(n, len(grid) or 1)))
    try:
        futures = [ex.submit(one, job) for job in grid]
        return [f.result() for f in futures]
    except BaseException:
        stop.set()
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


class Stopped(Exception):
    """Ends a run of a sweep that is being abandoned."""
