"""``flashlayer trace capture postgres``: the buffer reference string of a
real, unmodified PostgreSQL.

A throwaway cluster is created in a temporary folder and started on a free
loopback port. bpftrace attaches to the server binary:

- the USDT probe ``buffer__read__done`` (fired by every ``ReadBuffer``): one
  ``R`` request for page ``(relfilenode << 34) | (fork << 32) | block``;
- the return of ``ReadBufferExtended``/``ReadBufferWithoutRelcache``, to learn
  which shared buffer now holds that page;
- the function ``MarkBufferDirty(buffer)``: one ``W`` request for the page
  that buffer holds.

Only processes whose parent is the throwaway cluster's postmaster are traced
(backends, autovacuum), so other servers on the machine do not leak in.
Events carry a timestamp and are sorted by it, since bpftrace merges per-CPU
buffers. If bpftrace reports lost events the capture fails rather than
writing an incomplete trace.

Workloads: ``tpcb`` (the default) initialises pgbench's TPC-B-like tables
(not traced) and traces a timed ``pgbench`` run; ``tatp`` loads the TATP
schema of ``flashlayer/workloads/tatp/load.sql`` with ``--subscribers``
subscribers (not traced) and traces ``pgbench`` running the seven TATP
transactions of that folder with TATP's mix (35/10/35/2/14/2/2%); ``tpcc``
loads TPC-C's nine tables with ``--warehouses`` warehouses and the five
transactions as PL/pgSQL functions (``flashlayer/workloads/tpcc/load.sql``,
not traced) and traces ``pgbench`` running them with TPC-C's mix
(45/43/4/4/4%); ``tpch`` generates TPC-H's tables at ``--scale-factor`` with
tpchgen-cli and loads them (``flashlayer/workloads/tpch/load.sql``, not
traced), then traces ``psql`` running the 22 queries once, in order
(``queries.sql``); ``bank`` initialises pgbench's tables like ``tpcb`` and
traces pgbench running ``flashlayer/workloads/bank/transfer.sql``: TPC-B's
transaction on an exponentially skewed account (``--skew``, the parameter
of pgbench's ``random_exponential``) scattered over the table by a fixed
permutation, the stand-in for CASA's bank trace (§5.2).
``--transactions`` runs a fixed number of transactions instead of
``--seconds``.
``-- COMMAND ...`` traces any command instead, run with ``PGHOST``,
``PGPORT``, ``PGUSER`` and ``PGDATABASE`` set to the cluster.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError

SCRIPT = """
usdt:{bin}:postgresql:buffer__read__done
/ curtask->real_parent->tgid == $1 /
{{
  @pend[tid] = ((uint64)arg4 << 34) | ((uint64)arg0 << 32) | (uint64)arg1;
  printf("%llu R %llu\\n", nsecs, @pend[tid]);
}}
uretprobe:{bin}:ReadBufferExtended,
uretprobe:{bin}:ReadBufferWithoutRelcache
/ @pend[tid] /
{{
  @buf[retval] = @pend[tid];
  delete(@pend[tid]);
}}
uprobe:{bin}:MarkBufferDirty
/ curtask->real_parent->tgid == $1 /
{{
  $p = @buf[arg0];
  if ($p != 0) {{ printf("%llu W %llu\\n", nsecs, $p); }} else {{ @unknown = count(); }}
}}
END {{ clear(@buf); clear(@pend); }}
"""


@dataclass
class CaptureOptions:
    out: Path
    pg_bin: Path | None = None
    seconds: int = 10
    clients: int = 4
    scale: int = 1
    shared_buffers: str = "16MB"
    command: list[str] = field(default_factory=list)
    workload: str = "tpcb"
    subscribers: int = 100_000
    warehouses: int = 1
    scale_factor: float = 0.1
    #: With ``bank``: the parameter of pgbench's ``random_exponential`` for
    #: the account drawn (larger: a hotter few accounts).
    skew: float = 4.0
    #: Transactions in all (pgbench ``-t`` per client); ``None``: run for
    #: ``seconds``.
    transactions: int | None = None


#: pgbench scripts of the TATP transactions with TATP's mix (percent).
TATP_MIX = (
    ("get_subscriber_data", 35),
    ("get_new_destination", 10),
    ("get_access_data", 35),
    ("update_subscriber_data", 2),
    ("update_location", 14),
    ("insert_call_forwarding", 2),
    ("delete_call_forwarding", 2),
)

#: pgbench scripts of the TPC-C transactions with TPC-C's mix (percent).
TPCC_MIX = (("new_order", 45), ("payment", 43), ("order_status", 4), ("delivery", 4), ("stock_level", 4))

WORKLOAD_DIR = Path(__file__).parent / "workloads"
#: Each workload, by the option that sets its size.
SIZE_OPTION = {"tpcb": "scale", "bank": "scale", "tatp": "subscribers", "tpcc": "warehouses",
               "tpch": "scale_factor"}
WORKLOADS = tuple(SIZE_OPTION)


def _fail(msg: str) -> FlashlayerError:
    return FlashlayerError(f"trace capture postgres: {msg}")


def find_pg_bin(explicit: Path | None) -> Path:
    """The PostgreSQL server's bin folder: ``--pg-bin``, else the newest
    ``/usr/lib/postgresql/*/bin`` (Debian's layout)."""
    if explicit is not None:
        candidates = [explicit]
    else:
        root = Path(os.environ.get("FLASHLAYER_PG_ROOT", "/usr/lib/postgresql"))
        found = sorted(root.glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
        candidates = found[::-1]
    for c in candidates:
        if (c / "postgres").is_file() and (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    where = str(explicit) if explicit else f"{os.environ.get('FLASHLAYER_PG_ROOT', '/usr/lib/postgresql')}/*/bin"
    raise _fail(f"no PostgreSQL server (postgres, initdb, pg_ctl) in {where}; install Debian's 'postgresql' package")


