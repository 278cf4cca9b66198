"""``flashlayer bench libcachesim``: the simulator against libCacheSim, the
fastest C cache simulator, on the same trace, cache size and policies.

Both replay the same requests: flashlayer an ``flt`` file, libCacheSim an
``oracleGeneral`` file carrying next-access times (which its Belady needs),
cache sizes counted in objects (``ignore_obj_size``). Times are in-process
replay times (the trace already open), the median of ``repeat`` rounds, each
running libCacheSim then flashlayer once (interleaved); miss
ratios are compared too, since a fast wrong answer is worth nothing.

The default trace is libCacheSim's own 10M-request Twitter trace
(``twitter_cluster52_10m.csv.zst``), shipped in the source distribution of
the ``libcachesim`` PyPI package. It is fetched once from the package index
(checked against the index's SHA-256) into ``~/.cache/flashlayer`` and
converted to ``oracleGeneral``. Needs ``pip install 'flashlayer[compare]'``
(libcachesim, zstandard, numpy).
"""

from __future__ import annotations

import hashlib
import re
import statistics
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from flashlayer import _native, progress
from flashlayer._native import FlashlayerError
from flashlayer.files import atomic_output

LIBCACHESIM_VERSION = "0.3.5"
TWITTER = "twitter_cluster52_10m.csv.zst"
CACHE = Path.home() / ".cache" / "flashlayer"
INDEX = "https://pypi.org/simple/libcachesim/"

#: flashlayer policy -> libCacheSim class name.
POLICIES = {"lru": "LRU", "fifo": "FIFO", "clock": "Clock", "2q": "TwoQ", "arc": "ARC", "sieve": "Sieve",
            "s3fifo": "S3FIFO", "lfu": "LFU", "slru": "SLRU", "lruk": "LRUK", "lirs": "LIRS",
            "wtinylfu": "WTinyLFU",
            "belady": "Belady"}
#: Policies libCacheSim has but flashlayer does not compare with, and why.
UNCOMPARED = {
    "clockpro": ("ClockPro", "libCacheSim 0.3.5's ClockPro refuses every miss once its cold pages fill their share, "
                             "and only an eviction could lower them: it keeps its first objects for ever (with its "
                             "Python default share of 0.5, the first half of the cache's worth of distinct objects)"),
}


