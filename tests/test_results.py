"""A result row's fields are declared once, in the engine
(``_native.row_fields``): every kind's rows are flat and hold exactly the
declared fields, Python's row type (`flashlayer.results.SimResult`) says
the same names and types, and ``docs/USAGE.md`` lists them."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

from flashlayer import _native
from flashlayer.results import SimResult
from tests.conftest import ROOT, run_cli

#: Each kind's store as a test runs it.
STORES = {"cost": "cost", "file": "file:path={tmp}/db", "flash": "flash:changed=8", "ftl": "ftl:block=8",
          "hybrid": "hybrid", "tier": "tier:scheme=hypro"}


def _declared() -> tuple[list[tuple[str, str, bool]], dict[str, list[tuple[str, str, bool]]]]:
    """(name, Python type, filled by the API) of every row's fields, and of each kind's."""
    fields = {kind: [(n, ty, api) for n, ty, _, _, _, api in fs] for kind, fs in _native.row_fields()}
    common = fields.pop("")
    return common, fields


def test_every_kind_has_a_declaration_and_the_kinds_are_the_stores_table() -> None:
    _, kinds = _declared()
    assert list(kinds) == [name for name, _, _ in _native.table("store")]
    hints = typing.get_type_hints(SimResult)
    assert set(typing.get_args(hints["store_name"])) == set(kinds)


def test_pythons_row_type_is_the_engines_declaration() -> None:
    common, kinds = _declared()
    declared = {n: ty for n, ty, _ in common} | {n: ty for fs in kinds.values() for n, ty, _ in fs}
    hints = typing.get_type_hints(SimResult)
    # `series` is the one field that is not a value: counters sampled along the run.
    typed = {n: h for n, h in hints.items() if n != "series"}
    assert set(typed) == set(declared), (set(typed) ^ set(declared))

    def spelled(h: object) -> str:
        if typing.get_origin(h) is typing.NotRequired:
            (h,) = typing.get_args(h)
        if typing.get_origin(h) is typing.Literal:
            return type(typing.get_args(h)[0]).__name__
        args = typing.get_args(h)
        if args:
            return " | ".join("None" if a is type(None) else a.__name__ for a in args)
        return h.__name__  # type: ignore[attr-defined]

    wrong = {n: (spelled(h), declared[n]) for n, h in typed.items() if spelled(h) != declared[n]}
    assert not wrong


def test_every_kinds_rows_are_flat_and_hold_the_declared_fields(tmp_path: Path) -> None:
    common, kinds = _declared()
    t = tmp_path / "t.csv"
    t.write_text("page,op\n" + "".join(f"{(i * 37) % 600},{'W' if i % 3 else 'R'}\n" for i in range(5000)))
    for kind, store in STORES.items():
        (row,) = json.loads(run_cli("sim", str(t), "--policy", "lru", "--buffer", "50", "--store",
                                    store.format(tmp=tmp_path), "--json", check=True).stdout)
        assert not [k for k, v in row.items() if isinstance(v, (dict, list))], kind
        want = [n for n, _, _ in common] + [n for n, _, _ in kinds[kind]]
        assert sorted(row) == sorted(want), (kind, set(row) ^ set(want))
        kinds_of = {"int": int, "float": (int, float), "str": str, "bool": bool}
        for n, ty, _ in common + kinds[kind]:
            v = row[n]
            if v is None:
                assert ty.endswith("| None"), (kind, n)
            else:
                assert isinstance(v, kinds_of[ty.split(" |")[0]]), (kind, n, v)


def test_the_usage_page_lists_the_declared_fields() -> None:
    common, kinds = _declared()
    page = (ROOT / "docs" / "USAGE.md").read_text()
    listed: dict[str, list[str]] = {}
    for kind, text in re.findall(r"^- (every row|`\w+`): (.*)$", page, flags=re.M):
        names: list[str] = []
        # The list, before what the line says of it.
        for group in re.findall(r"`([a-z_0-9, ]+)`", re.split(r" \(|; ", text)[0]):
            names += [n.strip() for n in group.split(",")]
        listed[kind.strip("`")] = names
    assert sorted(listed.pop("every row")) == sorted(n for n, _, _ in common)
    assert {k: sorted(v) for k, v in listed.items()} == {k: sorted(n for n, _, _ in fs) for k, fs in kinds.items()}
