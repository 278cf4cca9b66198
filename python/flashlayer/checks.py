"""The API's checks of what a caller passes, so that a mistake is one
`FlashlayerError` naming the argument and what it takes, never a bare
``OverflowError`` from the engine's bindings or a string walked as a list
of its characters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flashlayer._native import FlashlayerError

__all__ = ["INT_MAX", "distinct", "items", "whole", "whole_or_none"]

#: The largest whole number an argument takes: the engine counts in 64 bits.
INT_MAX = 2**63 - 1


def whole(name: str, value: Any, lo: int = 0) -> int:
    """`value` as a whole number from `lo` to `INT_MAX` (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= INT_MAX:
        raise FlashlayerError(f"{name} must be a whole number from {lo} to {INT_MAX:,}, got {value!r}")
    return value


def whole_or_none(name: str, value: Any, lo: int = 0) -> int | None:
    """`whole`, or None for None."""
    return None if value is None else whole(name, value, lo)


def items(name: str, value: Any, kinds: tuple[type, ...] = (str,)) -> list[Any]:
    """`value` as a non-empty list of items of `kinds`: a string (or a bool)
    is not a list, an empty string not an item."""
    what = " or ".join(k.__name__ for k in kinds)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise FlashlayerError(f"{name} must be a list of {what}, got {value!r}"
                              + (f"; for one, pass [{value!r}]" if isinstance(value, str) else ""))
    out = list(value)
    if not out:
        raise FlashlayerError(f"{name} must not be empty")
    for v in out:
        if isinstance(v, bool) or not isinstance(v, kinds) or (isinstance(v, str) and not v.strip()):
            raise FlashlayerError(f"{name}: {v!r} is not a {what}")
    return out


def distinct(what: str, values: Sequence[Any]) -> list[Any]:
    """`values`, each given once: a run asked for twice would be two
    identical rows under one name. Values are compared as written
    (``2`` and ``"2"`` are one buffer size)."""
    seen: set[str] = set()
    for v in values:
        if str(v) in seen:
            raise FlashlayerError(f"{what} '{v}' is given twice")
        seen.add(str(v))
    return list(values)
