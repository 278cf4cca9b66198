"""``flashlayer plot``: figures of your own runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from flashlayer._native import FlashlayerError
from flashlayer.cli.common import add_force, command, paragraph
from flashlayer.files import atomic_output


def run(a: argparse.Namespace) -> None:
    from flashlayer.plots import check_png_path, render_results

    src = Path(a.results)
    try:
        results = json.loads(src.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        hint = "; draw a sweep's results with 'flashlayer report'" if src.suffix.lower() == ".parquet" else ""
        raise FlashlayerError(f"{src}: not JSON (expected the output of 'flashlayer sim --json' or a report's "
                              f"results.json){hint}") from None
    except json.JSONDecodeError as e:
        raise FlashlayerError(f"{src}:{e.lineno}: not JSON ({e.msg})") from None
    out = Path(a.out)
    check_png_path(out, a.force)
    panels = 0

    def draw(tmp: Path) -> int:
        nonlocal panels
        try:
            panels = render_results(results, tmp, title=a.title or "")
        except FlashlayerError as e:
            raise FlashlayerError(f"{src}: {e}") from None
        return panels

    atomic_output(out, draw, a.force)
    print(f"wrote {out}: {panels} panel row(s), one per trace and device")


def add(sub: Any) -> None:
    p = command(
        sub, "plot", help="draw miss ratio and virtual time of saved runs",
        description=paragraph("""
            Draw RESULTS.json (the output of 'flashlayer sim --json', or a report's results.json) as miss ratio
            and virtual time against buffer size: a row of panels per trace and device, a line per policy and
            store (the store named in the legend where a panel has several). Rows of one run that disagree
            (joined files of the same run) are refused."""),
        epilog="Example:\n  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,arc --buffer 1%,5% "
        "--json > runs.json\n  flashlayer plot runs.json --out runs.png",
    )
    p.add_argument("results", metavar="RESULTS.json")
    p.add_argument("--out", required=True, metavar="PNG", help="output figure (.png)")
    p.add_argument("--title", help="title prefix (default: none)")
    add_force(p)
    p.set_defaults(func=run)
