"""flashlayer's ACE against the outputs of ACE's own simulator
(BU-DiSC/ACE-codebase at commit 46f65a8, run by ``tools/ace-codebase/run.sh``;
its counts in ``data/successors/ace-codebase.csv``, its generated workload
beside them): 200,000 operations, a 1,000-page buffer, reads costing 1,
writes 4, a device of concurrency 8. Its baseline (variant 1) is the plain
policy; its variant 5 (COW-Xa) is ACE writing the next 7 dirty pages with a
dirty victim; its variant 3 (CONE-Xa) evicts them with it (``ne=8``); its
variants 4 (COW-a) and 2 (CONE-a) do the same with only the dirty pages
among the 8 nearest eviction (``window=8``). LRU and CFLRU give its misses,
page writes, write batches and total cost exactly, alone and under every
ACE; so does LRU-WSR alone. Under ACE,
LRU-WSR writes ahead the dirty pages marked cold, those its evictions take
when they reach them; ACE's simulator also gives the hot dirty pages it
passes their second chance as it walks (moves them to the MRU end), which a
query of the policy does not. Those rows are within 0.6% on every count
(total cost 69,089 against 69,213 with ACE, 69,363 against 69,529
evicting) and held to 1%. Under a window the walk passes the pages nearest
eviction at every dirty victim, where hot dirty pages wait for their second
chance, so their moves change which later victims are dirty: misses and
page writes are within 1% (52,495 against 52,489 misses, 32,925 against
32,943 writes), write batches are not (9,918 against 9,341), and the
report's claim on these counts does not hold, saying so. A reference model
of LRU-WSR under ACE shows the cause: walking as a query it gives our
counts exactly, under every variant; giving second chances as it walks, it
gives theirs exactly.

``flashlayer trace gen ace`` makes the simulator's workloads: the same
flags give its ``workload.txt``. On the four workloads of the authors'
buffer-manager runs (2,000,000 operations over 344,066 pages, a 20,000-page
buffer; ``tools/ace-codebase/run.sh``, counts in
``data/successors/ace-codebase-figure8.csv``) the same rows hold, to the
same tolerance."""

from __future__ import annotations

import csv
import gzip
import json
from collections import OrderedDict
from pathlib import Path

import pytest

from conftest import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "successors"
POLICIES = {"LRU": "lru", "CFLRU": "cflru", "LRU-WSR": "lruwsr"}
#: ACE over LRU-WSR: the one row not equal (module doc), relative.
LRUWSR_ACE_TOLERANCE = 0.01


#: The four workloads of the authors' buffer-manager runs: ``trace gen
#: ace`` flags (their -e, -s, -d).
FIGURE8 = {"MS": ("50", "90", "10"), "WIS": ("10", "90", "10"), "RIS": ("90", "90", "10"), "MU": ("50", "50", "50")}


#: Their variants of ACE: our parameters over a base.
VARIANTS = {"5": "nw=8", "3": "nw=8,ne=8", "4": "nw=8,window=8", "2": "nw=8,ne=8,window=8"}


def _spec(policy: str) -> tuple[str, dict[str, str]]:
    """A policy spec as ``sim`` prints it: its name and its parameters."""
    name, _, given = policy.partition(":")
    return name, dict(kv.split("=") for kv in given.split(",")) if given else {}


def _shape(params: dict[str, str]) -> tuple[str, str]:
    """What tells ACE's variants apart: its ne and window, at their defaults
    if not given."""
    return params.get("ne", "1"), params.get("window", "0")


#: Their variant by its shape.
SHAPES = {_shape(_spec(f"ace:{ps}")[1]): v for v, ps in VARIANTS.items()}


def replay(trace: Path, buffer: int) -> dict[tuple[str, str], dict[str, float]]:
    """Each policy alone (variant 1) and under each of ACE's variants on
    ``trace`` at read cost 1, write cost 4 and concurrency 8, as ACE's
    simulator counts."""
    specs = [p for p in POLICIES.values()]
    specs += [f"ace:base={p},{v}" for p in POLICIES.values() for v in VARIANTS.values()]
    p = run_cli("sim", str(trace), "--policy", ",".join(specs), "--buffer", str(buffer),
                "--store", "cost:device=read=1,write=4,k=8", "--json", check=True)
    rows = {}
    for r in json.loads(p.stdout):
        name, params = _spec(r["policy"])
        ace = name == "ace"
        base = params["base"] if ace else name
        variant = SHAPES[_shape(params)] if ace else "1"
        rows[(base, variant)] = {"misses": r["misses"], "writes": r["physical_writes"],
                                             "write_batches": r["dirty_evictions"], "total_cost": r["virtual_time"]}
    return rows


