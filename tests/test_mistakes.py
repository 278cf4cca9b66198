"""User mistakes are one line: exit 2 from the CLI, `FlashlayerError` from
the API, with the real range and only names the user wrote or can write."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import flashlayer
from flashlayer.bounds import cost_bounds
from flashlayer.curves import lru_curve
from tests.conftest import TRACES, run_cli

PG = str(TRACES / "pg15-tpcc-sysbench-w2.csv.gz")


@pytest.mark.parametrize(("args", "needle"), [
    (["--policy", "lruk:k=9"], "a whole number from 1 to 8"),
    (["--policy", "slru:segments=16"], "a whole number from 1 to 8"),
    (["--policy", "clockpro:cold=0.7"], "a fraction from 0 to 0.5"),
    (["--policy", "s3fifo:threshold=256"], "a whole number from 1 to 255"),
    (["--policy", "fdbuffer:mc=99999"], "give 0 to 50 pages"),
    (["--policy", "lru,,arc"], "empty item"),
    (["--policy", "lru:"], "':' must be followed by key=value"),
    (["--policy", "cflru:w=0.5,"], "empty item"),
    (["--buffer", "5,,6"], "single commas"),
    (["--store", "tier:scheme=face:group=100000"], "give 1 to"),
    (["--store", "hybrid:placement=f-only,capacity=5"], "f-only keeps every page on one disk"),
    (["--store", "hybrid:placement=m-only,defer=8"], "m-only moves no page"),
    (["--store", "flash:method=ipu,obsolete=on,changed=8"], "obsolete marks kept in memory apply to OPU and PDL"),
    (["--series-every", "10"], "only --json prints"),
    (["--series-every", "0"], "--series-every must be at least 1, found 0"),
    (["--series-every", "99999999999999999999"], "must be at most"),
])
def test_sim_mistakes_are_one_line_with_the_real_range(args: list[str], needle: str) -> None:
    base = {"--policy": "lru", "--buffer": "50"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    p = run_cli("sim", PG, *[x for kv in base.items() for x in kv])
    assert p.returncode == 2, p.stdout
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert needle in p.stderr, p.stderr
    assert "obsolete_in_memory" not in p.stderr


def test_a_huge_virtual_time_prints_in_scientific_notation() -> None:
    p = run_cli("sim", PG, "--policy", "lru", "--buffer", "50", "--device", "read=1e-300,write=1e300", check=True)
    row = p.stdout.strip().splitlines()[-1]
    assert "e+30" in row and max(len(cell) for cell in row.split()) < 20, row


def test_trace_gen_names_no_flag_it_does_not_have(tmp_path: Path) -> None:
    p = run_cli("trace", "gen", "zipf", "--requests", "5", "--out", str(tmp_path / "z.txt"))
    assert p.returncode == 2 and "--to" not in p.stderr and ".flt, .csv or .csv.gz" in p.stderr
    p = run_cli("trace", "convert", PG, str(tmp_path / "z.txt"))
    assert p.returncode == 2 and "pass --to" in p.stderr


@pytest.fixture(scope="module")
def trace() -> flashlayer.Trace:
    return flashlayer.Trace.open(PG)


API_MISTAKES: list[tuple[str, Callable[[Any], Any], str]] = [
    ("negative series", lambda t: flashlayer.simulate(t, "lru", 10, series_every=-1), "series_every"),
    ("negative iterations", lambda t: cost_bounds(t, [10], iterations=-1), "iterations"),
    ("a string for a list", lambda t: flashlayer.sweep(t, "lru", [10]), "pass ['lru']"),
    ("a bool for a size", lambda t: flashlayer.simulate(t, "lru", True), "not True"),
    ("zero workers", lambda t: flashlayer.sweep(t, ["lru"], [10], workers=0), "workers"),
    ("negative workers", lambda t: flashlayer.sweep(t, ["lru"], [10], workers=-1), "workers"),
    ("no buffers", lambda t: cost_bounds(t, []), "buffers must not be empty"),
    ("no policies", lambda t: flashlayer.sweep(t, [], [10]), "policies must not be empty"),
    ("an empty policy", lambda t: flashlayer.sweep(t, ["lru", ""], [10]), "policies"),
    ("a string of sizes", lambda t: lru_curve(t, sizes="10"), "sizes"),
    ("a negative page", lambda t: flashlayer.FlashStore(flashlayer.NandChip(16), "opu").write(-1, bytes(2048)),
     "page_id"),
    ("a cut after 0", lambda t: flashlayer.NandChip(16).power_cut_after(0), "at least 1"),
]


@pytest.mark.parametrize(("what", "call", "needle"), API_MISTAKES, ids=[m[0] for m in API_MISTAKES])
def test_api_mistakes_raise_flashlayer_error(trace: flashlayer.Trace, what: str, call: Callable[[Any], Any],
                                             needle: str) -> None:
    with pytest.raises(flashlayer.FlashlayerError) as e:
        call(trace)
    assert needle in str(e.value) and "\n" not in str(e.value)
