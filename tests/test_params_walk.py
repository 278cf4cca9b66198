"""Every parameter is in effect or refused at its root: every key of every
policy, store and hierarchy scheme (the engine's tables) is run with a
value at each end of its stated range and one past it. A value past the
range is refused with exit 2 and the range in the message; the values in
range give rows that differ, or are refused with one line — a key is never
accepted and ignored."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from flashlayer import _native
from tests.conftest import cli_in_process

BUFFER = 300
#: The pages of the trace (`trace` below).
PAGES = 3000

#: The row's fields that say what a run did (not what it was asked).
OUTCOME = ("hits", "misses", "physical_reads", "physical_writes", "dirty_evictions", "dirty_at_end",
           "virtual_time", "migrations", "pages_on_flash", "flash_reads", "flash_writes", "magnetic_reads",
           "magnetic_writes", "ssd_hits", "hdd_misses", "ssd_reads", "ssd_writes", "ssd_seq_writes", "hdd_reads",
           "hdd_writes", "cleanings", "elevations", "sinks", "ssd_used", "ssd_dirty", "file_bytes")

#: Where each entry's keys are walked: the policy, the store, and the spec
#: the key's value is written into ({} is where `key=value` goes).
CONTEXT: dict[tuple[str, ...], tuple[str, str]] = {
    ("policy", "*"): ("{}", "cost:device=ratio:1:8"),
    ("policy", "koltsidas"): ("{}", "hybrid:placement=hybrid"),
    # Only written pages leave with ACE's victim: ne up to nw.
    ("policy", "ace", "ne"): ("{},nw=1024", "cost:device=ratio:1:8"),
    # Reading ahead needs pages to evict for it: ne of 2 or more.
    ("policy", "ace", "pf"): ("{},ne=8", "cost:device=ratio:1:8"),
    ("store", "*"): ("lru", "{}"),
    # The trace has no byte ranges: the flash store is told what a write
    # changes.
    ("store", "flash"): ("lru", "{},changed=64"),
    ("store", "flash", "changed"): ("lru", "{}"),
    # 256-page blocks leave too few spare blocks on the walk's 3,000 pages.
    ("store", "ftl"): ("lru", "{},block=16"),
    ("store", "ftl", "block"): ("lru", "{}"),
    ("scheme", "*"): ("lru", "tier:scheme={}"),
    # Every page leaving DRAM sinks, so the SSD fills and its level evicts
    # (a level other than LRU and FIFO needs fixed probabilities).
    ("scheme", "hypro", "level"): ("lru", "tier:ssd=5%,scheme={},p_sink=1,p_elevate=0.5"),
    ("scheme", "face", "group"): ("lru", f"tier:ssd={PAGES // 10},scheme={{}}"),
}

#: Values in range for keys whose type the grammar does not bound
#: (`Other`, devices, nested specs), and the upper end chosen for whole
#: numbers without an upper limit; values past the range with the text
#: their refusal names.
IN_RANGE: dict[tuple[str, str], list[str]] = {
    ("fdbuffer", "mc"): ["0", str(BUFFER), "0.0", "1.0", "auto"],
    ("file", "path"): ["{tmp}/db.file"],
    ("tier", "ssd"): ["1", "100%"],
    ("tier", "scheme"): ["hypro", "face"],
    ("flash", "method"): ["opu", "pdl:256", "ipl:18k"],
    ("hypro", "level"): ["lru", "arc"],
    ("lc", "level"): ["lru", "arc"],
    ("tier", "ssd_device"): ["hypro-ssd", "hypro-ssd-lowend"],
    ("tier", "hdd_device"): ["hypro-hdd", "pdl10-mlc-nand"],
    ("ftl", "op"): ["0.5", "4"],
    ("watt", "write_cost"): ["0", "1024"],
    ("ftl", "block"): ["2", "16", "4096"],
    # A window wider than the buffer is none; a narrow one is in effect.
    ("ace", "window"): ["0", "2", "1024"],
    # Too few for the trace, two that run (collection differs), and a chip
    # too large for memory, refused in one line.
    ("flash", "blocks"): ["1", "200", "800", "1048576"],
}
DEVICES = ["ratio:1:1", "ratio:1:64"]
PAST: dict[tuple[str, str], tuple[str, str]] = {
    ("fdbuffer", "mc"): (str(BUFFER + 1), f"give 0 to {BUFFER}"),
    ("face", "group"): (str(BUFFER + 1), f"give 1 to {BUFFER}"),
    ("tier", "ssd"): ("101%", "0 < P <= 100"),
    ("tier", "scheme"): ("nosuch", "valid schemes"),
    ("flash", "method"): ("nosuch", "valid methods: ipu, opu, ipl, pdl"),
    ("hypro", "level"): ("nosuch", "valid policies"),
    ("lc", "level"): ("nosuch", "valid policies"),
    ("file", "path"): ("{tmp}/no/such/db.file", "No such file"),
    ("ftl", "op"): ("4.5", "at most 4"),
    ("watt", "write_cost"): ("1025", "a number from 0 to 1024"),
    ("ftl", "block"): ("4097", "from 2 to 4096"),
    ("flash", "blocks"): ("1048577", "from 1 to 1048576"),
}
#: Unbounded whole numbers: the large end walked (a run must stay quick).
LARGE = {("costopt-ub", "iterations"): "20", ("face", "group"): str(PAGES // 10), ("hybrid", "capacity"): "100000", ("hybrid", "defer"): "100000",
         ("file", "page_size"): "65536"}

# Keys whose effect no row can show, with what shows it instead.
def _direct_is_in_effect(run: Any) -> None:
    # O_DIRECT's alignment rule applies only when the file is opened with it.
    code, _, err = run("lru", "file:direct=on,page_size=512")
    assert code == 2 and "O_DIRECT" in err
    assert run("lru", "file:direct=off,page_size=512")[0] == 0


def _n_is_in_effect(run: Any) -> None:
    # Measured latencies vary from run to run, so no two rows can show the
    # window's effect: `the_measured_costs_average_the_last_n_latencies`
    # (policy/parts/costs.rs) does, on fixed latencies. Here: it is read with
    # cost=measured, refused without it and past its range.
    for policy in ("casa", "fdbuffer"):
        assert run(f"{policy}:cost=measured,n=1", "file")[0] == 0
        code, _, err = run(f"{policy}:n=1", "file")
        assert code == 2 and "applies only with cost=measured" in err
        code, _, err = run(f"{policy}:cost=measured,n=0", "file")
        assert code == 2 and "a whole number from 1 to" in err


def _replace_is_in_effect(run: Any) -> None:
    # Whether a run may write over a file flashlayer did not write: no row
    # shows it, the refusal does.
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        theirs = Path(tmp) / "theirs.db"
        theirs.write_bytes(b"the user's")
        code, _, err = run("lru", f"file:path={theirs}")
        assert code == 2 and "not a database file flashlayer wrote" in err, err
        assert theirs.read_bytes() == b"the user's"
        assert run("lru", f"file:path={theirs},replace=on")[0] == 0
        code, _, err = run("lru", f"file:path={theirs},replace=maybe")
        assert code == 2 and "on or off" in err, err


ELSEWHERE = {("file", "direct"): _direct_is_in_effect, ("casa", "n"): _n_is_in_effect,
             ("fdbuffer", "n"): _n_is_in_effect, ("file", "replace"): _replace_is_in_effect}


#: Keys of which one value in range runs in their context, and why.
ONE_RUNS = {
    ("casa", "cost"): "measured is refused over a cost store, which measures nothing",
    ("fdbuffer", "cost"): "measured is refused over a cost store, which measures nothing",
    ("file", "path"): "one path; the test checks the file is there",
}


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = tmp_path_factory.mktemp("walk") / "z.flt"
    assert cli_in_process(["trace", "gen", "zipf", "--requests", "30000", "--pages", str(PAGES), "--alpha", "0.8",
                 "--write-ratio", "0.3", "--seed", "1", "--out", str(t)])[0] == 0
    return t


def _values(kind: str, name: str, key: str, allowed: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Values at each end of `allowed` and past it (with the text the
    refusal names)."""
    if (name, key) in IN_RANGE:
        inside = IN_RANGE[(name, key)]
    elif "device" in allowed:
        inside = DEVICES
    elif m := re.fullmatch(r"a whole number from (\d+) to (\d+)", allowed):
        lo, hi = int(m[1]), int(m[2])
        return [str(lo), str(hi)], [(str(hi + 1), allowed)] + ([(str(lo - 1), allowed)] if lo > 0 else [])
    elif m := re.fullmatch(r"a whole number(?: of at least (\d+))?", allowed):
        lo = int(m[1] or 0)
        big = LARGE.get((name, key), "1000000")
        return [str(lo), big], ([(str(lo - 1), allowed)] if lo > 0 else [("-1", allowed)])
    elif m := re.fullmatch(r"(auto, or )?a fraction from 0 to ([\d.]+)", allowed):
        hi = float(m[2])
        inside = ["0", m[2]] + (["auto"] if m[1] else [])
        return inside, [(str(hi + 0.1), allowed), ("-0.1", allowed)]
    elif allowed == "on or off":
        return ["on", "off"], [("maybe", allowed)]
    elif m := re.fullmatch(r"an online policy at its defaults: ((?:[\w-]+, )*[\w-]+), or one registered at run time",
                           allowed):
        return m[1].split(", "), [("nosuch", allowed)]
    elif m := re.fullmatch(r"((?:[\w-]+, )*[\w-]+) or ([\w-]+)", allowed):
        return [*m[1].split(", "), m[2]], [("nosuch", allowed)]
    else:
        raise AssertionError(f"{kind} {name}: {key}: no values known for '{allowed}'")
    past = PAST.get((name, key))
    return inside, [past] if past else [("nosuch", "")]


