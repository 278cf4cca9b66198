"""``flashlayer sim`` over tier stores (DRAM over an SSD cache over a disk:
HyPro, TAC, FaCE, lazy cleaning): the ``--tier`` spelling of their store
specs, and their table."""

from __future__ import annotations

import argparse
from typing import Any

from flashlayer import _native
from flashlayer.cli.common import (
    groups,
    check_devices,
    UsageError,
    duration,
    print_table,
    rate,
    split,
)

COLUMNS = [
    ("scheme_label", "scheme"),
    ("policy", "DRAM policy"),
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


def stores(a: argparse.Namespace) -> list[str]:
    """``--tier hypro:p_sink=0.15,tac --ssd 5%,20%`` with ``--ssd-device``
    and ``--hdd-device``: a spelling of one tier store spec per scheme x
    SSD size."""
    if a.ssd is None:
        raise UsageError("--tier needs --ssd SIZES: SSD pages or P% of the trace's distinct pages, e.g. 1.25%,5%,20%")
    try:
        schemes = _native.canonical_list("scheme", a.tier)
    except _native.FlashlayerError as e:
        raise UsageError(f"--tier: {e}") from None
    devices = "".join(f",{k}={v}" for k, v in (("ssd_device", a.ssd_device), ("hdd_device", a.hdd_device))
                      if v is not None)
    return [f"tier:ssd={size}{devices},scheme={scheme}" for scheme in schemes for size in split(a.ssd, "SSD sizes")]


def check(a: argparse.Namespace) -> None:
    """Flags that go only with ``--tier``."""
    if a.tier is None:
        for flag, value in (("--ssd", a.ssd), ("--ssd-device", a.ssd_device), ("--hdd-device", a.hdd_device)):
            if value is not None:
                raise UsageError(f"{flag} applies with --tier SCHEMES")
        return
    check_devices((("--ssd-device", a.ssd_device), ("--hdd-device", a.hdd_device)))


def print_rows(out: list[dict[str, Any]]) -> None:
    """One table per pair of devices, their costs above it."""
    for group in groups(out, lambda r: str(r["device"])):
        s, h = _native.device(group[0]["ssd_device"]), _native.device(group[0]["hdd_device"])
        unit = "us" if s["unit"] == "us" else "cost units"
        print(f"SSD {s['name']}: read {s['read']:g}, write {s['write']:g}; disk {h['name']}: read {h['read']:g}, "
              f"write {h['write']:g} ({unit}); a write request carries its page")
        for r in group:
            r["scheme_label"] = _native.short_spec("scheme", r["scheme"])
            r["policy"] = _native.short_spec("policy", r["policy"])
            r["dram"] = f"{r['buffer_pages']:,} ({r['buffer_share']:.2%})"
            r["ssd"] = f"{r['ssd_pages']:,} ({r['ssd_share']:.2%})"
            r["io"] = duration(r["io_time"], s["unit"])
            r["rps"] = rate(r["requests_per_second"])
        print_table(group, COLUMNS)


def add_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--tier", metavar="SCHEME[,...]",
                   help="a spelling of --store tier:ssd=S,scheme=SCHEME for each scheme x --ssd size: DRAM "
                   "(--buffer, managed by --policy, default lru) over an SSD cache over a disk, with each scheme: "
                   "hypro (Lv et al.), tac (temperature-aware caching), face (flash as cache extension), lc (lazy "
                   "cleaning); parameters as NAME:KEY=VALUE[,...], a KEY=VALUE piece continuing the scheme before "
                   "it ('flashlayer list schemes')")
    s.add_argument("--ssd", metavar="N[,N...]",
                   help="with --tier: SSD sizes, pages or P%% of the trace's distinct pages, e.g. 1.25%%,5%%,20%%")
    s.add_argument("--ssd-device", metavar="SPEC",
                   help="with --tier: the SSD's device (default: hypro-ssd, read 271, write 803 us; the low-end "
                   "SSD of HyPro's Table 1 is hypro-ssd-lowend, write 2,012 us)")
    s.add_argument("--hdd-device", metavar="SPEC",
                   help="with --tier: the disk's device (default: hypro-hdd, read 12,700, write 13,700 us)")
