"""A result row's fields are declared once, in the engine
(``_native.row_fields``): every kind's rows are flat and hold exactly the
declared fields, and Python's row type (`flashlayer.results.SimResult`) and
``docs/USAGE.md``'s lists are what ``scripts/fields.py`` writes from them."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path

from flashlayer import _native
from flashlayer.results import SimResult
from tests.conftest import ROOT, run_cli

#: The kinds whose defaults do not run on the test's trace (no byte ranges; 600 pages), as the test runs
#: them; every other kind runs as its bare name.
SPECS = {"file": "file:path={tmp}/db", "flash": "flash:changed=8", "ftl": "ftl:block=8"}


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


def test_pythons_row_type_and_the_usage_lists_are_written_from_the_declarations() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "fields.py"), "--check"], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    hints = typing.get_type_hints(SimResult)
    common, kinds = _declared()
    assert list(hints) == [n for n, _, _ in common] + [n for fs in kinds.values() for n, _, _ in fs] + ["series"]


def test_every_kinds_rows_are_flat_and_hold_the_declared_fields(tmp_path: Path) -> None:
    common, kinds = _declared()
    t = tmp_path / "t.csv"
    t.write_text("page,op\n" + "".join(f"{(i * 37) % 600},{'W' if i % 3 else 'R'}\n" for i in range(5000)))
    for kind in kinds:
        (row,) = json.loads(run_cli("sim", str(t), "--policy", "lru", "--buffer", "50", "--store",
                                    SPECS.get(kind, kind).format(tmp=tmp_path), "--json", check=True).stdout)
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
