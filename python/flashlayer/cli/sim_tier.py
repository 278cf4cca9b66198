"""``flashlayer sim --tier``: replay a trace through DRAM over an SSD cache
over a disk (HyPro, TAC, FaCE, lazy cleaning), every scheme × DRAM size ×
SSD size."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer.cli.common import (
    check_devices,
    UsageError,
    buffer_specs,
    duration,
    emit_json,
    open_with_progress,
    print_table,
    rate,
)

COLUMNS = [
    ("scheme_label", "scheme"),
    ("dram", "DRAM"),
    ("ssd", "SSD"),
    ("hits", "DRAM hits"),
    ("ssd_hits", "SSD hits"),
    ("hdd_misses", "disk"),
    ("ssd_reads", "SSD reads"),
    ("ssd_writes", "SSD writes"),
    ("hdd_reads", "disk reads"),
    ("hdd_writes", "disk writes"),
    ("elevations", "elevations"),
    ("sinks", "sinks"),
    ("io", "I/O time"),
    ("rps", "req/s"),
]


def schemes(value: str) -> list[str]:
    """``--tier hypro:p_sink=0.15,seed=1,tac``: canonical scheme specs."""
    from flashlayer.tiers import scheme_list

    try:
        return scheme_list(value)
    except _native.FlashlayerError as e:
        raise UsageError(f"--tier: {e}") from None


def check(a: argparse.Namespace) -> None:
    """Flags that go only with ``--tier``, or not with it."""
    if a.tier is None:
        for flag, value in (("--ssd", a.ssd), ("--ssd-device", a.ssd_device), ("--hdd-device", a.hdd_device)):
            if value is not None:
                raise UsageError(f"{flag} applies with --tier SCHEMES")
        return
    for flag, given in (("--device", a.device), ("--store", a.store), ("--hybrid", a.hybrid),
                        ("--flush-at-end", a.flush_at_end), ("--plot", a.plot), ("--flash", a.flash),
                        ("--magnetic", a.magnetic)):
        if given:
            raise UsageError(f"{flag} does not apply with --tier (the SSD and the disk are priced by "
                             "--ssd-device and --hdd-device)")
    if a.ssd is None:
        raise UsageError("--tier needs --ssd SIZES: SSD pages or P% of the trace's distinct pages, e.g. 1.25%,5%,20%")
    check_devices((("--ssd-device", a.ssd_device), ("--hdd-device", a.hdd_device)))


def run(a: argparse.Namespace, policies: list[str], buffers: list[int | str]) -> None:
    from flashlayer.tiers import sweep_tier

    names = schemes(a.tier)
    try:
        ssd_sizes = buffer_specs(a.ssd)
    except _native.FlashlayerError as e:
        raise UsageError(f"--ssd: {str(e).replace('a buffer', 'an SSD')}") from None
    if len(policies) != 1:
        raise UsageError("--tier takes one DRAM --policy (default lru)")
    trace = open_with_progress(a.trace, a.format, a.page_size, a.json)
    total = len(names) * len(buffers) * len(ssd_sizes)
    with progress.bar(total, f"replaying {Path(a.trace).name} through DRAM / SSD / disk ({total} runs)",
                      quiet=a.json) as bar:
        rows = sweep_tier(trace, names, buffers, ssd_sizes, policy=policies[0], ssd=a.ssd_device,
                          hdd=a.hdd_device, series_every=a.series_every, workers=a.jobs,
                          on_done=lambda _: bar.advance())
    out: list[dict[str, Any]] = [dict(r) for r in rows]
    if a.json:
        emit_json(out)
        return
    s = _native.device(a.ssd_device or "hypro-ssd")
    h = _native.device(a.hdd_device or "hypro-hdd")
    unit = "us" if s["unit"] == "us" else "cost units"
    print(f"DRAM policy {out[0]['policy']}; SSD {s['name']}: read {s['read']:g}, write {s['write']:g}; disk "
          f"{h['name']}: read {h['read']:g}, write {h['write']:g} ({unit}); a write request carries its page")
    for r in out:
        r["dram"] = f"{r['buffer_pages']:,} ({r['buffer_share']:.2%})"
        r["ssd"] = f"{r['ssd_pages']:,} ({r['ssd_share']:.2%})"
        r["io"] = duration(r["io_time"], s["unit"])
        r["rps"] = rate(r["requests_per_second"])
    print_table(out, COLUMNS)


def add_args(s: argparse.ArgumentParser) -> None:
    from flashlayer.tiers import SCHEME_HELP

    help_text = "; ".join(f"{n}: {h}" for n, h in SCHEME_HELP.items())
    s.add_argument("--tier", metavar="SCHEME[,...]",
                   help="replay through DRAM (--buffer, managed by --policy, default lru) over an SSD cache "
                   "(--ssd) over a disk, with each scheme: hypro (Lv et al.), tac (temperature-aware caching), "
                   "face (flash as cache extension), lc (lazy cleaning); parameters as NAME:KEY=VALUE[,...], a "
                   f"KEY=VALUE piece continuing the scheme before it. Parameters and defaults: {help_text}")
    s.add_argument("--ssd", metavar="N[,N...]",
                   help="with --tier: SSD sizes, pages or P%% of the trace's distinct pages, e.g. 1.25%%,5%%,20%%")
    s.add_argument("--ssd-device", metavar="SPEC",
                   help="with --tier: the SSD's device (default: hypro-ssd, read 271, write 803 us; the low-end "
                   "SSD of HyPro's Table 1 is hypro-ssd-lowend, write 2,012 us)")
    s.add_argument("--hdd-device", metavar="SPEC",
                   help="with --tier: the disk's device (default: hypro-hdd, read 12,700, write 13,700 us)")
