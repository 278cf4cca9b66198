"""The NAND emulator and the flash stores from Python and the CLI: the
API contract, power cuts and recovery, bad arguments, the crash test, and
the update operations behind ``reproduce pdl``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import flashlayer
from flashlayer import _native
from tests.conftest import assert_claim_complete, quick_section, run_cli

PS = 2048


def changed(page: bytes, at: int, fill: int, n: int = 16) -> bytes:
    b = bytearray(page)
    b[at:at + n] = bytes([fill]) * n
    return bytes(b)


@pytest.mark.parametrize("method", ["ipu", "opu", "ipl:18k", "ipl:64k", "pdl:256", "pdl:2k"])
def test_a_store_reads_back_its_writes_and_survives_a_cut_before_a_flush(method: str) -> None:
    chip = flashlayer.NandChip(32, data_programs=16)
    store = flashlayer.FlashStore(chip, method)
    assert store.logical_pages <= 32 * 64 // 2
    assert store.read(7) == bytes(PS), "never written: zeros"
    v1 = bytes([1]) * PS
    store.write(7, v1)
    store.flush()
    v2 = changed(v1, 100, 2)
    store.write(7, v2, changed=[(100, 16)])
    assert store.read(7) == v2
    chip.power_cut_after(1)
    with pytest.raises(flashlayer.PowerCut):
        store.write(8, v1)
    assert not chip.is_on
    with pytest.raises(flashlayer.PowerCut):
        flashlayer.FlashStore.recover(chip, method)
    chip.power_on()
    again = flashlayer.FlashStore.recover(chip, method)
    # Flushed v1; v2 written since may or may not have reached the chip.
    assert again.read(7) in (v1, v2)
    if method == "ipu":
        # In place, the page being programmed at the cut has no other copy
        # (flashlayer.flash.ipu): it is lost, and reading it says so.
        with pytest.raises(ValueError, match="page 8"):
            again.read(8)
    else:
        assert again.read(8) in (bytes(PS), v1)
    stats = again.stats()
    assert {"reads", "programs", "erases", "time_us", "max_erase_count", "page_reads"} <= set(stats)


def test_a_store_that_lost_power_refuses_work_until_recovered() -> None:
    chip = flashlayer.NandChip(16)
    store = flashlayer.FlashStore(chip, "opu")
    chip.power_cut_after(1)
    with pytest.raises(flashlayer.PowerCut):
        store.write(0, bytes(PS))
    chip.power_on()
    with pytest.raises(ValueError, match="recover"):
        store.read(0)


def test_a_file_image_keeps_the_store_across_chips(tmp_path: Path) -> None:
    img = tmp_path / "chip.img"
    chip = flashlayer.NandChip(16, path=img)
    store = flashlayer.FlashStore(chip, "pdl:256")
    store.write(3, bytes([9]) * PS)
    store.write(3, changed(bytes([9]) * PS, 0, 5), changed=[(0, 16)])
    store.flush()
    chip.sync()
    del store, chip
    assert img.stat().st_size == 16 * 64 * (2048 + 64)
    chip = flashlayer.NandChip(16, path=img)
    store = flashlayer.FlashStore.recover(chip, "pdl:256")
    assert store.read(3) == changed(bytes([9]) * PS, 0, 5)


@pytest.mark.parametrize("call, message", [
    (lambda s: s.write(0, b"short"), "2048-byte pages"),
    (lambda s: s.read(10**9), "beyond the store's"),
    (lambda s: s.write(0, bytes(PS), changed=[(2040, 100)]), "beyond the"),
])
def test_bad_store_arguments_raise_value_error(call: object, message: str) -> None:
    store = flashlayer.FlashStore(flashlayer.NandChip(16), "opu")
    with pytest.raises(ValueError, match=message):
        call(store)  # type: ignore[operator]


@pytest.mark.parametrize("make, message", [
    (lambda: flashlayer.FlashStore(flashlayer.NandChip(4), "nosuch"), "unknown method"),
    (lambda: flashlayer.FlashStore(flashlayer.NandChip(4), "opu", logical_pages=1000), "too small"),
    (lambda: flashlayer.FlashStore(flashlayer.NandChip(4), "ipl:3k"), "whole number"),
    (lambda: flashlayer.NandChip(0), "at least one block"),
    (lambda: flashlayer.NandChip(4, preset="nosuch-device"), "nosuch-device"),
])
def test_bad_chip_and_method_arguments_raise_value_error(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


def test_crash_test_from_python_holds_for_pdl() -> None:
    r = flashlayer.crash_test("pdl:256", cuts=200, seed=3)
    assert r["holds"] and r["cuts"] == 200 and r["recovery_cuts"] > 0
    assert r["flushed_lost"] == 0 and r["never_written"] == 0


def test_cli_crash_test_reports_every_method_as_json() -> None:
    p = run_cli("flash", "crash-test", "--method", "ipu,opu,ipl:18k,pdl:256", "--cuts", "100", "--json", check=True)
    rows = json.loads(p.stdout)
    assert [r["method"] for r in rows] == ["ipu", "opu", "ipl:18k", "pdl:256"]
    assert all(r["holds"] and r["cuts"] == 100 for r in rows)


@pytest.mark.parametrize("args, message", [
    (["--method", "nosuch"], "unknown method"),
    (["--method", "opu", "--cuts", "0"], "--cuts"),
    (["--method", "opu", "--blocks", "2"], "too small"),
])
def test_cli_crash_test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    p = run_cli("flash", "crash-test", *args)
    assert p.returncode == 2
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_pdl_writes_small_updates_cheaper_than_opu() -> None:
    """PDL(256B) programs a differential page per many updates; OPU a page
    per update (PDL §5.2, Fig. 8(b))."""
    runs = {m: _native.flash_updates(m, 16, operations=1000, warmup_erases_per_block=1.0)
            for m in ("opu", "pdl:256")}
    per = {m: r["write"]["time_us"] / r["updates"] for m, r in runs.items()}
    assert per["pdl:256"] < per["opu"]
    assert runs["opu"]["read"]["reads"] == runs["opu"]["operations"], "OPU reads one page"
    assert runs["pdl:256"]["read"]["reads"] <= 2 * runs["pdl:256"]["operations"], "PDL at most two"


def _per_update(method: str, n: int, share: float = 0.25) -> float:
    """µs per update operation on a 32-block chip, the relation ``share`` of
    it (PDL Table 1's 4 GiB chip holding §5.1's 1 GB relation: a quarter),
    each update's changed run following the last on its page (footnote 17's
    reading, under which a differential averages half a page)."""
    r = _native.flash_updates(method, 32, operations=4000, updates_till_write=n,
                              warmup_erases_per_block=10.0, logical_pages=round(share * 32 * 64),
                              placement="following")
    return float(r["read"]["time_us"] + r["write"]["time_us"]) / r["updates"]


def test_pdl_2k_above_opu_only_while_its_differentials_fill_the_chip() -> None:
    """With the relation half the chip (§5.1's "2-Gbyte" reading),
    PDL(2KB)'s differentials (half a page each, on nearly every page) fill
    about three quarters of it, and collection makes PDL(2KB) dearer than
    OPU; at a quarter (Table 1's chip), PDL(2KB)'s one write per update
    beats OPU's two (Fig. 8(b))."""
    assert _per_update("pdl:2k", 1, share=0.5) > _per_update("opu", 1, share=0.5)
    assert _per_update("pdl:2k", 1) < 0.9 * _per_update("opu", 1)


def test_pdl_2k_rises_only_slightly_with_updates_till_write_and_256b_stays_below_opu() -> None:
    """PDL §5.2, Fig. 9: PDL(2KB)'s time "increases only very slightly" with
    N_updates_till_write (a differential averages half a page whatever N,
    footnote 17) and stays below OPU; PDL(256B) rises towards OPU and stays
    below it while its differential fits. Collection must not thrash at any
    N, the steady state included."""
    opu = {n: _per_update("opu", n) for n in (1, 2, 4, 8)}
    pdl2k = {n: _per_update("pdl:2k", n) for n in (1, 2, 4, 8)}
    for n in (2, 4, 8):
        assert pdl2k[n] <= 1.5 * pdl2k[1], pdl2k
    assert all(pdl2k[n] < opu[n] for n in opu), (pdl2k, opu)
    pdl256 = [_per_update("pdl:256", n) for n in (1, 2, 4)]
    assert pdl256 == sorted(pdl256) and pdl256[-1] < opu[4], (pdl256, opu)


def test_sim_on_a_flash_store_replays_byte_ranges_into_differentials(tmp_path: Path) -> None:
    trace = tmp_path / "pu.flt"
    _native.gen_workload("pdl-updates", trace, 0, {"pages": 500, "operations": 3000}, with_bytes=True)
    p = run_cli("sim", str(trace), "--policy", "lru", "--buffer", "4", "--store", "flash:method=pdl:256",
                "--store", "flash:method=opu", "--json", check=True)
    rows = {r["store"]: r for r in json.loads(p.stdout)}
    pdl, opu = rows["flash:method=pdl:256,obsolete=off"], rows["flash:method=opu,obsolete=off"]
    assert pdl["requests"] == opu["requests"] == 3000
    assert pdl["physical_writes"] == opu["physical_writes"], "the same pool decisions"
    assert pdl["flash_differentials"] > 0 and opu["flash_differentials"] == 0
    # 2% of a page changes per update: PDL programs far fewer pages than OPU.
    assert pdl["chip_programs"] * 3 < opu["chip_programs"]
    assert pdl["virtual_time"] == pdl["chip_time_us"] < opu["virtual_time"]


@pytest.mark.parametrize("args, message", [
    (["--store", "flash:method=nosuch"], "unknown method"),
    (["--store", "flash:method=opu", "--device", "ratio:1:2"], "--store and --device both name the store"),
    (["--store", "flash:opu"], "store 'flash': expected key=value, got 'opu'"),
    (["--store", "disk"], "unknown store 'disk'; valid stores: cost, file, flash, ftl, hybrid, tier"),
])
def test_sim_flash_store_bad_input_is_one_line_and_exit_2(small_csv: Path, args: list[str], message: str) -> None:
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", *args)
    assert p.returncode == 2
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.xdist_group("reproduce-pdl")
def test_reproduce_pdl_draws_its_figures_and_explains_every_failing_claim(tmp_path: Path) -> None:
    out = tmp_path / "pdl"
    results = quick_section("pdl", out)
    assert {"pdl/fig8", "pdl/fig13", "pdl/fig14", "pdl/erases-vs-changed"} <= set(results["figures"])
    for c in results["claims"]:
        assert_claim_complete(c)
    assert {"pdl-fig9-2k-flat", "pdl-fig9-256b-towards-opu", "pdl-read-order", "pdl-write-order",
            "pdl-vs-ipl64-update-ops"} <= {c["id"] for c in results["claims"]}
    # The erase experiment: one series per method of the paper's order, one point per share changed.
    fig = results["figures"]["pdl/erases-vs-changed"]
    assert set(fig["series"]) == {"OPU", "PDL(2KB)", "IPL(18KB)", "PDL(256B)", "IPL(64KB)"}
    assert all(len(v) == len(fig["x"]) for v in fig["series"].values())
    # The report's reading (random offsets, half the chip) beside the other three, every method in each.
    readings = results["figures"]["pdl/fig8-readings"]
    assert next(iter(readings["series"])) == "random offsets, half the chip (the report's)"
    assert len(readings["series"]) == 4 and all(len(v) == 6 for v in readings["series"].values())
    # Its first series is Fig. 8's overall time: the same runs.
    assert readings["series"]["random offsets, half the chip (the report's)"] == [
        results["figures"]["pdl/fig8"]["series"][m][2] for m in readings["categories"]]


def test_changed_bytes_at_random_offsets_by_default_grow_pdl_2k_differentials_and_leave_opu_alone() -> None:
    """§5.1's "randomly selected" changed bytes, read as a fresh random
    offset for every update: runs overlap, a PDL(2KB) page's differential
    covers more of the page than when each run follows the last, so
    PDL(2KB) programs more per update; OPU writes whole pages either way."""
    def per_update(method: str, placement: str, key: str) -> float:
        r = _native.flash_updates(method, 32, operations=4000, warmup_erases_per_block=3.0,
                                  logical_pages=512, placement=placement)
        return float(r["write"][key]) / r["updates"]

    assert per_update("pdl:2k", "random", "programs") > 1.1 * per_update("pdl:2k", "following", "programs")
    assert per_update("opu", "random", "programs") == pytest.approx(per_update("opu", "following", "programs"),
                                                                    rel=0.05)
    # The default is §5.1's words: a fresh random offset for every update.
    default, random = (
        {k: v for k, v in _native.flash_updates("pdl:2k", 16, operations=500, warmup_erases_per_block=1.0,
                                                **kw).items() if k != "seconds"}
        for kw in ({}, {"placement": "random"}))
    assert default == random
    with pytest.raises(_native.FlashlayerError, match="placement 'sideways': expected following or random"):
        _native.flash_updates("opu", 16, operations=10, placement="sideways")


def test_a_workload_on_flash_warms_up_until_the_store_erases_before_it_measures() -> None:
    """PDL Fig. 14's runs: transactions run unmeasured until the chip has
    erased the blocks asked for (or the step cap), then the measured ones
    start; without a warm-up none run."""
    params = {"branches": 1, "transactions": 200, "page_size": 4096}
    kw = {"page_size": 4096, "spare_size": 128, "logical_pages": 6000}
    cold = _native.workload_on_flash("tpcb", dict(params), "opu", 120, 64, **kw)
    assert cold["warmup_steps"] == 0 and cold["warmup_erases"] == 0 and cold["steps"] == 200
    warm = _native.workload_on_flash("tpcb", dict(params), "opu", 120, 64, warmup_erases=30,
                                     max_warmup_steps=200_000, **kw)
    assert warm["warmup_erases"] >= 30 and 0 < warm["warmup_steps"] < 200_000 and warm["steps"] == 200
    capped = _native.workload_on_flash("tpcb", dict(params), "opu", 120, 64, warmup_erases=10**9,
                                       max_warmup_steps=50, **kw)
    assert capped["warmup_steps"] == 50


def test_warm_up_goes_on_past_its_erase_target_until_a_growing_differential_stops_raising_the_cost() -> None:
    """PDL(2KB) with each change at a random offset on a chip twice the
    relation: its differentials cover more of their pages with every update,
    so the cost keeps rising long after every block was erased once. The
    warm-up runs until two windows (each updating every page about twice)
    cost the same, so a target of 1 erase per block measures what a target
    of 300 does."""
    def run(target: float) -> dict[str, Any]:
        return _native.flash_updates("pdl:2k", 32, operations=4000, warmup_erases_per_block=target,
                                     logical_pages=31 * 32)
    short, long = run(1.0), run(300.0)
    assert short["warmup_erases_per_block"] > 10, "stopped at its target while the cost still rose"
    cost = [(r["read"]["time_us"] + r["write"]["time_us"]) / r["operations"] for r in (short, long)]
    assert cost[0] == pytest.approx(cost[1], rel=0.05), cost
