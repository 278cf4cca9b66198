"""Policies written in Python (`flashlayer.register_policy`): a Python LRU
and CLOCK decide exactly as the built-ins do, wherever a policy runs, and a
policy's mistake is reported, never a panic."""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any

import pytest

import flashlayer
from flashlayer import FlashlayerError
from flashlayer.requests import PythonLru

ROOT = Path(__file__).resolve().parent.parent
TRACES = ["pg15-tpcb-s5.csv.gz", "pg15-tatp-100k.csv.gz"]
TIMING = {"seconds", "requests_per_second", "policy"}


class PyLru(PythonLru):
    """The package's LRU in Python, telling its next victims on request."""

    def order_of(self, k: int) -> list[int]:
        return list(islice(self.pages, k))


class PyLruInOrder(PyLru):
    """PyLru telling its next victims, so that it can be ACE's base."""

    def order(self, k: int) -> list[int]:
        return self.order_of(k)


class PyClock:
    """CLOCK as the built-in: the bit set on admission and on hits, the new
    page in the victim's frame."""

    def __init__(self, capacity: int) -> None:
        self.frames: list[int | None] = [None] * capacity
        self.ref = [False] * capacity
        self.slot: dict[int, int] = {}
        self.free = list(range(capacity - 1, -1, -1))
        self.hand = 0

    def admit(self, page: int, write: bool) -> None:
        f = self.free.pop()
        self.frames[f], self.ref[f], self.slot[page] = page, True, f

    def hit(self, page: int, write: bool) -> None:
        self.ref[self.slot[page]] = True

    def evict(self) -> int:
        while True:
            f = self.hand
            self.hand = (f + 1) % len(self.frames)
            page = self.frames[f]
            if page is None:
                continue
            if self.ref[f]:
                self.ref[f] = False
                continue
            self.remove(page)
            return page

    def remove(self, page: int) -> None:
        f = self.slot.pop(page)
        self.frames[f], self.ref[f] = None, False
        self.free.append(f)


flashlayer.register_policy("py-lru", PyLru, "LRU in Python (tests)")
flashlayer.register_policy("py-clock", PyClock, "CLOCK in Python (tests)")
flashlayer.register_policy("py-lru-ordered", PyLruInOrder, "LRU in Python telling its eviction order (tests)")


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    keys = (set(a) | set(b)) - TIMING
    assert {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}


@pytest.mark.parametrize("trace", TRACES)
@pytest.mark.parametrize(("ours", "builtin"), [("py-lru", "lru"), ("py-clock", "clock")])
def test_python_lru_and_clock_equal_the_builtins_row_for_row(trace: str, ours: str, builtin: str) -> None:
    t = flashlayer.Trace.open(ROOT / "data" / "traces" / trace)
    for buffer in (16, "2%", "10%"):
        for store in ("cost:device=ratio:1:16", "tier:scheme=hypro,ssd=5%"):
            _same(dict(flashlayer.simulate(t, ours, buffer, store)), dict(flashlayer.simulate(t, builtin, buffer, store)))


def test_a_python_policy_serves_as_an_fdbuffer_pool_and_in_a_cache() -> None:
    t = flashlayer.Trace.open(ROOT / "data" / "traces" / TRACES[0])
    want = flashlayer.simulate(t, "fdbuffer:clean=lru,dirty=lru", "5%", device="ratio:1:8")
    got = flashlayer.simulate(t, "fdbuffer:clean=py-lru,dirty=py-lru", "5%", device="ratio:1:8")
    _same({k: v for k, v in got.items() if k != "name"}, {k: v for k, v in want.items() if k != "name"})
    c, ref = flashlayer.Cache("py-clock", 8), flashlayer.Cache("clock", 8)
    for p in [1, 2, 3, 1, 4, 5, 1, 6, 2, 7, 1]:
        assert c.request(p) == ref.request(p)


