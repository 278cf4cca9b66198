"""A grid file: TOML read and checked whole (`parse_grid`, `load_grid`),
its traces, cells and the example ``flashlayer sweep --example`` prints."""

from __future__ import annotations

import glob
import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError
from flashlayer.checks import distinct

KEYS = {
    "traces": "trace files: paths or globs (relative to the grid file), or tables {path, format, page_size}",
    "format": "input format of every trace given as a plain path (default: detected)",
    "page_size": "page size in bytes for block traces given as a plain path",
    "policies": "policy specs with parameters, as in 'sim --policy'",
    "buffers": "buffer sizes: pages, or 'P%' of each trace's distinct pages",
    "stores": "store specs, as in 'sim --store' ('flashlayer list stores'; default: ['cost'])",
    "devices": "device cost models: the shorthand of cost stores ('cost:device=D'); not with stores",
    "flush_at_end": "write the pages still dirty at the end (default: each store's own)",
}
TRACE_KEYS = {"path", "format", "page_size"}

EXAMPLE = """\
# A flashlayer sweep grid: every combination of the lists below is one cell,
# one row of the result. Run it with
#   flashlayer sweep grid.toml --out results.parquet [--engine ray]

# Trace files: paths or globs, relative to this file (here the shipped
# traces, by absolute path). A table gives a format
# or page size for one trace: {path = "x.blk", format = "spc", page_size = 4096}
traces = ["data/traces/pg15-tpcc-sysbench-w2.csv.gz", "data/traces/pg15-tpcb-*.csv.gz"]

# Policies with parameters, as in 'flashlayer sim --policy' ('flashlayer list policies').
# Offline policies: belady on every store but a HyPro tier (whose SSD serves
# requests DRAM never sees), costopt-ub on cost stores only.
policies = ["lru", "arc", "cflru:w=0.25", "casa", "fdbuffer", "cfdc", "wblandlord"]

# Buffer sizes: pages, or a share of each trace's distinct pages.
buffers = ["1%", "3%", "10%", 2000]

# Stores ('flashlayer list stores'): cost models, a flash + magnetic disk,
# a DRAM / SSD / disk hierarchy, ... Default ["cost"] (a cost model of ratio:1:1).
stores = ["cost:device=ratio:1:8", "cost:device=fdbuffer-intel", "hybrid:placement=optimal",
          "tier:scheme=hypro,ssd=5%", "tier:scheme=lc,ssd=20%"]
# or, for cost models only, their shorthand:
# devices = ["ratio:1:1", "ratio:1:8", "fdbuffer-intel"]

# Write the dirty pages left at the end (default: each store's own, as in 'sim').
# flush_at_end = true
"""


@dataclass(frozen=True)
class TraceSpec:
    """One trace of a grid."""

    path: Path
    format: str | None = None
    page_size: int | None = None


@dataclass
class Grid:
    """A checked grid: every value valid, every trace present."""

    source: str
    traces: list[TraceSpec]
    policies: list[str]
    buffers: list[int | str]
    stores: list[str] = field(default_factory=list)
    flush_at_end: bool | None = None

    def cells(self) -> list[Cell]:
        return [Cell(t, p, str(b), s) for t in self.traces for p in self.policies
                for b in self.buffers for s in self.stores]


@dataclass(frozen=True)
class Cell:
    """One cell of a grid."""

    trace: TraceSpec
    policy: str
    buffer: str
    store: str

    @property
    def key(self) -> str:
        """The cell's identity in a results file (for ``--resume``)."""
        return f"{self.trace.path}|{self.policy}|{self.buffer}|{self.store}"


def _fail(source: str, key: str, problem: str) -> FlashlayerError:
    return FlashlayerError(f"{source}: {key}: {problem}")


