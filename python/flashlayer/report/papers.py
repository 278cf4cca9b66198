"""The report's per-paper account: each paper's stated results
(:mod:`flashlayer.experiments.inventory`) with whether they hold in this
report, and the headline table built from it."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flashlayer.experiments.inventory import INVENTORY, PAPERS, count, status


#: The kinds of claim (`flashlayer.experiments.Claim`), the papers' first.
KINDS = ("paper", "bound", "ours")


def tally(claims: Sequence[Mapping[str, Any]], *kinds: str) -> tuple[int, int]:
    """How many of `claims` of `kinds` hold, and how many there are."""
    mine = [c for c in claims if c["kind"] in kinds]
    return sum(1 for c in mine if c["holds"]), len(mine)


def account(claims: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per paper: its stated results with their status and the claims that
    decide it, how many hold of those this report ran, and its own claims
    (kind ``paper``) holding of stated."""
    by_id = {c["id"]: c for c in claims}
    out: dict[str, dict[str, Any]] = {}
    for paper, stated in INVENTORY.items():
        rows, states = [], []
        for s in stated:
            state, ids = status(s, by_id)
            rows.append({**s, "status": state, "resolved": ids})
            states.append(state)
        mine = [c for c in claims if c["paper"] == paper and c["kind"] == "paper"]
        holding, checked = count(states)
        out[paper] = {
            "title": PAPERS[paper],
            "stated": rows,
            "holding": holding,
            "checked": checked,
            "claims_holding": sum(1 for c in mine if c["holds"]),
            "claims": len(mine),
        }
    return out


def headline_html(papers: dict[str, dict[str, Any]]) -> str:
    """The report's headline: per paper, stated results that hold."""
    rows = "".join(
        f"<tr><td><a href='#paper-{p}'>{html.escape(a['title'])}</a></td><td>{a['holding']} / {a['checked']}</td>"
        f"<td>{a['claims_holding']} / {a['claims']}</td>"
        f"<td>{sum(1 for r in a['stated'] if r['status'] == 'not checked')}</td></tr>"
        for p, a in papers.items() if a["checked"])
    return ("<h2 id='papers'>The papers' results</h2><p>Every result each paper states in its abstract, introduction, "
            "evaluation and conclusion, with the claims of this report that check it. A result holds when all its "
            "claims hold; one that cannot be checked counts as not holding.</p><table><tr><th>paper</th>"
            "<th>stated results holding</th><th>its claims holding</th><th>results that cannot be checked</th>"
            "</tr>" + rows + "</table>")


def inventory_html(papers: dict[str, dict[str, Any]], link: Callable[[str], str]) -> str:
    """Each paper's stated results, one table per paper."""
    parts = []
    for p, a in papers.items():
        if not a["checked"]:
            continue
        parts.append(f"<h3 id='paper-{p}'>{html.escape(a['title'])}: {a['holding']} of {a['checked']} stated "
                     "results hold</h3><table><tr><th>where</th><th>result</th><th>claims</th><th>status</th></tr>")
        for r in a["stated"]:
            if r["status"] == "not run":
                continue
            claims = ", ".join(f"<a href='#claim-{html.escape(i)}'>{html.escape(i)}</a>" for i in r["resolved"])
            cls = "yes" if r["status"] == "holds" else "no"
            note = f": {link(r['reason'])}" if r["status"] == "not checked" else ""
            parts.append(f"<tr><td>{html.escape(r['where'])}</td><td>{html.escape(r['result'])}</td><td>{claims}</td>"
                         f"<td class='{cls}'>{html.escape(r['status'])}{note}</td></tr>")
        parts.append("</table>")
    return "".join(parts)
