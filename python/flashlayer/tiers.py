"""DRAM over an SSD cache over a disk: `sweep_tier` runs hierarchy schemes
(HyPro, TAC, FaCE, lazy cleaning) over a trace at every DRAM size × SSD
size.

A scheme is named with its parameters, as policies are:
``hypro:p_elevate=auto,p_sink=0.15,seed=1``, ``tac:extent=32``,
``face:group=64``, ``lc:dirty=0.5`` (`SCHEME_HELP` lists them with their
defaults). Sizes are pages or shares of the trace's distinct pages
(``"1%"``). Devices default to HyPro's Table 4: ``hypro-ssd`` (read 271,
write 803 µs) and ``hypro-hdd`` (read 12,700, write 13,700 µs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.results import SimResult
from flashlayer.sweep import BufferSpec, TraceLike, _annotate, _parallel, _Stopped, open_trace, resolve_buffer

#: The hierarchy schemes.
SCHEMES = ("hypro", "tac", "face", "lc")

#: Each scheme's parameters with their defaults, for help texts.
SCHEME_HELP: dict[str, str] = dict(_native.tier_schemes())


def scheme_list(value: str | Sequence[str]) -> list[str]:
    """Canonical scheme specs from ``"hypro:p_sink=0.15,seed=1,tac"`` (a
    ``key=value`` piece continues the scheme before it) or a list of specs;
    every parameter written out. Raises `FlashlayerError` naming a bad
    piece."""
    if isinstance(value, str):
        specs: list[str] = []
        for piece in (p.strip() for p in value.split(",")):
            if not piece:
                continue
            if "=" in piece and ":" not in piece.split("=", 1)[0]:
                if not specs:
                    raise FlashlayerError(f"'{piece}' continues no scheme; start with one of {', '.join(SCHEMES)}")
                specs[-1] += ("," if ":" in specs[-1] else ":") + piece
            else:
                specs.append(piece)
    else:
        specs = list(value)
    if not specs:
        raise FlashlayerError(f"expected at least one scheme of {', '.join(SCHEMES)}")
    out = [_native.tier_scheme(s) for s in specs]
    for s in out:
        if out.count(s) > 1:
            raise FlashlayerError(f"scheme '{s}' is given twice")
    return out


def resolve_ssd(spec: BufferSpec, distinct_pages: int) -> int:
    """Pages of an SSD size: pages (>= 1) or ``"P%"`` of the distinct pages."""
    try:
        return resolve_buffer(spec, distinct_pages)
    except FlashlayerError as e:
        raise FlashlayerError(str(e).replace("a buffer", "an SSD")) from None


def sweep_tier(
    trace: TraceLike,
    schemes: str | Sequence[str],
    buffers: Sequence[BufferSpec],
    ssd_sizes: Sequence[BufferSpec],
    *,
    policy: str = "lru",
    ssd: str | None = None,
    hdd: str | None = None,
    format: str | None = None,
    page_size: int | None = None,
    series_every: int = 0,
    workers: int | None = None,
    on_done: Callable[[SimResult], None] | None = None,
) -> list[SimResult]:
    """Runs every scheme × DRAM size × SSD size over `trace` and returns the
    rows in that order (schemes outermost). `policy` manages DRAM (default
    ``lru``); `ssd` and `hdd` are device specs (default ``hypro-ssd`` and
    ``hypro-hdd``, one unit for both). Every row is ``sim --tier --json``'s:
    ``scheme``, ``buffer_pages`` (DRAM), ``ssd_pages``, ``hits`` (DRAM),
    ``ssd_hits``, ``hdd_misses``, ``ssd_reads``, ``ssd_writes``,
    ``hdd_reads``, ``hdd_writes``, ``cleanings``, ``elevations``, ``sinks``,
    ``ssd_time``, ``hdd_time``, ``io_time`` (= ``virtual_time``) and, for
    HyPro, the final ``p_sink``, ``p_elevate`` and the run totals
    ``c_sinkf``, ``c_sinkd`` of its Eqs. 1-2. Names, sizes and devices are
    checked before any run starts; runs go in parallel on `workers`
    threads (default: the CPUs)."""
    names = scheme_list(schemes)
    dram_policy = _native.policy_name(policy)
    devices = [_native.device(d or default) for d, default in ((ssd, "hypro-ssd"), (hdd, "hypro-hdd"))]
    if devices[0]["unit"] != devices[1]["unit"]:
        raise FlashlayerError(f"the SSD '{devices[0]['name']}' and the disk '{devices[1]['name']}' price in "
                              "different units; both must use one")
    if not buffers or not ssd_sizes:
        raise FlashlayerError("expected at least one DRAM size and one SSD size")
    t = open_trace(trace, format, page_size)
    drams = [(b, resolve_buffer(b, t.pages)) for b in buffers]
    ssds = [(s, resolve_ssd(s, t.pages)) for s in ssd_sizes]
    grid = [(n, d, s) for n in names for d in drams for s in ssds]
    stop = threading.Event()

    def one(job: tuple[str, tuple[BufferSpec, int], tuple[BufferSpec, int]]) -> SimResult:
        scheme, (dspec, dpages), (sspec, spages) = job

        def tick(_: int) -> None:
            if stop.is_set():
                raise _Stopped

        r = _native.run_tier(t, scheme, dram_policy, dpages, spages, ssd, hdd, series_every, tick)
        _annotate(r, dspec, t.pages)
        r["ssd_spec"] = str(sspec)
        r["ssd_share"] = r["ssd_pages"] / t.pages if t.pages else 0.0
        if on_done is not None:
            on_done(r)
        return r

    return _parallel(grid, one, workers, stop)