def check_prerequisites(opts: CaptureOptions) -> tuple[Path, str]:
    """Says exactly what is missing, or returns (bin folder, bpftrace path)."""
    if os.geteuid() != 0:
        raise _fail("needs root: bpftrace attaches uprobes to the server (run as root or with sudo)")
    bpftrace = shutil.which("bpftrace")
    if bpftrace is None:
        raise _fail("bpftrace not found on PATH; install it (apt-get install bpftrace)")
    pg_bin = find_pg_bin(opts.pg_bin)
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise _fail("needs the 'postgres' system user to run the throwaway cluster (Debian's postgresql creates it)") from None
    if opts.workload not in WORKLOADS:
        raise _fail(f"unknown workload '{opts.workload}'; expected one of {', '.join(WORKLOADS)}")
    if not opts.command and opts.workload != "tpch" and shutil.which("pgbench") is None \
            and not (pg_bin / "pgbench").is_file():
        raise _fail("pgbench not found; install postgresql-client or pass a command after --")
    if not opts.command and opts.workload == "tpch" and _tpchgen() is None:
        raise _fail("tpchgen-cli not found (it generates TPC-H's tables); pip install tpchgen-cli")
    probe = f"usdt:{pg_bin / 'postgres'}:postgresql:buffer__read__done"
    listed = subprocess.run([bpftrace, "-l", probe], capture_output=True, text=True, timeout=120)
    if "buffer__read__done" not in listed.stdout:
        raise _fail(
            f"{pg_bin / 'postgres'} has no dtrace probe buffer__read__done "
            "(PostgreSQL must be built with --enable-dtrace, as Debian's package is)"
        )
    return pg_bin, bpftrace


def _tpchgen() -> str | None:
    """tpchgen-cli: on PATH or beside this Python (a virtual environment's)."""
    beside = Path(sys.executable).parent / "tpchgen-cli"
    return shutil.which("tpchgen-cli") or (str(beside) if beside.is_file() else None)


def _psql(pg_bin: Path) -> str:
    return str(pg_bin / "psql") if (pg_bin / "psql").is_file() else (shutil.which("psql") or "psql")


