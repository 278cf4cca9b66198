"""``flashlayer list``: policies, stores, hierarchy schemes, device presets
and trace formats, printed from the engine's tables."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from flashlayer import _native
from flashlayer.cli.common import emit_json, print_table


def run(a: argparse.Namespace) -> None:
    kinds: dict[str, Literal["policy", "store", "scheme", "workload"]] = {
        "policies": "policy", "stores": "store", "schemes": "scheme", "workloads": "workload"}
    if a.what in kinds:
        rows: list[dict[str, Any]] = [
            {"name": n, "description": d,
             "params": [{"key": k, "default": v, "allowed": al, "help": h} for k, v, al, h in ps]}
            for n, d, ps in _native.table(kinds[a.what])
        ]
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
            key = f"{p['key']}={p['default']}" if p["default"] else p["key"]
            print(f"{''.ljust(width)}    {key}  {p['help']} ({p['allowed']})")


def add(sub: Any) -> None:
    ls = sub.add_parser("list", help="list policies, stores, hierarchy schemes, workloads, device presets or trace "
                        "formats",
                        description="policies: buffer policies with their parameters; stores: what sim --store "
                        "replays onto, with their parameters; schemes: the DRAM / SSD / disk schemes of a tier "
                        "store; workloads: the generators of 'trace gen' with their parameters; devices: the "
                        "presets with their sources; formats: the trace formats. Every spec is "
                        "NAME[:KEY=VALUE,...]; a KEY left out takes the default shown.")
    ls.add_argument("what", choices=["policies", "stores", "schemes", "workloads", "devices", "formats"])
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=run)
