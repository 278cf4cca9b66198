"""Traces built from requests in memory (:func:`trace_of`): a list of
``(page, op)`` pairs, an array of pages with an array of write flags, or a
pandas or pyarrow frame with a ``page`` column and an ``op``
(``"R"``/``"W"``) or ``write`` (bool) column. Pages are whole numbers from
0 to 2**64 - 1. The lowest layer of the Python API: the replay
(:mod:`flashlayer.replay`) and the request-at-a-time cache
(:mod:`flashlayer.requests`) take requests through it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any

import numpy as np

from flashlayer._native import FlashlayerError, Trace

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: The names an op column may give a read and a write.
READ_OPS = frozenset({"R", "r", "read", "READ", "Read", "get", "GET"})
WRITE_OPS = frozenset({"W", "w", "write", "WRITE", "Write", "set", "SET", "put", "PUT"})


def pages_array(pages: ArrayLike) -> NDArray[np.uint64]:
    if isinstance(pages, (list, tuple)) and not all(type(p) is int for p in pages):
        first = next(i for i, p in enumerate(pages) if type(p) is not int)
        if not isinstance(pages[first], np.integer):
            raise FlashlayerError(f"pages must be whole numbers: request {first} has page {pages[first]!r}")
    elif isinstance(pages, (list, tuple)):
        # Python ints: up to 2**64 - 1 (numpy would take ids past 2**63 as floats).
        bad = next((i for i, p in enumerate(pages) if not 0 <= p < 2**64), None)
        if bad is not None and pages[bad] < 0:
            raise FlashlayerError(f"page numbers cannot be negative: request {bad} has page {pages[bad]}")
        if bad is not None:
            raise FlashlayerError(f"page numbers run from 0 to 2**64 - 1: request {bad} has page {pages[bad]}")
        return np.array(pages, dtype="<u8")
    a = np.asarray(pages)
    if a.ndim != 1:
        raise FlashlayerError(f"pages must be one-dimensional, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise FlashlayerError(f"pages must be whole numbers, got {a.dtype}")
    if a.size and a.dtype.kind == "i" and int(a.min()) < 0:
        i = int(np.argmax(a < 0))
        raise FlashlayerError(f"page numbers cannot be negative: request {i} has page {int(a[i])}")
    return np.ascontiguousarray(a, dtype="<u8")


def writes_array(writes: ArrayLike | None, n: int) -> NDArray[np.uint8]:
    if writes is None:
        return np.zeros(n, dtype=np.uint8)
    w = np.asarray(writes)
    if w.shape != (n,):
        raise FlashlayerError(f"{n} pages but write flags of shape {w.shape}")
    if n == 0:
        return np.zeros(0, dtype=np.uint8)
    if w.dtype.kind in "USO":
        return _ops(w)
    if w.dtype.kind not in "biu":
        raise FlashlayerError(f"write flags must be bools, 0/1, or 'R'/'W', got {w.dtype}")
    return np.ascontiguousarray(w != 0, dtype=np.uint8)


def _ops(ops: NDArray[Any]) -> NDArray[np.uint8]:
    out = np.empty(len(ops), dtype=np.uint8)
    for i, o in enumerate(ops.tolist()):
        if o in WRITE_OPS:
            out[i] = 1
        elif o in READ_OPS:
            out[i] = 0
        else:
            raise FlashlayerError(f"request {i}: op {o!r} is neither a read ('R') nor a write ('W')")
    return out


def _frame_columns(frame: Any) -> tuple[Any, Any | None]:
    names = list(getattr(frame, "column_names", None) or getattr(frame, "columns", []))
    if "page" not in names:
        raise FlashlayerError(f"a frame needs a 'page' column, got columns {names}")
    page = np.asarray(frame["page"])
    for col in ("op", "write"):
        if col in names:
            return page, np.asarray(frame[col])
    return page, None


def trace_of(requests: Any, writes: ArrayLike | None = None, *, name: str = "<arrays>") -> Trace:
    """A :class:`Trace` of `requests`: an open Trace, a path, a list of
    ``(page, op)`` pairs, an array of pages (with `writes`: bools, 0/1 or
    ``"R"``/``"W"``; default all reads), or a frame with ``page`` and ``op``
    or ``write`` columns. `name` is what rows and errors call it."""
    if isinstance(requests, Trace):
        if writes is not None:
            raise FlashlayerError("writes apply to an array of pages, not to an open Trace")
        return requests
    if isinstance(requests, (str, PathLike)):
        return Trace.open(os.fspath(requests))
    if hasattr(requests, "column_names") or hasattr(requests, "columns"):
        pages, writes = _frame_columns(requests)
    elif isinstance(requests, Sequence) and requests and isinstance(requests[0], (tuple, list)):
        if writes is not None:
            raise FlashlayerError("writes apply to an array of pages, not to (page, op) pairs")
        bad = next((i for i, r in enumerate(requests) if len(r) != 2), None)
        if bad is not None:
            raise FlashlayerError(f"request {bad}: expected a (page, op) pair, got {requests[bad]!r}")
        pages, writes = [r[0] for r in requests], [r[1] for r in requests]
    else:
        pages = requests
    p = pages_array(pages)
    w = writes_array(writes, len(p))
    return Trace.from_words(p.tobytes(), w.tobytes(), name)
