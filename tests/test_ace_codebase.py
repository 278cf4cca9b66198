"""flashlayer's ACE against the outputs of ACE's own simulator
(BU-DiSC/ACE-codebase at commit 46f65a8, run by ``tools/ace-codebase/run.sh``;
its counts in ``data/successors/ace-codebase.csv``, its generated workload
beside them): 200,000 operations, a 1,000-page buffer, reads costing 1,
writes 4, a device of concurrency 8. Its baseline (variant 1) is the plain
policy; its variant 5 (COW-Xa) is ACE writing the next 7 dirty pages with a
dirty victim. LRU and CFLRU give its misses, page writes, write batches and
total cost exactly, with ACE and without; so does LRU-WSR alone. Under ACE,
LRU-WSR writes ahead the dirty pages marked cold, those its evictions take
when they reach them; ACE's simulator also gives the hot dirty pages it
passes their second chance as it walks (moves them to the MRU end), which a
query of the policy does not. That row is within 0.4% on every count
(total cost 69,089 against 69,213) and held to 1%."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conftest import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "successors"
POLICIES = {"LRU": "lru", "CFLRU": "cflru", "LRU-WSR": "lruwsr"}
#: ACE over LRU-WSR: the one row not equal (module doc), relative.
LRUWSR_ACE_TOLERANCE = 0.01


@pytest.fixture(scope="module")
def ours() -> dict[tuple[str, str], dict[str, float]]:
    specs = [s for p in POLICIES.values() for s in (p, f"ace:base={p},nw=8")]
    p = run_cli("sim", str(DATA / "ace-codebase-workload.csv.gz"), "--policy", ",".join(specs), "--buffer", "1000",
                "--store", "cost:device=read=1,write=4,k=8", "--json", check=True)
    rows = {}
    for r in json.loads(p.stdout):
        ace = r["policy"].startswith("ace")
        base = r["policy"].split("base=")[1].split(",")[0] if ace else r["policy"].split(":")[0]
        rows[(base, "5" if ace else "1")] = {"misses": r["misses"], "writes": r["physical_writes"],
                                             "write_batches": r["dirty_evictions"], "total_cost": r["virtual_time"]}
    return rows


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("variant", ["1", "5"])
def test_ace_and_its_bases_give_ace_codebases_counts(ours: dict[tuple[str, str], dict[str, float]], policy: str,
                                                     variant: str) -> None:
    with (DATA / "ace-codebase.csv").open() as f:
        theirs = next(r for r in csv.DictReader(f) if r["policy"] == policy and r["variant"] == variant)
    got = ours[(POLICIES[policy], variant)]
    for key in ("misses", "writes", "write_batches", "total_cost"):
        if (policy, variant) == ("LRU-WSR", "5"):
            gap = abs(got[key] / float(theirs[key]) - 1)
            assert gap <= LRUWSR_ACE_TOLERANCE, f"{key}: {got[key]} against their {theirs[key]}"
        else:
            assert got[key] == float(theirs[key]), f"{policy} variant {variant}: {key}"
