"""PDL Fig. 14 (§5.2, Exp. 7): I/O time per TPC-C transaction against the
DBMS buffer size, flashlayer's TPC-C driver running on an LRU buffer pool
over each flash store, measured after a warm-up."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashlayer import _native, progress

if TYPE_CHECKING:
    from flashlayer.experiments import Claim, Figure

#: Fig. 14: TPC-C on a buffer pool over each store. TPC-C rows need pages
#: of 4 KiB in our B+-tree, so the chip has 4,096 + 128-byte pages, and
#: IPL's 18 KB log area becomes the nearest whole number of pages, 16 KB.
TPCC_METHODS = {
    "IPL(16KB)": "ipl:16k",
    "IPL(64KB)": "ipl:64k",
    "OPU": "opu",
    "PDL(2KB)": "pdl:2k",
    "PDL(256B)": "pdl:256",
}
TPCC: dict[str, dict[str, Any]] = {
    "quick": {"transactions": 1_000, "buffers": [0.005, 0.05], "max_warmup": 10},
    "full": {"transactions": 10_000, "buffers": [0.001, 0.005, 0.01, 0.02, 0.05, 0.1], "max_warmup": 5},
}
TPCC_PAGE = 4096
#: Fig. 14 is measured in collection's steady state: transactions run
#: unmeasured until the store has erased this many blocks per block of the
#: chip, or for ``max_warmup`` times the measured transactions.
TPCC_WARMUP = 1.0
#: Fig. 14's order, slowest first (our IPL(16KB) in place of IPL(18KB)).
PAPER_TPCC_ORDER = ["IPL(64KB)", "IPL(16KB)", "OPU", "PDL(2KB)", "PDL(256B)"]
#: A ratio's end holds within this factor of the paper's.
RATIO_TOLERANCE = 1.15


def near(ours: float, paper: float) -> bool:
    """`ours` within a factor :data:`RATIO_TOLERANCE` of `paper`."""
    return paper / RATIO_TOLERANCE <= ours <= paper * RATIO_TOLERANCE


def tpcc(mode: str, db_share: float, quiet: bool, figures: dict[str, Figure], claims: list[Claim], notes: list[str]) -> None:
    """Fig. 14: I/O time per TPC-C transaction against the DBMS buffer size,
    the TPC-C driver running on an LRU buffer pool over each flash store."""
    cfg = TPCC[mode]
    params = {"transactions": int(cfg["transactions"]), "page_size": TPCC_PAGE}
    most = (int(cfg["max_warmup"]) + 1) * int(cfg["transactions"])
    with tempfile.TemporaryDirectory(prefix="flashlayer-pdl-") as tmp:
        db_pages, grown = (int(_native.gen_workload("tpcc", Path(tmp) / "size.flt", 0,
                                                    {"transactions": n, "page_size": TPCC_PAGE})["db_pages"])
                           for n in (1, most))
    # Room for the tables to grow through the longest warm-up and the
    # measured transactions, and the relation db_share of the chip (the
    # paper's 1 GB database on Table 1's chip).
    logical = max(int(db_pages * 1.25), int(grown * 1.1))
    blocks = -(-round(logical / db_share) // 64)
    buffers = [max(8, round(b * db_pages)) for b in cfg["buffers"]]
    keys = [(m, f) for m in TPCC_METHODS for f in buffers]
    out: dict[tuple[str, int], dict[str, Any]] = {}
    with progress.bar(len(keys), "pdl: TPC-C on each flash store", quiet=quiet) as bar, \
            ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {k: pool.submit(_native.workload_on_flash, "tpcc", dict(params), TPCC_METHODS[k[0]], blocks, k[1],
                                  page_size=TPCC_PAGE, spare_size=128, logical_pages=logical,
                                  warmup_erases=round(TPCC_WARMUP * blocks),
                                  max_warmup_steps=int(cfg["max_warmup"]) * int(cfg["transactions"])) for k in keys}
        for k, fut in futures.items():
            out[k] = fut.result()
            bar.advance()
    per_txn = {k: r["run"]["time_us"] / max(1, r["steps"]) / 1000 for k, r in out.items()}
    figures["pdl/fig14"] = {
        "title": "TPC-C: I/O time per transaction against the DBMS buffer size",
        "x_label": "buffer (pages of 4 KiB)", "y_label": "ms per transaction", "x": [float(f) for f in buffers],
        "series": {m: [per_txn[(m, f)] for f in buffers] for m in TPCC_METHODS},
        "log_x": True, "log_y": True,
    }
    ratios = [per_txn[(m, f)] / per_txn[("PDL(256B)", f)] for m in TPCC_METHODS if m != "PDL(256B)"
              for f in buffers]
    lo, hi = min(ratios), max(ratios)
    ok = near(lo, 1.2) and near(hi, 6.1)
    pairs = [(per_txn[(m, f)] / per_txn[("PDL(256B)", f)], m, f) for m in TPCC_METHODS if m != "PDL(256B)"
             for f in buffers]
    why = None
    if not ok:
        def ops(m: str, f: int) -> str:
            run = out[(m, f)]["run"]
            steps = max(1, out[(m, f)]["steps"])
            return (f"{run['reads'] / steps:.1f} reads, {run['writes'] / steps:.1f} writes, "
                    f"{run['erases'] / steps:.2f} erases a transaction")

        ends = [min(pairs), max(pairs)]
        why = "; ".join(
            f"{m} at {f:,} pages is {r:.2f}x PDL(256B)'s time: {m} {ops(m, f)} against PDL(256B)'s {ops('PDL(256B)', f)}"
            for (r, m, f), p in zip(ends, (1.2, 6.1)) if not near(r, p))
        erased = sum(out[("PDL(256B)", f)]["run"]["erases"] for f in buffers)
        why += (" (figure pdl/fig14). " + ("PDL(256B) erased nothing while measured: its warm-up did not reach "
                "collection (note below)." if erased == 0 else "These are the operations that set the ends of the "
                "range."))
        why = why[0].upper() + why[1:]
    claims.append({
        "paper": "pdl", "kind": "paper", "id": "pdl-tpcc",
        "text": "TPC-C: PDL(256B) improves the I/O time per transaction over IPL, OPU and PDL(2KB) by 1.2-6.1x "
                "at every buffer size",
        "source": "PDL §5.2, Fig. 14 and abstract",
        "paper_value": "1.2-6.1x",
        "tolerance": f"over every method and buffer size, our smallest and largest ratio each within a factor "
                     f"{RATIO_TOLERANCE:g} of the paper's",
        "ours": f"{lo:.2f}-{hi:.2f}x",
        "holds": ok,
        "gap": None if ok else f"{lo:.2f}-{hi:.2f}x against 1.2-6.1x",
        "why": why,
    })
    wrong = [f for f in buffers
             if sorted(TPCC_METHODS, key=lambda m: -per_txn[(m, f)]) != PAPER_TPCC_ORDER]
    claims.append({
        "paper": "pdl", "kind": "paper", "id": "pdl-tpcc-order",
        "text": "TPC-C: the I/O time per transaction is ordered IPL(64KB) > IPL(18KB) > OPU > PDL(2KB) > PDL(256B) "
                "at every buffer size",
        "source": "PDL §5.2, Fig. 14 (the order as the text states it)",
        "paper_value": " > ".join(PAPER_TPCC_ORDER).replace("16KB", "18KB"),
        "tolerance": f"exact order at each of the {len(buffers)} buffer sizes (our IPL(16KB) stands for IPL(18KB))",
        "ours": "; ".join(f"{f:,} pages: " + " > ".join(sorted(TPCC_METHODS, key=lambda m: -per_txn[(m, f)]))
                          for f in buffers),
        "holds": not wrong,
        "gap": None if not wrong else "another order at " + ", ".join(f"{f:,} pages" for f in wrong),
        "why": None if not wrong else (
            "Figure pdl/fig14: per transaction at " + "; ".join(
                f"{f:,} pages " + ", ".join(f"{m} {per_txn[(m, f)]:.2f} ms" for m in TPCC_METHODS) for f in wrong[:2])
            + ". The order follows each method's reads, programs and erases per transaction (note below)."),
    })
    erases = {m: sum(out[(m, f)]["run"]["erases"] for f in buffers) for m in TPCC_METHODS}
    warm = {m: min(out[(m, f)]["warmup_erases"] / blocks for f in buffers) for m in TPCC_METHODS}
    notes.append(f"TPC-C (Fig. 14): 1 warehouse, {db_pages:,} pages of 4 KiB after loading, {cfg['transactions']:,} "
                 f"transactions a point, on a chip of {blocks:,} blocks of 64 pages ({logical:,} logical pages). "
                 "The time is the chip's while the transactions run, with the final flush of the pages they "
                 f"dirtied; loading is not counted, and before measuring, transactions run unmeasured until the "
                 f"chip has erased {TPCC_WARMUP:g} block per block, or for {cfg['max_warmup']}x the measured "
                 "transactions; erases per block the warm-up reached (least over the buffer sizes): "
                 + ", ".join(f"{m} {w:.2f}" for m, w in warm.items())
                 + (". Below 1, that method's collection was not yet in its steady state when measured: the "
                    "relation takes a quarter of the chip, and at these buffer sizes a transaction writes too few "
                    "pages to fill the rest within the warm-up" if min(warm.values()) < TPCC_WARMUP else "")
                 + ". Erases while measuring, summed over the buffer sizes: "
                 + ", ".join(f"{m} {e:,}" for m, e in erases.items()) + ".")
