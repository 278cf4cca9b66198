"""The report's per-paper account: each paper's stated results
(:mod:`flashlayer.experiments.inventory`) with whether they hold in this
report, and the headline table built from it."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flashlayer.experiments.inventory import INVENTORY, PAPERS, SETTINGS, UNTESTABLE, count, status, verdict

#: The kinds of claim (`flashlayer.experiments.Claim`), the papers' first.
KINDS = ("paper", "bound", "ours")


def tally(claims: Sequence[Mapping[str, Any]], *kinds: str) -> tuple[int, int]:
    """How many of `claims` of `kinds` hold, and how many there are (a
    claim whose workload cannot test it does not hold)."""
    mine = [c for c in claims if c["kind"] in kinds]
    return sum(1 for c in mine if verdict(c) == "holds"), len(mine)


def account(claims: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per paper: its stated results with their status in each setting and
    the claims that decide it, and per setting how many hold, how many the
    report judges and how many cannot be tested on their workload."""
    by_id = {c["id"]: c for c in claims}
    out: dict[str, dict[str, Any]] = {}
    for paper, stated in INVENTORY.items():
        rows = []
        states: dict[str, list[str]] = {s: [] for s in SETTINGS}
        for s in stated:
            row: dict[str, Any] = {**s, "resolved": status(s, by_id)[1]}
            for setting in SETTINGS:
                state, _ = status(s, by_id, setting)
                row[setting] = state
                states[setting].append(state)
            rows.append(row)
        mine = [c for c in claims if c["paper"] == paper and c["kind"] == "paper"]
        out[paper] = {
            "title": PAPERS[paper],
            "stated": rows,
            **{setting: dict(zip(("holding", "judged", "untestable"), count(states[setting]), strict=True))
               for setting in SETTINGS},
            "claims_holding": tally(mine, "paper")[0],
            "claims_untestable": sum(1 for c in mine if verdict(c) == UNTESTABLE),
            "claims": len(mine),
        }
    return out


def _ran(a: Mapping[str, Any]) -> bool:
    return any(a[s]["judged"] or a[s]["untestable"] for s in SETTINGS)


def headline_html(papers: dict[str, dict[str, Any]]) -> str:
    """The report's headline: per paper, stated results that hold on its
    own workload and on ours, and those that cannot be tested."""
    def cell(a: Mapping[str, Any]) -> str:
        return f"{a['holding']} / {a['judged']}" + (f" ({a['untestable']} cannot be tested here)"
                                                    if a["untestable"] else "")
    rows = "".join(
        f"<tr><td><a href='#paper-{p}'>{html.escape(a['title'])}</a></td><td>{cell(a['reproduces'])}</td>"
        f"<td>{cell(a['generalizes'])}</td><td>{a['claims_holding']} / {a['claims']}</td>"
        f"<td>{sum(1 for r in a['stated'] if r['reproduces'] == 'not checked')}</td></tr>"
        for p, a in papers.items() if _ran(a))
    return ("<h2 id='papers'>The papers' results</h2><p>Every result each paper states in its abstract, introduction, "
            "evaluation and conclusion, with the claims of this report that check it, judged twice: "
            "<i>reproduces</i>, on the paper's own workload (a trace fitted to the statistics it publishes, a "
            "workload generated as it specifies, or a capture at its scale whose statistics match the published "
            "ones), and <i>generalizes</i>, on the real PostgreSQL captures and our other workloads. Each claim "
            "names its workload. A result holds when all its claims of that column hold; one whose claims' "
            f"workload cannot show the paper's value (it lies below the cost lower bound there, or the workload "
            f"misses a baseline's own published numbers) is counted apart as <i>{UNTESTABLE}</i>, never as "
            "holding; one no claim can check counts as not holding.</p><table><tr><th>paper</th>"
            "<th>reproduces: stated results holding</th><th>generalizes: stated results holding</th>"
            "<th>its claims holding</th><th>results that cannot be checked</th></tr>" + rows + "</table>")


def inventory_html(papers: dict[str, dict[str, Any]], link: Callable[[str], str]) -> str:
    """Each paper's stated results, one table per paper, a column per
    setting."""
    parts = []
    for p, a in papers.items():
        if not _ran(a):
            continue
        r, g = a["reproduces"], a["generalizes"]
        parts.append(f"<h3 id='paper-{p}'>{html.escape(a['title'])}: {r['holding']} of {r['judged']} stated results "
                     f"reproduce, {g['holding']} of {g['judged']} generalize</h3><table><tr><th>where</th>"
                     "<th>result</th><th>claims</th><th>reproduces</th><th>generalizes</th></tr>")
        for row in a["stated"]:
            if all(row[s] == "not run" for s in SETTINGS):
                continue
            claims = ", ".join(f"<a href='#claim-{html.escape(i)}'>{html.escape(i)}</a>" for i in row["resolved"])
            cells = ""
            for setting in SETTINGS:
                state = row[setting]
                cls = {"holds": "yes", "fails": "no"}.get(state, "meta")
                note = f": {link(row['reason'])}" if state == "not checked" else ""
                cells += f"<td class='{cls}'>{html.escape(state)}{note}</td>"
            parts.append(f"<tr><td>{html.escape(row['where'])}</td><td>{html.escape(row['result'])}</td>"
                         f"<td>{claims}</td>{cells}</tr>")
        parts.append("</table>")
    return "".join(parts)
