"""The buffer pool from Python: pages fixed in `with` blocks, written back
on eviction and flush, and a fix that would wait on the caller's own fixes
refused instead of hanging."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

import flashlayer
from flashlayer import FlashlayerError


def test_a_written_page_reads_back_and_is_written_once_on_eviction() -> None:
    pool = flashlayer.BufferPool("lru", 2, page_size=512)
    with pool.write(1) as p:
        p.write_at(b"hello", 3)
    assert pool.state(1) == (True, True)
    with pool.read(1) as p:
        assert p.data[3:8] == b"hello" and len(p.data) == 512
    for page in (2, 3):  # page 1 is the LRU victim when 3 arrives
        with pool.read(page):
            pass
    assert pool.state(1) == (False, False)
    m = pool.metrics()
    assert (m["misses"], m["hits"], m["physical_writes"]) == (3, 1, 1)
    with pool.read(1) as p:
        assert p.data[3:8] == b"hello"


def test_flush_cleans_every_page_and_a_file_pool_keeps_them(tmp_path: Path) -> None:
    db = tmp_path / "db"
    pool = flashlayer.BufferPool("clock", 4, db, page_size=4096)
    for page in range(3):
        with pool.write(page) as p:
            p.write_at(bytes([page + 1]) * 8)
    pool.flush()
    assert all(pool.state(p) == (True, False) for p in range(3))
    del pool
    with pytest.raises(FlashlayerError, match="exists: a pool writes only a file it creates"):
        flashlayer.BufferPool("lru", 4, db)
    assert db.read_bytes()[2 * 4096 : 2 * 4096 + 8] == b"\x03" * 8
    again = flashlayer.BufferPool("lru", 4, db, replace=True)
    with again.read(2) as p:
        assert p.data[:8] == bytes(8), "replace=True starts from an empty file"


def test_close_and_with_write_every_dirty_page_and_a_dropped_pool_warns(tmp_path: Path) -> None:
    db = tmp_path / "db"
    with flashlayer.BufferPool("lru", 4, db, page_size=512) as pool, pool.write(1) as p:
        p.write_at(b"kept")
    assert db.read_bytes()[512:516] == b"kept"
    with pytest.raises(FlashlayerError, match="the pool is closed"):
        pool.read(1)
    pool.close()  # a second close does nothing
    held = flashlayer.BufferPool("lru", 4)
    f = held.write(2)
    with pytest.raises(FlashlayerError, match="1 pages are fixed: unfix them before closing"):
        held.close()
    f.unfix()
    dropped = flashlayer.BufferPool("lru", 4)
    with dropped.write(3) as p:
        p.write_at(b"lost")
    with pytest.warns(ResourceWarning, match="dropped with 1 dirty pages unwritten"):
        del dropped
        gc.collect()


def test_threads_share_a_pool_and_a_page_unfixed_on_another_thread_is_released() -> None:
    pool = flashlayer.BufferPool("lru", 8)
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        try:
            for i in range(200):
                with pool.write(t) as p:
                    p.write_at(i.to_bytes(4, "little"))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for t in range(4):
        with pool.read(t) as p:
            assert p.data[:4] == (199).to_bytes(4, "little")
    f = pool.write(5)
    other = threading.Thread(target=f.unfix)
    other.start()
    other.join()
    with pool.write(5):
        pass  # the fix was released by the other thread


def test_fixes_that_would_wait_on_the_callers_own_are_refused() -> None:
    pool = flashlayer.BufferPool("lru", 2)
    a = pool.write(1)
    with pytest.raises(FlashlayerError, match="page 1 is fixed for writing already"):
        pool.read(1)
    b = pool.read(2)
    c = pool.read(2)  # two readers share a page
    with pytest.raises(FlashlayerError, match="all 2 frames are fixed"):
        pool.read(3)
    with pytest.raises(FlashlayerError, match="fixed for reading"):
        b.write_at(b"x")
    for f in (a, b, c):
        f.unfix()
    with pool.read(3), pool.write(1) as w:
        w.write_at(b"y")
    with pytest.raises(FlashlayerError, match="do not fit"), pool.write(1) as w:
        w.write_at(b"z" * 5000)
    with pytest.raises(FlashlayerError, match="future"):
        flashlayer.BufferPool("belady", 2)


def test_a_python_policy_runs_the_pool() -> None:
    from flashlayer.requests import register_python_lru

    pool, ref = flashlayer.BufferPool(register_python_lru(), 3), flashlayer.BufferPool("lru", 3)
    for page in [1, 2, 3, 1, 4, 5, 1, 2, 6, 1]:
        for p in (pool, ref):
            with p.write(page) if page % 2 else p.read(page):
                pass
    assert pool.metrics() == ref.metrics()