def _size(opts: CaptureOptions) -> str:
    """The workload's size as a script variable: ``warehouses=50``."""
    key = SIZE_OPTION[opts.workload]
    return f"{key}={getattr(opts, key)}"


def _psql_file(pg_bin: Path, workload: str, name: str, *variables: str) -> list[str]:
    """psql running a script of the workload's folder with `variables`."""
    return [_psql(pg_bin), "-q", "-v", "ON_ERROR_STOP=1", *(x for v in variables for x in ("-v", v)), "-f",
            str(WORKLOAD_DIR / workload / name)]


def _load(opts: CaptureOptions, pg_bin: Path, pgbench: str, work: Path, env: dict[str, str]) -> None:
    """Creates the workload's database (not traced)."""
    if opts.workload in ("tpcb", "bank"):
        _run([pgbench, "-i", "-s", str(opts.scale), "-q"], "pgbench -i", env=env, timeout=3600)
        return
    variables = [_size(opts)]
    if opts.workload == "tpch":
        tables = work / "tpch"
        _run([str(_tpchgen()), "csv", "-s", str(opts.scale_factor), "-o", str(tables)], "tpchgen-cli")
        variables = [f"dir={tables}"]
    _run(_psql_file(pg_bin, opts.workload, "load.sql", *variables), f"loading {opts.workload.upper()}", env=env,
         timeout=4 * 3600)
    if opts.workload == "tpch":
        shutil.rmtree(tables)


