"""Writes a flashlayer CSV trace (`page,op`, gzip or not) in WATT-Simulate's
input format: a header `pages,is_write`, then `page,true|false` per
request, pages renumbered densely from 0 in order of first appearance.

Usage: python to_watt_csv.py TRACE.csv[.gz] OUT.csv
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path


def main(src: str, dst: str) -> None:
    opener = gzip.open if src.endswith(".gz") else open
    ids: dict[str, int] = {}
    with opener(src, "rt") as f, Path(dst).open("w") as out:
        header = f.readline().strip()
        if not header.startswith("page,op"):
            sys.exit(f"{src}: expected the header 'page,op', got '{header}'")
        out.write("pages,is_write\n")
        for line in f:
            page, op = line.rstrip("\n").split(",")[:2]
            out.write(f"{ids.setdefault(page, len(ids))},{'true' if op == 'W' else 'false'}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
