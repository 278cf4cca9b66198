"""Paper-scale traces, captured on this machine and kept in a cache.

The traces shipped in ``data/traces`` are small enough to commit; the papers
ran larger databases. A :class:`Capture` names how to record one of the
papers' workloads at its published scale with ``flashlayer trace capture``
(PostgreSQL under bpftrace), and :func:`ensure` records what the cache
lacks:

- **Content-hashed.** A capture's file is named by the hash of what
  produces it (its kind, options and this format's version), so changing a
  preset records anew and an unchanged one is reused. Beside each trace a
  ``.json`` records the command, the seconds it took, the trace's shape and
  the SHA-256 of its bytes, checked on every reuse.
- **Resumable.** A trace appears under its final name only once its
  capture has finished and its record is written; an interrupted capture
  leaves at most a ``.partial`` file, removed and recorded again by the
  next run. Finished captures are never repeated.
- **Told before it starts.** :func:`plan` says which captures are missing
  and about how long they take, from each preset's estimate on a 2-core
  machine.

The cache folder is ``$FLASHLAYER_CACHE/traces``, else
``~/.cache/flashlayer/traces``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer import capture as pg
from flashlayer._native import FlashlayerError
from flashlayer.papers import (
    CASA_DSS,
    CASA_OLTP,
    FDBUFFER_TM1,
    FDBUFFER_TPCB,
    FDBUFFER_TPCC,
    HYPRO_TATP,
    HYPRO_TPCB,
    PaperTrace,
)

#: Bumped when the capture of a preset would record something else from the
#: same options; part of every cache key.
FORMAT = 1


@dataclass(frozen=True)
class Capture:
    """How to record one workload with ``flashlayer trace capture postgres``.

    ``options`` are :class:`flashlayer.capture.CaptureOptions` fields.
    ``stands_for`` names the papers' traces it reproduces; ``scale_note``
    says where it falls short of them and why."""

    name: str
    options: dict[str, Any]
    stands_for: tuple[PaperTrace, ...]
    #: Minutes this capture takes on a 2-core machine (load and trace).
    estimate_minutes: float
    scale_note: str = ""
    kind: str = "postgres"

    def scaled(self, **options: Any) -> Capture:
        """This capture with some options changed (a smaller scale for a
        quick check); its name says so and its key differs."""
        return replace(self, name=f"{self.name}-scaled", options={**self.options, **options})

    def key(self) -> str:
        """The hash of what produces this capture's file."""
        text = json.dumps({"format": FORMAT, "kind": self.kind, "options": self.options}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def file_name(self) -> str:
        return f"{self.name}-{self.key()}.csv.gz"

    def command(self) -> str:
        """The command line that records this capture by hand."""
        o = self.options
        parts = ["flashlayer trace capture postgres", f"--workload {o['workload']}"]
        size = pg.SIZE_OPTION[o["workload"]]
        parts.append(f"--{size.replace('_', '-')} {o[size]}")
        if o["workload"] != "tpch":
            parts += [f"--seconds {o['seconds']}", f"--clients {o['clients']}"]
        parts += [f"--shared-buffers {o['shared_buffers']}", f"--out {self.file_name()}"]
        return " ".join(parts)


#: How every capture runs its workload: 300 s with 4 clients (the papers
#: ran 20 clients for hours; 20 lose bpftrace events on 2 cores).
RUN = {"seconds": 300, "clients": 4, "shared_buffers": "16MB"}

#: The paper-scale captures, by name.
CAPTURES: dict[str, Capture] = {
    c.name: c
    for c in (
        Capture("pg15-tpcb-s150", {"workload": "tpcb", "scale": 150, "subscribers": 0, **RUN},
                (FDBUFFER_TPCB, HYPRO_TPCB), estimate_minutes=7.0,
                scale_note="pgbench scale 150 is FD-Buffer's 150 branches (2.2 GB) and about HyPro's 2 GB; in 300 s "
                "with 4 clients it touches most of the accounts table, so it has far more distinct pages than "
                "HyPro's 35.1k."),
        Capture("pg15-tatp-1m", {"workload": "tatp", "scale": 1, "subscribers": 1_000_000, **RUN},
                (FDBUFFER_TM1, HYPRO_TATP), estimate_minutes=8.0,
                scale_note="1 million subscribers is FD-Buffer's TM1 (2.4 GB) and about HyPro's 2 GB TATP; HyPro's "
                "trace touched twice as many pages in fewer references."),
        Capture("pg15-tpcc-w50", {"workload": "tpcc", "warehouses": 50, "seconds": 30, "clients": 4,
                                  "shared_buffers": "16MB"},
                (CASA_OLTP,), estimate_minutes=7.0,
                scale_note="50 warehouses is CASA's TPC-C database; 30 s with 4 clients records as many requests as "
                "the machine serves (2M to 4M on 2 cores, against the paper's 1.4M), over more distinct pages than "
                "its 60k (pgbench picks a warehouse per transaction where CASA's terminals each kept one)."),
        Capture("pg15-tpcc-w20", {"workload": "tpcc", "warehouses": 20, "seconds": 135, "clients": 4,
                                  "shared_buffers": "16MB"},
                (FDBUFFER_TPCC,), estimate_minutes=9.0,
                scale_note="20 warehouses is FD-Buffer's TPC-C database (2.4 GB); 135 s with 4 clients records "
                "14M to 15M references on 2 cores, near its 16.8M, with about 21% writes against its 15%."),
        Capture("pg15-tpch-sf05", {"workload": "tpch", "scale_factor": 0.5, "shared_buffers": "16MB"},
                (CASA_DSS,), estimate_minutes=3.0,
                scale_note="the paper gives no scale factor; at 0.5 the 22 queries touch about its 104k pages "
                "(0.1 touches 20.8k)."),
    )
}


def cache_dir() -> Path:
    """Where captures are kept: ``$FLASHLAYER_CACHE/traces``, else
    ``~/.cache/flashlayer/traces``."""
    root = os.environ.get("FLASHLAYER_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "flashlayer") / "traces"


@dataclass
class Cached:
    """A capture in the cache: its trace and what its record says."""

    capture: Capture
    path: Path
    record: dict[str, Any] = field(default_factory=dict)


def _record_path(trace: Path) -> Path:
    return trace.with_name(trace.name.removesuffix(".csv.gz") + ".json")


def lookup(capture: Capture, folder: Path) -> Cached | None:
    """The capture if the cache holds it whole (its record written and its
    bytes' hash as recorded); None if it must be recorded. A trace whose
    bytes no longer match its record is an error: the cache was changed
    by hand."""
    from flashlayer.grid import content_hash

    trace = folder / capture.file_name()
    record = _record_path(trace)
    if not (trace.is_file() and record.is_file()):
        return None
    saved = json.loads(record.read_text())
    if content_hash(trace) != saved.get("sha256"):
        raise FlashlayerError(f"{trace}: its bytes do not match the SHA-256 its record {record.name} gives; delete "
                              "both to record it again")
    return Cached(capture, trace, saved)


class CannotRecord(FlashlayerError):
    """Captures are missing and this machine cannot record them."""


def plan(captures: list[Capture], folder: Path) -> tuple[list[Capture], float]:
    """The `captures` the cache lacks, and about how many minutes they take."""
    missing = [c for c in captures if lookup(c, folder) is None]
    return missing, sum(c.estimate_minutes for c in missing)


def record(capture: Capture, folder: Path, quiet: bool, runner: Any = None) -> Cached:
    """Records `capture` into `folder`: into a ``.partial`` file first, then
    its record, then its final name. `runner` is the capture function
    (default :func:`flashlayer.capture.capture`; a test passes a smaller
    workload's)."""
    from flashlayer.grid import content_hash

    folder.mkdir(parents=True, exist_ok=True)
    final = folder / capture.file_name()
    partial = final.with_name(final.name + ".partial.csv.gz")
    partial.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        opts = pg.CaptureOptions(out=partial, **capture.options)
        summary = (runner or pg.capture)(opts, quiet=quiet)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    stats = _native.Trace.open(partial).stats()
    saved = {
        "capture": capture.name,
        "key": capture.key(),
        "command": capture.command(),
        "options": capture.options,
        "seconds": round(time.monotonic() - started, 1),
        "recorded": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "requests": int(stats["requests"]),
        "distinct_pages": int(stats["distinct_pages"]),
        "writes": int(stats["writes"]),
        "relations": summary.get("relations", {}),
        "sha256": content_hash(partial),
    }
    _record_path(final).write_text(json.dumps(saved, indent=2) + "\n")
    os.replace(partial, final)
    return Cached(capture, final, saved)


def ensure(captures: list[Capture], folder: Path | None = None, quiet: bool = False,
           runner: Any = None) -> dict[str, Cached]:
    """Every one of `captures` by name, recording the ones the cache lacks
    (saying first which and about how long), each reused from then on.
    Raises :class:`CannotRecord` before recording anything if the default
    runner's prerequisites (root, bpftrace, PostgreSQL) are missing."""
    folder = folder or cache_dir()
    found = {c.name: lookup(c, folder) for c in captures}
    missing = [c for c in captures if found[c.name] is None]
    if missing:
        if runner is None:
            try:
                pg.check_prerequisites(pg.CaptureOptions(out=folder / "check"))
            except FlashlayerError as e:
                raise CannotRecord(f"recording {', '.join(c.name for c in missing)} needs what this machine lacks: "
                                   f"{e}") from None
        progress.note(f"capturing {len(missing)} paper-scale trace(s) into {folder}, about "
                      f"{sum(c.estimate_minutes for c in missing):.0f} min on 2 cores: "
                      f"{', '.join(c.name for c in missing)}", quiet)
    out: dict[str, Cached] = {}
    for i, c in enumerate(captures, 1):
        cached = found[c.name]
        if cached is None:
            progress.note(f"capture {i}/{len(captures)}: {c.name} ({c.command()})", quiet)
            cached = record(c, folder, quiet, runner)
            progress.note(f"capture {i}/{len(captures)}: {c.name}: {cached.record['requests']:,} requests, "
                          f"{cached.record['distinct_pages']:,} pages in {cached.record['seconds']:.0f} s", quiet)
        out[c.name] = cached
    return out


def describe(cached: Cached) -> dict[str, Any]:
    """What the report records of a capture."""
    return {"capture": cached.capture.name, **{k: cached.record[k] for k in
            ("command", "seconds", "recorded", "requests", "distinct_pages", "writes", "sha256")},
            "stands_for": [asdict(p) for p in cached.capture.stands_for], "scale_note": cached.capture.scale_note}
