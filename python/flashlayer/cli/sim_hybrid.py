"""``flashlayer sim``'s table of hybrid stores (a flash and a magnetic disk
side by side, Koltsidas & Viglas 2008)."""

from __future__ import annotations

from typing import Any

from flashlayer import _native
from flashlayer.cli.common import columns, groups, print_table, table_cells

COLUMNS = columns("placement", "policy", "buffer_pages", "miss_ratio", "flash_reads", "flash_writes", "magnetic_reads",
                  "magnetic_writes", "migrations", "pages_on_flash", "virtual_time", "requests_per_second")


def print_rows(out: list[dict[str, Any]]) -> None:
    """One table per pair of disks, their costs above it."""
    for group in groups(out, lambda r: f"{r['device']}|{r['flash_capacity']}|{r['defer']}"):
        first = group[0]
        f, m = (_native.device(d) for d in first["device"].split("+", 1))
        cap = (f"at most {first['flash_capacity']:,} pages on flash" if first["flash_capacity"]
               else "no flash capacity limit")
        deferred = f"migrations deferred in batches of {first['defer']}" if first["defer"] else "migrations at eviction"
        print(f"flash {f['name']}: read {f['read']:g}, write {f['write']:g}; magnetic {m['name']}: read {m['read']:g}, "
              f"write {m['write']:g} ({'us' if f['unit'] == 'us' else 'cost units'}); {cap}; {deferred}; virtual time "
              "includes migrations")
        for r in group:
            table_cells(r, f["unit"])
        print_table(group, COLUMNS)