def _keys() -> list[tuple[str, str, str, str]]:
    return [(kind, name, key, allowed) for kind in ("policy", "store", "scheme")
            for name, _, params in _native.table(kind) for key, _, allowed, _ in params]


@pytest.mark.parametrize(("kind", "name", "key", "allowed"), _keys(),
                         ids=[f"{k}-{n}-{key}" for k, n, key, _ in _keys()])
def test_every_key_is_in_effect_or_refused(trace: Path, tmp_path: Path, kind: str, name: str, key: str,
                                          allowed: str) -> None:
    policy_at, store_at = CONTEXT.get((kind, name, key)) or CONTEXT.get((kind, name)) or CONTEXT[(kind, "*")]
    # A policy written into a tier's level, a scheme into a tier: the
    # entry's name goes first.
    def spec(value: str) -> str:
        return f"{name}:{key}={value}".replace("{tmp}", str(tmp_path))

    def run(policy: str, store: str) -> tuple[int, str, str]:
        return cli_in_process(["sim", str(trace), "--policy", policy, "--buffer", str(BUFFER), "--store", store, "--json"])

    def at(value: str) -> tuple[int, str, str]:
        s = spec(value)
        return run(policy_at.format(s), store_at.format(s))

    if (name, key) in ELSEWHERE:
        ELSEWHERE[(name, key)](run)
        return
    inside, past = _values(kind, name, key, allowed)
    rows: dict[str, Any] = {}
    for v in inside:
        code, out, err = at(v)
        if code == 2:
            # Refused in range: a combination that cannot work, in one line.
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, f"{spec(v)}: {err}"
            continue
        assert code == 0, f"{spec(v)}: {err}"
        (row,) = json.loads(out)
        outcome = {k: row.get(k) for k in OUTCOME}
        # The store's own counters (a flash chip's, an FTL's), not the
        # fields that only restate the spec.
        outcome.update({k: v2 for k, v2 in row.items() if k.startswith(("chip_", "flash_", "ftl_"))
                        and k not in ("flash_method", "flash_changed")})
        rows[v] = json.dumps(outcome, sort_keys=True)
    assert len(rows) > 1 or (name, key) in ONE_RUNS, f"{kind} {name}: {key}: only {sorted(rows)} ran ({err.strip()})"
    if (name, key) == ("file", "path"):
        assert (tmp_path / "db.file").stat().st_size > 0
    elif len(rows) > 1:
        assert len(set(rows.values())) > 1, f"{kind} {name}: {key} accepted {sorted(rows)} and ignored them"
    for v, text in past:
        code, _, err = at(v)
        assert code == 2, f"{spec(v)} was accepted"
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert text.replace("{tmp}", str(tmp_path)) in err, f"{spec(v)}: {err}"
