from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flashlayer.experiments.inventory import PAPERS
from flashlayer.report.account import KINDS

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "data" / "traces"


def run_cli(*args: str, check: bool = False, umask: int = -1, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Runs the real console entry point in a subprocess, as a user would
    (with `umask`, if given, as its file mode mask), stopping it after
    `timeout` seconds."""
    p = subprocess.run(
        [sys.executable, "-m", "flashlayer.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        umask=umask,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"flashlayer {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def cli_in_process(args: list[str]) -> tuple[int, str, str]:
    """Runs the CLI in this process, for tests that run it thousands of
    times: exit code, stdout, stderr. An exception other than the CLI's own
    exit (an engine panic is one) fails the test, naming the command."""
    import contextlib
    import io

    from flashlayer.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
        except BaseException as e:
            raise AssertionError(f"flashlayer {args!r}: {type(e).__name__}: {e}") from e
    return code, out.getvalue(), err.getvalue()


#: The first report of each section's quick run in this test process, and
#: what that run printed.
_QUICK_REPORTS: dict[str, tuple[Path, str]] = {}


def reproduce_quick(section: str, out: Path) -> str:
    """``flashlayer reproduce SECTION --quick --out OUT --json`` under umask
    022, run once per test process: the section tests, the README's
    commands and the CLI's own tests ask for the same reports, so a later
    call gets a copy of the first run's folder (modes kept). Returns what
    the run printed. Under pytest-xdist, tests that call this carry the mark
    ``xdist_group("reproduce-SECTION")``, which keeps them on one worker."""
    if section in _QUICK_REPORTS:
        first, printed = _QUICK_REPORTS[section]
        shutil.copytree(first, out)
        return printed
    printed = run_cli("reproduce", section, "--quick", "--out", str(out), "--json", check=True, umask=0o022).stdout
    _QUICK_REPORTS[section] = (out, printed)
    return printed


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    p = tmp_path / "small.csv"
    p.write_text("page,op\n1,R\n2,W\n1,R\n3,R\n2,R\n4,W\n1,W\n5,R\n")
    return p


#: The full-scale report kept in the repository (``reproduce --full``).
FULL_REPORT = Path(__file__).resolve().parent.parent / "docs" / "report-full" / "results.json"


def assert_full_report_states(section: str, quick: dict[str, Any]) -> None:
    """The full-scale report in ``docs/`` states the claims this code
    states: the section's claim ids in a quick run are its ids there, the
    full run adding only claims on the paper-scale captures (ids with
    ``-pg``) and on traces fitted to a paper's table (ids with ``-fit``),
    and its commit is recorded."""
    full = json.loads(FULL_REPORT.read_text())
    assert full["meta"]["mode"] == "full" and full["meta"]["git_commit"], full["meta"]
    # The papers a section's claims are of (successors': ACE's and WATT's).
    papers = {c["paper"] for c in quick["claims"]}
    ours = {c["id"] for c in quick["claims"]}
    theirs = {c["id"] for c in full["claims"] if c["paper"] in papers}
    assert ours, section
    assert ours <= theirs, f"claims missing from {FULL_REPORT}: regenerate it ({sorted(ours - theirs)})"

    def full_only(i: str) -> bool:
        return "-pg" in i or "-fit" in i

    assert all(full_only(i) for i in theirs - ours), f"{FULL_REPORT} has claims the code no longer states: " \
        f"{sorted(i for i in theirs - ours if not full_only(i))}"
    for c in full["claims"]:
        assert_claim_complete(c)


def quick_section(section: str, out: Path) -> dict[str, Any]:
    """The results of ``reproduce SECTION --quick`` into ``out``
    (:func:`reproduce_quick`), checked to state what the full-scale report
    states (:func:`assert_full_report_states`)."""
    reproduce_quick(section, out)
    results: dict[str, Any] = json.loads((out / "results.json").read_text())
    assert_full_report_states(section, results)
    return results


def assert_claim_complete(c: dict[str, object]) -> None:
    """A report claim carries what the report promises: the paper's value
    beside ours, a gap exactly when it fails, and then a why that names the
    cause (not the gap again)."""
    assert {"paper", "kind", "id", "text", "source", "paper_value", "tolerance", "ours", "holds", "gap"} <= c.keys(), c
    assert c["source"] and c["paper_value"] and c["ours"], c["id"]
    assert isinstance(c["tolerance"], str) and len(c["tolerance"]) > 8, f"{c['id']} states no tolerance"
    # A bound's soundness and results beyond the papers are not the papers'.
    assert c["kind"] in KINDS, c["id"]
    assert (c["kind"] == "bound") == (str(c["id"]).endswith("-above-bound") or c["id"] == "bounds-sound"), c["id"]
    assert c["kind"] != "paper" or c["paper"] in PAPERS, c["id"]
    assert (c["gap"] is None) == c["holds"], c["id"]
    # A paper's claim names the workload it is judged on, and how it stands
    # to the paper's; one its workload cannot test says why, with numbers.
    if c["kind"] == "paper":
        assert isinstance(c.get("workload"), str) and len(str(c["workload"])) > 10, f"{c['id']} names no workload"
        assert c.get("setting") in ("reproduces", "generalizes"), c["id"]
    if c.get("untestable"):
        assert (any(ch.isdigit() for ch in str(c["untestable"])) and "table " in str(c["untestable"])) or \
            "figure" in str(c["untestable"]), f"{c['id']}: cannot be tested, but says no number or evidence"
    if not c["holds"]:
        why = c.get("why")
        assert isinstance(why, str) and len(why) > 40 and why != c["gap"], f"{c['id']} fails without a why"
        assert "figure " in why.lower() or "table " in why.lower(), f"{c['id']}: its why points at no evidence"
