"""The foundation as a user meets it: every --help, --version, closed
pipes, repeated flags, file modes, compressed and odd inputs, buffer sizes
as shares, several devices, flushing at the end, plots, callbacks that fail
and Ctrl-C."""

from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import flashlayer
from flashlayer import FlashlayerError, Trace, _native
from flashlayer.cli import build_parser
from tests.conftest import TRACES, quick_section, run_cli

TPCC = TRACES / "pg15-tpcc-sysbench-w2.csv.gz"


def _commands(parser: argparse.ArgumentParser, prefix: list[str]) -> list[list[str]]:
    out = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, [*prefix, name])
    return out


ALL_COMMANDS = _commands(build_parser(), [])


def test_the_command_tree_is_what_the_readme_lists() -> None:
    names = {" ".join(c) for c in ALL_COMMANDS}
    for want in ("sim", "plot", "bench", "reproduce", "list", "trace stats", "trace convert", "trace gen zipf",
                 "trace gen pdl-updates", "trace gen concat", "trace capture postgres"):
        assert want in names


@pytest.mark.parametrize("cmd", ALL_COMMANDS, ids=lambda c: " ".join(c) or "flashlayer")
def test_every_help_prints_cleanly(cmd: list[str]) -> None:
    p = run_cli(*cmd, "--help")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert "Traceback" not in p.stdout
    assert p.stdout.startswith("usage: flashlayer")
    # argparse expands % in help texts: a literal %% means a doubled escape.
    assert "%%" not in p.stdout
    # Each subcommand explains itself beyond the usage line.
    assert len(p.stdout.splitlines()) > 4


def test_percent_in_help_texts_reaches_the_reader() -> None:
    def text(*cmd: str) -> str:
        return " ".join(run_cli(*cmd, "--help", check=True).stdout.split())

    out = text("trace", "gen", "pdl-updates")
    assert "%UpdateOps" in out and "%ChangedByOneU_Op" in out
    assert "20% of pages" in text("trace", "stats")
    assert "P% of the trace's distinct pages" in text("sim")


def test_version() -> None:
    p = run_cli("--version", check=True)
    assert p.stdout.strip() == f"flashlayer {flashlayer.__version__}"


def test_a_closed_pipe_ends_quietly(small_csv: Path) -> None:
    # Enough rows to overflow a pipe buffer, so the writer meets the closed pipe.
    buffers = ",".join(str(b) for b in range(1, 600))
    cmd = [sys.executable, "-m", "flashlayer.cli", "sim", str(small_csv), "--policy", "lru,fifo", "--buffer",
           buffers, "--json"]
    p = subprocess.run(["bash", "-c", " ".join(f"'{c}'" for c in cmd) + " | head -c 10; echo \" ${PIPESTATUS[0]}\""],
                       capture_output=True, text=True, timeout=120)
    assert p.stderr == ""
    assert p.stdout.endswith(" 0\n"), p.stdout


def test_several_devices_run_every_combination_and_a_repeat_is_refused(small_csv: Path) -> None:
    rows = json.loads(run_cli("sim", str(small_csv), "--policy", "lru,arc", "--buffer", "2,3", "--device", "ratio:1:1",
                              "--device", "ratio:1:64", "--device", "fdbuffer-intel", "--json", check=True).stdout)
    assert [(r["device"], r["policy"], r["buffer_pages"]) for r in rows] == [
        (d, p, b) for d in ("ratio:1:1", "ratio:1:64", "fdbuffer-intel") for p in ("lru", "arc") for b in (2, 3)
    ]
    by = {(r["device"], r["policy"], r["buffer_pages"]): r for r in rows}
    one, sixty_four = by[("ratio:1:1", "lru", 2)], by[("ratio:1:64", "lru", 2)]
    assert one["misses"] == sixty_four["misses"]
    assert sixty_four["virtual_time"] == one["physical_reads"] + 64 * one["physical_writes"]
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", "--device", "ratio:1:8", "--device",
                "ratio:1:8")
    assert p.returncode == 2 and "given twice" in p.stderr


def test_buffer_sizes_as_shares_resolve_against_distinct_pages() -> None:
    rows = json.loads(run_cli("sim", str(TPCC), "--policy", "lru", "--buffer", "1%,5%,2000", "--json",
                              check=True).stdout)
    assert [r["buffer_pages"] for r in rows] == [round(14_722 * 0.01), round(14_722 * 0.05), 2000]
    assert [r["buffer_spec"] for r in rows] == ["1%", "5%", "2000"]
    assert rows[0]["buffer_share"] == pytest.approx(147 / 14_722)
    assert flashlayer.resolve_buffer("0.001%", 100) == 1, "at least one page"
    for bad in ("0%", "150%", "x%", 0, -3, "ten"):
        with pytest.raises(FlashlayerError):
            flashlayer.resolve_buffer(bad, 100)
    r = flashlayer.simulate(TPCC, "lru", "5%")
    assert r["buffer_pages"] == 736 and r["misses"] == rows[1]["misses"]


