"""Traces fitted to a paper's table of its traces (``flashlayer trace
fit``), for the sections whose papers print their traces' requests and
write share but no trace (FD-Buffer Table 2, HyPro Table 3).

What the table gives is taken as printed: the requests, the write share,
and the distinct pages where it gives them (else the capture's). What it
does not give is taken from our PostgreSQL capture of the same benchmark
(or our kernel build for MLK), each at the same share of the distinct
pages: LRU's miss ratio at the section's buffer sizes, LRU's write-backs
per write request at its smaller ones, and the share of the requests the
hottest fifth of the pages takes. So a fitted trace has the paper's size
and write share and the capture's locality; the table
(:func:`fit_table`) shows each target beside what a replay achieves.

A capture's write share is far from the paper's when it differs by more
than :data:`WRITE_SHARE_BOUND` of the paper's (relative): then only a
fitted trace stands for the paper's workload.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from flashlayer import _native, progress
from flashlayer.experiments.parts import share_pages
from flashlayer.fit import Fitted, fit
from flashlayer.papers import PaperTrace
from flashlayer.replay import sweep

if TYPE_CHECKING:
    from flashlayer.experiments import Table

#: A capture's write share stands for the paper's when within this share
#: of it (a third: the bound CASA's captures are held to as well).
WRITE_SHARE_BOUND = 1 / 3
#: The hottest fraction of the pages whose share of requests is taken from
#: the capture (the skew point CASA §5.2 prints for its bank trace).
HOT = 0.2
#: The seed of every fitted trace.
SEED = 1


def far_from(paper: PaperTrace, capture: Path) -> bool:
    """Whether the capture's write share differs from the paper's by more
    than :data:`WRITE_SHARE_BOUND` of it."""
    share = float(_native.Trace.open(capture).stats()["write_share"])
    return abs(share - paper.write_share) > WRITE_SHARE_BOUND * paper.write_share


def shaped(paper: PaperTrace, capture: Path, misses_at: Sequence[float], writes_at: Sequence[float], out: Path,
           label: str, quiet: bool) -> Fitted:
    """A trace with `paper`'s requests, write share and distinct pages (the
    capture's where the paper gives none), fitted to the capture's LRU miss
    ratio at the shares `misses_at` of the pages, its write-backs per write
    request at `writes_at`, and its hottest fifth's share; written to
    `out`."""
    trace = _native.Trace.open(capture)
    st = trace.stats()
    ours = int(st["distinct_pages"])
    pages = paper.distinct_pages or ours
    shares = sorted(set(misses_at) | set(writes_at))
    rows = {r["buffer_pages"]: r for r in sweep(trace, ["lru"], [share_pages(s, ours) for s in shares])}
    lru = {s: rows[share_pages(s, ours)] for s in shares}
    n, writes = paper.requests, paper.write_share * paper.requests
    misses = {share_pages(s, pages): round(lru[s]["physical_reads"] / lru[s]["requests"] * n) for s in misses_at}
    backs = {share_pages(s, pages): round(lru[s]["physical_writes"] / max(1, st["writes"]) * writes)
             for s in writes_at}
    with progress.bar(None, f"{label}: fitting to {paper.source} and the shape of {capture.name}", quiet=quiet):
        return fit(pages, n, write_share=paper.write_share, skew=(HOT, float(st["hot20_share"])),
                   lru_misses=misses, lru_writes=backs, seed=SEED, output=out, name=label)


def fit_table(f: Fitted, title: str, paper: str) -> Table:
    """Each target of a fit beside what a replay of the trace achieves;
    `paper` heads the column of the targets."""
    where = {"skew": f"hottest {HOT:.0%} of pages", "write_share": "share of requests"}
    rows = []
    for r in f.rows:
        at = where.get(r["target"], "") if r["at"] is None or r["target"] == "skew" else f"{int(r['at']):,} pages"
        share = r["target"] in where
        cells = [f"{v:.4f}" if share else f"{round(v):,}" for v in (r["wanted"], r["got"])]
        rows.append([r["target"], at, *cells, f"{r['error']:.2%}"])
    m = f.model
    first = "first references by Spirn's infinite stack; " if m["spirn"] else ""
    return {
        "title": f"{title} (model: rho {m['rho']:.3f}, frequency (rank + {m['q']:g})^-{m['alpha']:.3f}, writes beta "
                 f"{m['beta']:.3f}, gamma {m['gamma']:.3f}; {first}"
                 f"{'every target within 2%' if f.reached else 'NOT every target within 2%'})",
        "columns": ["target", "at", paper, "fitted trace", "relative error"],
        "rows": rows,
    }
