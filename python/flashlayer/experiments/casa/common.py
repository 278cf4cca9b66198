"""What both halves of CASA's section share: the policies it compares
and the devices Eq. (1) prices them on."""

from __future__ import annotations

#: Series names of the paper's figures, and the specs behind them.
POLICIES = {
    "CASA": "casa",
    "CFLRU-0.25": "cflru:w=0.25",
    "CFLRU-0.50": "cflru:w=0.5",
    "CFLRU-0.75": "cflru:w=0.75",
    "CCFLRU": "ccflru",
    "LRUWSR": "lruwsr",
    "WB-Landlord": "wblandlord",
}
LRU = "lru"
RATIOS = [1, 4, 16, 64, 128]
#: Points of the Fig. 3 and Fig. 5 time series.
POINTS = 400


def device(ratio: int) -> str:
    """The device of Eq. (1) with read 1 and write `ratio`."""
    return f"ratio:1:{ratio}"