def test_a_buffer_of_a_trillion_pages_runs_like_one_that_holds_the_trace(small_csv: Path) -> None:
    for policy in ("clock", "belady", "arc"):
        r = json.loads(run_cli("sim", str(small_csv), "--policy", policy, "--buffer", "1000000000000", "--json",
                               check=True).stdout)[0]
        assert r["buffer_pages"] == 10**12
        assert r["misses"] == 5 and r["hits"] == 3


def test_flush_at_end_writes_what_belady_hoards() -> None:
    plain, flushed = (
        json.loads(run_cli("sim", str(TPCC), "--policy", "belady", "--buffer", "2000", *extra, "--json",
                           check=True).stdout)[0]
        for extra in ([], ["--flush-at-end"])
    )
    assert plain["dirty_at_end"] > 1000 and not plain["flush_at_end"]
    assert flushed["flush_at_end"]
    assert flushed["dirty_at_end"] == plain["dirty_at_end"]
    assert flushed["physical_writes"] == plain["physical_writes"] + plain["dirty_at_end"]
    table = run_cli("sim", str(TPCC), "--policy", "belady", "--buffer", "2000", "--flush-at-end", check=True).stdout
    assert "dirty pages written at the end" in table


def test_the_table_names_the_device_and_units_and_shows_hits(small_csv: Path) -> None:
    out = run_cli("sim", str(TPCC), "--policy", "lru", "--buffer", "5%", "--device", "hypro-ssd", check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("device hypro-ssd: read 271, write 803 us")
    header = lines[1]
    for col in ("hits", "dirty evictions", "dirty at end", "virtual time", "req/s"):
        assert col in header
    row = lines[2]
    assert " s " in row + " " and "(5.0%)" in row, row
    assert row.rstrip()[-1] in "KMG", row


@pytest.mark.xdist_group("reproduce-baselines")
def test_outputs_get_the_modes_a_plain_open_gives(tmp_path: Path, small_csv: Path) -> None:
    out = tmp_path / "z.flt"
    rep = tmp_path / "report"
    run_cli("trace", "gen", "zipf", "--requests", "100", "--pages", "10", "--out", str(out), check=True, umask=0o022)
    # Run under umask 022 (or copied with its modes from the run that was).
    quick_section("baselines", rep)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert stat.S_IMODE(rep.stat().st_mode) == 0o755
    for p in rep.rglob("*"):
        assert stat.S_IMODE(p.stat().st_mode) == (0o755 if p.is_dir() else 0o644), p


def test_bom_csv_is_read_and_an_empty_trace_is_refused(tmp_path: Path) -> None:
    bom = tmp_path / "excel.csv"
    bom.write_bytes("\ufeffpage,op\n1,R\n2,W\n".encode())
    r = json.loads(run_cli("sim", str(bom), "--policy", "lru", "--buffer", "1", "--json", check=True).stdout)[0]
    assert (r["requests"], r["writes"]) == (2, 1)
    for name, data in (("empty.csv", b""), ("header.csv", b"page,op\n")):
        (tmp_path / name).write_bytes(data)
        p = run_cli("sim", str(tmp_path / name), "--policy", "lru", "--buffer", "1")
        assert p.returncode == 2 and name in p.stderr and "no requests" in p.stderr, p.stderr


def test_zstd_traces_are_read_by_their_magic_bytes(tmp_path: Path) -> None:
    src = tmp_path / "t.csv"
    src.write_text("page,op\n" + "".join(f"{i % 7},{'W' if i % 3 == 0 else 'R'}\n" for i in range(500)))
    packed = tmp_path / "t.csv.zst"
    if not _has_zstd():
        pytest.skip("the zstd command is missing (the engine's own zstd tests run in Rust)")
    subprocess.run(["zstd", "-q", "-f", str(src), "-o", str(packed)], check=True)
    a = Trace.open(src).stats()
    b = Trace.open(packed).stats()
    assert a == b


def _has_zstd() -> bool:
    from shutil import which

    return which("zstd") is not None


def test_plot_draws_saved_runs_and_sim_plot_is_a_shortcut(tmp_path: Path, small_csv: Path) -> None:
    runs = tmp_path / "runs.json"
    p = run_cli("sim", str(small_csv), "--policy", "lru,arc", "--buffer", "1,2,3", "--device", "ratio:1:1",
                "--device", "ratio:1:64", "--json", check=True)
    runs.write_text(p.stdout)
    fig = tmp_path / "runs.png"
    out = run_cli("plot", str(runs), "--out", str(fig), check=True).stdout
    assert "2 panel row(s), one per trace and device" in out
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shortcut = tmp_path / "s.png"
    run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "1,2", "--plot", str(shortcut), check=True)
    assert shortcut.read_bytes()[:4] == b"\x89PNG"
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"policy\": \"lru\"}]")
    p = run_cli("plot", str(bad), "--out", str(tmp_path / "x.png"))
    assert p.returncode == 2 and "lacks" in p.stderr and not (tmp_path / "x.png").exists()
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "1", "--plot", str(tmp_path / "x.jpg"))
    assert p.returncode == 2 and "PNG" in p.stderr


