"""The reproduction report as one HTML page: the headline, each section's
figures, tables, claims and checks, and the traces it ran on."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from flashlayer.experiments.inventory import verdict
from flashlayer.report.account import KINDS, headline_html, inventory_html, tally


def _e(s: Any) -> str:
    return html.escape(str(s))


CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } .meta { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } .yes { color: #176b2c; font-weight: bold; } .no { color: #a11; font-weight: bold; }
.figs { display: flex; flex-wrap: wrap; gap: 12px; } .figs figure { margin: 0; }
.figs img { width: 520px; border: 1px solid #ddd; } code { background: #f3f3f3; padding: 0 3px; }
.provenance { border-left: 3px solid #ddd; padding-left: 1em; }
"""


#: The why of a failing claim whose section gives none.
UNEXPLAINED = "no experiment of this report shows the cause yet"


def _anchor(kind: str, ident: str) -> str:
    """The HTML id of a figure or table of the report."""
    return f"{kind}-{ident.replace('/', '-')}"


_REF = re.compile(r"\b(figure|table) ([a-z0-9][\w.-]*/[\w.-]*[\w])", re.IGNORECASE)


def _link_ids(text: str) -> str:
    """`text` escaped, with each "figure ID" and "table ID" a link to it."""
    out, last = [], 0
    for m in _REF.finditer(text):
        out.append(_e(text[last:m.start()]))
        out.append(f"<a href='#{_e(_anchor(m[1].lower(), m[2]))}'>{_e(m[0])}</a>")
        last = m.end()
    out.append(_e(text[last:]))
    return "".join(out)


def _trace_line(t: dict[str, Any] | None, name: str) -> str:
    if t is None:
        return name
    return f"{name} ({t['requests']:,}, {t['distinct_pages']:,}, {t['writes']:,})"


def _verdict(holds: bool) -> str:
    return "<td class='yes'>yes</td>" if holds else "<td class='no'>no</td>"


def _claim_verdict(c: dict[str, Any]) -> str:
    v = verdict(c)
    cls = {"holds": "yes", "fails": "no"}.get(v, "meta")
    return f"<td class='{cls}'>{_e(v)}</td>"


#: A finished section: its name, what it returned, its seconds.
Done = tuple[str, dict[str, Any], float]


def page(done: list[Done], results: dict[str, Any], traces: Path) -> str:
    """The report's ``index.html``: the headline and summary, each section,
    then the traces it ran on."""
    meta = results["meta"]
    parts = _headline(done, results)
    for one in done:
        parts += _section(*one)
    parts += _traces(meta, traces)
    parts.append("</body></html>")
    return "\n".join(parts)


def _headline(done: list[Done], results: dict[str, Any]) -> list[str]:
    """The title, the tallies, the papers' account and the summary table."""
    meta = results["meta"]
    commit = meta["git_commit"] or "unknown (not a git checkout)"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>flashlayer report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>flashlayer: reproduction report</h1>",
        f"<p class='meta'>flashlayer {_e(meta['version'])} at commit <code>{_e(commit)}</code>, mode "
        f"<b>{_e(meta['mode'])}</b>, started {_e(meta['started'])}; sections: {_e(', '.join(meta['sections']))}. "
        f"Regenerate with <code>flashlayer reproduce {_e(' '.join(meta['sections']))} --{_e(meta['mode'])} "
        "--out DIR</code>; redraw the runs with <code>flashlayer plot DIR/results.json --out runs.png</code>.</p>",
    ]
    passed = sum(1 for c in results["checks"] if c["holds"])
    (ph, pn), (bh, bn), (oh, on) = (tally(results["claims"], k) for k in KINDS)
    parts.append(headline_html(results["papers"]))
    parts.append(f"<p>{ph} of {pn} claims of kind <i>paper</i> hold (a result a paper states, with its value beside "
                 f"ours; the tallies per section count these only). Apart from them: {bh} of {bn} claims that "
                 f"our cost bound is sound (kind <i>bound</i>) and {oh} of {on} results beyond the papers or "
                 f"thresholds of ours (kind <i>ours</i>) hold; {passed} of {len(results['checks'])} provenance "
                 "checks pass. Every claim that fails names its cause (<i>why</i>), pointing at the figure or table "
                 "that shows it.</p>")
    parts.append(inventory_html(results["papers"], _link_ids))
    parts.append("<h2 id='summary'>Summary</h2><p>Each kind of claim is counted in its own column, the failing "
                 "ones named beside their count.</p><table><tr><th>section</th>"
                 + "".join(f"<th>{ {'ours': 'own'}.get(k, k)} claims held</th>" for k in KINDS)
                 + "<th>traces (requests, distinct pages, writes)</th><th>figures</th><th>seconds</th></tr>")

    def held(claims: list[dict[str, Any]], kind: str) -> str:
        ok, n = tally(claims, kind)
        failing = [c for c in claims if c["kind"] == kind and verdict(c) == "fails"]
        return f"<td>{ok} / {n}" + (" (failing: " + ", ".join(
            f"<a href='#claim-{_e(c['id'])}'>{_e(c['id'])}</a>" for c in failing) + ")" if failing else "") + "</td>"

    for name, s, secs in done:
        used = "; ".join(_trace_line(meta["traces"].get(p.name), p.name) for p in s["traces"]) or "generated only"
        parts.append(
            f"<tr><td><a href='#{_e(name)}'>{_e(s['title'])}</a></td>"
            + "".join(held(s["claims"], k) for k in KINDS)
            + f"<td>{_e(used)}</td><td>{len(s['figures'])}</td><td>{secs:.1f}</td></tr>")
    parts.append("</table>")
    return parts


