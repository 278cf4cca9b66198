"""The layering DESIGN.md states holds in the code: each top-level module
of the engine uses only the layers below its own (doc comments and tests
aside), and the Python package imports without a circle."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.conftest import ROOT

ENGINE = ROOT / "crates" / "flashlayer" / "src"
PACKAGE = ROOT / "python" / "flashlayer"


def layers() -> list[list[str]]:
    """DESIGN.md's layers of the engine, top down: the first words of each
    line of its ``text`` block under "The engine is layered"."""
    design = (ROOT / "docs" / "DESIGN.md").read_text()
    block = re.search(r"The engine is layered\..*?```text\n(.*?)```", design, flags=re.S)
    assert block, "DESIGN.md has no layer block"
    return [re.split(r"\s{2,}", line.strip())[0].split(" · ") for line in block[1].splitlines() if line.strip()]


def code_lines(path: Path) -> Iterator[tuple[int, str]]:
    """A Rust file's lines up to its test module, comments left out."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if text.startswith("#[cfg(test)]"):
            return
        if not text.startswith("//"):
            yield n, line.split("//")[0]


def engine_uses() -> dict[tuple[str, str], str]:
    """Each (module, module it uses) of the engine's top level, with the
    first place it does."""
    tops = {p.stem for p in ENGINE.iterdir() if p.is_dir() or (p.suffix == ".rs" and p.stem != "lib")}
    uses: dict[tuple[str, str], str] = {}
    for path in ENGINE.rglob("*.rs"):
        rel = path.relative_to(ENGINE)
        top = rel.parts[0].removesuffix(".rs")
        if top == "lib":
            continue
        for n, line in code_lines(path):
            for used in re.findall(r"crate::([a-z_]+)", line):
                if used in tops and used != top:
                    uses.setdefault((top, used), f"{rel}:{n}")
    return uses


def test_every_module_of_the_engine_is_in_one_layer() -> None:
    named = [m for layer in layers() for m in layer]
    tops = sorted(p.stem for p in ENGINE.iterdir() if p.is_dir() or (p.suffix == ".rs" and p.stem != "lib"))
    assert sorted(named) == tops


def test_the_engine_uses_only_the_layers_below() -> None:
    level = {m: i for i, layer in enumerate(reversed(layers())) for m in layer}
    wrong = [f"{where}: {a} uses {b}" for (a, b), where in sorted(engine_uses().items()) if level[b] >= level[a]]
    assert not wrong, "\n".join(wrong)


def package_imports() -> dict[str, set[str]]:
    """Each module of the Python package and the package's modules it
    imports (at run time: imports for type checking only are left out)."""
    mods = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
            for p in PACKAGE.rglob("*.py")}
    mods_names = set(mods) | {"flashlayer._native"}

    def owner(name: str) -> str:
        while name not in mods_names:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                if base.split(".")[0] == "flashlayer":
                    out |= {owner(f"{base}.{a.name}") for a in node.names}
            elif isinstance(node, ast.Import):
                out |= {owner(a.name) for a in node.names if a.name.split(".")[0] == "flashlayer"}
        graph[name] = out - {name}
    return graph


def test_the_python_package_has_no_import_circle() -> None:
    try:
        TopologicalSorter(package_imports()).prepare()
    except CycleError as e:
        raise AssertionError(f"import circle: {' -> '.join(e.args[1])}") from None


def test_the_checks_see_a_use_that_goes_up() -> None:
    # The reading itself: the buffer pool follows the calling protocol, so
    # `buffer` uses `drive`, and a comment naming `sim` is not a use.
    uses = engine_uses()
    assert ("buffer", "drive") in uses
    assert ("drive", "buffer") not in uses
    graph = package_imports()
    assert "flashlayer._native" in graph["flashlayer.replay"]
    assert "flashlayer.replay" in graph["flashlayer.cli.sim"]
