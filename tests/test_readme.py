"""The README and the pages under ``docs/`` run: every shell command and
Python example in them is run as written, from a fresh folder that sees the
repository's ``data/`` and ``.venv/`` (the Rust examples are doctests of the
crate). Pages a command generates (``PERFORMANCE.md``, ``LIBCACHESIM.md``)
are not read."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from flashlayer.files import MARKDOWN_MARK
from tests.conftest import ROOT, reproduce_quick

README = (ROOT / "README.md").read_text()
#: The pages people write, the README first, in the order their commands run.
PAGES = [README] + [text for page in ("USAGE", "PYTHON", "RUST", "POLICIES", "REPRODUCING", "VALIDATION",
                                      "BENCHMARKS", "DESIGN")
                    if MARKDOWN_MARK not in (text := (ROOT / "docs" / f"{page}.md").read_text())]
BLOCKS = [b for page in PAGES for b in re.findall(r"```(\w+)\n(.*?)```", page, flags=re.S)]


def doc(name: str) -> str:
    """The text of ``docs/NAME.md``."""
    return (ROOT / "docs" / f"{name}.md").read_text()

# The two entry points set up and test this very repository; run here they
# would recurse into the test suite. CI runs them (`.ci/run`).
ENTRY_POINTS = ("bash scripts/setup", "bash scripts/test")


def _commands() -> list[str]:
    out = []
    for lang, body in BLOCKS:
        if lang != "sh":
            continue
        for line in body.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


#: Each command once: the README shows some that a page shows again.
COMMANDS = list(dict.fromkeys(_commands()))


def test_the_readme_opens_with_the_two_commands() -> None:
    first = re.findall(r"```sh\n(.*?)```", README, flags=re.S)[0]
    assert "bash scripts/setup && .venv/bin/flashlayer reproduce --quick --out report" in first
    assert "bash scripts/test" in first
    run = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/test" in run


def test_commands_are_copy_pasteable() -> None:
    for c in COMMANDS:
        assert "[" not in c and "..." not in c, f"placeholder in: {c}"
        assert c.startswith((".venv/bin/", "bash scripts/", "source ", "printf ", "cat ")), \
            f"not runnable as written: {c}"
        if c.startswith((".venv/bin/flashlayer", "cat ")):
            for word in re.findall(r"\b[A-Z]{2,}\b", c):
                assert word in ("TPC",), f"placeholder {word} in: {c}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("readme")
    os.symlink(ROOT / "data", d / "data")
    os.symlink(ROOT / ".venv", d / ".venv")
    return d


#: A section's quick report, which the section's own test also makes.
QUICK = re.compile(r"\.venv/bin/flashlayer reproduce (\w+) --quick --out (\S+)")


def _group(command: str) -> pytest.MarkDecorator:
    """A section's quick report runs on the worker of the section's own
    test (which makes the same report); every other command runs on one
    worker, in order, since later commands read what earlier ones wrote."""
    m = QUICK.fullmatch(command)
    return pytest.mark.xdist_group(f"reproduce-{m.group(1)}" if m else "readme")


@pytest.mark.parametrize("command", [pytest.param(c, marks=_group(c)) for c in COMMANDS
                                     if not c.startswith(ENTRY_POINTS)])
def test_every_readme_command_runs(workdir: Path, command: str) -> None:
    if m := QUICK.fullmatch(command):
        reproduce_quick(m.group(1), workdir / m.group(2))
        assert (workdir / m.group(2) / "index.html").is_file()
        return
    p = subprocess.run(["bash", "-c", command], cwd=workdir, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, f"{command}\n{p.stderr}"
    assert "Traceback" not in p.stderr


def test_the_python_examples_run(workdir: Path) -> None:
    code = [body for lang, body in BLOCKS if lang == "python"]
    assert code
    for body in code:
        p = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", body], cwd=workdir, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr


def test_the_device_table_is_the_engines_presets() -> None:
    from flashlayer import _native

    section = doc("USAGE").split("## Device presets")[1].split("\n\n")[1]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()[2:]]
    presets = {p["name"]: p for p in _native.presets()}
    assert sorted(r[0] for r in rows) == sorted(presets)
    for name, read, write, seq_write, _erase, _unit, k, *_ in rows:
        p = presets[name]
        assert (float(read), float(write), float(seq_write), int(k)) == (
            p["read"], p["write"], p["seq_write"], p["k"]), name


def test_the_bench_rates_the_readme_quotes_are_the_performance_pages() -> None:
    """Every `bench policies` rate the docs state (the bullet of
    BENCHMARKS.md, the sampled curve's speed in USAGE.md) is a req/s cell
    of docs/PERFORMANCE.md, so regenerating the page without them shows
    here."""
    page = (ROOT / "docs" / "PERFORMANCE.md").read_text()
    rates = {line.split("|")[2].strip() for line in page.splitlines() if line.startswith("| `")}
    text = doc("BENCHMARKS")
    bullet = text.split("- `bench policies` times")[1].split("\n- ")[0].split("LRU replays")[1]
    curve = doc("USAGE").split("Speed (`flashlayer bench policies`,")[1].split("(`docs/PERFORMANCE.md`)")[0]
    curve = curve.split("the exact curve")[1]
    quoted = re.findall(r"\b\d+(?:\.\d+)?M\b", bullet + curve)
    assert len(quoted) >= 10
    assert set(quoted) <= rates, sorted(set(quoted) - rates)


def test_the_watt_simulate_bench_figures_the_readme_quotes_are_the_kept_runs() -> None:
    """VALIDATION.md's WATT-Simulate seconds and counts on the bench trace
    are those `data/successors/watt-simulate-bench.csv` keeps."""
    import csv

    with (ROOT / "data" / "successors" / "watt-simulate-bench.csv").open() as f:
        runs = {r["algo"]: r for r in csv.DictReader(f)}
    text = " ".join(doc("VALIDATION").split("`bench policies`' own trace and buffer")[1].split("times faster")[0].split())
    for algo in ("lru", "watt"):
        r = runs[algo]
        for figure in (f"{float(r['seconds']):,.0f} s", f"{int(r['misses']):,}", f"{int(r['writes']):,}"):
            assert figure in text, f"{algo}: {figure}"