def _section(name: str, s: dict[str, Any], secs: float) -> list[str]:
    """One section: its notes, figures, tables, claims and checks."""
    parts = []
    parts.append(f"<h2 id='{_e(name)}'>{_e(s['title'])} <span class='meta'>({_e(name)}, {secs:.1f} s; "
                 f"<a href='#{_e(name)}-claims'>claims</a>, <a href='#summary'>summary</a>)</span></h2>")
    parts.append(f"<p>{_e(s['intro'])}</p>")
    if s["notes"]:
        parts.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in s["notes"]) + "</ul>")
    parts.append("<div class='figs'>")
    for fid, fig in s["figures"].items():
        parts.append(
            f"<figure id='{_e(_anchor('figure', fid))}'><img src='figures/{_e(fid)}.png' alt='{_e(fig['title'])}'>"
            f"<figcaption class='meta'><a href='#{_e(_anchor('figure', fid))}'>{_e(fid)}</a></figcaption></figure>"
        )
    parts.append("</div>")
    for tid, t in s.get("tables", {}).items():
        parts.append(f"<h3 id='{_e(_anchor('table', tid))}'>{_e(t['title'])} <span class='meta'>({_e(tid)})</span>"
                     "</h3><table><tr>"
                     + "".join(f"<th>{_e(c)}</th>" for c in t["columns"]) + "</tr>")
        for row in t["rows"]:
            parts.append("<tr>" + "".join(
                f"<td>{_e(f'{v:,}' if isinstance(v, int) else v)}</td>" for v in row) + "</tr>")
        parts.append("</table>")
    parts.append(f"<h3 id='{_e(name)}-claims'>Claims</h3><table><tr><th>id</th><th>kind</th><th>claim</th>"
                 "<th>workload</th><th>source</th><th>expected</th><th>tolerance</th><th>ours</th><th>verdict</th>"
                 "<th>gap</th><th>why</th></tr>")
    for c in s["claims"]:
        why = c.get("untestable") or ("" if c["holds"] else (c.get("why") or UNEXPLAINED))
        where = f"{c['workload']} ({c['setting']})" if "workload" in c else ""
        parts.append(
            f"<tr id='claim-{_e(c['id'])}'><td>{_e(c['id'])}</td><td>{_e(c['kind'])}</td><td>{_e(c['text'])}</td>"
            f"<td>{_e(where)}</td><td>{_e(c['source'])}</td><td>{_e(c['paper_value'])}</td>"
            f"<td>{_e(c['tolerance'])}</td><td>{_e(c['ours'])}</td>"
            f"{_claim_verdict(c)}<td>{_e(c['gap'] or '')}</td><td>{_link_ids(why)}</td></tr>"
        )
    parts.append("</table>")
    if s["checks"]:
        parts.append("<h3>Provenance checks</h3><p class='meta'>The inputs are what their own documentation "
                     "says; these are not claims of any paper.</p><table><tr><th>id</th><th>check</th>"
                     "<th>source</th><th>expected</th><th>ours</th><th>passes</th></tr>")
        for c in s["checks"]:
            parts.append(
                f"<tr><td>{_e(c['id'])}</td><td>{_e(c['text'])}</td><td>{_e(c['source'])}</td>"
                f"<td>{_e(c['expected'])}</td><td>{_e(c['ours'])}</td>{_verdict(c['holds'])}</tr>"
            )
        parts.append("</table>")
    return parts


def _traces(meta: dict[str, Any], traces: Path) -> list[str]:
    """The trace files, the paper-scale captures and where the traces come from."""
    parts = []
    parts.append("<h2 id='traces'>Trace files</h2><table><tr><th>file</th><th>requests</th><th>distinct pages</th>"
                 "<th>writes</th><th>bytes</th><th>SHA-256</th></tr>")
    for name, t in meta["traces"].items():
        parts.append(f"<tr><td>{_e(name)}</td><td>{t['requests']:,}</td><td>{t['distinct_pages']:,}</td>"
                     f"<td>{t['writes']:,}</td><td>{t['bytes']:,}</td><td><code>{_e(t['sha256'])}</code></td></tr>")
    parts.append("</table>")
    if meta["captures"]:
        parts.append("<h2 id='captures'>Paper-scale captures</h2><p class='meta'>Recorded on this machine into the "
                     "trace cache, reused while their inputs are unchanged.</p><table><tr><th>capture</th>"
                     "<th>stands for</th><th>command</th><th>requests</th><th>distinct pages</th><th>writes</th>"
                     "<th>recorded in</th><th>SHA-256</th><th>scale</th></tr>")
        for name, c in meta["captures"].items():
            stands = "; ".join(f"{p['name']}: {p['requests']:,} references"
                               + (f", {p['distinct_pages']:,} pages" if p["distinct_pages"] else "")
                               + f" ({p['source']})" for p in c["stands_for"])
            parts.append(f"<tr><td>{_e(name)}</td><td>{_e(stands)}</td><td><code>{_e(c['command'])}</code></td>"
                         f"<td>{c['requests']:,}</td><td>{c['distinct_pages']:,}</td><td>{c['writes']:,}</td>"
                         f"<td>{c['seconds']:,.0f} s</td><td><code>{_e(c['sha256'])}</code></td>"
                         f"<td>{_e(c['scale_note'])}</td></tr>")
        parts.append("</table>")
    elif meta["mode"] == "full":
        parts.append("<p class='meta'>Run with --no-capture: every section ran on the shipped traces, not on "
                     "paper-scale captures.</p>")
    readme = traces / "README.md"
    if readme.is_file():
        parts.append("<h2>Where the traces come from</h2>")
        # The README is the project's own Markdown; rendered without raw HTML.
        md = MarkdownIt("commonmark", {"html": False}).enable("table")
        parts.append(f"<div class='provenance'>{md.render(readme.read_text())}</div>")
    return parts

