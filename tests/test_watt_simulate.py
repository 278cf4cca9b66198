"""flashlayer's WATT, CFLRU, LRU-WSR and LRU against the outputs of the WATT
authors' own simulator (WATT-Simulate at commit 2262572, run by
``tools/watt-simulate/run.sh``; kept in ``data/successors/``) on the same
traces and buffers: LRU, CFLRU and LRU-WSR decide alike, so their misses
and page writes are equal (their CFLRU's window is ⌊B/2⌋ pages, ours
w·B rounded, so ours runs with w = ⌊B/2⌋/B); WATT samples its candidates
with its own random numbers, so its misses and writes are within 1% of
theirs (0.5% apart at most on these traces), both as the configuration
they name WATT (a page's history forgotten when it leaves, Z=0) and
keeping one buffer's worth of evicted pages' histories (Z=1)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "successors"
#: Their names of the configurations, ours.
POLICIES = {"lru": "lru", "cf_lru50": "cflru:w=0.5", "lru_wsr": "lruwsr", "watt": "watt", "watt_z1": "watt:z=1"}
#: WATT's tolerance on misses and on writes, relative.
WATT_TOLERANCE = 0.01


def _runs(name: str) -> list[dict[str, str]]:
    """Their driver's rows for trace `name`, as kept."""
    with (DATA / f"watt-simulate-{name}.csv").open() as f:
        return list(csv.DictReader(f))


def _theirs(name: str) -> dict[tuple[str, int], tuple[int, int]]:
    return {(r["algo"], int(r["ram"])): (int(r["misses"]), int(r["writes"])) for r in _runs(name)}


def _trace(name: str, tmp: Path) -> Path:
    if name == "zipf-2m":
        path = tmp / "zipf-2m.flt"
        run_cli("trace", "gen", "zipf", "--requests", "2000000", "--pages", "100000", "--alpha", "0.8",
                "--write-ratio", "0.2", "--seed", "7", "--out", str(path), check=True)
        return path
    return ROOT / "data" / "traces" / f"{name}.csv.gz"


@pytest.mark.parametrize("name", ["pg15-tpcc-sysbench-w2", "pg15-tpcb-s5", "zipf-2m"])
def test_policies_give_the_watt_authors_simulators_misses_and_writes(name: str, tmp_path: Path) -> None:
    theirs = _theirs(name)
    sizes = sorted({ram for _, ram in theirs})
    trace = str(_trace(name, tmp_path))
    rows = json.loads(run_cli("sim", trace, "--policy", "lru,lruwsr,watt,watt:z=1", "--buffer",
                              ",".join(map(str, sizes)),
                              "--flush-at-end", "--json", check=True).stdout)
    for b in sizes:
        rows += json.loads(run_cli("sim", trace, "--policy", f"cflru:w={b // 2 / b!r}", "--buffer", str(b),
                                   "--flush-at-end", "--json", check=True).stdout)
    def config(policy: str) -> str:
        name = policy.split(":")[0]
        return "watt_z1" if name == "watt" and ",z=1," in policy else name

    ours = {(config(r["policy"]), r["buffer_pages"]): (r["misses"], r["physical_writes"]) for r in rows}
    assert len(theirs) == len(POLICIES) * len(sizes)
    for (algo, ram), (misses, writes) in theirs.items():
        got = ours[(algo if algo == "watt_z1" else POLICIES[algo].split(":")[0], ram)]
        if algo.startswith("watt"):
            for what, a, b in (("misses", got[0], misses), ("writes", got[1], writes)):
                assert abs(a / b - 1) <= WATT_TOLERANCE, f"{name} at {ram}: {what} {a} against their {b}"
        else:
            assert got == (misses, writes), f"{algo} on {name} at {ram}"


def test_on_the_bench_trace_lru_and_watt_give_the_watt_authors_simulators_counts(tmp_path: Path) -> None:
    """Their LRU and WATT over the trace and buffer `bench policies` times by
    default (``run.sh --bench``; their seconds are the README's): LRU's
    counts equal, WATT's within the tolerance."""
    from flashlayer.cli import build_parser

    a = build_parser().parse_args(["bench", "policies"])
    trace = tmp_path / "bench.flt"
    run_cli("trace", "gen", "zipf", "--requests", str(a.requests), "--pages", str(a.pages), "--alpha",
            str(a.alpha), "--write-ratio", str(a.write_ratio), "--seed", str(a.seed), "--out", str(trace),
            check=True)
    buffer = int(a.buffer)
    theirs = _theirs("bench")
    assert sorted(theirs) == [("lru", buffer), ("watt", buffer)]
    assert {int(r["requests"]) for r in _runs("bench")} == {a.requests}
    rows = json.loads(run_cli("sim", str(trace), "--policy", "lru,watt", "--buffer", str(buffer), "--flush-at-end",
                              "--json", check=True).stdout)
    ours = {r["policy"].split(":")[0]: (r["misses"], r["physical_writes"]) for r in rows}
    assert ours["lru"] == theirs[("lru", buffer)]
    for what, got, want in zip(("misses", "writes"), ours["watt"], theirs[("watt", buffer)], strict=True):
        assert abs(got / want - 1) <= WATT_TOLERANCE, f"WATT's {what}: {got} against their {want}"
