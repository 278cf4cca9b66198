"""What each paper states, result by result, and the claims of the report
that check it.

Every result a paper's abstract, introduction, evaluation (its figures,
tables and their text) and conclusion state is listed once, in
``inventory.toml`` beside this module, with the ids of the claims that
check it, or with the reason it cannot be checked.
A result is judged twice, once per setting of its claims
(:class:`flashlayer.experiments.Claim`): *reproduces*, on the paper's own
workload, and *generalizes*, on the real PostgreSQL captures and our other
workloads. In each it holds when every claim of that setting holds, fails
when one fails, and cannot be tested here when no claim fails and one's
workload cannot test it; a result no claim can check counts as not
holding. The report's headline per paper counts each column apart.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, NotRequired, TypedDict


class Stated(TypedDict):
    """A result as its paper states it."""

    #: Where the paper states it: its abstract, a section, a figure.
    where: str
    #: The result, in the paper's words where they are short.
    result: str
    #: Ids of the claims that check it (``*`` matches any run of
    #: characters: claims made per trace); empty when it cannot be checked.
    claims: list[str]
    #: Why it cannot be checked, when `claims` is empty.
    reason: NotRequired[str]


#: The papers, by the ``paper`` field of their claims.
PAPERS = {
    "casa": "Ou & Härder 2010, CASA",
    "fdbuffer": "On et al. 2010, FD-Buffer",
    "pdl": "Kim, Whang & Song 2010, page-differential logging",
    "koltsidas": "Koltsidas & Viglas 2008, flash and magnetic disks",
    "hypro": "Lv et al., HyPro",
    "ace": "Papon & Athanassoulis, ICDE 2023, ACE",
    "watt": "Vöhringer & Leis, PVLDB 2023, WATT",
}


def _load() -> dict[str, list[Stated]]:
    """The inventory from ``inventory.toml`` beside this module, each entry
    checked: its keys, their types, and a reason where it names no claim."""
    text = resources.files("flashlayer.experiments").joinpath("inventory.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    out: dict[str, list[Stated]] = {}
    for paper, rows in data.items():
        if paper not in PAPERS:
            raise ValueError(f"inventory.toml: [[{paper}]] is no paper of {sorted(PAPERS)}")
        for row in rows:
            keys = set(row)
            ok = {"where", "result", "claims"} <= keys <= {"where", "result", "claims", "reason"}
            ok = ok and all(isinstance(row[k], str) for k in keys - {"claims"})
            if not ok or not isinstance(row["claims"], list) or not all(isinstance(c, str) for c in row["claims"]):
                raise ValueError(f"inventory.toml: [[{paper}]] {row!r}: expected where, result, claims (strings)"
                                 " and, with no claims, a reason")
            if not row["claims"] and "reason" not in row:
                raise ValueError(f"inventory.toml: [[{paper}]] {row['result']!r} names no claim and no reason")
        out[paper] = rows
    return out


#: Each paper's stated results, in the order the paper states them.
INVENTORY: dict[str, list[Stated]] = _load()


def matching(pattern: str, ids: Sequence[str]) -> list[str]:
    """The claim ids `pattern` names (``*`` matching any characters)."""
    return [i for i in ids if fnmatch.fnmatchcase(i, pattern)]


#: The settings a claim is judged in, the paper's own workload first.
SETTINGS = ("reproduces", "generalizes")
#: The verdict of a claim whose workload cannot test it.
UNTESTABLE = "cannot be tested here"


def verdict(c: Mapping[str, Any]) -> str:
    """``holds``, ``fails`` or :data:`UNTESTABLE`: a claim whose workload
    cannot test it is neither, whatever its numbers say."""
    if c.get("untestable"):
        return UNTESTABLE
    return "holds" if c["holds"] else "fails"


def status(stated: Stated, claims: Mapping[str, Mapping[str, Any]],
           setting: str | None = None) -> tuple[str, list[str]]:
    """Whether a stated result holds in a report whose claims by id are
    `claims`, judged by its claims of `setting` (all of them when None):
    ``holds``, ``fails``, :data:`UNTESTABLE`, ``not checked`` (no claim can
    check it) or ``not run`` (the report has none of its claims in that
    setting); and the ids it resolved to."""
    if not stated["claims"]:
        return "not checked", []
    found = [matching(p, list(claims)) for p in stated["claims"]]
    ids = [i for f in found for i in f if setting is None or claims[i].get("setting") == setting]
    if not all(found) or not ids:
        return "not run", ids
    verdicts = [verdict(claims[i]) for i in ids]
    if "fails" in verdicts:
        return "fails", ids
    return (UNTESTABLE if UNTESTABLE in verdicts else "holds"), ids


def count(states: Sequence[str]) -> tuple[int, int, int]:
    """Of a paper's results' statuses: how many hold, how many the report
    judged (hold or fail, or cannot be checked at all), and how many cannot
    be tested on their workload; (0, 0, 0) when it ran none of the paper's
    claims."""
    if not any(s in ("holds", "fails", UNTESTABLE) for s in states):
        return 0, 0, 0
    judged = sum(1 for s in states if s in ("holds", "fails", "not checked"))
    return states.count("holds"), judged, states.count(UNTESTABLE)


def tally(paper: str, claims: Mapping[str, Mapping[str, Any]], setting: str | None = None) -> tuple[int, int, int]:
    """A paper's stated results that hold in a report whose claims by id
    are `claims` (in `setting`), how many it judges, and how many cannot
    be tested there (:func:`count`)."""
    return count([status(s, claims, setting)[0] for s in INVENTORY[paper]])
