"""``flashlayer reproduce``: run sections, write ``index.html`` and
``results.json``.

The report is written into a temporary folder beside ``out`` and moved into
place only when every section has finished, so a failed run never leaves a
report that looks complete.
"""

from __future__ import annotations

import html
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from flashlayer import __version__, plots
from flashlayer._native import FlashlayerError


def find_traces(explicit: Path | None) -> Path:
    """The folder with the PostgreSQL traces: ``--traces``, then
    ``$FLASHLAYER_TRACES``, then ``data/traces`` of the repository this
    package runs from, then ``./data/traces``."""
    candidates = []
    if explicit is not None:
        candidates.append(explicit)
    elif os.environ.get("FLASHLAYER_TRACES"):
        candidates.append(Path(os.environ["FLASHLAYER_TRACES"]))
    else:
        candidates += [Path(__file__).resolve().parents[2] / "data" / "traces", Path.cwd() / "data" / "traces"]
    for c in candidates:
        if (c / "pg15-tpcc-sysbench-w2.csv.gz").is_file():
            return c
    raise FlashlayerError(
        f"cannot find the PostgreSQL traces (looked in {', '.join(str(c) for c in candidates)}); pass --traces DIR"
    )


def reproduce(sections: list[str], mode: str, out: Path, traces_dir: Path | None, quiet: bool) -> dict[str, Any]:
    from flashlayer.experiments import EXPERIMENTS

    traces = find_traces(traces_dir)
    out = out.resolve()
    if out.exists() and not out.is_dir():
        raise FlashlayerError(f"{out}: exists and is not a directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    done: list[tuple[str, dict[str, Any], float]] = []
    for name in sections:
        t0 = time.perf_counter()
        section = EXPERIMENTS[name](mode, traces, quiet)
        done.append((name, dict(section), time.perf_counter() - t0))
    results: dict[str, Any] = {
        "figures": {fid: f for _, s, _ in done for fid, f in s["figures"].items()},
        "claims": [c for _, s, _ in done for c in s["claims"]],
        "meta": {
            "version": __version__,
            "mode": mode,
            "sections": sections,
            "traces": str(traces),
            "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
            "seconds": {name: secs for name, _, secs in done},
            "python": platform.python_version(),
            "machine": platform.machine(),
        },
    }
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        for fid, fig in results["figures"].items():
            plots.render(fig, tmp / "figures" / f"{fid}.png")
        (tmp / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        (tmp / "index.html").write_text(_html(done, results, traces))
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
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
.figs img { width: 520px; border: 1px solid #ddd; } pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; }
"""


def _html(done: list[tuple[str, dict[str, Any], float]], results: dict[str, Any], traces: Path) -> str:
    meta = results["meta"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>flashlayer report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>flashlayer: reproduction report</h1>",
        f"<p class='meta'>flashlayer {_e(meta['version'])}, mode <b>{_e(meta['mode'])}</b>, started {_e(meta['started'])}; "
        f"sections: {_e(', '.join(meta['sections']))}. Regenerate with "
        f"<code>flashlayer reproduce {' '.join(meta['sections'])} --{_e(meta['mode'])} --out DIR</code>.</p>",
    ]
    held = sum(1 for c in results["claims"] if c["holds"])
    parts.append(f"<p><b>{held} of {len(results['claims'])} claims hold.</b></p>")
    for name, s, secs in done:
        parts.append(f"<h2>{_e(s['title'])} <span class='meta'>({_e(name)}, {secs:.1f} s)</span></h2>")
        parts.append(f"<p>{_e(s['intro'])}</p>")
        if s["notes"]:
            parts.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in s["notes"]) + "</ul>")
        parts.append("<div class='figs'>")
        for fid, fig in s["figures"].items():
            parts.append(
                f"<figure><img src='figures/{_e(fid)}.png' alt='{_e(fig['title'])}'>"
                f"<figcaption class='meta'>{_e(fid)}</figcaption></figure>"
            )
        parts.append("</div>")
        parts.append("<table><tr><th>id</th><th>claim</th><th>paper</th><th>ours</th><th>holds</th></tr>")
        for c in s["claims"]:
            cls, word = ("yes", "yes") if c["holds"] else ("no", "no")
            parts.append(
                f"<tr><td>{_e(c['id'])}</td><td>{_e(c['text'])}</td><td>{_e(c['paper_value'])}</td>"
                f"<td>{_e(c['ours'])}</td><td class='{cls}'>{word}</td></tr>"
            )
        parts.append("</table>")
    readme = traces / "README.md"
    if readme.is_file():
        parts.append("<h2>Where the traces come from</h2>")
        parts.append(f"<p class='meta'>{_e(readme)}</p><pre>{_e(readme.read_text())}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)
