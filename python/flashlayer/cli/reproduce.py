"""``flashlayer reproduce``: run the papers' experiments and write a
report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flashlayer.cli.common import OUT_DIR_HELP, UsageError, add_force, emit_json, paragraph


def run(a: argparse.Namespace) -> None:
    from flashlayer import experiments, progress, report

    papers = a.papers or list(experiments.EXPERIMENTS)
    for p in papers:
        if p not in experiments.EXPERIMENTS:
            raise UsageError(f"unknown section '{p}'; sections: {', '.join(experiments.EXPERIMENTS)}")
    mode = "full" if a.full else "quick"
    out = Path(a.out)
    # A long run says what it does even where no bar can be drawn (a log, CI).
    progress.log_lines()
    if a.no_capture and not a.full:
        raise UsageError("--no-capture is for --full (--quick never captures)")
    results = report.reproduce(papers, mode, out, traces_dir=Path(a.traces) if a.traces else None, quiet=a.json,
                               capture=not a.no_capture, cache=Path(a.cache) if a.cache else None,
                               force=a.force)
    if a.json:
        emit_json(results)
    else:
        (ph, pn), (bh, bn), (oh, on) = (report.tally(results["claims"], k) for k in report.KINDS)
        checks = sum(1 for c in results["checks"] if c["holds"])
        print(f"wrote {out / 'index.html'} and {out / 'results.json'}: {len(results['figures'])} figures, "
              f"{ph}/{pn} of the papers' claims hold (besides: {bh}/{bn} bound, {oh}/{on} beyond the papers), "
              f"{checks}/{len(results['checks'])} provenance checks pass")
        def cell(a: dict[str, int]) -> str:
            return f"{a['holding']}/{a['judged']}" + (f" ({a['untestable']} cannot be tested)" if a["untestable"] else "")
        print("stated results holding (reproduces; generalizes): " + "; ".join(
            f"{name} {cell(a['reproduces'])}; {cell(a['generalizes'])}" for name, a in results["papers"].items()
            if any(a[s]["judged"] or a[s]["untestable"] for s in ("reproduces", "generalizes"))))
        unexplained = [c["id"] for c in results["claims"] if not c["holds"] and not c.get("why")]
        if unexplained:
            print(f"{len(unexplained)} failing claims name no cause: {', '.join(unexplained)}")


def add(sub: Any) -> None:
    from flashlayer import experiments

    sections = ", ".join(experiments.EXPERIMENTS)
    r = sub.add_parser("reproduce", help="run the papers' experiments and write a report",
                       description=paragraph("""
                           Run experiment sections and write OUT/index.html (figures; a table of claims, each
                           with its source, the expected value beside ours, whether it holds and by how much it
                           misses; provenance checks of the traces) and OUT/results.json (every run, the git
                           commit, the traces' SHA-256). 'flashlayer plot OUT/results.json' redraws the runs."""))
    r.add_argument("papers", nargs="*", metavar="SECTION", help=f"sections to run (default: all): {sections}")
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="fewer buffer sizes (the default)")
    mode.add_argument("--full", action="store_true",
                      help=paragraph("""
                          more buffer sizes and policies, and the sections that ask for them (casa, fdbuffer,
                          hypro) on paper-scale traces recorded from PostgreSQL into the trace cache where
                          missing (needs root, PostgreSQL and bpftrace; says which and about how long before it
                          starts; see 'flashlayer list captures'); fdbuffer and hypro also on traces fitted to
                          their papers' tables of traces (FD-Buffer Table 2, HyPro Table 3), whose claims end
                          in -fit"""))
    r.add_argument("--no-capture", action="store_true",
                   help="with --full: run every section on the shipped traces, recording nothing")
    r.add_argument("--cache", metavar="DIR",
                   help="the trace cache (default: $FLASHLAYER_CACHE/traces, else ~/.cache/flashlayer/traces)")
    r.add_argument("--out", required=True, metavar="DIR", help=OUT_DIR_HELP)
    add_force(r)
    r.add_argument("--traces", metavar="DIR",
                   help="folder with the PostgreSQL traces (default: $FLASHLAYER_TRACES, else the repository's "
                   "data/traces)")
    r.add_argument("--json", action="store_true", help="also print results.json to stdout")
    r.set_defaults(func=run)
