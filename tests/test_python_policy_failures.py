"""A Python policy's exception fails only the request that raised it: the
buffer, the policy and every counter are as they were, and the next request
works. Each callback is made to raise at each of its calls, and the run is
compared, row for row, with a run that never had the failing request."""

from __future__ import annotations

import os
import random
import threading
import time
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

import flashlayer
from flashlayer.requests import PythonLru

TIMING = {"seconds", "requests_per_second", "policy", "name"}


class Armed(PythonLru):
    """PythonLru whose callback `method` raises, before changing anything,
    at its call number `at` (counted over every object of the class)."""

    method = ""
    at = -1
    calls = 0

    def _tick(self, method: str) -> None:
        if method == Armed.method:
            Armed.calls += 1
            if Armed.calls == Armed.at:
                raise RuntimeError(f"{method} fails at call {Armed.at}")

    def admit(self, page: int, write: bool) -> None:
        self._tick("admit")
        super().admit(page, write)

    def hit(self, page: int, write: bool) -> None:
        self._tick("hit")
        super().hit(page, write)

    def evict(self) -> int:
        self._tick("evict")
        return super().evict()

    def remove(self, page: int) -> None:
        self._tick("remove")
        super().remove(page)

    def order(self, k: int) -> list[int]:
        self._tick("order")
        return list(islice(self.pages, k))


flashlayer.register_policy("py-armed", Armed, "LRU in Python that raises when told (tests)")


def _arm(method: str, at: int) -> None:
    Armed.method, Armed.at, Armed.calls = method, at, 0


def _requests(n: int, pages: int, seed: int) -> list[tuple[int, bool]]:
    rng = random.Random(seed)
    return [(rng.randrange(pages), rng.random() < 0.3) for _ in range(n)]


def _row(policy: str, requests: list[tuple[int, bool]], capacity: int) -> tuple[dict[str, Any], int | None]:
    """The row of `requests` served one at a time, and which one raised."""
    c = flashlayer.Cache(policy, capacity)
    failed = None
    for i, (page, write) in enumerate(requests):
        try:
            c.request(page, write)
        except RuntimeError:
            assert failed is None, "one call raises"
            failed = i
    r = c.result()
    return {k: v for k, v in r.items() if k not in TIMING}, failed


CASES = [
    # (policy spec with the armed policy, the same with the plain one, callback)
    ("py-armed", "python-lru", "admit"),
    ("py-armed", "python-lru", "hit"),
    ("py-armed", "python-lru", "evict"),
    ("ace:base=py-armed,nw=4", "ace:base=py-lru-order,nw=4", "order"),
    ("fdbuffer:clean=py-armed,dirty=py-armed", "fdbuffer:clean=python-lru,dirty=python-lru", "remove"),
    ("fdbuffer:clean=py-armed,dirty=py-armed", "fdbuffer:clean=python-lru,dirty=python-lru", "evict"),
]


class Ordered(PythonLru):
    def order(self, k: int) -> list[int]:
        return list(islice(self.pages, k))


flashlayer.requests.register_python_lru()
flashlayer.register_policy("py-lru-order", Ordered, "LRU in Python telling its order (tests)")


@pytest.mark.parametrize(("armed", "plain", "method"), CASES)
def test_a_callback_that_raises_at_any_call_fails_only_its_request(armed: str, plain: str, method: str) -> None:
    requests = _requests(160, 24, seed=7)
    _arm(method, 10**9)
    _row(armed, requests, 6)
    calls = Armed.calls
    assert calls > 0, f"{method} is called in this run"
    for at in range(1, calls + 1):
        _arm(method, at)
        got, failed = _row(armed, requests, 6)
        assert failed is not None, f"{method} call {at} raised"
        _arm("", -1)
        want, _ = _row(plain, requests[:failed] + requests[failed + 1 :], 6)
        assert got == want, f"{method} raising at call {at} (request {failed}) changed the run"


