"""What a section fills as it runs: its figures, tables, claims, checks,
notes and runs (the parts of a :class:`flashlayer.experiments.Section`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flashlayer.experiments import Check, Claim, Figure, Table


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
