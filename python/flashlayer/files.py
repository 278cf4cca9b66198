"""Outputs written whole or not at all: a file through a temporary name
renamed on success, with the mode a plain ``open()`` gives it under the
umask (``DESIGN.md`` §2, "Outputs are written whole or not at all")."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from flashlayer._native import FlashlayerError

__all__ = ["atomic_output", "dir_mode", "file_mode"]

T = TypeVar("T")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a plain ``open()`` gives a new file under this umask."""
    return 0o666 & ~_umask()


def dir_mode() -> int:
    """The mode ``mkdir`` gives a new folder under this umask."""
    return 0o777 & ~_umask()


def atomic_output(out: Path, write: Callable[[Path], T]) -> T:
    """Writes through a temporary file in the same folder, renamed only on
    success, so a failed run never leaves a partial file under `out`. The
    file gets the mode a plain ``open()`` would give it. Returns what
    `write` returns."""
    out = out.resolve()
    if not out.parent.is_dir():
        raise FlashlayerError(f"{out.parent}: no such directory")
    # The temporary name ends like `out`, so writers that pick the format
    # from the extension pick the same one.
    suffix = "".join(out.suffixes) or ".tmp"
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent)
    os.close(fd)
    try:
        os.chmod(tmp, file_mode())
        n = write(Path(tmp))
        os.replace(tmp, out)
        return n
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