BIG: dict[str, Trace] = {}


def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    """Three million Zipf requests: long enough for several progress calls."""
    if "t" not in BIG:
        path = tmp_path_factory.mktemp("big") / "z.flt"
        _native.gen_zipf(path, 3_000_000, 200_000, 0.8, 0.2, 1)
        BIG["t"] = Trace.open(path)
    return BIG["t"]


def test_an_exception_in_a_progress_callback_stops_the_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    t = big_trace(tmp_path_factory)
    calls: list[int] = []

    def boom(n: int) -> None:
        calls.append(n)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        _native.replay(t, "lru", 1000, None, 0, None, boom)
    assert calls == [1 << 20], "the run stopped at the first callback"

    def interrupt(n: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _native.replay(t, "arc", 1000, None, 0, None, interrupt)
    with pytest.raises(KeyboardInterrupt):
        flashlayer.sweep(t, ["lru", "arc"], [100, 200], workers=2, on_progress=lambda n: interrupt(n))


def test_ctrl_c_stops_a_long_sim_cleanly(tmp_path: Path) -> None:
    z = tmp_path / "z.flt"
    _native.gen_zipf(z, 5_000_000, 500_000, 0.8, 0.2, 1)
    buffers = ",".join(str(b) for b in range(1000, 61000, 1000))  # 60 runs x 5M requests x 4 policies
    p = subprocess.Popen([sys.executable, "-m", "flashlayer.cli", "sim", str(z), "--policy", "arc,belady,cflru,2q",
                          "--buffer", buffers, "--jobs", "2", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True,
                         # A test run started in the background of a
                         # non-interactive shell inherits SIGINT ignored (POSIX);
                         # a user's terminal does not.
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Interrupt once the child is replaying (it has used a second of CPU
    # time), however loaded the machine is, not after a fixed wait.
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks >= 1.0:
            break
        threading.Event().wait(0.05)
    assert p.poll() is None, "the sim ended before it could be interrupted"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err.strip() == "flashlayer: interrupted" and out == ""


def test_sweep_values_match_single_runs_and_runs_overlap(small_csv: Path) -> None:
    t = Trace.open(TPCC)
    barrier = threading.Barrier(2, timeout=60)
    met = []

    def done(r: flashlayer.SimResult) -> None:
        # The first two runs wait for each other: with one worker at a time
        # this would time out and break the barrier.
        if len(met) < 2:
            met.append(threading.get_ident())
            barrier.wait()

    rows = flashlayer.sweep(t, ["lru", "2q"], ["2%", "10%"], device=["ratio:1:1", "hypro-ssd"], workers=2,
                            on_done=done)
    assert len(set(met)) == 2
    assert len(rows) == 8
    for r in rows:
        single = flashlayer.simulate(t, r["policy"], r["buffer_spec"], device=r["device"])
        for k in ("hits", "misses", "physical_reads", "physical_writes", "dirty_at_end", "virtual_time"):
            assert r[k] == single[k], (r["policy"], r["buffer_spec"], r["device"], k)
    lru_small, lru_big = rows[0], rows[1]
    assert lru_small["misses"] > lru_big["misses"] > 14_722 - 1


def test_trace_path_is_a_path(small_csv: Path) -> None:
    assert Trace.open(small_csv).path == small_csv
    assert isinstance(Trace.open(str(small_csv)).path, Path)


def test_a_long_figure_title_wraps_to_fit_the_figure() -> None:
    import matplotlib.pyplot as plt

    from flashlayer import plots

    title = "Fig. 11: sequence 1 (r×10, u×10, r×20), 5,000 queries a set: cost per execution"
    fig = {"title": title, "x_label": "execution", "y_label": "cost (Table 1 units)", "x": [1.0, 2.0, 3.0],
           "series": {"conservative": [2e5, 1e5, 5e4], "optimistic": [3e5, 1e4, 9e3]}, "log_x": False}
    f, ax = plots.draw(fig)
    # As saved: laid out, the whole title inside the figure.
    box = ax.title.get_window_extent(renderer=f.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= f.bbox.width
    assert "\n" in ax.get_title() and ax.get_title().replace("\n", " ") == title
    plt.close(f)
    # A title that fits stays on one line.
    f, ax = plots.draw({**fig, "title": "TPC-C: miss ratio"})
    assert ax.get_title() == "TPC-C: miss ratio"
    plt.close(f)


def test_bars_open_side_by_side_share_one_display(monkeypatch: pytest.MonkeyPatch) -> None:
    # Sections of `reproduce` run at once, each with its own bars; a
    # terminal holds one live display, so the bars must share it.
    from flashlayer import progress

    monkeypatch.setattr(progress, "enabled", lambda quiet: True)
    both_open = threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def section(name: str) -> None:
        try:
            with progress.bar(3, name) as b:
                both_open.wait()
                b.advance(3)
                both_open.wait()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=section, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert progress._shown is None and progress._bars == 0
