"""What a command writes: never over what flashlayer did not write, never
a partial or silently incomplete file, nothing beside the output it was
asked for (``flashlayer.files``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import TRACES, run_cli

PG = str(TRACES / "pg15-tpcc-sysbench-w2.csv.gz")


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _results(tmp_path: Path) -> Path:
    """A small sweep's results file."""
    grid = tmp_path / "g.toml"
    grid.write_text(f'traces = ["{PG}"]\npolicies = ["lru", "arc"]\nbuffers = [200, 800]\n')
    out = tmp_path / "r.parquet"
    run_cli("sweep", str(grid), "--out", str(out), "--jobs", "2", check=True)
    return out


def _user_folder(path: Path) -> dict[str, bytes]:
    path.mkdir()
    (path / "thesis.tex").write_text("years of work\n")
    (path / "sub").mkdir()
    (path / "sub" / "b.txt").write_text("b\n")
    (path / "index.html").write_text("<p>mine</p>\n")
    return _tree(path)


def test_report_refuses_a_users_folder_and_leaves_every_file(tmp_path: Path) -> None:
    results = _results(tmp_path)
    before = _user_folder(tmp_path / "precious")
    p = run_cli("report", str(results), "--out", str(tmp_path / "precious"))
    assert p.returncode == 2, p.stderr
    assert "not written by flashlayer" in p.stderr or "did not write" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert _tree(tmp_path / "precious") == before
    # Nor is anything left beside it.
    assert sorted(x.name for x in tmp_path.iterdir()) == ["g.toml", "precious", "r.parquet"]


def test_report_with_force_writes_its_files_and_removes_none(tmp_path: Path) -> None:
    results = _results(tmp_path)
    before = _user_folder(tmp_path / "precious")
    run_cli("report", str(results), "--out", str(tmp_path / "precious"), "--force", check=True)
    after = _tree(tmp_path / "precious")
    assert after["thesis.tex"] == before["thesis.tex"] and after["sub/b.txt"] == before["sub/b.txt"]
    assert after["index.html"] != before["index.html"]
    listed = json.loads(after[".flashlayer-output"])["files"]
    assert "index.html" in listed and "thesis.tex" not in listed and any(f.startswith("figures/") for f in listed)


def test_report_onto_its_own_folder_replaces_only_its_files(tmp_path: Path) -> None:
    results = _results(tmp_path)
    out = tmp_path / "rep"
    run_cli("report", str(results), "--out", str(out), check=True)
    first = json.loads((out / ".flashlayer-output").read_text())["files"]
    # A file the user adds, and a figure of an earlier run that this one
    # no longer draws.
    (out / "notes.txt").write_text("mine\n")
    stale = out / "figures" / "sweep" / "999-old.png"
    stale.write_bytes(b"old")
    marker = json.loads((out / ".flashlayer-output").read_text())
    marker["files"].append("figures/sweep/999-old.png")
    marker["digests"]["figures/sweep/999-old.png"] = [3, hashlib.sha256(b"old").hexdigest()]
    (out / ".flashlayer-output").write_text(json.dumps(marker))
    run_cli("report", str(results), "--out", str(out), check=True)
    assert (out / "notes.txt").read_text() == "mine\n"
    assert not stale.exists()
    assert json.loads((out / ".flashlayer-output").read_text())["files"] == first


