"""The shapes of what the engine returns, as ``TypedDict``s: rows of
``flashlayer sim --json`` (`SimResult`), trace statistics, device costs and
workload generation reports."""

from __future__ import annotations

import math
from typing import Literal, NotRequired, TypedDict

__all__ = ["DeviceInfo", "GenReport", "Preset", "Series", "SimResult", "TraceStats", "state_series"]


class Series(TypedDict):
    """Counters sampled every ``series_every`` requests."""

    requests: list[int]
    hits: list[int]
    physical_reads: list[int]
    physical_writes: list[int]
    virtual_time: list[float]
    #: The policy's state variables by name (CASA: ``tau``, ``clean``, and
    #: with ``cost=measured`` ``read_cost``, ``write_cost`` in us; None
    #: before the first measurement); empty for policies without state.
    state: dict[str, list[float | None]]


class SimResult(TypedDict):
    """One run: a row of ``flashlayer sim --json``, flat, as the engine
    declares its fields (``_native.row_fields``; ``tests/test_results.py``
    holds this type to them). ``policy`` and ``store`` are canonical specs;
    the fields after ``buffer_share`` are those of the store's kind."""

    #: The trace the run replayed, as its path was given.
    trace: str
    policy: str
    store: str
    store_name: Literal["cost", "file", "flash", "ftl", "hybrid", "tier"]
    buffer_pages: int
    device: str
    cost_unit: Literal["us", "units"]
    requests: int
    reads: int
    writes: int
    hits: int
    misses: int
    miss_ratio: float
    physical_reads: int
    physical_writes: int
    dirty_evictions: int
    dirty_at_end: int
    #: Pages read ahead, unrequested (ACE's ``pf=on``; in ``physical_reads``
    #: too), and how many of them were requested while still buffered.
    read_ahead: int
    read_ahead_used: int
    virtual_time: float
    seconds: float
    requests_per_second: float
    flush_at_end: NotRequired[bool]
    series: NotRequired[Series]
    #: Set by ``flashlayer.simulate`` and ``flashlayer.sweep``: the size asked
    #: for ("5%" or "2000") and the share of the trace's distinct pages.
    buffer_spec: NotRequired[str]
    buffer_share: NotRequired[float]
    #: On a file store: the database file's size at the end, in bytes, and
    #: the time its reads, writes and fsyncs took as measured, in seconds.
    file_bytes: NotRequired[int]
    measured_io_seconds: NotRequired[float]
    #: On a flash store (``flash:...``): the method, the chip's blocks,
    #: ``flash_changed`` (the bytes at the start of the page each write
    #: changed, or None where the trace's byte ranges said), the chip's
    #: operations and time, the method's own counters.
    flash_method: NotRequired[str]
    flash_blocks: NotRequired[int]
    flash_changed: NotRequired[int | None]
    chip_reads: NotRequired[int]
    chip_spare_reads: NotRequired[int]
    chip_programs: NotRequired[int]
    chip_spare_programs: NotRequired[int]
    chip_erases: NotRequired[int]
    chip_time_us: NotRequired[float]
    chip_max_erase_count: NotRequired[int]
    flash_page_reads: NotRequired[int]
    flash_page_writes: NotRequired[int]
    flash_flushes: NotRequired[int]
    flash_gc_runs: NotRequired[int]
    flash_gc_time_us: NotRequired[float]
    flash_differentials: NotRequired[int]
    flash_new_base_pages: NotRequired[int]
    flash_folds: NotRequired[int]
    #: On an SSD with its translation layer (``ftl:...``): its blocks, the
    #: host's reads and writes, the collector's relocations and erases, the
    #: write amplification and the closed form's for greedy collection
    #: under uniform writes at the store's spare room.
    ftl_blocks: NotRequired[int]
    ftl_host_reads: NotRequired[int]
    ftl_host_writes: NotRequired[int]
    ftl_relocations: NotRequired[int]
    ftl_erases: NotRequired[int]
    ftl_write_amplification: NotRequired[float]
    ftl_uniform_greedy_write_amplification: NotRequired[float]
    #: Over a hybrid flash + magnetic store (``hybrid:...``): the
    #: placement, each disk's reads and writes (migrations included), the
    #: pages moved, the pages on flash at the end, the flash capacity
    #: (None: no limit), the deferred-migration batch (0: off) and, for
    #: ``optimal``, the offline optimum's cost of the recorded events.
    placement: NotRequired[str]
    flash_reads: NotRequired[int]
    flash_writes: NotRequired[int]
    magnetic_reads: NotRequired[int]
    magnetic_writes: NotRequired[int]
    migrations: NotRequired[int]
    pages_on_flash: NotRequired[int]
    flash_capacity: NotRequired[int | None]
    defer: NotRequired[int]
    optimum: NotRequired[float | None]
    #: Through a DRAM / SSD / disk hierarchy (``tier:...``): the scheme
    #: (canonical spec, short name, label with parameters), the SSD's pages
    #: (and their share of the distinct pages), the
    #: devices, requests per level (``hits`` are DRAM hits), each device's
    #: I/O, cleanings (dirty SSD pages copied to the disk), elevations (SSD
    #: to DRAM), sinks (DRAM to SSD), each device's time and their sum
    #: ``io_time`` (= ``virtual_time``), the SSD's pages and dirty pages at
    #: the end, and for HyPro the final probabilities and the run totals of
    #: its Eqs. 1-2.
    scheme: NotRequired[str]
    scheme_name: NotRequired[str]
    scheme_label: NotRequired[str]
    ssd_pages: NotRequired[int]
    ssd_share: NotRequired[float]
    ssd_device: NotRequired[str]
    hdd_device: NotRequired[str]
    ssd_hits: NotRequired[int]
    hdd_misses: NotRequired[int]
    ssd_reads: NotRequired[int]
    ssd_writes: NotRequired[int]
    ssd_seq_writes: NotRequired[int]
    hdd_reads: NotRequired[int]
    hdd_writes: NotRequired[int]
    cleanings: NotRequired[int]
    elevations: NotRequired[int]
    sinks: NotRequired[int]
    ssd_time: NotRequired[float]
    hdd_time: NotRequired[float]
    io_time: NotRequired[float]
    ssd_used: NotRequired[int]
    ssd_dirty: NotRequired[int]
    p_sink: NotRequired[float | None]
    p_elevate: NotRequired[float | None]
    c_sinkf: NotRequired[float | None]
    c_sinkd: NotRequired[float | None]


class TraceStats(TypedDict):
    requests: int
    reads: int
    writes: int
    distinct_pages: int
    pages_written: int
    write_share: float
    hot20_share: float


class DeviceInfo(TypedDict):
    name: str
    read: float
    write: float
    seq_read: float
    seq_write: float
    erase: float | None
    unit: Literal["us", "units"]
    #: I/Os served at once (the parametric I/O model's k).
    k: int


class Preset(DeviceInfo):
    source: str


class GenReport(TypedDict):
    workload: str
    #: The canonical workload spec of the run.
    spec: str
    requests: int
    steps: int
    db_pages: int
    load_seconds: float
    run_seconds: float
    steps_per_second: float
    summary: dict[str, int]


def state_series(r: SimResult, name: str) -> list[float]:
    """The policy state variable `name` of a run's time series, NaN where it
    was not known yet (e.g. a measured cost before the first measurement),
    ready to plot."""
    return [math.nan if v is None else v for v in r["series"]["state"][name]]
