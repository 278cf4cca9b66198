"""``flashlayer trace capture strace``: the file page references of any
command, from its read and write system calls.

The command runs under ``strace -f -ff -ttt -y -s 0``, which writes one log
per process with a microsecond timestamp on every call and the path behind
every file descriptor. The logs are merged by timestamp, and each call on a
regular file becomes page requests: a ``read``/``pread64``/``readv`` of
``n`` bytes at offset ``o`` is one ``R`` for every page of ``[o, o + n)``, a
write one ``W`` per page. Offsets follow each process's descriptors
(``openat`` starts at 0, or at the end with ``O_APPEND``; ``lseek`` sets,
reads and writes advance; ``dup`` copies; ``pread``/``pwrite`` give their
own). A page is ``(file number << 32) | (offset / page_size)``, files
numbered in order of first use. Only regular files count: pipes, sockets,
terminals and ``/dev``, ``/proc``, ``/sys`` do not.

What it cannot see: pages a process maps with ``mmap`` and touches in
memory (the dynamic loader maps shared libraries this way), so the trace
is the explicit file I/O of the command. This is how HyPro's MLK trace
("the page accesses of making Linux kernel", recorded with strace) was made.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flashlayer import _native
from flashlayer._native import FlashlayerError

CALLS = "openat,open,creat,read,write,pread64,pwrite64,readv,writev,preadv,pwritev,lseek,close,dup,dup2,dup3"
LINE = re.compile(r"^(\d+\.\d+) (\w+)\((.*)\)\s+= (-?\d+)(?:<([^>]*)>)?")
FD = re.compile(r"^(\d+)<([^>]*)>")
SKIP = ("/dev/", "/proc/", "/sys/", "pipe:", "socket:", "anon_inode:")


@dataclass
class StraceOptions:
    out: Path
    command: list[str]
    page_size: int = 4096


def _fail(msg: str) -> FlashlayerError:
    return FlashlayerError(f"trace capture strace: {msg}")


def _parse_log(pid: int, path: Path, out: list[tuple[float, int, str, str, int, int]]) -> None:
    """Appends (time, pid, call, file, offset, bytes) for I/O on regular
    files in one process's log, tracking that process's offsets."""
    pos: dict[int, tuple[str, int]] = {}
    for line in path.read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if m is None:
            continue
        t, call, args, ret_text, ret_path = float(m[1]), m[2], m[3], int(m[4]), m[5]
        if ret_text < 0:
            continue
        if call in ("openat", "open", "creat"):
            if ret_path is not None:
                start = 0
                if "O_APPEND" in args:
                    try:
                        start = os.path.getsize(ret_path)
                    except OSError:
                        start = 0
                pos[ret_text] = (ret_path, start)
            continue
        fd_m = FD.match(args)
        if fd_m is None:
            continue
        fd, file = int(fd_m[1]), fd_m[2]
        if call == "close":
            pos.pop(fd, None)
            continue
        if call in ("dup", "dup2", "dup3"):
            pos[ret_text] = pos.get(fd, (file, 0))
            continue
        _, offset = pos.get(fd, (file, 0))
        if call == "lseek":
            pos[fd] = (file, ret_text)
            continue
        if call in ("pread64", "pwrite64", "preadv", "pwritev"):
            at = int(args.rsplit(",", 1)[1])
        else:
            at = offset
            pos[fd] = (file, offset + ret_text)
        if ret_text > 0 and file.startswith("/") and not file.startswith(SKIP):
            kind = "R" if call.startswith(("read", "pread")) else "W"
            out.append((t, pid, kind, file, at, ret_text))


def capture(opts: StraceOptions, quiet: bool = True) -> dict[str, Any]:
    """Runs the command under strace and writes ``opts.out``; returns a
    summary."""
    from flashlayer import progress

    strace = shutil.which("strace")
    if strace is None:
        raise _fail("strace not found on PATH; install it (apt-get install strace)")
    if not opts.command:
        raise _fail("give the command to trace after --, e.g. -- make -j1")
    if opts.page_size < 512 or opts.page_size & (opts.page_size - 1):
        raise _fail(f"--page-size must be a power of two of at least 512 bytes, got {opts.page_size}")
    work = Path(tempfile.mkdtemp(prefix="flashlayer-strace-"))
    try:
        prefix = work / "log"
        with progress.bar(None, f"tracing: {' '.join(opts.command)[:60]}", quiet=quiet):
            p = subprocess.run([strace, "-f", "-ff", "-ttt", "-y", "-s", "0", "-qq", "-e", f"trace={CALLS}",
                                "-o", str(prefix), "--", *opts.command], capture_output=True, text=True)
        if p.returncode != 0:
            tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"]
            raise _fail(f"the command failed (exit {p.returncode}): {tail[0]}")
        events: list[tuple[float, int, str, str, int, int]] = []
        logs = sorted(work.glob("log.*"))
        for log in logs:
            _parse_log(int(log.suffix[1:]), log, events)
        if not events:
            raise _fail("the command read or wrote no regular file")
        events.sort(key=lambda e: (e[0], e[1]))
        files: dict[str, int] = {}
        csv = work / "trace.csv"
        reads = writes = 0
        ps = opts.page_size
        with open(csv, "w") as f:
            f.write("page,op\n")
            for _, _, kind, file, at, n in events:
                number = files.setdefault(file, len(files))
                for block in range(at // ps, (at + n - 1) // ps + 1):
                    f.write(f"{(number << 32) | block},{kind}\n")
                    if kind == "R":
                        reads += 1
                    else:
                        writes += 1
        n = _native.convert(csv, opts.out, "csv", None, None)
        return {
            "output": str(opts.out),
            "requests": n,
            "reads": reads,
            "writes": writes,
            "files": len(files),
            "processes": len(logs),
            "page_size": ps,
            "command": opts.command,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
