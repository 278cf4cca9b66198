"""``flashlayer reproduce``: run sections, write ``index.html`` and
``results.json``.

The report is written into a temporary folder beside ``out`` and moved into
place only when every section has finished, so a failed run never leaves a
report that looks complete; onto an existing folder only by the rule of
:mod:`flashlayer.files` (its own folder, or ``--force``).
"""

from __future__ import annotations

import html
import json
import os
import platform
import re
import subprocess
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from flashlayer import __version__, _native, plots, progress, report_papers
from flashlayer._native import FlashlayerError
from flashlayer.files import check_folder, write_folder

REPO = Path(__file__).resolve().parents[2]
#: Sections run at a time. Each spreads its own runs over the cores as
#: well; two side by side fill the gaps where one waits on a serial step.
SECTIONS_AT_ONCE = 2


def find_traces(explicit: Path | None, files: list[str]) -> Path:
    """The folder with the traces `files`: ``--traces``, then
    ``$FLASHLAYER_TRACES``, then ``data/traces`` of the repository this
    package runs from, then ``./data/traces``."""
    candidates = []
    if explicit is not None:
        candidates.append(explicit)
    elif os.environ.get("FLASHLAYER_TRACES"):
        candidates.append(Path(os.environ["FLASHLAYER_TRACES"]))
    else:
        candidates += [REPO / "data" / "traces", Path.cwd() / "data" / "traces"]
    for c in candidates:
        if all((c / f).is_file() for f in files):
            return c
    missing = [f for f in files if not (candidates[0] / f).is_file()]
    raise FlashlayerError(
        f"cannot find the recorded traces {', '.join(missing)} (looked in "
        f"{', '.join(str(c) for c in candidates)}); pass --traces DIR"
    )


#: The kinds of claim (`flashlayer.experiments.Claim`), the papers' first.
KINDS = ("paper", "bound", "ours")


def tally(claims: Sequence[Mapping[str, Any]], *kinds: str) -> tuple[int, int]:
    """How many of `claims` of `kinds` hold, and how many there are."""
    mine = [c for c in claims if c["kind"] in kinds]
    return sum(1 for c in mine if c["holds"]), len(mine)


def _trace_meta(path: Path) -> dict[str, Any]:
    """What the report records of a trace file: its size, shape and hash."""
    from flashlayer.grid import content_hash

    st = _native.Trace.open(path).stats()
    return {"sha256": content_hash(path), "bytes": path.stat().st_size, "requests": int(st["requests"]),
            "distinct_pages": int(st["distinct_pages"]), "writes": int(st["writes"])}


