"""Traces fitted to published statistics (``flashlayer trace fit``): a
paper gives its trace's distinct pages, requests, write share, a skew
point and LRU's misses and write-backs at a few buffer sizes; the engine
(``flashlayer::workload::fit``, whose module docs state the model) draws a
trace with those statistics and counts what it achieves: LRU's misses and
write-backs from the trace's own stack distances, which are LRU's exactly
(a replay gives the same counts; ``tests/test_fit.py`` holds them equal).

    import flashlayer
    bank = flashlayer.fit_trace(51_880, 607_390, write_share=0.23, skew=(0.2, 0.72),
                                lru_misses={1000: 403_056, 10_000: 177_861},
                                lru_writes={1000: 95_849, 10_000: 51_157}, seed=1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from flashlayer import _native
from flashlayer._native import FlashlayerError, Trace
from flashlayer.checks import whole

__all__ = ["FitRow", "Fitted", "fit", "fit_trace"]

#: How far from its target a statistic may lie for the fit to count as
#: reached (relative), as the engine states it.
TOLERANCE: float = 0.02


class FitRow(TypedDict):
    """One target beside what the fitted trace achieves."""

    #: ``pages``, ``requests``, ``write_share``, ``skew``, ``lru_misses`` or
    #: ``lru_writes``.
    target: str
    #: The buffer of an LRU target (pages); the hottest fraction of a skew
    #: target; None for the others.
    at: float | None
    wanted: float
    #: What the trace achieves, from the trace itself: LRU's rows by its
    #: stack distances, the counts ``simulate(trace, "lru", at)`` gives (no
    #: final flush).
    got: float
    #: ``|got - wanted| / wanted``.
    error: float


@dataclass(frozen=True)
class Fitted:
    """A fitted trace, its model and its targets beside what it achieves."""

    trace: Trace
    #: The engine's fitted parameters: ``rho`` (share of re-references by
    #: recency), ``alpha`` and ``q`` (the frequency weight
    #: ``(rank + q)^-alpha``), ``knots`` (the recency depth distribution,
    #: ``(depth, mass up to it)``), ``spirn`` (first references also where a
    #: recency draw goes deeper than the pages named so far), ``beta`` (lean
    #: of writes to hot pages), ``gamma`` (lean of writes to requests soon
    #: after the page's previous one), ``c`` (write scale).
    model: dict[str, Any]
    #: Rounds of the page model's iteration.
    rounds: int
    rows: list[FitRow]

    @property
    def reached(self) -> bool:
        """Whether every target is within :data:`TOLERANCE`."""
        return all(r["error"] <= TOLERANCE for r in self.rows)


def _pairs(name: str, value: Mapping[int, int] | None) -> list[tuple[int, int]] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise FlashlayerError(f"{name} must map buffer pages to counts, e.g. {{1000: 403056}}, got {value!r}")
    return [(whole(f"{name} buffer", k, 1), whole(f"{name} at {k}", v)) for k, v in value.items()]


def fit(pages: int, requests: int, *, write_share: float | None = None, skew: tuple[float, float] | None = None,
        lru_misses: Mapping[int, int] | None = None, lru_writes: Mapping[int, int] | None = None, seed: int = 0,
        output: str | Path | None = None, name: str = "<fit>",
        progress: Callable[[int, int], None] | None = None) -> Fitted:
    """Fits a trace to the statistics given and reports what it achieves
    at every target.

    `pages` and `requests` are exact. `skew` is ``(fraction, share)``: the
    hottest `fraction` of the pages takes `share` of the requests.
    `lru_misses` and `lru_writes` map a buffer size (pages) to LRU's misses
    and dirty evictions there (no final flush); `lru_writes` needs
    `write_share`. `output` (``.flt``, ``.csv`` or ``.csv.gz``) also writes
    the trace to a file. Deterministic for a `seed`. A target the model
    cannot reach is reported in :attr:`Fitted.rows`, not raised."""
    whole("pages", pages, 1)
    whole("requests", requests, 1)
    whole("seed", seed)
    if skew is not None and (not isinstance(skew, tuple) or len(skew) != 2):
        raise FlashlayerError(f"skew must be a pair (fraction, share), got {skew!r}")
    trace, d = _native.fit_trace(pages, requests, seed, write_share, skew, _pairs("lru_misses", lru_misses),
                                 _pairs("lru_writes", lru_writes), None if output is None else Path(output),
                                 Path(name), progress)
    return Fitted(trace, d["model"], d["rounds"], d["targets"])


def fit_trace(pages: int, requests: int, **targets: Any) -> Trace:
    """The trace of :func:`fit` (same arguments), without its report."""
    return fit(pages, requests, **targets).trace