def _workload_run(pgbench: str, pg_bin: Path, opts: CaptureOptions) -> list[str]:
    """The traced command."""
    if opts.workload == "tpch":
        return _psql_file(pg_bin, "tpch", "queries.sql", f"sf={opts.scale_factor}")
    length = (["-t", str(-(-opts.transactions // opts.clients))] if opts.transactions
              else ["-T", str(opts.seconds)])
    run = [pgbench, *length, "-c", str(opts.clients), "-j", str(opts.clients)]
    if opts.workload == "tpcb":
        return run
    if opts.workload == "bank":
        # pgbench sets :scale for custom scripts only from -s.
        return [*run, "-n", "-s", str(opts.scale), "-D", f"skew={opts.skew}", "-f", str(WORKLOAD_DIR / "bank" / "transfer.sql")]
    mix = TATP_MIX if opts.workload == "tatp" else TPCC_MIX
    scripts = [f"{WORKLOAD_DIR / opts.workload / name}.sql@{weight}" for name, weight in mix]
    # A deadlock between two transactions is retried, as a TPC-C terminal
    # would; New-Order takes stock rows in item order so there are few.
    return [*run, "-n", "--max-tries=10", "-D", _size(opts), *(x for s in scripts for x in ("-f", s))]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(cmd: list[str], what: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"]
        raise _fail(f"{what} failed (exit {p.returncode}): {tail[0]}")
    return p


def _events(raw: Path, errs: Path) -> tuple[list[tuple[int, str, int]], int]:
    """bpftrace's output as ``(time, op, page)`` in time order, and the
    count of dirtied buffers it could not name; refused if it lost events
    or recorded none."""
    text = raw.read_text(errors="replace")
    err_text = errs.read_text(errors="replace")
    lost = sum(int(n) for n in re.findall(r"Lost (\d+) events", text + err_text))
    if lost:
        raise _fail(
            f"bpftrace lost {lost} events, so the trace would be incomplete; use fewer --clients or a larger "
            "BPFTRACE_PERF_RB_PAGES"
        )
    unknown = re.search(r"@unknown: (\d+)", text)
    events = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("R", "W") and parts[0].isdigit():
            events.append((int(parts[0]), parts[1], int(parts[2])))
    if not events:
        raise _fail("no buffer accesses were recorded")
    events.sort(key=lambda e: e[0])
    return events, int(unknown.group(1)) if unknown else 0


def capture(opts: CaptureOptions, quiet: bool = True) -> dict[str, Any]:
    """Runs the capture and writes ``opts.out``; returns a summary."""
    from flashlayer import progress

    pg_bin, bpftrace = check_prerequisites(opts)
    pgbench = shutil.which("pgbench") or str(pg_bin / "pgbench")
    work = Path(tempfile.mkdtemp(prefix="flashlayer-capture-"))
    pw = pwd.getpwnam("postgres")
    os.chown(work, pw.pw_uid, pw.pw_gid)
    data, sock = work / "data", work
    port = _free_port()
    as_pg = ["runuser", "-u", "postgres", "--"]
    env = {**os.environ, "PGHOST": "127.0.0.1", "PGPORT": str(port), "PGUSER": "postgres", "PGDATABASE": "postgres"}
    started = False
    tracer: subprocess.Popen[bytes] | None = None
    try:
        with progress.bar(None, "starting a throwaway PostgreSQL cluster", quiet=quiet):
            _run([*as_pg, str(pg_bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"], "initdb")
            server_opts = (
                f"-c listen_addresses=127.0.0.1 -p {port} -k {sock} -c shared_buffers={opts.shared_buffers}"
            )
            _run(
                [*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-l", str(work / "server.log"), "-w", "-o",
                 server_opts, "start"],
                "starting the cluster",
            )
            started = True
            postmaster = int((data / "postmaster.pid").read_text().split()[0])
        if not opts.command:
            with progress.bar(None, f"loading {opts.workload.upper()} (not traced)", quiet=quiet):
                _load(opts, pg_bin, pgbench, work, env)
        script = work / "capture.bt"
        script.write_text(SCRIPT.format(bin=pg_bin / "postgres"))
        raw, errs = work / "events.txt", work / "bpftrace.err"
        tenv = {**os.environ, "BPFTRACE_PERF_RB_PAGES": os.environ.get("BPFTRACE_PERF_RB_PAGES", "4096")}
        with open(raw, "wb") as fo, open(errs, "wb") as fe:
            tracer = subprocess.Popen([bpftrace, str(script), str(postmaster)], stdout=fo, stderr=fe, env=tenv)
        deadline = time.monotonic() + 120
        with progress.bar(None, "attaching bpftrace", quiet=quiet):
            while b"Attaching" not in raw.read_bytes():
                if tracer.poll() is not None:
                    raise _fail(f"bpftrace exited early: {errs.read_text().strip()[-300:]}")
                if time.monotonic() > deadline:
                    raise _fail("bpftrace did not attach within 120 s")
                time.sleep(0.1)
        workload = opts.command or _workload_run(pgbench, pg_bin, opts)
        with progress.bar(None, f"tracing: {' '.join(workload)[:60]}", quiet=quiet):
            w = subprocess.run(workload, env=env, capture_output=True, text=True)
        tracer.send_signal(signal.SIGINT)
        tracer.wait(timeout=300)
        tracer = None
        if w.returncode != 0:
            tail = (w.stderr or w.stdout).strip().splitlines()[-1:] or ["no output"]
            raise _fail(f"the workload failed (exit {w.returncode}): {tail[0]}")
        events, unknown = _events(raw, errs)
        csv = work / "trace.csv"
        with open(csv, "w") as f:
            f.write("page,op\n")
            f.writelines(f"{page},{op}\n" for _, op, page in events)
        n = _native.convert(csv, opts.out, "csv", None, None)
        relations = _run(
            [_psql(pg_bin), "-At", "-c",
             "select relname || ' ' || pg_relation_filenode(oid) from pg_class where pg_relation_filenode(oid) <> 0"],
            "listing relations",
            env=env,
        ).stdout
        return {
            "output": str(opts.out),
            "workload_name": "command" if opts.command else opts.workload,
            "requests": n,
            "reads": sum(1 for e in events if e[1] == "R"),
            "writes": sum(1 for e in events if e[1] == "W"),
            "dirty_of_unknown_buffers": unknown,
            "workload": workload,
            "relations": {
                parts[0]: int(parts[1])
                for parts in (line.split() for line in relations.splitlines())
                if len(parts) == 2 and parts[1].isdigit()
            },
        }
    finally:
        if tracer is not None:
            tracer.kill()
            tracer.wait()
        if started:
            subprocess.run([*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