def assert_their_counts(got: dict[str, float], theirs: dict[str, str], policy: str, variant: str) -> None:
    # LRU-WSR under a window: their walk's second chances change which
    # victims are dirty (module doc); misses and page writes still agree.
    keys = ("misses", "writes") if policy == "LRU-WSR" and variant in ("2", "4") else \
        ("misses", "writes", "write_batches", "total_cost")
    for key in keys:
        if policy == "LRU-WSR" and variant != "1":
            gap = abs(got[key] / float(theirs[key]) - 1)
            assert gap <= LRUWSR_ACE_TOLERANCE, f"{key}: {got[key]} against their {theirs[key]}"
        else:
            assert got[key] == float(theirs[key]), f"{policy} variant {variant}: {key}"


@pytest.fixture(scope="module")
def ours() -> dict[tuple[str, str], dict[str, float]]:
    return replay(DATA / "ace-codebase-workload.csv.gz", 1000)


def lruwsr_under_ace(trace: list[tuple[int, bool]], buffer: int, variant: str, renew: bool) -> dict[str, float]:
    """A reference model of LRU-WSR under one of ACE's variants, read 1,
    write 4, 8 pages a batch: a dirty victim is written with the dirty
    pages marked cold that a walk from the LRU end meets, the next 7 (5, 3)
    or those among the 7 pages after the victim (4, 2), and with the
    victim leave (3, 2) or stay clean (5, 4). With `renew` the walk gives
    each hot dirty page it passes its second chance as it goes (moves it to
    the MRU end, cold), as ACE's simulator does; without, it only asks."""
    queue: OrderedDict[int, list[bool]] = OrderedDict()  # page: [dirty, cold], LRU end first
    windowed, evicting = variant in ("4", "2"), variant in ("3", "2")
    misses = batches = writes = 0
    for page, write in trace:
        if page in queue:
            queue.move_to_end(page)
            queue[page][1] = False
            queue[page][0] |= write
            continue
        misses += 1
        if len(queue) >= buffer:
            while True:
                victim = next(iter(queue))
                dirty, cold = queue[victim]
                if not dirty or cold:
                    break
                queue[victim][1] = True
                queue.move_to_end(victim)
            if queue.pop(victim)[0]:
                batches += 1
                written: list[int] = []
                for passed, p in enumerate(list(queue)):
                    if (passed if windowed else len(written)) == 7:
                        break
                    if queue[p][0] and queue[p][1]:
                        queue[p][0] = False
                        written.append(p)
                    elif queue[p][0] and renew:
                        queue[p][1] = True
                        queue.move_to_end(p)
                writes += 1 + len(written)
                for p in written if evicting else []:
                    del queue[p]
        queue[page] = [write, False]
    return {"misses": misses, "writes": writes, "write_batches": batches, "total_cost": misses + 4 * batches}


def test_lruwsr_under_ace_parts_from_their_simulator_only_by_their_walks_second_chances(
        ours: dict[tuple[str, str], dict[str, float]]) -> None:
    with gzip.open(DATA / "ace-codebase-workload.csv.gz", "rt") as f:
        trace = [(int(r["page"]), r["op"] == "W") for r in csv.DictReader(f)]
    with (DATA / "ace-codebase.csv").open() as f:
        theirs = {r["variant"]: r for r in csv.DictReader(f) if r["policy"] == "LRU-WSR"}
    for variant in VARIANTS:
        assert lruwsr_under_ace(trace, 1000, variant, renew=False) == ours[("lruwsr", variant)], variant
        renewing = lruwsr_under_ace(trace, 1000, variant, renew=True)
        assert renewing == {k: float(v) for k, v in theirs[variant].items() if k in renewing}, variant


def test_the_ace_generator_makes_their_simulators_workload(tmp_path: Path) -> None:
    out = tmp_path / "w.csv.gz"
    run_cli("trace", "gen", "ace", "--operations", "200000", "--pages", "10240", "--reads", "50", "--skew", "90",
            "--hot", "10", "--out", str(out), check=True)
    with gzip.open(out, "rt") as ours_, gzip.open(DATA / "ace-codebase-workload.csv.gz", "rt") as theirs:
        assert ours_.read() == theirs.read()


def test_bad_ace_generator_flags_get_one_line_and_exit_2(tmp_path: Path) -> None:
    p = run_cli("trace", "gen", "ace", "--pages", "5", "--hot", "10", "--out", str(tmp_path / "w.flt"))
    assert p.returncode == 2 and "hot region" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "w.flt").exists()
    p = run_cli("trace", "gen", "ace", "--reads", "101", "--out", str(tmp_path / "w.flt"))
    assert p.returncode == 2 and "--reads" in p.stderr, p.stderr


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("variant", ["1", "2", "3", "4", "5"])
def test_ace_and_its_bases_give_ace_codebases_counts(ours: dict[tuple[str, str], dict[str, float]], policy: str,
                                                     variant: str) -> None:
    with (DATA / "ace-codebase.csv").open() as f:
        theirs = next(r for r in csv.DictReader(f) if r["policy"] == policy and r["variant"] == variant)
    assert_their_counts(ours[(POLICIES[policy], variant)], theirs, policy, variant)


