"""``flashlayer curve``: one pass gives LRU's misses, write-backs and
virtual time at every size, equal to ``sim`` with LRU; SHARDS samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flashlayer.curves import lru_curve
from tests.conftest import run_cli

PG = "data/traces/pg15-tpcc-sysbench-w2.csv.gz"


def test_curve_json_equals_sim_lru_at_every_size_asked(tmp_path: Path) -> None:
    png = tmp_path / "c.png"
    p = run_cli("curve", PG, "--sizes", "1,50,1%,700,100%", "--device", "ratio:1:1", "--device", "ratio:1:64",
                "--json", "--plot", str(png), check=True)
    c = json.loads(p.stdout)
    assert set(c) >= {"sizes", "misses", "writebacks", "virtual_time"}
    assert c["exact"] and png.stat().st_size > 10_000
    rows = json.loads(run_cli("sim", PG, "--policy", "lru", "--buffer", ",".join(map(str, c["sizes"])),
                              "--device", "ratio:1:64", "--json", check=True).stdout)
    for r in rows:
        i = c["sizes"].index(r["buffer_pages"])
        assert (c["misses"][i], c["writebacks"][i]) == (r["misses"], r["dirty_evictions"])
        assert c["virtual_time"]["ratio:1:64"][i] == pytest.approx(r["virtual_time"])
        assert c["virtual_time"]["ratio:1:1"][i] == r["misses"] + r["dirty_evictions"]


def test_a_sampled_curve_is_close_to_the_exact_one_above_its_resolution() -> None:
    # Both samples keep about 1 page in 10: sizes from 100 pages on are ten
    # times the resolution 1/R.
    sizes = [100, 300, 1000, 3000, 10000]
    exact = lru_curve(PG, sizes=sizes)
    for kw in ({"sample": 0.1}, {"sample_size": 1500}):
        s = lru_curve(PG, sizes=sizes, **kw)  # type: ignore[arg-type]
        assert not s["exact"] and s["sampled"] < exact["requests"] / 5
        err = max(abs(a - b) for a, b in zip(s["miss_ratio"], exact["miss_ratio"], strict=True))
        assert err < 0.02, (kw, err)


@pytest.mark.parametrize(("args", "message"), [
    (["--sample", "0"], "--sample"),
    (["--sample", "0.1", "--sample-size", "10"], "not both"),
    (["--sizes", "0"], "at least 1 page"),
    (["--device", "nosuch"], "--device"),
    (["--points", "1"], "--points"),
])
def test_curve_bad_values_give_one_line_and_exit_2(args: list[str], message: str) -> None:
    p = run_cli("curve", PG, *args)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr
