"""``flashlayer reproduce``: run sections, write ``index.html`` and
``results.json``.

The report is written into a temporary folder beside ``out`` and moved into
place only when every section has finished, so a failed run never leaves a
report that looks complete; onto an existing folder only by the rule of
:mod:`flashlayer.files` (its own folder, or ``--force``).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from flashlayer import _native, plots, progress
from flashlayer._native import FlashlayerError
from flashlayer.files import check_folder, write_folder
from flashlayer.report.account import KINDS, account, tally
from flashlayer.report.html import page
from flashlayer.report.sweep import sweep_report
from flashlayer.version import __version__

__all__ = ["KINDS", "find_traces", "reproduce", "sweep_report", "tally"]

REPO = Path(__file__).resolve().parents[3]
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
    # The commit of the code that runs, taken before it runs: the tree may
    # change while a long report is being made.
    commit = _git_commit()
    captured = _captures(sections, cache, quiet) if mode == "full" and capture else {}
    inputs = Inputs(traces, {name: c.path for name, c in captured.items()})
    def run(i: int, name: str) -> tuple[str, dict[str, Any], float]:
        progress.note(f"section {i}/{len(sections)}: {name} ({mode})", quiet)
        t0 = time.perf_counter()
        section = EXPERIMENTS[name](mode, inputs, quiet)
        secs = time.perf_counter() - t0
        unnamed = [c["id"] for c in section["claims"] if c["kind"] == "paper" and not {"workload", "setting"} <= set(c)]
        if unnamed:
            raise RuntimeError(f"section {name}: paper claims name no workload: {', '.join(unnamed)}")
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
        "papers": account([c for _, s, _ in done for c in s["claims"]]),
        "checks": [c for _, s, _ in done for c in s["checks"]],
        "runs": [r for _, s, _ in done for r in s["runs"]],
        "meta": {
            "version": __version__,
            "git_commit": commit,
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
        (tmp / "index.html").write_text(page(done, results, traces))

    write_folder(out, fill, force)
    return results