def _git_commit() -> str | None:
    """The commit of the repository this package runs from, with '+dirty'
    when it has uncommitted changes; None outside a git checkout."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def _captures(sections: list[str], cache: Path | None, quiet: bool) -> dict[str, Any]:
    """The paper-scale captures `sections` run on in ``--full``, recorded
    into the cache where missing (:mod:`flashlayer.tracecache`)."""
    from flashlayer import tracecache
    from flashlayer.experiments import CAPTURES

    names = sorted({n for s in sections for n in CAPTURES.get(s, [])})
    try:
        return tracecache.ensure([tracecache.CAPTURES[n] for n in names], cache, quiet)
    except tracecache.CannotRecord as e:
        raise FlashlayerError(f"reproduce --full: {e}; run it as root where PostgreSQL and bpftrace are installed "
                              "(bash scripts/setup installs them), or pass --no-capture to run on the shipped "
                              "traces") from None


def reproduce(sections: list[str], mode: str, out: Path, traces_dir: Path | None, quiet: bool,
              capture: bool = True, cache: Path | None = None, force: bool = False) -> dict[str, Any]:
    """Runs `sections` and writes the report into `out`. In ``full`` mode
    with `capture`, the sections that ask for paper-scale traces run on
    them, recorded into `cache` first where missing."""
    from flashlayer import tracecache
    from flashlayer.experiments import EXPERIMENTS, TRACE_FILES, Inputs

    traces = find_traces(traces_dir, sorted({f for s in sections for f in TRACE_FILES[s]}))
    check_folder(out, force)
    started = time.time()
    captured = _captures(sections, cache, quiet) if mode == "full" and capture else {}
    inputs = Inputs(traces, {name: c.path for name, c in captured.items()})
    def run(i: int, name: str) -> tuple[str, dict[str, Any], float]:
        progress.note(f"section {i}/{len(sections)}: {name} ({mode})", quiet)
        t0 = time.perf_counter()
        section = EXPERIMENTS[name](mode, inputs, quiet)
        secs = time.perf_counter() - t0
        (held, n), (o_held, o_n) = tally(section["claims"], "paper"), tally(section["claims"], "bound", "ours")
        progress.note(f"section {i}/{len(sections)}: {name} done in {secs:.1f} s, claims holding: {held}/{n} of "
                      f"the paper's, {o_held}/{o_n} bound and own", quiet)
        return name, dict(section), secs

    # Sections are independent and spend their time in native code that
    # releases the GIL, so they run side by side; the report keeps their
    # order.
    with ThreadPoolExecutor(SECTIONS_AT_ONCE) as pool:
        done = list(pool.map(run, range(1, len(sections) + 1), sections))
    used = sorted({p for _, s, _ in done for p in s["traces"]})
    results: dict[str, Any] = {
        "figures": {fid: f for _, s, _ in done for fid, f in s["figures"].items()},
        "tables": {tid: t for _, s, _ in done for tid, t in s.get("tables", {}).items()},
        "claims": [c for _, s, _ in done for c in s["claims"]],
        "papers": report_papers.account([c for _, s, _ in done for c in s["claims"]]),
        "checks": [c for _, s, _ in done for c in s["checks"]],
        "runs": [r for _, s, _ in done for r in s["runs"]],
        "meta": {
            "version": __version__,
            "git_commit": _git_commit(),
            "mode": mode,
            "sections": sections,
            "traces": {p.name: _trace_meta(p) for p in used},
            "captures": {name: tracecache.describe(c) for name, c in captured.items()},
            "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
            "seconds": {name: secs for name, _, secs in done},
            "python": platform.python_version(),
            "machine": platform.machine(),
        },
    }

    def fill(tmp: Path) -> None:
        (tmp / "figures").mkdir()
        plots.render_all(results["figures"], tmp / "figures")
        (tmp / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        (tmp / "index.html").write_text(_html(done, results, traces))

    write_folder(out, fill, force)
    return results


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


def _html(done: list[tuple[str, dict[str, Any], float]], results: dict[str, Any], traces: Path) -> str:
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
    parts.append(report_papers.headline_html(results["papers"]))
    parts.append(f"<p>{ph} of {pn} claims of kind <i>paper</i> hold (a result a paper states, with its value beside "
                 f"ours; the tallies per section count these only). Apart from them: {bh} of {bn} claims that "
                 f"our cost bound is sound (kind <i>bound</i>) and {oh} of {on} results beyond the papers or "
                 f"thresholds of ours (kind <i>ours</i>) hold; {passed} of {len(results['checks'])} provenance "
                 "checks pass. Every claim that fails names its cause (<i>why</i>), pointing at the figure or table "
                 "that shows it.</p>")
    parts.append(report_papers.inventory_html(results["papers"], _link_ids))
    parts.append("<h2 id='summary'>Summary</h2><table><tr><th>section</th><th>paper claims held</th><th>bound and "
                 "own claims held</th><th>traces (requests, distinct pages, writes)</th><th>figures</th>"
                 "<th>seconds</th></tr>")
    for name, s, secs in done:
        (ok, n), (o_ok, o_n) = tally(s["claims"], "paper"), tally(s["claims"], "bound", "ours")
        failing = [c for c in s["claims"] if not c["holds"]]
        used = "; ".join(_trace_line(meta["traces"].get(p.name), p.name) for p in s["traces"]) or "generated only"
        parts.append(
            f"<tr><td><a href='#{_e(name)}'>{_e(s['title'])}</a></td><td>{ok} / {n}"
            + (" (failing: " + ", ".join(f"<a href='#claim-{_e(c['id'])}'>{_e(c['id'])}</a>" for c in failing) + ")"
               if failing else "")
            + f"</td><td>{o_ok} / {o_n}</td>"
            f"<td>{_e(used)}</td><td>{len(s['figures'])}</td><td>{secs:.1f}</td></tr>")
    parts.append("</table>")
    for name, s, secs in done:
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
                     "<th>source</th><th>expected</th><th>tolerance</th><th>ours</th><th>holds</th><th>gap</th><th>why</th>"
                     "</tr>")
        for c in s["claims"]:
            why = "" if c["holds"] else (c.get("why") or UNEXPLAINED)
            parts.append(
                f"<tr id='claim-{_e(c['id'])}'><td>{_e(c['id'])}</td><td>{_e(c['kind'])}</td><td>{_e(c['text'])}</td>"
                f"<td>{_e(c['source'])}</td><td>{_e(c['paper_value'])}</td><td>{_e(c['tolerance'])}</td>"
                f"<td>{_e(c['ours'])}</td>"
                f"{_verdict(c['holds'])}<td>{_e(c['gap'] or '')}</td><td>{_link_ids(why)}</td></tr>"
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
    parts.append("</body></html>")
    return "\n".join(parts)


def sweep_report(rows: list[dict[str, Any]], out: Path, source: str, force: bool = False,
                 baseline: str | None = None) -> dict[str, Any]:
    """``flashlayer report``: for each trace and store of a sweep's rows, virtual time and miss ratio against
    buffer size, one series per policy, as PNGs and an HTML page; with a
    `baseline` policy, each policy's reductions against it as box plots
    over the traces, with their table (:mod:`flashlayer.reductions`);
    written into a temporary folder and moved into place when complete.
    Returns the figures."""
    from flashlayer.reductions import reductions

    reduced, table = reductions(rows, baseline) if baseline is not None else ({}, [])
    ok = [r for r in rows if r.get("error") is None]
    failed = len(rows) - len(ok)
    groups: dict[tuple[str, str], dict[str, dict[int, dict[str, Any]]]] = {}
    for r in ok:
        key = (Path(r["trace"]).name, _native.short_spec("store", r["grid_store"]))
        groups.setdefault(key, {}).setdefault(r["policy"], {})[int(r["buffer_pages"])] = r
    # Legends name a policy without its parameters where that is unique.
    specs = sorted({r["policy"] for r in ok})
    bases = [p.split(":")[0] for p in specs]
    legend = {p: (b if bases.count(b) == 1 else p) for p, b in zip(specs, bases, strict=True)}
    figures: dict[str, dict[str, Any]] = {}
    for n, ((trace, target), by_policy) in enumerate(sorted(groups.items())):
        sizes = sorted({b for pts in by_policy.values() for b in pts})
        for metric, label in (("virtual_time", "virtual time"), ("miss_ratio", "miss ratio")):
            figures[f"sweep/{n:03d}-{metric}"] = {
                "title": f"{trace}, {target}: {label}",
                "x_label": "buffer (pages)",
                "y_label": label,
                "x": [float(s) for s in sizes],
                "series": {legend[p]: [pts[s][metric] if s in pts else None for s in sizes]
                           for p, pts in by_policy.items()},
            }

    def fill(tmp: Path) -> None:
        (tmp / "figures").mkdir()
        parts = ["<!doctype html><html><head><meta charset='utf-8'><title>flashlayer sweep</title>",
                 f"<style>{CSS}</style></head><body><h1>flashlayer sweep: {_e(source)}</h1>",
                 f"<p class='meta'>{len(rows):,} cells, {failed:,} failed; flashlayer {_e(__version__)}. "
                 "One series per policy.</p><div class='figs'>"]
        plots.render_all({**reduced, **figures}, tmp / "figures")
        if reduced:
            parts.append(f"</div><h2>Reduction against {_e(baseline)}, over traces</h2><div class='figs'>")
            for fid, fig in reduced.items():
                parts.append(f"<figure><img src='figures/{_e(fid)}.png' alt='{_e(fig['title'])}'>"
                             f"<figcaption class='meta'>{_e(fig['title'])}</figcaption></figure>")
            parts.append("</div><table><tr><th>store</th><th>buffer</th><th>metric</th><th>policy</th>"
                         "<th>traces</th><th>median</th><th>mean</th><th>min</th><th>max</th></tr>")
            for t in table:
                parts.append("<tr>" + "".join(f"<td>{_e(t[k])}</td>" for k in ("store", "buffer", "metric", "policy",
                                                                                 "traces"))
                             + "".join(f"<td>{t[k]:+.1%}</td>" for k in ("median", "mean", "min", "max")) + "</tr>")
            parts.append("</table><h2>Each trace</h2><div class='figs'>")
        for fid, fig in figures.items():
            parts.append(f"<figure><img src='figures/{_e(fid)}.png' alt='{_e(fig['title'])}'>"
                         f"<figcaption class='meta'>{_e(fig['title'])}</figcaption></figure>")
        parts.append("</div>")
        if failed:
            parts.append("<h2>Failed cells</h2><table><tr><th>cell</th><th>error</th></tr>")
            for r in rows:
                if r.get("error") is not None:
                    parts.append(f"<tr><td>{_e(r['cell'])}</td><td>{_e(r['error'])}</td></tr>")
            parts.append("</table>")
        parts.append("</body></html>")
        (tmp / "index.html").write_text("\n".join(parts))

    write_folder(out, fill, force)
    return {**reduced, **figures}