def _list(source: str, raw: dict[str, Any], key: str, kinds: tuple[type, ...], default: list[Any] | None = None
          ) -> list[Any]:
    if key not in raw:
        if default is None:
            raise _fail(source, key, "missing (expected a list)")
        return default
    v = raw[key]
    if not isinstance(v, list) or not v:
        raise _fail(source, key, f"expected a non-empty list, got {v!r}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, kinds):
            raise _fail(source, key, f"unexpected value {x!r}")
    return list(v)


def _buffer(source: str, key: str, v: int | str) -> int | str:
    from flashlayer.replay import resolve_buffer

    try:
        resolve_buffer(v, 1)
    except FlashlayerError as e:
        raise _fail(source, key, str(e)) from None
    return v


def parse_grid(text: str, source: str = "<grid>", base: Path | None = None) -> Grid:
    """Checks a grid (TOML text) completely: any problem raises one line
    naming `source`, the key and the problem, before anything runs."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FlashlayerError(f"{source}: not valid TOML: {e}") from None
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise _fail(source, unknown[0], f"unknown key (keys: {', '.join(KEYS)})")
    base = base or Path.cwd()
    fmt = raw.get("format")
    page_size = raw.get("page_size")
    if fmt is not None and not isinstance(fmt, str):
        raise _fail(source, "format", f"expected a format name, got {fmt!r}")
    if page_size is not None and (isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1):
        raise _fail(source, "page_size", f"expected a whole number of bytes, got {page_size!r}")
    traces: list[TraceSpec] = []
    for entry in _list(source, raw, "traces", (str, dict)):
        if isinstance(entry, dict):
            extra = sorted(set(entry) - TRACE_KEYS)
            if extra or "path" not in entry:
                raise _fail(source, "traces", f"a trace table takes path, format, page_size; got {entry!r}")
            pattern, tfmt, tps = str(entry["path"]), entry.get("format"), entry.get("page_size")
        else:
            pattern, tfmt, tps = entry, fmt, page_size
        full = pattern if os.path.isabs(pattern) else str(base / pattern)
        matches = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
        if not matches:
            raise _fail(source, "traces", f"'{pattern}' matches no file")
        for m in matches:
            if not Path(m).is_file():
                raise _fail(source, "traces", f"{m}: no such file")
            traces.append(TraceSpec(Path(m), tfmt, tps))
    try:
        distinct("trace", [t.path.resolve() for t in traces])
    except FlashlayerError as e:
        raise _fail(source, "traces", str(e)) from None
    policies = []
    for p in _list(source, raw, "policies", (str,)):
        try:
            policies.append(_native.canonical("policy", p))
        except FlashlayerError as e:
            raise _fail(source, "policies", str(e)) from None
    buffers = [_buffer(source, "buffers", b) for b in _list(source, raw, "buffers", (int, str))]
    for key, what, values in (("policies", "policy", policies), ("buffers", "buffer size", buffers)):
        try:
            distinct(what, values)
        except FlashlayerError as e:
            raise _fail(source, key, str(e)) from None
    from flashlayer.replay import stores_of

    if "stores" in raw and "devices" in raw:
        raise _fail(source, "devices", "devices are the shorthand of cost stores; give stores or devices")
    key = "devices" if "devices" in raw else "stores"
    given = _list(source, raw, key, (str,), ["cost"])
    try:
        stores = stores_of(None, given) if key == "devices" else stores_of(given, None)
    except FlashlayerError as e:
        raise _fail(source, key, str(e)) from None
    for spec in stores:
        db = _file_path(spec)
        for t in traces:
            if db is not None and (base / db).exists() and os.path.samefile(base / db, t.path):
                raise _fail(source, key, f"'{spec}' names the trace {t.path} as its database file; name another")
    flush = raw.get("flush_at_end")
    if flush is not None and not isinstance(flush, bool):
        raise _fail(source, "flush_at_end", f"expected true or false, got {flush!r}")
    return Grid(source, traces, policies, buffers, stores, flush)


def _file_path(store: str) -> str | None:
    """The database file a canonical file store spec names, if any."""
    name, params = _native.spec_parts("store", store)
    return params.get("path") if name == "file" else None


def load_grid(path: Path) -> Grid:
    """Reads and checks a grid file (globs relative to its folder)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise FlashlayerError(f"{path}: not a grid file (TOML text expected; byte {e.start} is not UTF-8)") from None
    return parse_grid(text, str(path), path.parent)


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