def _figures(names: list[str]) -> Callable[[Path], None]:
    """Fills a folder as a report does: flashlayer's PNGs, each marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flashlayer.files import png_software

    def fill(tmp: Path) -> None:
        (tmp / "figures").mkdir()
        (tmp / "index.html").write_text("<p>" + ",".join(names) + "</p>\n")
        for n in names:
            fig = plt.figure(figsize=(1, 1))
            fig.savefig(tmp / "figures" / n, metadata=png_software())
            plt.close(fig)

    return fill


def test_cleanup_removes_only_what_is_still_flashlayers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flashlayer.files import write_folder

    out = tmp_path / "report-r2"
    write_folder(out, _figures(["007-a.png", "008-virtual_time.png", "009-miss_ratio.png"]))
    # The user puts a PNG of their own in one figure's place and a text
    # file in another's.
    fig = plt_png(tmp_path / "theirs.png")
    (out / "figures" / "009-miss_ratio.png").write_bytes(fig)
    (out / "figures" / "008-virtual_time.png").write_text("my notes\n")
    write_folder(out, _figures(["007-a.png"]))  # fewer figures this time
    assert (out / "figures" / "009-miss_ratio.png").read_bytes() == fig
    assert (out / "figures" / "008-virtual_time.png").read_text() == "my notes\n"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "kept" in err and "1 more" in err, err
    # What is still flashlayer's goes: its mark, or its recorded hash.
    write_folder(out, _figures(["010-b.png"]))
    assert not (out / "figures" / "007-a.png").exists() and (out / "index.html").read_text() == "<p>010-b.png</p>\n"


def test_an_output_file_never_lands_on_a_users_file_in_a_marked_folder(tmp_path: Path) -> None:
    from flashlayer._native import FlashlayerError
    from flashlayer.files import write_folder

    out = tmp_path / "rep"
    write_folder(out, _figures(["001-a.png", "002-b.png"]))
    (out / "figures" / "002-b.png").write_text("the user's\n")
    before = _tree(out)
    with pytest.raises(FlashlayerError, match=r"002-b\.png: not written by flashlayer"):
        write_folder(out, _figures(["001-a.png", "002-b.png"]))
    assert _tree(out) == before
    write_folder(out, _figures(["001-a.png", "002-b.png"]), force=True)
    assert (out / "figures" / "002-b.png").read_bytes().startswith(b"\x89PNG")


def plt_png(path: Path) -> bytes:
    """A PNG that flashlayer did not write."""
    from PIL import Image

    Image.new("RGB", (2, 2)).save(path)
    return path.read_bytes()


def test_an_empty_folder_is_written_into(tmp_path: Path) -> None:
    results = _results(tmp_path)
    (tmp_path / "empty").mkdir()
    run_cli("report", str(results), "--out", str(tmp_path / "empty"), check=True)
    assert (tmp_path / "empty" / "index.html").is_file()


def test_reproduce_refuses_a_users_folder_before_running(tmp_path: Path) -> None:
    before = _user_folder(tmp_path / "home")
    p = run_cli("reproduce", "baselines", "--quick", "--out", str(tmp_path / "home"))
    assert p.returncode == 2 and "--force" in p.stderr, p.stderr
    assert _tree(tmp_path / "home") == before


def test_file_outputs_replace_only_flashlayers_own_files(tmp_path: Path, small_csv: Path) -> None:
    runs = tmp_path / "runs.json"
    runs.write_text(run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", "--json", check=True).stdout)
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"\x89PNG not flashlayer's")
    p = run_cli("plot", str(runs), "--out", str(mine))
    assert p.returncode == 2 and "--force" in p.stderr
    assert mine.read_bytes() == b"\x89PNG not flashlayer's"
    # Its own PNG is replaced; with --force, anyone's.
    ours = tmp_path / "ours.png"
    run_cli("plot", str(runs), "--out", str(ours), check=True)
    run_cli("plot", str(runs), "--out", str(ours), check=True)
    run_cli("plot", str(runs), "--out", str(mine), "--force", check=True)
    assert mine.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and mine.stat().st_size > 1000
    # A trace: flt is flashlayer's format; a user's csv is not replaced.
    flt = tmp_path / "t.flt"
    run_cli("trace", "convert", str(small_csv), str(flt), check=True)
    run_cli("trace", "convert", str(small_csv), str(flt), check=True)
    users = tmp_path / "users.csv"
    users.write_text("page,op\n9,R\n")
    p = run_cli("trace", "gen", "zipf", "--requests", "10", "--pages", "5", "--out", str(users))
    assert p.returncode == 2 and users.read_text() == "page,op\n9,R\n"
    run_cli("trace", "gen", "zipf", "--requests", "10", "--pages", "5", "--out", str(users), "--force", check=True)
    assert users.read_text() != "page,op\n9,R\n"


def test_an_unwritable_output_names_the_users_path(small_csv: Path) -> None:
    # /proc takes no new files, even from root.
    p = run_cli("sim", str(small_csv), "--policy", "lru", "--buffer", "2", "--plot", "/proc/flashlayer-x.png")
    assert p.returncode == 2 and "/proc/flashlayer-x.png: cannot write here" in p.stderr, p.stderr
    assert ".flashlayer-x.png." not in p.stderr


def test_a_sweep_keeps_every_column_whichever_cell_fails_first(tmp_path: Path) -> None:
    # A cell fails as it runs: its database file's folder is missing.
    bad_store = f"file:path={tmp_path / 'no' / 'db'}"
    for order in ([bad_store, "cost"], ["cost", bad_store]):
        grid = tmp_path / "g.toml"
        grid.write_text(f'traces = ["{PG}"]\npolicies = ["lru"]\nbuffers = [500]\nstores = {json.dumps(order)}\n')
        out = tmp_path / f"{order[0].split(':')[0]}.parquet"
        p = run_cli("sweep", str(grid), "--out", str(out))
        assert p.returncode == 1 and "1 failed" in p.stdout, p.stdout + p.stderr
        table = pq.read_table(out)
        rows = {r["grid_store"].split(":")[0]: r for r in table.to_pylist()}
        assert rows["cost"]["error"] is None and rows["cost"]["miss_ratio"] > 0 and rows["cost"]["virtual_time"] > 0
        assert "No such file" in rows["file"]["error"]
        assert rows["file"]["miss_ratio"] is None
        assert table.schema.metadata and b"flashlayer" in table.schema.metadata
        # Nothing beside the output: the converted traces lived in a
        # temporary folder of the sweep's own.
        assert not list(tmp_path.glob("*.traces"))
        # The report reads it; a resumed sweep runs the failed cell again.
        run_cli("report", str(out), "--out", str(tmp_path / f"rep-{order[0].split(':')[0]}"), check=True)
        p = run_cli("sweep", str(grid), "--out", str(out), "--resume", "--json")
        assert json.loads(p.stdout)["ran"] == 1


def test_sweep_and_report_refuse_what_they_cannot_read_or_write(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    for args in (["sweep", str(garbage), "--out", str(tmp_path / "r.parquet")],
                 ["report", str(garbage), "--out", str(tmp_path / "rep")],
                 ["plot", str(garbage), "--out", str(tmp_path / "x.png")]):
        p = run_cli(*args)
        assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    # A Parquet file that is not a sweep's.
    import pyarrow as pa

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), other)
    p = run_cli("report", str(other), "--out", str(tmp_path / "rep"))
    assert p.returncode == 2 and "not a results file" in p.stderr
    p = run_cli("plot", str(other), "--out", str(tmp_path / "x.png"))
    assert p.returncode == 2 and "flashlayer report" in p.stderr
    grid = tmp_path / "g.toml"
    grid.write_text(f'traces = ["{PG}"]\npolicies = ["lru"]\nbuffers = [50]\n')
    p = run_cli("sweep", str(grid), "--out", str(tmp_path / "x.csv"))
    assert p.returncode == 2 and ".parquet" in p.stderr and not (tmp_path / "x.csv").exists()
    # A grid whose trace fails leaves nothing behind.
    bad = tmp_path / "bad.csv"
    bad.write_text("page,op\n1,Q\n")
    grid.write_text(f'traces = ["{bad}"]\npolicies = ["lru"]\nbuffers = [50]\n')
    before = sorted(x.name for x in tmp_path.iterdir())
    p = run_cli("sweep", str(grid), "--out", str(tmp_path / "r.parquet"))
    assert p.returncode == 2, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == before


def test_the_file_store_takes_a_postgresql_trace_and_leaves_no_file_on_failure(tmp_path: Path) -> None:
    db = tmp_path / "db.file"
    p = run_cli("sim", PG, "--policy", "casa:cost=measured", "--buffer", "500", "--store", f"file:path={db}",
                "--json")
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)[0]
    pages = int(json.loads(run_cli("trace", "stats", PG, "--json", check=True).stdout)["distinct_pages"])
    # Page ids packed into dense slots: the file holds the trace's pages.
    assert db.stat().st_size <= pages * 4096 and row["physical_writes"] > 0
    # A run that fails after creating its file (its frames cannot be
    # had) removes it; a file the user had is kept.
    db2 = tmp_path / "db2.file"
    p = run_cli("sim", PG, "--policy", "lru", "--buffer", "500", "--store", f"file:path={db2},page_size={2**40}")
    assert p.returncode == 2 and "cannot allocate" in p.stderr and not db2.exists(), p.stderr
    p = run_cli("sim", PG, "--policy", "lru", "--buffer", "500", "--store", f"file:path={db},page_size={2**40}")
    assert p.returncode == 2 and db.exists()


def test_the_flash_store_refuses_to_invent_what_a_write_changes(tmp_path: Path) -> None:
    p = run_cli("sim", PG, "--policy", "lru", "--buffer", "500", "--store", "flash:method=pdl:256")
    assert p.returncode == 2 and "--with-bytes" in p.stderr and "changed=BYTES" in p.stderr
    rows = {}
    for b in (16, 1024):
        p = run_cli("sim", PG, "--policy", "lru", "--buffer", "500", "--store", f"flash:method=pdl:256,changed={b}",
                    "--json", check=True)
        rows[b] = json.loads(p.stdout)[0]
        assert rows[b]["flash_changed"] == b and rows[b]["store"].endswith(f"changed={b}")
    assert rows[16]["virtual_time"] < rows[1024]["virtual_time"]
    table = run_cli("sim", PG, "--policy", "lru", "--buffer", "500", "--store", "flash:method=opu,changed=64",
                    check=True).stdout
    assert "each write changes the page's first 64 bytes" in table
    bytes_trace = tmp_path / "b.flt"
    run_cli("trace", "gen", "pdl-updates", "--operations", "2000", "--with-bytes", "--out", str(bytes_trace),
            check=True)
    p = run_cli("sim", str(bytes_trace), "--policy", "lru", "--buffer", "50", "--store",
                "flash:method=opu,changed=64")
    assert p.returncode == 2 and "byte ranges say" in p.stderr


def test_a_capture_refuses_a_users_file_before_it_records(tmp_path: Path) -> None:
    users = tmp_path / "users.csv.gz"
    users.write_bytes(b"not a trace of flashlayer's")
    for args in (["trace", "capture", "strace", "--out", str(users), "--", "true"],
                 ["trace", "capture", "postgres", "--out", str(users), "--seconds", "1"]):
        p = run_cli(*args)
        assert p.returncode == 2 and "--force" in p.stderr, p.stderr
        assert users.read_bytes() == b"not a trace of flashlayer's"


def test_a_report_records_the_commit_its_code_ran_from_not_the_tree_at_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long report runs while its tree may change: the commit it records
    is the one taken before the sections run."""
    from flashlayer import experiments, report

    tree = {"dirty": False}
    monkeypatch.setattr(report, "_git_commit", lambda: "c0ffee" + ("+dirty" if tree["dirty"] else ""))

    def section(mode: str, inputs: object, quiet: bool) -> dict[str, object]:
        tree["dirty"] = True  # the tree changes while the section runs
        return {"title": "t", "intro": "i", "figures": {}, "claims": [], "checks": [], "notes": [], "runs": [],
                "traces": []}
    monkeypatch.setitem(experiments.EXPERIMENTS, "bounds", section)
    results = report.reproduce(["bounds"], "quick", tmp_path / "out", None, quiet=True)
    assert results["meta"]["git_commit"] == "c0ffee"
