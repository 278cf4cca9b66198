"""PDL §5: what a run of update operations cost, priced at the chip's
timing, and the relation's share of the chip the section's runs take."""

from __future__ import annotations

from typing import Any

#: PDL Table 1's erase time (µs).
T_ERASE = 1500.0
#: The relation's share of the chip: §5.1's 1 GB relation on its "2-Gbyte
#: flash memory chip", the half Fig. 8's text gives IPL(64KB) and PDL(2KB)
#: for their log and differential pages. Shares are of every block but one,
#: which IPL(64KB) keeps for merging.
DB_SHARE = 0.5
#: Table 1's reading: 32,768 blocks of 64 2-KB pages (4 GiB) hold the 1 GB
#: relation, a quarter; run beside the report's in figures pdl/room and
#: pdl/fig8-readings.
TABLE1_SHARE = 0.25


def per_op(r: dict[str, Any], t_read: float | None = None, t_write: float | None = None) -> dict[str, float]:
    """Read, write and overall µs per operation, and erases per update."""
    tr = r["read_us"] if t_read is None else t_read
    tw = r["program_us"] if t_write is None else t_write

    def price(c: dict[str, float]) -> float:
        return float(c["reads"] * tr + c["programs"] * tw + c["erases"] * T_ERASE)

    n = max(1, r["operations"])
    read, write = price(r["read"]) / n, price(r["write"]) / n
    return {"read": read, "write": write, "overall": read + write,
            "erases": r["write"]["erases"] / max(1, r["updates"])}


def ops(r: dict[str, Any], step: str) -> str:
    """The chip operations per operation of one step (`read` or `write`)."""
    k = max(1, r["operations"])
    return ", ".join(f"{r[step][c] / k:.3f} {c}" for c in ("reads", "programs", "erases"))
