"""Running policies over traces: one run (`simulate`) or a grid (`sweep`).

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
from typing import TypeVar

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace
from flashlayer.results import SimResult

TraceLike = str | PathLike[str] | Trace
BufferSpec = int | str
J = TypeVar("J")


def open_trace(trace: TraceLike, format: str | None = None, page_size: int | None = None) -> Trace:
    """Returns `trace` if it is already open, else opens it."""
    if isinstance(trace, Trace):
        if format is not None or page_size is not None:
            raise FlashlayerError("format and page_size apply when opening a path, not to an open Trace")
        return trace
    return Trace.open(os.fspath(trace), format=format, page_size=page_size)


def resolve_buffer(spec: BufferSpec, distinct_pages: int) -> int:
    """Pages for a buffer spec: a whole number of pages (>= 1), or ``"P%"``
    of `distinct_pages` (0 < P <= 100), rounded, at least 1 page."""
    if isinstance(spec, bool):
        raise FlashlayerError(f"a buffer size is pages or 'P%', not {spec!r}")
    if isinstance(spec, int):
        if spec < 1:
            raise FlashlayerError(f"a buffer size must be at least 1 page, got {spec}")
        return spec
    text = str(spec).strip()
    if text.endswith("%"):
        try:
            share = float(text[:-1])
        except ValueError:
            raise FlashlayerError(f"a buffer size is whole pages or P% of the distinct pages, got '{spec}'") from None
        if not 0 < share <= 100:
            raise FlashlayerError(f"a buffer share must be in (0%, 100%], got '{spec}'")
        return max(1, round(distinct_pages * share / 100))
    try:
        return resolve_buffer(int(text), distinct_pages)
    except ValueError:
        raise FlashlayerError(f"a buffer size is whole pages or P% of the distinct pages, got '{spec}'") from None


def _devices(device: str | Sequence[str] | None) -> list[str | None]:
    if device is None or isinstance(device, str):
        return [device]
    if not device:
        raise FlashlayerError("expected at least one device")
    return list(device)


def _annotate(r: SimResult, spec: BufferSpec, pages: int) -> SimResult:
    r["buffer_spec"] = str(spec)
    r["buffer_share"] = r["buffer_pages"] / pages if pages else 0.0
    return r


def simulate(
    trace: TraceLike,
    policy: str,
    buffer_pages: BufferSpec,
    device: str | None = None,
    *,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int = 0,
    flush_at_end: bool = False,
    hybrid: str | None = None,
    flash: str | None = None,
    magnetic: str | None = None,
    flash_capacity: int | None = None,
    defer: int = 0,
    tier: str | None = None,
    ssd_pages: BufferSpec | None = None,
    ssd: str | None = None,
    hdd: str | None = None,
) -> SimResult:
    """Replays `trace` with `policy` and a buffer of `buffer_pages` pages
    (or ``"P%"`` of the trace's distinct pages).

    `policy` is a spec with optional parameters, e.g. ``"lru"``,
    ``"cflru:w=0.25"``, ``"casa:cost=model"`` (``flashlayer.policies()``
    lists them with their defaults); the result's ``policy`` is the
    canonical spec with every parameter written out.

    `device` is a preset name, ``ratio:1:N`` or ``read=R,write=W``; the
    default ``None`` means ``ratio:1:1`` (virtual time = physical I/Os).
    `flush_at_end` writes the dirty pages left in the buffer at the end
    (default: they stay unwritten and are counted in ``dirty_at_end``).
    Returns the row of ``flashlayer sim --json``. `seconds` and
    `requests_per_second` include opening the trace when a path is given.

    `hybrid` names a placement (``conservative``, ``optimistic``,
    ``hybrid``, ``optimal``, ``m-only``, ``f-only``): the pages then live on
    a flash and a magnetic disk at once (Koltsidas & Viglas 2008), priced
    by `flash` and `magnetic` (default: their Table 1) instead of `device`,
    with `flash_capacity` and `defer` as in `sweep_hybrid`; the row gains
    ``placement``, ``flash_reads``, ``flash_writes``, ``magnetic_reads``,
    ``magnetic_writes``, ``migrations`` and ``pages_on_flash``.

    `tier` names a hierarchy scheme (``hypro``, ``tac``, ``face``, ``lc``,
    with parameters as in `flashlayer.tiers.sweep_tier`): `policy` then
    manages a DRAM of `buffer_pages` over an SSD cache of `ssd_pages` (pages
    or ``"P%"``) over a disk, priced by `ssd` and `hdd` (default
    ``hypro-ssd`` and ``hypro-hdd``); the row gains the fields
    `sweep_tier` lists, and `series_every` records ``tier_series``.
    """
    start = time.perf_counter()
    t = open_trace(trace, format, page_size)
    pages = resolve_buffer(buffer_pages, t.pages)
    if tier is None and (ssd_pages is not None or ssd is not None or hdd is not None):
        raise FlashlayerError("ssd_pages, ssd and hdd apply with tier=SCHEME")
    if tier is not None:
        from flashlayer.tiers import sweep_tier

        if (hybrid is not None or device is not None or flush_at_end or flash is not None or magnetic is not None
                or flash_capacity is not None or defer):
            raise FlashlayerError("tier= replays a DRAM / SSD / disk hierarchy: hybrid=, device=, flash=, magnetic=, "
                                  "flash_capacity=, defer= and flush_at_end do not apply (ssd= and hdd= price it)")
        if ssd_pages is None:
            raise FlashlayerError("tier= needs ssd_pages (pages or 'P%' of the distinct pages)")
        r = sweep_tier(t, [tier], [pages], [ssd_pages], policy=policy, ssd=ssd, hdd=hdd,
                       series_every=series_every, workers=1)[0]
    elif hybrid is None:
        if flash is not None or magnetic is not None or flash_capacity is not None or defer:
            raise FlashlayerError("flash, magnetic, flash_capacity and defer apply with hybrid=PLACEMENT")
        r = _native.run(t, policy, pages, device, series_every, None, flush_at_end)
    else:
        if device is not None:
            raise FlashlayerError("device prices a single-device store; with hybrid= use flash= and magnetic=")
        if series_every:
            raise FlashlayerError("series_every is not available with hybrid=")
        r = sweep_hybrid(t, [policy], [pages], [hybrid], flash=flash, magnetic=magnetic,
                         flash_capacity=flash_capacity, defer=defer, flush_at_end=flush_at_end, workers=1)[0]
    if not isinstance(trace, Trace):
        r["seconds"] = time.perf_counter() - start
        r["requests_per_second"] = r["requests"] / r["seconds"] if r["seconds"] > 0 else 0.0
    return _annotate(r, buffer_pages, t.pages)


def sweep(
    trace: TraceLike,
    policies: Sequence[str],
    buffers: Sequence[BufferSpec],
    device: str | Sequence[str] | None = None,
    *,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int = 0,
    flush_at_end: bool = False,
    workers: int | None = None,
    on_done: Callable[[SimResult], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[SimResult]:
    """Runs every device × policy × buffer size; returns results in that
    order (devices outermost). `device` is one spec or a list of them.

    Names, sizes and devices are validated before any run starts. Runs go
    in parallel on `workers` threads (default: the number of CPUs);
    `on_done` is called after each run, and `on_progress(n)` each time a run
    has served about a million more requests (n is that increment), e.g.
    for a progress bar. An exception from either callback, or Ctrl-C,
    stops the sweep and propagates.
    """
    names = [_native.policy_name(p) for p in policies]
    devices = _devices(device)
    for d in devices:
        if d is not None:
            _native.device(d)
    t = open_trace(trace, format, page_size)
    sizes = [(b, resolve_buffer(b, t.pages)) for b in buffers]
    grid = [(d, p, b) for d in devices for p in names for b in sizes]

    # Set when the sweep fails or is interrupted: running engine calls see it
    # at their next progress callback (every million requests) and stop.
    stop = threading.Event()

    def one(job: tuple[str | None, str, tuple[BufferSpec, int]]) -> SimResult:
        dev, policy, (spec, pages) = job
        last = 0

        def tick(n: int) -> None:
            nonlocal last
            if stop.is_set():
                raise _Stopped
            if on_progress is not None:
                on_progress(n - last)
            last = n

        r = _native.run(t, policy, pages, dev, series_every, tick, flush_at_end)
        _annotate(r, spec, t.pages)
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


def sweep_hybrid(
    trace: TraceLike,
    policies: Sequence[str],
    buffers: Sequence[BufferSpec],
    placements: Sequence[str],
    *,
    flash: str | None = None,
    magnetic: str | None = None,
    flash_capacity: int | None = None,
    defer: int = 0,
    format: str | None = None,
    page_size: int | None = None,
    flush_at_end: bool = False,
    workers: int | None = None,
    on_done: Callable[[SimResult], None] | None = None,
) -> list[SimResult]:
    """Runs every placement × policy × buffer size over a hybrid flash +
    magnetic store (Koltsidas & Viglas 2008) and returns the rows in that
    order (placements outermost). `placements` are ``conservative``,
    ``optimistic``, ``hybrid``, ``optimal`` (the offline optimum, two
    passes), ``m-only`` and ``f-only``; `flash` and `magnetic` are device
    specs (default: ``koltsidas08-flash`` and ``koltsidas08-magnetic``,
    Table 1); `flash_capacity` caps the pages on flash (default: none);
    `defer` moves pages in batches of that many (default 0: at eviction).
    Rows carry ``placement``, ``flash_reads``, ``flash_writes``,
    ``magnetic_reads``, ``magnetic_writes``, ``migrations`` and
    ``pages_on_flash``; the virtual time includes the migrations."""
    names = [_native.policy_name(p) for p in policies]
    if not placements:
        raise FlashlayerError("expected at least one placement")
    for pl in placements:
        if pl.lower() not in PLACEMENTS:
            raise FlashlayerError(f"unknown placement '{pl}'; valid placements: {', '.join(PLACEMENTS)}")
    for d in (flash, magnetic):
        if d is not None:
            _native.device(d)
    if flash_capacity is not None and flash_capacity < 1:
        raise FlashlayerError(f"flash capacity must be at least 1 page (leave it unset for no limit), got {flash_capacity}")
    if defer < 0:
        raise FlashlayerError(f"defer must be 0 (off) or a batch size of at least 1 page, got {defer}")
    t = open_trace(trace, format, page_size)
    sizes = [(b, resolve_buffer(b, t.pages)) for b in buffers]
    grid: list[_Job] = [(pl.lower(), p, b) for pl in placements for p in names for b in sizes]
    stop = threading.Event()

    def one(job: _Job) -> SimResult:
        placement, policy, (spec, pages) = job

        def tick(_: int) -> None:
            if stop.is_set():
                raise _Stopped

        r = _native.run_hybrid(t, policy, pages, placement or "hybrid", flash, magnetic, flash_capacity, defer, 0,
                               tick, flush_at_end)
        _annotate(r, spec, t.pages)
        if on_done is not None:
            on_done(r)
        return r

    return _parallel(grid, one, workers, stop)


#: Placement names ``sweep_hybrid`` and ``simulate(hybrid=...)`` take.
PLACEMENTS = ("conservative", "optimistic", "hybrid", "optimal", "m-only", "f-only")

_Job = tuple[str | None, str, tuple[BufferSpec, int]]


class _Stopped(Exception):
    """Ends a run of a sweep that is being abandoned."""
