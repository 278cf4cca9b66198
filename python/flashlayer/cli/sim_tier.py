"""``flashlayer sim``'s table of tier stores (DRAM over an SSD cache over a
disk: HyPro, TAC, FaCE, lazy cleaning)."""

from __future__ import annotations

from typing import Any

from flashlayer import _native
from flashlayer.cli.common import columns, duration, groups, print_table, rate, share

COLUMNS = columns("scheme_label", "policy", "buffer_pages", "ssd_pages", "hits", "ssd_hits", "hdd_misses", "ssd_reads",
                  "ssd_writes", "hdd_reads", "hdd_writes", "elevations", "sinks", "io_time", "requests_per_second")


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
            r["buffer_pages"] = f"{r['buffer_pages']:,} ({share(r['buffer_share'])})"
            r["ssd_pages"] = f"{r['ssd_pages']:,} ({share(r['ssd_share'])})"
            r["io_time"] = duration(r["io_time"], s["unit"])
            r["requests_per_second"] = rate(r["requests_per_second"])
        print_table(group, COLUMNS)