def _need(module: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise FlashlayerError(
            f"the libCacheSim comparison needs the Python package '{module}': pip install 'flashlayer[compare]'"
        ) from None


def _sdist(quiet: bool) -> Path:
    """libCacheSim's source distribution, fetched once from the package
    index (checked against the index's SHA-256)."""
    sdist = CACHE / f"libcachesim-{LIBCACHESIM_VERSION}.tar.gz"
    if sdist.is_file():
        return sdist
    CACHE.mkdir(parents=True, exist_ok=True)
    with progress.bar(None, f"fetching libcachesim {LIBCACHESIM_VERSION} source", quiet=quiet):
        page = urllib.request.urlopen(INDEX, timeout=60).read().decode()
        m = re.search(rf'href="([^"]+/libcachesim-{re.escape(LIBCACHESIM_VERSION)}\.tar\.gz)#sha256=([0-9a-f]+)"',
                      page)
        if m is None:
            raise FlashlayerError(f"{INDEX} lists no libcachesim-{LIBCACHESIM_VERSION}.tar.gz")
        data = urllib.request.urlopen(m.group(1), timeout=600).read()
        if hashlib.sha256(data).hexdigest() != m.group(2):
            raise FlashlayerError("the downloaded libcachesim source does not match the index's SHA-256")
        # The cache is flashlayer's own; workers filling it at once each
        # rename a whole file of their own.
        atomic_output(sdist, lambda tmp: tmp.write_bytes(data), force=True)
    return sdist


def data_file(name: str, quiet: bool = False) -> bytes:
    """A file of libCacheSim's ``data/`` folder (its sample traces)."""
    sdist = _sdist(quiet)
    with tarfile.open(sdist) as tar:
        member = next((m for m in tar.getmembers() if m.name.endswith("/data/" + name)), None)
        if member is None:
            raise FlashlayerError(f"{sdist} holds no data/{name}")
        raw = tar.extractfile(member)
        assert raw is not None
        return raw.read()


def fetch_twitter(quiet: bool = False) -> Path:
    """The Twitter trace as ``oracleGeneral``, fetched and converted once."""
    out = CACHE / f"libcachesim-{LIBCACHESIM_VERSION}-twitter_cluster52_10m.oracleGeneral.bin"
    if out.is_file():
        return out
    compressed = data_file(TWITTER, quiet)
    with progress.bar(None, f"converting {TWITTER} to oracleGeneral", quiet=quiet):
        write_oracle(_twitter_ids(compressed), out)
    return out


def _twitter_ids(compressed: bytes) -> Any:
    """Object ids of the csv ``# time, object, size, next_access_vtime``."""
    np = _need("numpy")
    zstandard = _need("zstandard")
    body = zstandard.ZstdDecompressor().decompressobj().decompress(compressed)
    lines = body.split(b"\n")
    if lines and lines[0].startswith(b"#"):
        lines = lines[1:]
    if lines and not lines[-1]:
        lines.pop()
    return np.fromiter((int(line.split(b",", 2)[1]) for line in lines), dtype=np.uint64, count=len(lines))


def write_oracle(ids: Any, out: Path) -> None:
    """Writes object ids as ``oracleGeneral`` records with exact next-access
    times (the index of the object's next request, -1 if none)."""
    np = _need("numpy")
    n = len(ids)
    order = np.lexsort((np.arange(n), ids))
    same = ids[order][1:] == ids[order][:-1]
    nxt = np.full(n, -1, dtype=np.int64)
    nxt[order[:-1][same]] = order[1:][same]
    rec = np.zeros(n, dtype=[("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    rec["time"] = np.arange(n) // 1000
    rec["id"] = ids
    rec["size"] = 1
    rec["next"] = nxt
    atomic_output(out, rec.tofile, force=True)


def run(
    trace_path: Path | None,
    cache_objects: int,
    policies: list[str],
    repeat: int,
    quiet: bool = False,
    format: str | None = None,
    page_size: int | None = None,
) -> dict[str, Any]:
    lcs = _need("libcachesim")
    np = _need("numpy")
    # libCacheSim runs each policy with its defaults, which are ours: a
    # spec compares only as its bare name.
    policies = [_native.short_spec("policy", p) for p in policies]
    for p in policies:
        if p in UNCOMPARED:
            raise FlashlayerError(f"'{p}' is not compared: {UNCOMPARED[p][1]}")
        if p not in POLICIES:
            raise FlashlayerError(f"libCacheSim has no counterpart here for '{p}' (it runs each policy with its "
                                  f"defaults); compare: {', '.join(POLICIES)}")
    # The converted trace is this run's alone, and goes with it.
    with tempfile.TemporaryDirectory(prefix="flashlayer-compare-") as tmp:
        work = Path(tmp)
        if trace_path is None:
            oracle = fetch_twitter(quiet)
            name = TWITTER
        else:
            # Any trace flashlayer reads: its page ids become object ids.
            name = trace_path.name
            t = _native.Trace.open(str(trace_path), format=format, page_size=page_size)
            oracle = work / "input.oracleGeneral.bin"
            write_oracle(np.fromiter((p for p, _ in t), dtype=np.uint64, count=len(t)), oracle)
        flt = work / "input.flt"
        _native.convert(oracle, flt, "oracle", "flt", None)
        trace = _native.Trace.open(flt)
        params = lcs.ReaderInitParam(ignore_obj_size=True)
        rows: list[dict[str, Any]] = []
        with progress.bar(len(policies) * repeat * 2, "flashlayer vs libCacheSim", quiet=quiet) as bar:
            for p in policies:
                theirs: list[float] = []
                ours: list[float] = []
                their_miss = our_miss = 0.0
                # Interleaved, a run of each per round: a slow minute of the
                # machine slows both sides, not one.
                for _ in range(repeat):
                    reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE, params)
                    cls = getattr(lcs, POLICIES[p])
                    cache = cls(cache_objects, reader=reader) if p == "belady" else cls(cache_objects)
                    t0 = time.perf_counter()
                    their_miss = cache.process_trace(reader)[0]
                    theirs.append(time.perf_counter() - t0)
                    bar.advance()
                    t0 = time.perf_counter()
                    our_miss = _native.replay(trace, p, cache_objects)["miss_ratio"]
                    ours.append(time.perf_counter() - t0)
                    bar.advance()
                a, b = statistics.median(theirs), statistics.median(ours)
                speedup = a / b
                rows.append({
                    "policy": p,
                    "libcachesim_seconds": a,
                    "flashlayer_seconds": b,
                    "speedup": speedup,
                    "libcachesim_miss_ratio": their_miss,
                    "flashlayer_miss_ratio": our_miss,
                    "same_miss_ratio": abs(their_miss - our_miss) < 1e-9,
                })
        return {
            "trace": {"name": name, "requests": len(trace), "distinct_pages": trace.pages},
            "cache_objects": cache_objects,
            "repeat": repeat,
            "libcachesim_version": getattr(lcs, "__version__", LIBCACHESIM_VERSION),
            "policies": rows,
        }
