"""``flashlayer list``: policies, hierarchy schemes, device presets and trace
formats."""

from __future__ import annotations

import argparse
from typing import Any

from flashlayer import _native
from flashlayer.cli.common import emit_json, print_table


def run(a: argparse.Namespace) -> None:
    if a.what == "policies":
        rows: list[dict[str, Any]] = [
            {"name": n, "description": d,
             "params": [{"key": k, "default": v, "allowed": al, "help": h} for k, v, al, h in ps]}
            for n, d, ps in _native.policies()
        ]
    elif a.what == "schemes":
        rows = [{"name": n, "description": d} for n, d in _native.tier_schemes()]
    elif a.what == "formats":
        rows = [{"name": n, "description": d} for n, d in _native.formats()]
    else:
        rows = [dict(p) for p in _native.presets()]
    if a.json:
        emit_json(rows)
        return
    if a.what == "devices":
        print_table(
            rows,
            [("name", "preset"), ("read", "read"), ("write", "write"), ("seq_write", "seq write"),
             ("erase", "erase"), ("unit", "unit")],
        )
        print()
        for r in rows:
            print(f"{r['name']}: {r['source']}")
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name'].ljust(width)}  {r['description']}")
        for p in r.get("params", []):
            print(f"{''.ljust(width)}    {p['key']}={p['default']}  {p['help']} ({p['allowed']}; default {p['default']})")


def add(sub: Any) -> None:
    ls = sub.add_parser("list", help="list policies, hierarchy schemes, device presets or trace formats",
                        description="policies: buffer policies with their parameters; schemes: the DRAM / SSD / "
                        "disk schemes of sim --tier with their parameters and defaults; devices: the presets with "
                        "their sources; formats: the trace formats.")
    ls.add_argument("what", choices=["policies", "schemes", "devices", "formats"])
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=run)
