"""The CLI contract: names, flags, JSON fields, and one-line
errors with exit code 2 for every user mistake."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from flashlayer import _native, replay
from tests.conftest import TRACES, assert_claim_complete, reproduce_quick, run_cli

#: The engine's own policies, as an unknown name's error lists them, and
#: those that can serve a pool (FD-Buffer's clean and dirty lists).
BUILTIN = ", ".join(replay.policies(builtin=True))
POOL = ", ".join(replay.policies("pool", builtin=True))

SIM_FIELDS = {
    "policy", "buffer_pages", "requests", "reads", "writes", "hits", "misses", "miss_ratio",
    "physical_reads", "physical_writes", "dirty_evictions", "dirty_at_end", "virtual_time",
    "seconds", "requests_per_second",
}


def assert_one_line_error(p, *needles: str) -> None:
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("flashlayer: error: "), lines[0]
    assert "Traceback" not in p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    assert p.stdout == ""


def test_sim_json_has_every_contract_field_for_each_policy_and_buffer(small_csv: Path) -> None:
    p = run_cli("sim", str(small_csv), "--policy", "lru,ARC,belady", "--buffer", "1,2,3", "--device", "ratio:1:64", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [(r["policy"], r["buffer_pages"]) for r in rows] == [(pol, b) for pol in ("lru", "arc", "belady") for b in (1, 2, 3)]
    for r in rows:
        assert r.keys() >= SIM_FIELDS
        assert r["requests"] == 8 and r["writes"] == 3 and r["reads"] == 5
        assert r["hits"] + r["misses"] == 8
        assert r["virtual_time"] == r["physical_reads"] * 1 + r["physical_writes"] * 64


def test_sim_and_bound_add_the_policies_and_sizes_of_a_repeated_flag(small_csv: Path) -> None:
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--policy", "arc,belady", "--buffer", "1", "--buffer",
                "2,3", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [(r["policy"], r["buffer_pages"]) for r in rows] == [(pol, b) for pol in ("lru", "arc", "belady") for b in (1, 2, 3)]
    p = run_cli("bound", str(small_csv), "--policy", "lru", "--policy", "fifo", "--buffer", "1", "--buffer", "2",
                "--iterations", "1", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [r["buffer_pages"] for r in rows] == [1, 2]
    assert all(set(r["policies"]) == {"lru", "fifo"} for r in rows), rows


def test_sim_hand_worked_lru_example(small_csv: Path) -> None:
    # Buffer 2, LRU: 1 2(w) 1 3 -> evicts 2 (dirty) ; 2 -> evicts 1 ; 4(w) -> evicts 3 ;
    # 1(w) -> evicts 2 (clean) ; 5 -> evicts 4 (dirty). Hits: only the 3rd request.
    rows = json.loads(run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", "--json", check=True).stdout)
    r = rows[0]
    assert (r["hits"], r["misses"], r["dirty_evictions"], r["physical_writes"], r["dirty_at_end"]) == (1, 7, 2, 2, 1)
    assert r["virtual_time"] == 9.0


def test_sim_table_output_is_readable(small_csv: Path) -> None:
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", check=True)
    assert "miss ratio" in p.stdout and "lru" in p.stdout


def test_trace_stats_json_keys_and_values() -> None:
    p = run_cli("trace", "stats", str(TRACES / "pg15-tpcc-sysbench-w2.csv.gz"), "--json", check=True)
    s = json.loads(p.stdout)
    assert (s["requests"], s["reads"], s["writes"], s["distinct_pages"]) == (604_127, 509_558, 94_569, 14_722)
    assert 0.5 < s["hot20_share"] < 1.0


def test_convert_round_trips_through_flt_and_gzip(tmp_path: Path, small_csv: Path) -> None:
    flt = tmp_path / "t.flt"
    back = tmp_path / "back.csv.gz"
    run_cli("trace", "convert", str(small_csv), str(flt), check=True)
    run_cli("trace", "convert", str(flt), str(back), check=True)
    with gzip.open(back, "rt") as f:
        assert f.read() == small_csv.read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary files left behind"


def test_gen_zipf_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.flt", tmp_path / "b.flt", tmp_path / "c.flt"
    for out, seed in ((a, "5"), (b, "5"), (c, "6")):
        run_cli("trace", "gen", "zipf", "--requests", "5000", "--pages", "300", "--seed", seed, "--out", str(out), check=True)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_gen_concat_builds_casa_style_phases(tmp_path: Path, small_csv: Path) -> None:
    other = tmp_path / "dss.csv"
    other.write_text("page,op\n1,R\n9,R\n")
    out = tmp_path / "concat.csv"
    p = run_cli("trace", "gen", "concat", str(small_csv), str(other), str(small_csv), str(other), "--disjoint", "--out", str(out), "--json", check=True)
    assert json.loads(p.stdout)["requests"] == 2 * (8 + 2)
    s = json.loads(run_cli("trace", "stats", str(out), "--json", check=True).stdout)
    assert s["distinct_pages"] == 5 + 2


def test_list_commands_teach_names() -> None:
    assert "belady" in run_cli("list", "policies", check=True).stdout
    devices = json.loads(run_cli("list", "devices", "--json", check=True).stdout)
    names = {d["name"] for d in devices}
    assert {"koltsidas08-flash", "koltsidas08-magnetic", "pdl10-mlc-nand", "hypro-ssd", "hypro-hdd",
            "fdbuffer-hdd", "fdbuffer-intel", "fdbuffer-mtron", "fdbuffer-sdcard"} <= names
    assert all(d["source"] for d in devices)
    assert "vscsi" in run_cli("list", "formats", check=True).stdout


def test_bench_pool_reports_fixes_per_second_per_workload_and_thread_count() -> None:
    from flashlayer.bench import POOL_WORKLOADS

    r = json.loads(run_cli("bench", "pool", "--threads", "1,2", "--repeat", "1", "--json", check=True).stdout)
    rows = r["rows"]
    assert [(x["workload"], x["threads"]) for x in rows] == [(w, t) for w in ("hits", "latency", "file", "hybrid") for t in (1, 2)]
    for x in rows:
        # Every fix of the workload was done, timed, and counted once.
        assert x["fixes"] == POOL_WORKLOADS[x["workload"]]["fixes"]
        assert x["fixes_per_second"] == pytest.approx(x["fixes"] / x["seconds"])
    hits = [x for x in rows if x["workload"] == "hits"]
    assert all(x["misses"] == 0 for x in hits)
    assert hits[1]["vs_first"] == pytest.approx(hits[1]["fixes_per_second"] / hits[0]["fixes_per_second"])
    # A miss reads its page from the store: the latency and file runs miss.
    assert all(x["misses"] > 0 for x in rows if x["workload"] != "hits")
    assert all(isinstance(x["direct"], bool) for x in rows if x["workload"] == "file")


def test_bench_oltp_reports_checked_transactions_per_second_per_policy_and_thread_count() -> None:
    from flashlayer import bench

    small = {"tpcb": {"params": {"branches": 1, "transactions": 3_000}, "frames": 64}}
    r = bench.oltp([1, 4], ["lru", "casa"], 1, quiet=True, workloads=small)
    rows = r["rows"]
    assert [(x["policy"].split(":")[0], x["threads"]) for x in rows] == [(p, t) for p in ("lru", "casa") for t in (1, 4)]
    for x in rows:
        assert x["transactions"] == 3_000
        assert x["transactions_per_second"] == pytest.approx(x["transactions"] / x["seconds"])
        # The run's database passed its checkers and TPC-B's balances agree.
        assert "all sum to" in x["consistency"]
        accounts = next(c for c in x["checked"] if c["name"] == "accounts")
        assert accounts["entries"] == 100_000 and accounts["height"] >= 2
        # 64 frames hold a small share of the database: the terminals read and write the file.
        assert x["reads"] > 0 and x["writes"] > 0
    assert r["workloads"] == {"tpcb": {"branches": 1, "transactions": 3_000, "frames": 64}}


def test_bench_reports_every_policy_against_lru(tmp_path: Path) -> None:
    from flashlayer.bench import (
        CURVE_ROWS,
        POLICY_CURVE_ROWS,
        PYTHON_ROW,
        TIER_SCHEMES,
        tier_row,
    )
    from flashlayer.cli.benchmark import DEFAULT_POLICIES

    p = run_cli("bench", "policies", "--requests", "20000", "--pages", "3000", "--buffer", "100", "--repeat", "1",
                "--json", check=True)
    r = json.loads(p.stdout)
    # Every policy of the engine's table (the bound's planner aside) and the
    # two variants, each at its defaults written out, then the other rows.
    assert [x["policy"] for x in r["policies"]] == [
        *(_native.canonical("policy", p) for p in DEFAULT_POLICIES.split(",")),
        "lru on a hybrid store (placement hybrid)", *(tier_row(s) for s in TIER_SCHEMES), *CURVE_ROWS,
        *POLICY_CURVE_ROWS, PYTHON_ROW]
    assert r["policies"][2]["policy"] == "clock:bit_on_admit=on"
    assert r["trace"]["requests"] == 20000 and r["buffer_pages"] == 100
    lru = r["policies"][0]
    assert lru["vs_lru"] == 1.0
    # The benchmark runs the real simulator: its miss ratios are those of
    # `sim` on the same Zipf trace, and its speeds are requests / seconds.
    z = tmp_path / "z.flt"
    run_cli("trace", "gen", "zipf", "--requests", "20000", "--pages", "3000", "--alpha", "0.8", "--write-ratio", "0.2",
            "--seed", "42", "--out", str(z), check=True)
    sim = {x["policy"]: x for x in json.loads(run_cli("sim", str(z), "--policy", DEFAULT_POLICIES, "--buffer", "100",
                                                      "--json", check=True).stdout)}
    hybrid = json.loads(run_cli("sim", str(z), "--policy", "lru", "--buffer", "100", "--store", "hybrid:placement=hybrid", "--json",
                                check=True).stdout)[0]
    sim["lru on a hybrid store (placement hybrid)"] = hybrid
    for s in TIER_SCHEMES:
        sim[tier_row(s)] = json.loads(run_cli("sim", str(z), "--buffer", "100", "--store", f"tier:scheme={s},ssd=500", "--json",
                                              check=True).stdout)[0]
    # The exact one-pass curve at the buffer is LRU's miss ratio; a 1%
    # sample of 3,000 pages is only an estimate.
    exact, sampled = CURVE_ROWS
    sim[exact] = sim["lru"]
    # The policy curve's first size is the buffer: ARC's miss ratio there on
    # the whole trace; on a 1% sample an estimate. LRU in Python is LRU.
    replayed, minisim = POLICY_CURVE_ROWS
    sim[replayed] = sim["arc"]
    sim[PYTHON_ROW] = sim["lru"]
    for x in r["policies"]:
        if x["policy"] in (sampled, minisim):
            assert 0 <= x["miss_ratio"] <= 1
        else:
            assert x["miss_ratio"] == pytest.approx(sim[x["policy"]]["miss_ratio"]), x["policy"]
        assert x["requests_per_second"] == pytest.approx(20000 / x["seconds"])
        assert x["vs_lru"] == pytest.approx(x["requests_per_second"] / lru["requests_per_second"])
        # One round: its own ratio is the best times' ratio.
        assert x["vs_lru_rounds"] == [pytest.approx(x["vs_lru"])] * 2
        assert set(x) == {"policy", "seconds", "requests_per_second", "miss_ratio", "vs_lru", "vs_lru_rounds"}
    assert len({x["miss_ratio"] for x in r["policies"]}) > 3, "different policies decide differently"


def test_bench_writes_a_markdown_page_that_names_its_command(small_csv: Path, tmp_path: Path) -> None:
    page = tmp_path / "PERFORMANCE.md"
    p = run_cli("bench", "policies", "--trace", str(small_csv), "--buffer", "2", "--repeat", "1", "--policies",
                "lru,arc", "--markdown", str(page), check=True)
    assert f"wrote {page}" in p.stdout
    text = page.read_text()
    assert f"flashlayer bench policies --trace {small_csv} --buffer 2 --repeat 1 --policies lru,arc --markdown {page}" in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    names = [r.split("|")[1].strip() for r in rows]
    assert names[:2] == ["`lru`", "`arc`"] and "`lru on a hybrid store (placement hybrid)`" in names
    assert rows[0].split("|")[3].strip() == "1.00", "LRU is the reference of the ratios"
    assert rows[0].split("|")[4].strip() == "1.00–1.00"
    bad = run_cli("bench", "policies", "--trace", str(small_csv), "--buffer", "2", "--repeat", "1", "--policies", "lru",
                  "--markdown", str(tmp_path / "nosuch" / "p.md"))
    assert bad.returncode == 2 and "no such directory" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_bench_gives_the_spread_of_the_rounds_ratios_around_the_best_times_ratio(small_csv: Path) -> None:
    r = json.loads(run_cli("bench", "policies", "--trace", str(small_csv), "--buffer", "2", "--repeat", "3",
                           "--policies", "lru,arc", "--json", check=True).stdout)
    for x in r["policies"]:
        least, greatest = x["vs_lru_rounds"]
        # min(a)/min(b) lies between the least and greatest of a_i/b_i.
        assert least <= x["vs_lru"] * (1 + 1e-12) and x["vs_lru"] <= greatest * (1 + 1e-12), x
    assert r["policies"][0]["vs_lru_rounds"] == [1.0, 1.0]


def test_bench_accepts_a_users_trace_in_any_format(small_csv: Path) -> None:
    r = json.loads(run_cli("bench", "policies", "--trace", str(small_csv), "--buffer", "2", "--repeat", "1",
                           "--policies", "lru,arc", "--json", check=True).stdout)
    assert r["trace"]["requests"] == 8 and r["trace"]["path"] == str(small_csv)
    assert [x["policy"] for x in r["policies"][:2]] == ["lru", "arc"]


@pytest.mark.xdist_group("reproduce-baselines")
def test_reproduce_quick_writes_report_with_figures_and_claims(tmp_path: Path) -> None:
    out = tmp_path / "report"
    printed = json.loads(reproduce_quick("baselines", out))
    saved = json.loads((out / "results.json").read_text())
    assert printed["figures"] == saved["figures"]
    assert printed["claims"] == saved["claims"]
    html = (out / "index.html").read_text()
    for fid, fig in saved["figures"].items():
        assert {"title", "x_label", "y_label", "x", "series"} <= fig.keys()
        assert all(len(ys) == len(fig["x"]) for ys in fig["series"].values())
        assert (out / "figures" / f"{fid}.png").stat().st_size > 1000
        assert f"figures/{fid}.png" in html
    assert {"lru", "clock", "2q", "arc", "belady"} <= set(saved["figures"]["baselines-tpcc-miss-ratio"]["series"])
    for c in saved["claims"]:
        assert {"paper", "id", "text", "source", "paper_value", "ours", "holds", "gap"} <= c.keys()
        assert_claim_complete(c)
    checks = {c["id"]: c for c in saved["checks"]}
    assert checks["tpcc-trace-shape"]["holds"] and checks["tpch-trace-shape"]["holds"]
    assert checks["tpcc-trace-shape"]["source"].startswith("data/traces/README.md")
    by_id = {c["id"]: c for c in saved["claims"]}
    assert "tpcc-trace-shape" not in by_id, "provenance checks are not claims"
    assert by_id["tpcc-belady-fewest-misses"]["holds"] and by_id["tpch-belady-fewest-misses"]["holds"]
    meta = saved["meta"]
    assert set(meta["traces"]) == {"pg15-tpcc-sysbench-w2.csv.gz", "pg15-tpch-sf0.1.csv.gz"}
    import hashlib
    tpcc = TRACES / "pg15-tpcc-sysbench-w2.csv.gz"
    assert meta["traces"][tpcc.name]["sha256"] == hashlib.sha256(tpcc.read_bytes()).hexdigest()
    assert meta["git_commit"] is None or len(meta["git_commit"].split("+")[0]) == 40
    assert all(0 < r["buffer_share"] <= 1 and r["trace"] in ("TPC-C", "TPC-H") for r in saved["runs"])
    # The provenance is rendered HTML, and no machine path leaks into the page.
    assert "<table>" in html.split("Where the traces come from")[1]
    assert "| file |" not in html
    assert str(TRACES) not in html and "/tmp" not in html
    assert "Where the traces come from" in html
    # The trace table records each trace's shape beside its hash.
    assert meta["traces"][tpcc.name]["requests"] == 604_127
    assert meta["traces"][tpcc.name]["distinct_pages"] == 14_722
    # A reader finds their way: a summary linking to each section and each failing claim, an anchor per
    # section, figure and claim, and a why that links to the figure it cites.
    summary = html.split("<h2 id='summary'>")[1].split("</table>")[0]
    assert "<a href='#baselines'>" in summary and "pg15-tpcc-sysbench-w2.csv.gz (604,127, 14,722, 94,569)" in summary
    assert "<h2 id='baselines'>" in html
    for fid in saved["figures"]:
        assert f"<figure id='figure-{fid.replace('/', '-')}'>" in html
    for c in saved["claims"]:
        assert f"<tr id='claim-{c['id']}'>" in html
        # The summary counts each kind in its own column and links every
        # failing claim there, and only the failing ones.
        failing = not c["holds"] and not c.get("untestable")
        assert (f"<a href='#claim-{c['id']}'>" in summary) == failing, c["id"]
    arc = by_id["tpcc-arc-vs-lru"]
    if not arc["holds"]:
        assert "<a href='#figure-baselines-tpcc-arc-repeats'>figure baselines/tpcc-arc-repeats</a>" in html


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["sim", "{bad}", "--policy", "lru", "--buffer", "2"], ["bad.csv:3: expected op R or W, found 'X'"]),
        (["sim", "{small}", "--policy", "lru,nosuch", "--buffer", "2"], ["unknown policy 'nosuch'", f"valid policies: {BUILTIN}"]),
        (["sim", "{small}", "--policy", "lru", "--buffer", "0"], ["--buffer: a size must be at least 1 page, got 0"]),
        (["sim", "{small}", "--policy", "lru", "--buffer", "ten"], ["--buffer: bad size 'ten': expected a whole number of pages (at least 1), or P% of the trace's distinct pages"]),
        (["sim", "{small}", "--policy", "lru", "--buffer", "2", "--device", "nvme9"], ["unknown device 'nvme9'", "valid devices: ratio, read=R,write=W, koltsidas08-flash"]),
        (["sim", "{small}", "--policy", "lru", "--buffer", "2", "--format", "parquet"], ["unknown format 'parquet'"]),
        (["sim", "{small}", "--policy", "lru", "--buffer", "2", "--page-size", "4096"], ["--page-size applies to block traces"]),
        (["sim", "{missing}", "--policy", "lru", "--buffer", "2"], ["missing.csv", "No such file"]),
        (["sim", "{truncated}", "--policy", "lru", "--buffer", "2"], ["t.flt", "truncated"]),
        (["sim", "{small}", "--buffer", "2"], ["--policy"]),
        (["sim", "{small}", "--policy", "cflru:w=1.5", "--buffer", "2"],
         ["policy 'cflru': bad value '1.5' for 'w'; expected a fraction from 0 to 1"]),
        (["sim", "{small}", "--policy", "cflru:x=1", "--buffer", "2"], ["policy 'cflru' has no parameter 'x'"]),
        (["sim", "{small}", "--policy", "lruwsr:w=0.5", "--buffer", "2"], ["policy 'lruwsr' takes no parameters"]),
        (["sim", "{small}", "--policy", "casa:cost=measured", "--buffer", "2"],
         ["CASA learns its costs from measured I/O latencies", "measures none"]),
        (["sim", "{small}", "--policy", "w=0.5,lru", "--buffer", "2"], ["'w=0.5' is a parameter but no policy"]),
        (["sim", "{small}", "--policy", "fdbuffer:mc=-1", "--buffer", "2"], ["bad value '-1' for 'mc'"]),
        (["sim", "{small}", "--policy", "fdbuffer:mc=1.5", "--buffer", "2"], ["bad value '1.5' for 'mc'"]),
        (["sim", "{small}", "--policy", "fdbuffer:clean=nosuch", "--buffer", "2"],
         [f"bad value 'nosuch' for 'clean'; expected an online policy at its defaults: {POOL}, or one registered at run time"]),
        (["sim", "{small}", "--policy", "fdbuffer:clean=belady", "--buffer", "2"], [f"policy 'fdbuffer': bad value 'belady' for 'clean'; expected an online policy at its defaults: {POOL}, or one registered at run time"]),
        (["sim", "{small}", "--policy", "cfdc:cluster=-3", "--buffer", "2"], ["policy 'cfdc': bad value '-3' for 'cluster'"]),
        (["trace", "stats", "{bad}"], ["bad.csv:3:"]),
        (["trace", "convert", "{small}", "{dir}/out.parquet"], ["cannot tell the output format"]),
        (["trace", "gen", "zipf", "--write-ratio", "1.5", "--out", "{dir}/z.flt"], ["--write-ratio must be in [0.0, 1.0]"]),
        (["trace", "gen", "zipf", "--pages", "0", "--out", "{dir}/z.flt"], ["--pages must be at least 1"]),
        (["trace", "gen", "zipf", "--alpha", "-1", "--out", "{dir}/z.flt"], ["--alpha must be in > 0.0"]),
        (["reproduce", "nosuchpaper", "--out", "{dir}/r"], ["unknown section 'nosuchpaper'"]),
        (["reproduce", "--quick", "--out", "{dir}/r", "--traces", "{dir}"],
         ["cannot find the recorded traces linux61-tinyconfig-make.csv.gz, pg15-bank-s100.csv.gz, "
          "pg15-tatp-100k.csv.gz, pg15-tpcb-s5.csv.gz, pg15-tpcc-sysbench-w2.csv.gz, pg15-tpch-sf0.1.csv.gz"]),
        (["reproduce", "--quick", "--out", "{small}"], ["exists and is not a directory"]),
        (["bench", "policies", "--trace", "{bad}", "--repeat", "1"], ["bad.csv:3:"]),
        (["bench", "pool", "--threads", "4,2"], ["expected increasing thread counts, got '4,2'"]),
        (["bench"], ["required: {policies,libcachesim,pool,oltp,flash}"]),
        (["bench", "--pool"], ["required: {policies,libcachesim,pool,oltp,flash}"]),
        (["bench", "policies", "--threads", "2"], ["unrecognized arguments: --threads 2"]),
        (["bench", "pool", "--requests", "5"], ["unrecognized arguments: --requests 5"]),
        (["bench", "oltp", "--markdown", "{dir}/o.md"], ["unrecognized arguments: --markdown"]),
        (["bench", "flash", "--buffer", "10"], ["unrecognized arguments: --buffer 10"]),
        (["bench", "libcachesim", "--alpha", "0.5"], ["unrecognized arguments: --alpha 0.5"]),
        (["bench", "oltp", "--policies", "lru,nosuch"], ["nosuch"]),
        (["frobnicate"], ["invalid choice"]),
    ],
)
def test_user_mistakes_are_one_line_errors_with_exit_2(tmp_path: Path, small_csv: Path, args: list[str], needles: list[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("page,op\n1,R\n2,X\n")
    flt = tmp_path / "t.flt"
    run_cli("trace", "convert", str(small_csv), str(flt), check=True)
    flt.write_bytes(flt.read_bytes()[:-5])
    subst = {"{bad}": str(bad), "{small}": str(small_csv), "{missing}": str(tmp_path / "missing.csv"),
             "{truncated}": str(flt), "{dir}": str(tmp_path)}
    real = []
    for a in args:
        for k, v in subst.items():
            a = a.replace(k, v)
        real.append(a)
    assert_one_line_error(run_cli(*real), *needles)


def test_failed_conversion_leaves_no_partial_output(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("page,op\n" + "1,R\n" * 100_000 + "oops\n")
    out = tmp_path / "out.flt"
    assert_one_line_error(run_cli("trace", "convert", str(bad), str(out)), "bad.csv:100002:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_help_teaches_devices_and_defaults() -> None:
    # Every command's --help is run in test_foundation.py; here, what it teaches.
    sim = " ".join(run_cli("sim", "--help", check=True).stdout.split())
    assert "ratio:1:N" in sim and "default: ratio:1:1" in sim and "--flush-at-end" in sim
    zipf = " ".join(run_cli("trace", "gen", "zipf", "--help", check=True).stdout.split())
    assert "default: 0.99" in zipf and "default: 1,000,000" in zipf