def test_the_flaky_admit_of_the_report_fails_one_request_and_no_more() -> None:
    _arm("admit", 5)
    c = flashlayer.Cache("py-armed", 3)
    served = []
    for page in range(6):
        try:
            served.append(c.request(page))
        except RuntimeError as e:
            assert "admit fails at call 5" in str(e)
            served.append(None)
    assert served == [False, False, False, False, None, False]
    r = c.result()
    assert (r["requests"], r["hits"], r["misses"], r["physical_reads"]) == (5, 0, 5, 5)


def test_a_pool_whose_policy_raises_once_serves_every_later_fix() -> None:
    _arm("evict", 1)
    pool, ref = flashlayer.BufferPool("py-armed", 3), flashlayer.BufferPool("python-lru", 3)
    for p in (pool, ref):
        for page in (1, 2, 3):
            with p.write(page) as f:
                f.write_at(bytes([page]))
    with pytest.raises(RuntimeError, match="evict fails"):
        pool.read(4)
    assert [pool.state(page) for page in (1, 2, 3, 4)] == [(True, True)] * 3 + [(False, False)]
    for p in (pool, ref):
        for page in (4, 5, 1):
            with p.read(page) as f:
                assert f.data[0] == page % 256 if page < 4 else True
    assert pool.metrics() == ref.metrics()


def test_a_hit_that_raises_in_a_pool_keeps_the_written_page_dirty() -> None:
    pool = flashlayer.BufferPool("py-armed", 3)
    with pool.read(1):
        pass
    _arm("hit", 1)
    f = pool.write(1)
    f.write_at(b"kept")
    with pytest.raises(RuntimeError, match="hit fails"):
        f.unfix()
    assert pool.state(1) == (True, True), "a modified page stays dirty"
    assert pool.metrics()["requests"] == 1, "the failed unfix is not counted"
    with pool.read(1) as g:
        assert g.data[:4] == b"kept"


class Random(PythonLru):
    """PythonLru whose every callback raises one time in 50, before it
    changes anything."""

    rng = random.Random(3)

    def _maybe(self) -> None:
        if Random.rng.random() < 0.02:
            raise RuntimeError("random failure")

    def admit(self, page: int, write: bool) -> None:
        self._maybe()
        super().admit(page, write)

    def hit(self, page: int, write: bool) -> None:
        self._maybe()
        super().hit(page, write)

    def evict(self) -> int:
        self._maybe()
        return super().evict()


flashlayer.register_policy("py-random-failures", Random, "LRU in Python failing at random (tests)")

#: How long each stress run lasts; the checks do not depend on it.
STRESS_SECONDS = float(os.environ.get("FLASHLAYER_STRESS_SECONDS", "10"))


