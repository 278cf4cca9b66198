"""``flashlayer report``: a sweep's rows as figures on one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flashlayer import _native, plots
from flashlayer.files import write_folder
from flashlayer.replay import policy_labels
from flashlayer.report.html import CSS, _e
from flashlayer.version import __version__


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
    legend = policy_labels(specs)
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
            parts.extend(_figure(fid, fig) for fid, fig in reduced.items())
            parts.append("</div><table><tr><th>store</th><th>buffer</th><th>metric</th><th>policy</th>"
                         "<th>traces</th><th>median</th><th>mean</th><th>min</th><th>max</th></tr>")
            for t in table:
                parts.append("<tr>" + "".join(f"<td>{_e(t[k])}</td>" for k in ("store", "buffer", "metric", "policy",
                                                                                 "traces"))
                             + "".join(f"<td>{t[k]:+.1%}</td>" for k in ("median", "mean", "min", "max")) + "</tr>")
            parts.append("</table><h2>Each trace</h2><div class='figs'>")
        parts.extend(_figure(fid, fig) for fid, fig in figures.items())
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


def _figure(fid: str, fig: dict[str, Any]) -> str:
    """A figure of the report, its title as caption."""
    return (f"<figure><img src='figures/{_e(fid)}.png' alt='{_e(fig['title'])}'>"
            f"<figcaption class='meta'>{_e(fig['title'])}</figcaption></figure>")
