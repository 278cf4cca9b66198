"""Experiment sections of ``flashlayer reproduce``.

Each section is a function ``run(mode, traces_dir, quiet) -> Section`` where
``mode`` is ``"quick"`` or ``"full"``. A section returns figures (series to
plot), claims (a paper's statement beside our measured value and whether it
holds), and notes for the report. Later issues add one section per paper.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from flashlayer.experiments import baselines


class Figure(TypedDict):
    title: str
    x_label: str
    y_label: str
    x: list[float]
    series: dict[str, list[float]]


class Claim(TypedDict):
    paper: str
    id: str
    text: str
    paper_value: str
    ours: str
    holds: bool


class Section(TypedDict):
    title: str
    intro: str
    figures: dict[str, Figure]
    claims: list[Claim]
    notes: list[str]


Runner = Callable[[str, Path, bool], Section]

EXPERIMENTS: dict[str, Runner] = {"baselines": baselines.run}

__all__ = ["EXPERIMENTS", "Claim", "Figure", "Section", "Any"]