def test_eight_threads_share_a_file_pool_and_a_cache_whose_policy_fails_at_random(tmp_path: Path) -> None:
    page_size, frames, threads = 512, 16, 8
    path = tmp_path / "pool.db"
    pool = flashlayer.BufferPool("py-random-failures", frames, path=path, page_size=page_size)
    cache = flashlayer.Cache("py-random-failures", 40)
    deadline = time.monotonic() + STRESS_SECONDS
    written: list[dict[int, int]] = [{} for _ in range(threads)]
    done = [dict(pool=0, hits=0, misses=0, failed=0) for _ in range(threads)]
    errors: list[BaseException] = []

    def work(t: int) -> None:
        rng = random.Random(t)
        n = 0
        try:
            while time.monotonic() < deadline:
                n += 1
                # Each thread writes pages of its own (t, t + 8, ...) and
                # reads everyone's.
                page = rng.randrange(64)
                write = page % threads == t and rng.random() < 0.5
                try:
                    with pool.write(page) if write else pool.read(page) as f:
                        if write:
                            f.write_at(n.to_bytes(8, "little"))
                            written[t][page] = n
                    done[t]["pool"] += 1
                except RuntimeError as e:
                    assert str(e) == "random failure"
                    # A write that reached the frame stays there, failed
                    # unfix or not: it is what the file must hold.
                try:
                    hit = cache.request(rng.randrange(200), rng.random() < 0.3)
                    done[t]["hits" if hit else "misses"] += 1
                except RuntimeError as e:
                    assert str(e) == "random failure"
                    done[t]["failed"] += 1
        except BaseException as e:
            errors.append(e)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    m = pool.metrics()
    while True:
        try:
            pool.close()
            break
        except flashlayer.FlashlayerError:
            continue  # a write-back's policy call failed: the pages stay dirty, try again
    data = path.read_bytes()
    for t in range(threads):
        for page, n in written[t].items():
            got = int.from_bytes(data[page * page_size : page * page_size + 8], "little")
            assert got == n, f"page {page}: {got} on disk, {n} written last by thread {t}"
    assert m["requests"] == sum(d["pool"] for d in done)
    assert m["hits"] + m["misses"] == m["requests"]
    assert m["physical_reads"] == m["misses"]
    r = cache.result()
    assert sum(d["failed"] for d in done) > 0, "the policy failed at all"
    assert r["requests"] == sum(d["hits"] + d["misses"] for d in done)
    assert (r["hits"], r["misses"]) == (sum(d["hits"] for d in done), sum(d["misses"] for d in done))
    assert r["physical_reads"] == r["misses"]


class ReEnters(PythonLru):
    """PythonLru whose hit calls the cache it serves."""

    cache: Any = None

    def hit(self, page: int, write: bool) -> None:
        ReEnters.cache.request(page + 1)
        super().hit(page, write)


flashlayer.register_policy("py-re-enters", ReEnters, "LRU in Python calling its own cache (tests)")


def test_a_callback_that_calls_its_own_cache_gets_an_error_not_a_hang() -> None:
    c = flashlayer.Cache("py-re-enters", 3)
    ReEnters.cache = c
    c.request(1)
    with pytest.raises(flashlayer.FlashlayerError, match="a policy's callback called the cache it serves"):
        c.request(1)
    assert c.result()["requests"] == 1, "the request whose callback failed is not counted"
    assert c.request(2) is False


class BadOrder(PythonLru):
    """PythonLru whose order(k) is wrong in the way it is told to be."""

    mistake = ""

    def order(self, k: int) -> list[int]:
        first = next(iter(self.pages))
        return {"absent": [999], "twice": [first, first], "long": list(self.pages) * 2}[BadOrder.mistake]


flashlayer.register_policy("py-bad-order", BadOrder, "LRU in Python with a wrong order (tests)")


@pytest.mark.parametrize(("mistake", "why"), [
    ("absent", "page 999 is not resident"),
    ("twice", "page \\d+ appears twice"),
    ("long", "\\d+ pages, more than"),
])
def test_an_order_that_is_not_the_policys_next_victims_is_refused(mistake: str, why: str) -> None:
    BadOrder.mistake = mistake
    requests = [(p, "W") for p in range(12)]
    with pytest.raises(flashlayer.FlashlayerError, match=f"policy 'py-bad-order': order\\(\\d+\\) returned .*{why}"):
        flashlayer.simulate(requests, "ace:base=py-bad-order,nw=4", 8)


def test_a_pool_made_on_one_thread_is_used_and_dropped_on_another() -> None:
    made: list[flashlayer.BufferPool] = []
    t = threading.Thread(target=lambda: made.append(flashlayer.BufferPool("lru", 4)))
    t.start()
    t.join()
    pool = made.pop()
    with pool.write(1) as f:
        f.write_at(b"x")
    pool.close()
    del pool  # dropped here, closed: no warning, no error


def test_a_caches_repr_names_pages_only_when_declared() -> None:
    assert repr(flashlayer.Cache("lru", 4)) == "Cache('lru', 4, store='cost')"
    assert repr(flashlayer.Cache("lru", 4, pages=10)) == "Cache('lru', 4, store='cost', pages=10)"
