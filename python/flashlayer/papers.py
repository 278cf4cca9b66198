"""The papers' traces as the papers describe them: the figures the report
sets ours beside, and the scale the paper-scale captures aim at."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperTrace:
    """A trace as a paper describes it."""

    name: str
    requests: int
    #: None where the paper does not say.
    distinct_pages: int | None
    #: Share of requests that write.
    write_share: float
    #: Where the paper gives these figures.
    source: str


#: CASA Table 1: the OLTP (TPC-C, 50 warehouses) and DSS (TPC-H) traces.
CASA_OLTP = PaperTrace("OLTP (TPC-C, 50 warehouses)", 1_420_613, 59_782, 0.1857, "CASA Table 1")
CASA_DSS = PaperTrace("DSS (TPC-H, read-only)", 3_250_972, 104_308, 0.0, "CASA Table 1")
#: CONCAT: both traces twice, on disjoint pages (CASA §5.1).
CASA_CONCAT = PaperTrace("CONCAT (OLTP, DSS, OLTP, DSS)", 2 * (1_420_613 + 3_250_972), 59_782 + 104_308,
                         2 * 263_818 / (2 * (1_420_613 + 3_250_972)), "CASA Table 1, §5.1")

#: HyPro Table 3 (figures rounded to 0.1k pages and 0.1M references).
HYPRO_TPCB = PaperTrace("TPC-B", 10_700_000, 35_100, 0.1946, "HyPro Table 3 (2 GB dataset)")
HYPRO_TATP = PaperTrace("TATP", 2_500_000, 135_100, 0.0459, "HyPro Table 3 (2 GB dataset)")
HYPRO_MLK = PaperTrace("MLK", 27_200_000, 97_200, 0.0043, "HyPro Table 3 (a Linux 2.6.27 build)")

#: FD-Buffer Table 2 (distinct pages not given).
FDBUFFER_TPCC = PaperTrace("TPC-C", 16_800_000, None, 0.150, "FD-Buffer Table 2 (2.4 GB, 20 warehouses)")
FDBUFFER_TPCB = PaperTrace("TPC-B", 12_700_000, None, 0.035, "FD-Buffer Table 2 (2.2 GB, 150 branches)")
FDBUFFER_TM1 = PaperTrace("TM1 (TATP)", 10_200_000, None, 0.046, "FD-Buffer Table 2 (2.4 GB, 1 million subscribers)")
