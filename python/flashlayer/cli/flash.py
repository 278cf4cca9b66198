"""``flashlayer flash``: the NAND emulator and the page update methods.

``flash crash-test`` runs the crash harness of the ``flash`` layer: a random
workload on a store, power cuts at random chip operations (torn programs,
part-erased blocks), recoveries cut at random too, and a check of every
logical page against a model after each recovery.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from flashlayer import _native, progress
from flashlayer.cli.common import emit_json, int_arg, paragraph, print_table, split

METHODS_HELP = "ipu, opu, ipl:SIZE (e.g. ipl:18k, ipl:64k) or pdl:SIZE (e.g. pdl:256, pdl:2k)"


def crash_test(a: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    failed = False
    for method in a.method:
        start = time.perf_counter()
        with progress.bar(a.cuts, f"crash-testing {method}", quiet=a.json) as bar:
            done = [0]

            def tick(n: int, bar: progress.Bar = bar, done: list[int] = done) -> None:
                bar.advance(n - done[0])
                done[0] = n

            r: dict[str, Any] = _native.crash_test(
                method,
                cuts=a.cuts,
                seed=a.seed,
                blocks=a.blocks,
                pages_per_block=a.pages_per_block,
                page_size=a.page_size,
                spare_size=a.spare_size,
                logical_pages=a.logical_pages,
                obsolete_in_memory=a.obsolete_in_memory,
                progress=tick,
            )
        r["seconds"] = round(time.perf_counter() - start, 2)
        r["seed"] = a.seed
        failed |= not r["holds"]
        rows.append(r)
    if a.json:
        emit_json(rows if len(rows) > 1 else rows[0])
    else:
        print_table(
            rows,
            [("method", "method"), ("cuts", "cuts"), ("recoveries", "recoveries"),
             ("recovery_cuts", "cut in recovery"), ("flushed_lost", "flushed pages lost"),
             ("never_written", "versions never written"), ("ipu_block_losses", "IPU block losses"),
             ("writes", "writes"), ("erases", "erases"), ("seconds", "seconds")],
        )
        if any(r["method"] == "ipu" for r in rows):
            print("IPU block losses: pages of the block an in-place update was rewriting when power "
                  "went (IPU's documented exception; flashlayer.flash.ipu).")
        print("the promise holds for every method" if not failed else "THE PROMISE FAILED (see above)")
    if failed:
        sys.exit(1)


def add(sub: Any) -> None:
    fl = sub.add_parser(
        "flash",
        help="NAND flash emulator and page update methods (IPU, OPU, IPL, PDL)",
        description="The NAND flash chip emulator and the page update methods built on it.",
    )
    fsub = fl.add_subparsers(dest="flash_command", required=True, metavar="COMMAND")
    ct = fsub.add_parser(
        "crash-test",
        help="power-cut a store at random operations and check every page after recovery",
        description=paragraph("""
            Runs a random workload (60% writes, 25% reads, 15% flushes) on a flash store, cuts power at a random
            chip operation (a torn program or a part-erased block), recovers (cutting recovery too, 30% of the
            time, until one finishes), and checks every logical page: a page flushed since its last write must
            read back byte for byte; one written since may read back as its flushed version or any version
            written since. Exit code 1 if any page breaks the promise."""),
        epilog="Example:\n  flashlayer flash crash-test --method pdl:256,opu --cuts 10000 --seed 1",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ct.add_argument("--method", required=True, type=lambda s: split(s, "methods"),
                    help=f"method(s), comma-separated: {METHODS_HELP}")
    ct.add_argument("--cuts", type=int_arg(1, "--cuts"), default=1000, help="power cuts (default: 1,000)")
    ct.add_argument("--seed", type=int_arg(0, "--seed"), default=0, help="seed of workload, cuts and tears (default: 0)")
    ct.add_argument("--blocks", type=int_arg(1, "--blocks"), default=16, help="chip blocks (default: 16)")
    ct.add_argument("--pages-per-block", type=int_arg(1, "--pages-per-block"), default=64,
                    help="pages per block (default: 64, PDL Table 1)")
    ct.add_argument("--page-size", type=int_arg(64, "--page-size"), default=2048,
                    help="data bytes per page (default: 2,048, PDL Table 1)")
    ct.add_argument("--spare-size", type=int_arg(22, "--spare-size"), default=64,
                    help="spare bytes per page (default: 64, PDL Table 1)")
    ct.add_argument("--logical-pages", type=int_arg(1, "--logical-pages"), default=None,
                    help="logical pages of the store (default: half the chip's pages)")
    ct.add_argument("--obsolete-in-memory", action="store_true",
                    help="keep obsolete marks in memory (OPU, PDL; PDL footnote 9)")
    ct.add_argument("--json", action="store_true", help="print the report as JSON")
    ct.set_defaults(func=crash_test)
