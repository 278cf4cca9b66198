"""What the parts of section ``successors`` share: the PostgreSQL traces,
the authors' simulator outputs beside them, and comparing counts."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from flashlayer._native import FlashlayerError

if TYPE_CHECKING:
    from flashlayer.results import SimResult

#: The PostgreSQL traces of the comparisons, and the buffer shares of each.
PG = {"TPC-C": "pg15-tpcc-sysbench-w2.csv.gz", "TPC-B": "pg15-tpcb-s5.csv.gz", "TATP": "pg15-tatp-100k.csv.gz"}
FILES = list(PG.values())
SHARES = [0.01, 0.03, 0.10]


def authors_dir(traces_dir: Path) -> Path:
    """The folder of the authors' simulator outputs, beside the traces'."""
    folder = traces_dir.parent / "successors"
    if not (folder / "ace-codebase-figure8.csv").is_file():
        raise FlashlayerError(f"reproduce successors: the authors' simulator outputs are not in {folder} "
                              "(they sit beside the traces, in data/successors of the repository)")
    return folder


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def sim_counts(r: SimResult) -> dict[str, float]:
    """A row's counts, named as ACE's simulator names them."""
    return {"misses": r["misses"], "writes": r["physical_writes"], "write_batches": r["dirty_evictions"],
            "total_cost": r["virtual_time"]}


@dataclass


class Counts:
    """Our counts against an author's simulator's: each equal, or, where a
    tolerance is given, within it; what is off, and the largest relative
    gap among the tolerant ones."""

    checked: int = 0
    worst: float = 0.0
    off: list[str] = field(default_factory=list)

    def compare(self, what: str, ours: float, theirs: float, tolerance: float | None = None) -> None:
        self.checked += 1
        gap = abs(ours / theirs - 1)
        if tolerance is not None:
            self.worst = max(self.worst, gap)
        within = ours == theirs if tolerance is None else gap <= tolerance
        if not within:
            self.off.append(f"{what} {ours:,.0f} against {theirs:,.0f}")


def reduction(before: float, after: float) -> float:
    return (1 - after / before) * 100
