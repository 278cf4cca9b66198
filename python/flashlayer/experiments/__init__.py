"""Experiment sections of ``flashlayer reproduce``.

Each section is a function ``run(mode, inputs, quiet) -> Section`` where
``mode`` is ``"quick"`` or ``"full"`` and ``inputs`` says where its traces
are: the shipped ones, and in ``--full`` the paper-scale captures
(:mod:`flashlayer.tracecache`) the section asks for in :data:`CAPTURES`. A section returns figures (series to
plot), claims (a paper's statement beside our measured value and whether it
holds), provenance checks of its inputs, the runs behind the figures, and
notes for the report. Each paper's system adds its own section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from flashlayer.experiments import baselines, bounds, casa, fdbuffer, hypro, koltsidas, pdl, successors

#: How a claim's workload stands to its paper's (:class:`Claim`).
Setting = Literal["reproduces", "generalizes"]


class Figure(TypedDict):
    title: str
    x_label: str
    y_label: str
    x: list[float]
    #: ``None`` where a series has no value (drawn as a gap).
    series: Mapping[str, Sequence[float | None]]
    #: Log-scaled x; default: when x spans more than a factor of 20.
    log_x: NotRequired[bool]
    #: Log-scaled y; default: linear.
    log_y: NotRequired[bool]
    #: Names of the x positions (``x`` is then 0, 1, ...): drawn as
    #: grouped bars, one group per name.
    categories: NotRequired[list[str]]
    #: The paper's values of some series at the same x, read off its figure
    #: or derived from its table (drawn as hollow markers in the series'
    #: colour); ``None`` where the paper gives no value.
    paper: NotRequired[Mapping[str, Sequence[float | None]]]
    #: Where on the x axis the paper's text places a result (the best
    #: parameter, the executions at which pages migrate), by label: a
    #: vertical line at each x.
    paper_x: NotRequired[Mapping[str, Sequence[float]]]
    #: A range of x the paper's text gives, by label: a band from its first
    #: to its second value.
    paper_band: NotRequired[Mapping[str, tuple[float, float]]]


class Claim(TypedDict):
    """A statement from a source beside what we measured.

    ``kind`` says whose statement it is: ``paper``, a result one of the
    seven papers reports; ``bound``, the soundness of our cost bound (a
    policy's cost is never below it); ``ours``, a result beyond the papers
    (a theorem, another paper's result on our traces). The report's tallies
    per paper count ``paper`` claims only. ``source`` says where the
    expected value comes from (a paper's figure or table, or a theorem);
    ``tolerance`` states, once, how far from ``paper_value`` and over which
    points of the figure our value may lie for the claim to hold; ``gap``
    says by how much a claim that does not hold misses, and ``why`` names
    the cause, pointing at the figure or table of the report that shows it
    (both None when it holds).

    A ``paper`` claim names the ``workload`` it is judged on and its
    ``setting``: ``reproduces`` on the paper's own workload (a trace fitted
    to the statistics it publishes, a workload generated as it specifies,
    or a capture at its scale whose statistics match the published ones
    within the section's stated bounds), ``generalizes`` on another (the
    real PostgreSQL captures, flashlayer's own generators). ``untestable``
    says, with its number, why no policy could show the paper's value on
    that workload (the value lies below the cost lower bound there, or the
    workload misses a baseline's own published numbers by more than the
    stated tolerance); such a claim is counted apart, never as holding
    (:func:`flashlayer.experiments.inventory.verdict`)."""

    paper: str
    kind: Literal["paper", "bound", "ours"]
    id: str
    text: str
    source: str
    paper_value: str
    tolerance: str
    ours: str
    holds: bool
    gap: str | None
    why: NotRequired[str | None]
    workload: NotRequired[str]
    setting: NotRequired[Setting]
    untestable: NotRequired[str | None]


class Check(TypedDict):
    """A provenance check: the input is what its own documentation says
    (not a claim of any paper)."""

    id: str
    text: str
    source: str
    expected: str
    ours: str
    holds: bool


class Table(TypedDict):
    """A table of the report (a paper's table reproduced, or printed for
    comparison)."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


class Section(TypedDict):
    title: str
    intro: str
    figures: dict[str, Figure]
    tables: NotRequired[dict[str, Table]]
    claims: list[Claim]
    checks: list[Check]
    notes: list[str]
    #: Every run behind the figures: rows of ``sim --json`` with a ``trace``
    #: label, so ``flashlayer plot results.json`` can redraw them.
    runs: list[dict[str, Any]]
    #: Trace files the section read, by name.
    traces: list[Path]


@dataclass(frozen=True)
class Inputs:
    """Where a section finds its traces."""

    #: The folder of the shipped traces (``data/traces``).
    traces: Path
    #: Paper-scale captures by name (:data:`flashlayer.tracecache.CAPTURES`):
    #: in ``--full``, the ones the section asks for; else none.
    captured: dict[str, Path] = field(default_factory=dict)


Runner = Callable[[str, Inputs, bool], Section]

#: The sections in the report's order. A section is a module with
#: ``run`` (a :data:`Runner`), ``FILES`` (the trace files it reads from the
#: traces folder) and, if it runs on paper-scale captures in ``--full``,
#: ``CAPTURES``; adding one is its module and its line here.
SECTIONS = (baselines, casa, fdbuffer, pdl, koltsidas, hypro, bounds, successors)

_BY_NAME = {m.__name__.rsplit(".", 1)[1]: m for m in SECTIONS}
EXPERIMENTS: dict[str, Runner] = {name: m.run for name, m in _BY_NAME.items()}
#: Trace files each section reads from the traces folder.
TRACE_FILES: dict[str, list[str]] = {name: m.FILES for name, m in _BY_NAME.items()}
#: Paper-scale captures each section runs on in ``--full``.
CAPTURES: dict[str, list[str]] = {name: m.CAPTURES for name, m in _BY_NAME.items() if hasattr(m, "CAPTURES")}

__all__ = ["CAPTURES", "EXPERIMENTS", "TRACE_FILES", "Check", "Claim", "Figure", "Inputs", "Section", "Setting", "Table"]
