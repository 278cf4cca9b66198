"""Running policies over traces: one run (`simulate`) or a grid (`sweep`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from os import PathLike
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace

TraceLike = str | PathLike[str] | Trace


def open_trace(trace: TraceLike, format: str | None = None, page_size: int | None = None) -> Trace:
    """Returns `trace` if it is already open, else opens it."""
    if isinstance(trace, Trace):
        if format is not None or page_size is not None:
            raise FlashlayerError("format and page_size apply when opening a path, not to an open Trace")
        return trace
    return Trace.open(os.fspath(trace), format=format, page_size=page_size)


def simulate(
    trace: TraceLike,
    policy: str,
    buffer_pages: int,
    device: str | None = None,
    *,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int = 0,
) -> dict[str, Any]:
    """Replays `trace` with `policy` and a buffer of `buffer_pages` pages.

    `device` is a preset name, ``ratio:1:N`` or ``read=R,write=W``; the
    default ``None`` means ``ratio:1:1`` (virtual time = physical I/Os).
    Returns the metrics dict of ``flashlayer sim --json``. `seconds` and
    `requests_per_second` include opening the trace when a path is given.
    """
    start = time.perf_counter()
    t = open_trace(trace, format, page_size)
    r = _native.run(t, policy, buffer_pages, device, series_every)
    if not isinstance(trace, Trace):
        r["seconds"] = time.perf_counter() - start
        r["requests_per_second"] = r["requests"] / r["seconds"] if r["seconds"] > 0 else 0.0
    return r


def sweep(
    trace: TraceLike,
    policies: Sequence[str],
    buffers: Sequence[int],
    device: str | None = None,
    *,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int = 0,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Runs every policy × buffer size; returns results in that order.

    Names and sizes are validated before any run starts. Runs go in parallel
    on `workers` threads (default: the number of CPUs); `on_done` is called
    after each run, and `on_progress(n)` each time a run has served about a
    million more requests (n is that increment), e.g. for a progress bar.
    """
    names = [_native.policy_name(p) for p in policies]
    for b in buffers:
        if b < 1:
            raise FlashlayerError(f"buffer size must be at least 1 page, got {b}")
    if device is not None:
        _native.device(device)
    t = open_trace(trace, format, page_size)
    grid = [(p, b) for p in names for b in buffers]

    def one(job: tuple[str, int]) -> dict[str, Any]:
        last = 0

        def tick(n: int) -> None:
            nonlocal last
            if on_progress is not None:
                on_progress(n - last)
            last = n

        r = _native.run(t, job[0], job[1], device, series_every, tick if on_progress else None)
        if on_done is not None:
            on_done(r)
        return r

    n = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=max(1, min(n, len(grid) or 1))) as ex:
        return list(ex.map(one, grid))