@pytest.mark.parametrize("workload", list(FIGURE8))
def test_on_their_figure8_workloads_ace_gives_their_simulators_counts(tmp_path: Path, workload: str) -> None:
    reads, skew, hot = FIGURE8[workload]
    trace = tmp_path / f"{workload}.flt"
    run_cli("trace", "gen", "ace", "--operations", "2000000", "--pages", "344066", "--reads", reads, "--skew", skew,
            "--hot", hot, "--out", str(trace), check=True)
    got = replay(trace, 20000)
    with (DATA / "ace-codebase-figure8.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r["workload"] == workload]
    assert len(rows) == (1 + len(VARIANTS)) * len(POLICIES), rows
    for theirs in rows:
        assert_their_counts(got[(POLICIES[theirs["policy"]], theirs["variant"])], theirs, theirs["policy"],
                            theirs["variant"])


def test_at_each_asymmetry_ace_gives_their_simulators_counts(tmp_path: Path) -> None:
    """Their Fig 8h's runs: MS, writes costing α reads, α written at once,
    ACE writing α pages with and without a window of α."""
    trace = tmp_path / "MS.flt"
    run_cli("trace", "gen", "ace", "--operations", "2000000", "--pages", "344066", "--reads", "50", "--skew", "90",
            "--hot", "10", "--out", str(trace), check=True)
    with (DATA / "ace-codebase-asymmetry.csv").open() as f:
        theirs = {(r["alpha"], r["variant"]): r for r in csv.DictReader(f)}
    assert len(theirs) == 12
    for alpha in ("1", "2", "4", "8"):
        specs = {"1": "lru", "5": f"ace:nw={alpha}", "4": f"ace:nw={alpha},window={alpha}"}
        p = run_cli("sim", str(trace), "--policy", ",".join(specs.values()), "--buffer", "20000", "--store",
                    f"cost:device=read=1,write={alpha},k={alpha}", "--json", check=True)
        rows = json.loads(p.stdout)
        assert len(rows) == len(specs)
        for r in rows:
            name, params = _spec(r["policy"])
            window = params.get("window") if name == "ace" else None
            variant = {None: "1", "0": "5", alpha: "4"}[window]
            got = {"misses": r["misses"], "writes": r["physical_writes"], "write_batches": r["dirty_evictions"],
                   "total_cost": r["virtual_time"]}
            assert_their_counts(got, theirs[(alpha, variant)], "LRU", variant)


def test_ace_evicting_more_than_it_writes_beside_a_placing_store_or_windowed_over_casa_is_refused_in_one_line() -> None:
    trace = str(DATA / "ace-codebase-workload.csv.gz")
    p = run_cli("sim", trace, "--policy", "ace:nw=4,ne=5", "--buffer", "100")
    assert p.returncode == 2 and "ne=5 exceeds nw=4" in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = run_cli("sim", trace, "--policy", "ace:ne=2", "--buffer", "100", "--store", "hybrid:placement=hybrid")
    assert p.returncode == 2 and "use ne=1" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    p = run_cli("sim", trace, "--policy", "ace:base=casa,window=8", "--buffer", "100")
    assert p.returncode == 2 and "among the next 8 pages" in p.stderr and len(p.stderr.strip().splitlines()) == 1, \
        p.stderr


def test_ace_reads_the_same_pages_ahead_in_a_buffer_pool_over_a_file_as_in_the_simulator() -> None:
    trace = str(DATA / "ace-codebase-workload.csv.gz")
    runs = []
    for store in ["cost:device=ratio:1:4,k=8", "file:device=ratio:1:4,k=8"]:
        p = run_cli("sim", trace, "--policy", "ace:ne=8,pf=on", "--buffer", "100", "--store", store, "--json")
        assert p.returncode == 0, p.stderr
        (r,) = json.loads(p.stdout)
        runs.append(r)
    keys = ["hits", "misses", "read_ahead", "read_ahead_used", "physical_reads", "dirty_evictions"]
    sim, pool = ({k: r[k] for k in keys} for r in runs)
    assert sim == pool and sim["read_ahead"] > 0, (sim, pool)


def test_ace_reading_ahead_counts_its_pages_and_is_refused_where_it_cannot_run_in_one_line() -> None:
    trace = str(DATA / "ace-codebase-workload.csv.gz")
    p = run_cli("sim", trace, "--policy", "ace:ne=8,pf=on", "--buffer", "100", "--device", "ratio:1:4,k=8",
                "--json")
    assert p.returncode == 0, p.stderr
    (r,) = json.loads(p.stdout)
    assert r["read_ahead"] > 0 and 0 <= r["read_ahead_used"] <= r["read_ahead"], r
    assert r["physical_reads"] == r["misses"] + r["read_ahead"], r
    for spec, store, needle in [("ace:base=watt,ne=8,pf=on", "cost", "lru, cflru, lruwsr and casa have"),
                                ("ace:pf=on", "cost", "ne of 2 or more"),
                                ("ace:ne=8,pf=on", "hybrid:placement=hybrid", "use pf=off")]:
        p = run_cli("sim", trace, "--policy", spec, "--buffer", "100", "--store", store)
        assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, (spec, p.stderr)
