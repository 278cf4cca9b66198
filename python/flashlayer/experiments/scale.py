"""A paper's traces beside ours: requests, distinct pages, write share, and
what share of the distinct pages each of the paper's buffer sizes is in the
paper and would be in ours. An information table, not a check: our traces
are smaller by design of this machine, and the table says by how much."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from flashlayer import _native
from flashlayer.papers import PaperTrace

if TYPE_CHECKING:
    from flashlayer.experiments import Table


def table(title: str, pairs: list[tuple[PaperTrace, Path]], buffers: list[int]) -> Table:
    """Each paper trace beside ours (the file at the path); with `buffers`
    (pages, as the paper sizes them), each buffer's share of the paper's
    distinct pages and of ours."""
    columns = ["trace", "source", "requests (paper / ours)", "distinct pages (paper / ours)",
               "writes (paper / ours)"]
    columns += [f"{b:,} pages: share (paper / ours)" for b in buffers]
    rows: list[list[object]] = []
    for paper, path in pairs:
        s = _native.Trace.open(path).stats()
        ours_pages = int(s["distinct_pages"])
        row: list[object] = [
            paper.name,
            paper.source,
            f"{paper.requests:,} / {int(s['requests']):,}",
            f"{paper.distinct_pages:,} / {ours_pages:,}" if paper.distinct_pages else f"not given / {ours_pages:,}",
            f"{paper.write_share:.2%} / {float(s['write_share']):.2%}",
        ]
        row += [f"{b / paper.distinct_pages:.1%} / {b / ours_pages:.1%}" if paper.distinct_pages else "-"
                for b in buffers]
        rows.append(row)
    return {"title": title, "columns": columns, "rows": rows}
