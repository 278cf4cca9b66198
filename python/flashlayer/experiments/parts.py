"""What a section fills as it runs: its figures, tables, claims, checks,
notes and runs (the parts of a :class:`flashlayer.experiments.Section`)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flashlayer.experiments import Check, Claim, Figure, Section, Setting, Table


@dataclass
class Parts:
    figures: dict[str, Figure] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    def unpack(self) -> tuple[dict[str, Figure], dict[str, Table], list[Claim], list[Check], list[str],
                              list[dict[str, Any]]]:
        """The parts, to fill: figures, tables, claims, checks, notes, runs."""
        return self.figures, self.tables, self.claims, self.checks, self.notes, self.runs

    def judged_on(self, workload: str, setting: Setting, *ids: str) -> None:
        """:func:`judged_on` for the section's claims."""
        judged_on(self.claims, workload, setting, *ids)

    def section(self, title: str, intro: str, traces: list[Path]) -> Section:
        """The section these parts make, under `title` and `intro`, with the
        trace files it read."""
        return {"title": title, "intro": intro, "figures": self.figures, "tables": self.tables,
                "claims": self.claims, "checks": self.checks, "notes": self.notes, "runs": self.runs,
                "traces": traces}


def judged_on(claims: list[Claim], workload: str, setting: Setting, *ids: str) -> None:
    """Names the workload the paper claims of `ids` (all not named yet,
    without any) are judged on, and its setting."""
    for c in claims:
        if c["kind"] == "paper" and "workload" not in c and (not ids or c["id"] in ids):
            c["workload"] = workload
            c["setting"] = setting


def share_pages(share: float, pages: int) -> int:
    """The buffer a section means by `share` of a trace's `pages`: rounded,
    at least one page."""
    return max(1, round(share * pages))


@contextmanager
def scratch(section: str) -> Iterator[Path]:
    """A folder for the traces a section builds on the way, removed after."""
    with tempfile.TemporaryDirectory(prefix=f"flashlayer-{section}-") as tmp:
        yield Path(tmp)
