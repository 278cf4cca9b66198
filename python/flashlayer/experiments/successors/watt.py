"""WATT (Vöhringer & Leis, PVLDB 2023) in section ``successors``: its
authors' simulator's misses and writes beside ours on the TPC-C and TPC-B
traces."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashlayer import _native
from flashlayer.experiments.successors.common import Counts, read_rows

if TYPE_CHECKING:
    from flashlayer.experiments import Claim, Figure
    from flashlayer.results import SimResult

#: WATT-Simulate's configurations and ours (their CFLRU's window is ⌊B/2⌋).
WATT_SIM = {"lru": "lru", "lru_wsr": "lruwsr", "watt": "watt", "watt_z1": "watt:z=1"}
WATT_TRACES = {"TPC-C": "pg15-tpcc-sysbench-w2", "TPC-B": "pg15-tpcb-s5"}
WATT_TOLERANCE = 0.01


def simulator(traces_dir: Path, authors: Path, figures: dict[str, Figure], claims: list[Claim],
              runs: list[dict[str, Any]]) -> None:
    """WATT-Simulate's misses and writes beside ours on the TPC-C and TPC-B
    traces, at its buffer sizes."""
    counts = Counts()
    for label, name in WATT_TRACES.items():
        theirs = {(r["algo"], int(r["ram"])): r for r in read_rows(authors / f"watt-simulate-{name}.csv")}
        sizes = sorted({ram for _, ram in theirs})
        t = _native.Trace.open(traces_dir / f"{name}.csv.gz")
        ours: dict[tuple[str, int], SimResult] = {}
        for algo, spec in {**WATT_SIM, "cf_lru50": "cflru"}.items():
            for b in sizes:
                policy = f"cflru:w={b // 2 / b!r}" if algo == "cf_lru50" else spec
                r = _native.replay(t, policy, b, None, None, True)
                runs.append({"trace": name, **r})
                ours[(algo, b)] = r
        for (algo, b), row in theirs.items():
            got = ours[(algo, b)]
            for key, value in (("misses", got["misses"]), ("writes", got["physical_writes"])):
                counts.compare(f"{label} {b}: {algo} {key}", value, int(row[key]),
                               WATT_TOLERANCE if algo.startswith("watt") else None)
        figures[f"successors/watt-simulate-{label.lower().replace('-', '')}"] = {
            "title": f"{label} trace: misses in WATT-Simulate and in flashlayer at its buffer sizes",
            "x_label": "buffer (pages)",
            "y_label": "misses",
            "x": [float(b) for b in sizes],
            "series": {
                **{f"WATT-Simulate {a}": [float(theirs[(a, b)]["misses"]) for b in sizes] for a in ("watt", "lru")},
                **{f"flashlayer {a}": [float(ours[(a, b)]["misses"]) for b in sizes] for a in ("watt", "lru")},
            },
        }
    claims.append({
        "paper": "watt",
        "kind": "ours",
        "id": "successors-watt-simulate",
        "text": "WATT (forgetting evicted pages' histories, and keeping one buffer's worth), LRU, CFLRU and "
        "LRU-WSR give the misses and page writes of WATT's authors' simulator on the TPC-C and TPC-B traces at its "
        "four buffer sizes",
        "source": "itodnerd/WATT-Simulate commit 2262572 (configurations WATT with Z=0 and Z=1, cf_lru50, "
        "lru_wsr, lru), run by "
        "tools/watt-simulate/run.sh; data/successors/watt-simulate-*.csv",
        "paper_value": "their counts (figures successors/watt-simulate-*)",
        "tolerance": "LRU, CFLRU and LRU-WSR equal; WATT within 1% on misses and on writes (it draws its "
        "samples with its own random numbers)",
        "ours": f"{counts.checked - len(counts.off)}/{counts.checked} counts as stated; WATT at most "
        f"{counts.worst:.2%} apart",
        "holds": not counts.off,
        "gap": None if not counts.off else "; ".join(counts.off[:4]),
        "why": None if not counts.off else "the counts that differ are in figures successors/watt-simulate-*; "
        "tests/test_watt_simulate.py replays each trace on its own",
    })