class Wrong:
    def __init__(self, capacity: int) -> None:
        self.pages: list[int] = []

    def admit(self, page: int, write: bool) -> None:
        self.pages.append(page)

    def hit(self, page: int, write: bool) -> None:
        pass

    def evict(self) -> int:
        return 10**9

    def remove(self, page: int) -> None:
        self.pages.remove(page)


class Raises(Wrong):
    def hit(self, page: int, write: bool) -> None:
        raise KeyError(f"no page {page}")


def test_a_policy_missing_a_method_or_not_callable_is_refused_at_registration() -> None:
    class NoEvict:
        def __init__(self, capacity: int) -> None:
            pass

        def admit(self, page: int, write: bool) -> None:
            pass

        def hit(self, page: int, write: bool) -> None:
            pass

        def remove(self, page: int) -> None:
            pass

    with pytest.raises(FlashlayerError, match="class NoEvict has no evict"):
        flashlayer.register_policy("py-no-evict", NoEvict)
    with pytest.raises(FlashlayerError, match="the factory must be a class or a function"):
        flashlayer.register_policy("nc", 5)
    flashlayer.register_policy("py-by-function", lambda capacity: object())
    with pytest.raises(FlashlayerError, match="the object its factory returned has no admit, hit, evict, remove"):
        flashlayer.simulate([(1, "R")], "py-by-function", 1)
    assert "nc" not in [n for n, _, _ in flashlayer.table("policy")]


def test_a_python_policys_mistakes_are_named_not_panics() -> None:
    flashlayer.register_policy("py-wrong", Wrong)
    flashlayer.register_policy("py-raises", Raises)
    pairs = [(1, "R"), (2, "R"), (1, "R"), (3, "R")]
    with pytest.raises(FlashlayerError, match="evict\\(\\) returned 1000000000, which is not a resident page"):
        flashlayer.simulate(pairs, "py-wrong", 2)
    with pytest.raises(KeyError, match="no page 0"):
        flashlayer.simulate(pairs, "py-raises", 2)
    # The failure is not left behind for the next run.
    assert flashlayer.simulate(pairs, "lru", 2)["hits"] == 1


def test_a_taken_name_needs_replace_and_builtins_are_refused() -> None:
    flashlayer.register_policy("py-again", PyLru)
    with pytest.raises(FlashlayerError, match="'py-again' is registered already \\(replace=True"):
        flashlayer.register_policy("py-again", PyClock)
    flashlayer.register_policy("py-again", PyClock, replace=True)
    assert flashlayer.simulate([(1, "R")], "py-again", 1)["misses"] == 1
    with pytest.raises(FlashlayerError, match="lru"):
        flashlayer.register_policy("lru", PyLru)
    assert "py-again" in [n for n, _, _ in flashlayer.table("policy")]


def test_only_a_class_with_order_is_listed_as_aces_base() -> None:
    bases = flashlayer.replay.policies("ace_base")
    assert "py-lru-ordered" in bases and "py-lru" not in bases
    assert "py-lru" in flashlayer.replay.policies("pool")
    with pytest.raises(FlashlayerError, match="'py-lru' was registered without order\\(k\\)"):
        flashlayer.register_policy("py-lru", PyLruInOrder, replace=True)


def test_a_python_policy_that_tells_its_eviction_order_is_aces_base() -> None:
    t = flashlayer.Trace.open(ROOT / "data" / "traces" / TRACES[0])
    for spec in ("nw=8", "nw=4,ne=2", "nw=8,window=16"):
        want = flashlayer.simulate(t, f"ace:base=lru,{spec}", "3%", device="ratio:1:8")
        got = flashlayer.simulate(t, f"ace:base=py-lru-ordered,{spec}", "3%", device="ratio:1:8")
        _same({k: v for k, v in got.items() if k != "name"}, {k: v for k, v in want.items() if k != "name"})
    with pytest.raises(FlashlayerError, match="py-lru"):
        flashlayer.simulate(t, "ace:base=py-lru", "3%")
    with pytest.raises(FlashlayerError, match="bad value 'nope' for 'base'; expected an online policy at its defaults: lru, cflru"):
        flashlayer.simulate(t, "ace:base=nope", "3%")
