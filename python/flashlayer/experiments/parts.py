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
    from flashlayer.experiments import Check, Claim, Figure, Section, Table


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

    def section(self, title: str, intro: str, traces: list[Path]) -> Section:
        """The section these parts make, under `title` and `intro`, with the
        trace files it read."""
        return {"title": title, "intro": intro, "figures": self.figures, "tables": self.tables,
                "claims": self.claims, "checks": self.checks, "notes": self.notes, "runs": self.runs,
                "traces": traces}


def share_pages(share: float, pages: int) -> int:
    """The buffer a section means by `share` of a trace's `pages`: rounded,
    at least one page."""
    return max(1, round(share * pages))


@contextmanager
def scratch(section: str) -> Iterator[Path]:
    """A folder for the traces a section builds on the way, removed after."""
    with tempfile.TemporaryDirectory(prefix=f"flashlayer-{section}-") as tmp:
        yield Path(tmp)
