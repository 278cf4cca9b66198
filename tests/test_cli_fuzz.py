"""The CLI on mutated specs and argument lists: every run ends with exit 0
or 2 — never a traceback or an engine panic — and changes no file but the
output it was given."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.conftest import cli_in_process

#: Command lines that work, with OUT the one output a run may write.
SEEDS: list[list[str]] = [
    ["sim", "T", "--policy", "lru,cflru:w=0.25,casa", "--buffer", "2,50%", "--device", "ratio:1:8"],
    ["sim", "T", "--policy", "fdbuffer:mc=0.5,clean=arc,cluster=4", "--buffer", "3", "--store", "cost:device=ratio:1:64"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--store", "tier:ssd=2,scheme=face:group=1,second_chance=off"],
    ["sim", "T", "--policy", "arc", "--buffer", "2", "--store", "tier:scheme=hypro:p_sink=0.5,seed=3,level=lru"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--store", "hybrid:placement=optimistic,capacity=2,defer=1"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--store", "flash:method=pdl:256,changed=16"],
    ["sim", "T", "--policy", "casa:cost=measured,n=4", "--buffer", "2", "--store", "file:page_size=512"],
    ["sim", "T", "--policy", "lru,arc", "--buffer", "2,3", "--json", "--series-every", "2"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--plot", "OUT.png"],
    # Database files: a new one, one the user owns, the trace itself.
    ["sim", "T", "--policy", "lru,arc", "--buffer", "2", "--store", "file:path=DB.db"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--store", "file:path=thesis.tex,page_size=512"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--store", "file:path=T.csv"],
    ["trace", "convert", "T", "thesis.tex"],
    ["sim", "T", "--policy", "lru", "--buffer", "2", "--plot", "thesis.tex"],
    ["curve", "T", "--device", "ratio:1:4", "--sizes", "1,2,50%"],
    ["bound", "T", "--buffer", "2", "--policy", "lru,belady", "--iterations", "5"],
    ["trace", "stats", "T", "--json"],
    ["trace", "convert", "T", "OUT.flt"],
    ["trace", "gen", "zipf", "--requests", "50", "--pages", "10", "--seed", "1", "--out", "OUT.csv"],
    ["list", "policies"],
    ["list", "stores"],
]
#: Tokens to put in place of others.
TOKENS = ["-1", "0", "1", "", ",", ",,", "lru,,arc", "lru:", ":", "=", "%", "101%", "0%", "1e9", "nan", "inf",
          "x=y", "--out", "/", "\u00e9", "cflru:w=", "face:group=0", "tier:ssd=0", "--json", "--force",
          "hybrid:placement=f-only,capacity=1", "lruk:k=9", "belady", "costopt-lb", "T", "OUT.png",
          "99999999999999999999", "--buffer", "--policy", "--store", "0.5", "auto", "mc=1.5",
          "file:path=thesis.tex", "file:path=T.csv", "file:path=DB.db", "thesis.tex", "T.csv", "OUT.csv",
          # Each key's largest value: a spec must not allocate by it.
          *(f"{spec}={2**64 - 1}" for spec in (
              "cfdc:cluster", "fdbuffer:epoch", "fdbuffer:cluster", "koltsidas:epoch", "casa:cost=measured,n",
              "tier:scheme=tac:age", "tier:scheme=tac:extent", "tier:scheme=hypro:window", "tier:scheme=hypro:seed",
              "hybrid:defer", "hybrid:capacity", "file:page_size", "tier:ssd", "s3fifo:threshold"))]
#: Seeds of the test; each runs 80 mutated command lines.
SEEDS_RUN = int(os.environ.get("FLASHLAYER_FUZZ_SEEDS", "24"))
CHARS = ":,=%.-0123456789abcdefklmnoprstuw_ "


def _mutate(rng: random.Random, args: list[str]) -> list[str]:
    args = list(args)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(args))
        match rng.randrange(5):
            case 0:
                del args[i]
                if not args:
                    args = ["sim"]
            case 1:
                args.insert(i, args[i])
            case 2:
                args[i] = rng.choice(TOKENS)
            case 3:
                s = args[i]
                j = rng.randint(0, len(s))
                args[i] = s[:j] + rng.choice(CHARS) + s[j + 1:]
            case _:
                s = args[i]
                j = rng.randint(0, len(s))
                args[i] = s[:j] + "".join(rng.choice(CHARS) for _ in range(rng.randint(1, 3))) + s[j:]
    return args


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("seed", range(SEEDS_RUN))
def test_mutated_command_lines_exit_0_or_2_and_touch_only_their_output(
        tmp_path: Path, small_csv: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "T.csv").write_bytes(small_csv.read_bytes())
    (work / "thesis.tex").write_text("years of work\n")
    monkeypatch.chdir(work)
    rng = random.Random(seed)
    for n in range(80):
        args = _mutate(rng, rng.choice(SEEDS))
        args = [a.replace("T", "T.csv") if a == "T" else a for a in args]
        before = _files(work)
        code, _, text = cli_in_process(args)
        assert code in (0, 2), f"case {seed}/{n}: flashlayer {args!r} exited {code}: {text}"
        assert "Traceback" not in text and "panicked" not in text, f"flashlayer {args!r}: {text}"
        if code == 2:
            assert len(text.strip().splitlines()) == 1, f"flashlayer {args!r}: {text}"
        after = _files(work)
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        # Only a file the command line names (as an argument, or a store's
        # path=), the user's own files only with --force, and the trace
        # being read never as a database.
        named = set(args) | {a.split("path=", 1)[1].split(",")[0] for a in args if "path=" in a}
        assert changed <= named, f"flashlayer {args!r} changed {changed}"
        if "--force" not in args:
            assert not changed & {"T.csv", "thesis.tex"}, f"flashlayer {args!r} changed {changed}"
        if any(a.startswith("file:") and "path=T.csv" in a for a in args):
            assert "T.csv" not in changed, f"flashlayer {args!r} wrote over the trace it reads"
        for name in after.keys() - before.keys():
            (work / name).unlink()
        (work / "T.csv").write_bytes(small_csv.read_bytes())
        (work / "thesis.tex").write_text("years of work\n")
