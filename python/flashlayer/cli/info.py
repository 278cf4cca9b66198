"""``flashlayer list``: policies, stores, hierarchy schemes, workloads, flash
page update methods, device presets,
trace formats and paper-scale captures, printed from the tables that define
them."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from flashlayer import _native
from flashlayer.cli.common import emit_json, paragraph, print_table

#: What a policy can serve as (`_native.policy_roles`), in words.
ROLE_WORDS = {"offline": "offline (a trace's replay only)", "pool": "a pool of FD-Buffer (clean=, dirty=)",
              "ace_base": "ACE's base (base=)", "registered": "registered by the program"}


def run(a: argparse.Namespace) -> None:
    kinds: dict[str, Literal["policy", "store", "scheme", "workload", "method"]] = {
        "policies": "policy", "stores": "store", "schemes": "scheme", "workloads": "workload", "methods": "method"}
    if a.what in kinds:
        rows: list[dict[str, Any]] = [
            {"name": n, "description": d,
             "params": [{"key": k, "default": v, "allowed": al, "help": h} for k, v, al, h in ps]}
            for n, d, ps in _native.table(kinds[a.what])
        ]
        if a.what == "policies":
            roles = dict(_native.policy_roles())
            for r in rows:
                r["serves"] = roles[r["name"]]
    elif a.what == "formats":
        rows = [{"name": n, "description": d} for n, d in _native.formats()]
    elif a.what == "captures":
        rows = _captures()
    else:
        rows = [dict(p) for p in _native.presets()]
    if a.json:
        emit_json(rows)
        return
    if a.what == "captures":
        for r in rows:
            state = f"cached: {r['cached']}" if r["cached"] else "not cached"
            print(f"{r['name']}  (about {r['estimate_minutes']:.0f} min; {state})\n    {r['command']}")
            for p in r["stands_for"]:
                print(f"    stands for {p['name']}, {p['requests']:,} references ({p['source']})")
            print(f"    {r['scale_note']}")
        return
    if a.what == "devices":
        print_table(
            rows,
            [("name", "preset"), ("read", "read"), ("write", "write"), ("seq_write", "seq write"),
             ("erase", "erase"), ("unit", "unit"), ("k", "k")],
        )
        print()
        for r in rows:
            print(f"{r['name']}: {r['source']}")
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name'].ljust(width)}  {r['description']}")
        if r.get("serves"):
            print(f"{''.ljust(width)}    serves as: {', '.join(ROLE_WORDS[s] for s in r['serves'])}")
        for p in r.get("params", []):
            key = f"{p['key']}={p['default']}" if p["default"] else p["key"]
            print(f"{''.ljust(width)}    {key}  {p['help']} ({p['allowed']})")


def _captures() -> list[dict[str, Any]]:
    """The paper-scale capture presets, and whether the cache holds each."""
    from dataclasses import asdict

    from flashlayer import tracecache

    folder = tracecache.cache_dir()
    rows = []
    for c in tracecache.CAPTURES.values():
        found = tracecache.lookup(c, folder)
        rows.append({"name": c.name, "command": c.command(), "estimate_minutes": c.estimate_minutes,
                     "stands_for": [asdict(p) for p in c.stands_for], "scale_note": c.scale_note,
                     "cached": str(found.path) if found else None})
    return rows


def add(sub: Any) -> None:
    ls = sub.add_parser("list", help="list policies, stores, hierarchy schemes, workloads, flash methods, device "
                        "presets or trace formats",
                        description=paragraph("""
                            policies: buffer policies with their parameters; stores: what sim --store replays
                            onto, with their parameters; schemes: the DRAM / SSD / disk schemes of a tier store;
                            workloads: the generators of 'trace gen' with their parameters; methods: the page
                            update methods of a flash store (a method's size follows its name, pdl:256);
                            devices: the presets with their sources; formats: the trace formats; captures: the
                            paper-scale traces 'reproduce --full' records (and whether the trace cache holds
                            each). Every spec is NAME[:KEY=VALUE,...]; a KEY left out takes the default shown."""))
    ls.add_argument("what", choices=["policies", "stores", "schemes", "workloads", "methods", "devices", "formats",
                                     "captures"])
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=run)
