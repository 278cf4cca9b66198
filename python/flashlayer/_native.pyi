"""Type stubs for the native engine module (``crates/flashlayer-python``)."""

from collections.abc import Callable, Iterator
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from flashlayer.results import DeviceInfo, GenReport, Preset, SimResult, TraceStats

_Path = str | PathLike[str]

#: The policy DRAM runs over a tier store when none is named
#: (``flashlayer::tier::DEFAULT_DRAM_POLICY``).
TIER_DRAM_POLICY: str

class FlashlayerError(ValueError):
    """A user-facing error: bad trace, unknown name, impossible size."""

class Trace:
    @staticmethod
    def open(path: _Path, format: str | None = None, page_size: int | None = None) -> Trace: ...
    @staticmethod
    def from_flt(data: bytes, name: _Path) -> Trace: ...
    @staticmethod
    def from_words(pages: bytes, writes: bytes, name: _Path) -> Trace: ...
    @staticmethod
    def from_arrays(pages: Any, writes: Any = None, name: str = "<arrays>") -> Trace: ...
    def sample(self, rate: float | None = None, size: int | None = None) -> tuple[Trace, float]: ...
    def words(self) -> bytes: ...
    @property
    def path(self) -> Path: ...
    @property
    def pages(self) -> int: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[tuple[int, Literal["R", "W"]]]: ...
    def stats(self) -> TraceStats: ...

class Fixed:
    @property
    def data(self) -> bytes: ...
    def write_at(self, data: bytes, offset: int = 0) -> None: ...
    def unfix(self) -> None: ...
    def __enter__(self) -> Fixed: ...
    def __exit__(self, *exc: object) -> bool: ...

class BufferPool:
    """The engine's buffer pool over a store in memory, or in a new file at
    ``path`` (``replace=True`` empties an existing one and starts from it);
    4096-byte pages and device ``ratio:1:1`` unless given. Shared by
    threads; ``close()`` or the end of a ``with`` block writes every dirty
    page."""
    def __init__(self, policy: str, frames: int, path: _Path | None = None, page_size: int = 4096,
                 device: str | None = None, replace: bool = False) -> None: ...
    def read(self, page: int) -> Fixed: ...
    def write(self, page: int) -> Fixed: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...
    def state(self, page: int) -> tuple[bool, bool]: ...
    def metrics(self) -> dict[str, int]: ...
    def __enter__(self) -> BufferPool: ...
    def __exit__(self, *exc: object) -> bool: ...

class Cache:
    def __init__(self, policy: str, capacity: int | str, store: str | None = None,
                 pages: int | None = None) -> None: ...
    def request(self, page: int, write: bool = False) -> bool: ...
    def serve(self, pages: bytes, writes: bytes) -> bytes: ...
    @property
    def pages(self) -> int: ...
    def result(self, flush_at_end: bool | None = None) -> SimResult: ...

CURVE_POINTS: int

def object_sizes(path: _Path, format: str | None = None) -> dict[str, Any] | None: ...
def register_policy(name: str, factory: Callable[[int], Any], description: str | None = None, *,
                    replace: bool = False) -> None: ...

_Kind = Literal["policy", "scheme", "store", "workload", "method"]
_Size = int | str

def replay(
    trace: Trace,
    policy: str,
    buffer: _Size,
    store: str | None = None,
    series_every: int | None = None,
    flush_at_end: bool | None = None,
    progress: Callable[[int], object] | None = None,
) -> SimResult: ...
def check(
    trace: Trace,
    policy: str,
    buffer: _Size,
    store: str | None = None,
    flush_at_end: bool | None = None,
) -> None: ...
def size_pages(size: _Size, distinct: int) -> int: ...
def canonical(kind: _Kind, text: str) -> str: ...
def spec_parts(kind: _Kind, text: str) -> tuple[str, dict[str, str]]: ...
def canonical_list(kind: _Kind, list: str) -> list[str]: ...
def table(kind: _Kind) -> list[tuple[str, str, list[tuple[str, str, str, str]]]]: ...
def policy_roles() -> list[tuple[str, list[str]]]: ...
def row_fields() -> list[tuple[str, list[tuple[str, str, str, str, str, bool]]]]: ...
def short_spec(kind: _Kind, text: str) -> str: ...
def convert(
    input: _Path,
    output: _Path,
    from_format: str | None = None,
    to_format: str | None = None,
    page_size: int | None = None,
) -> int: ...
def concat(
    inputs: list[_Path],
    output: _Path,
    disjoint: bool = False,
    format: str | None = None,
    page_size: int | None = None,
) -> int: ...
def gen_zipf(output: _Path, requests: int | None = None, pages: int | None = None, alpha: float | None = None,
             write_ratio: float | None = None, seed: int | None = None) -> int: ...
def gen_ace(output: _Path, operations: int | None = None, pages: int | None = None, reads: float | None = None,
            skew: float | None = None, hot: float | None = None) -> int: ...
def generator_defaults(name: str) -> dict[str, float]: ...
def pool_load(workload: str, threads: int, fixes: int, frames: int, pages: int, alpha: float, write_ratio: float,
              page_size: int, seed: int, latency_us: float, path: str | None = None) -> dict[str, Any]: ...
def run_terminals(
    kind: str,
    policy: str,
    frames: int,
    threads: int,
    path: _Path,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> dict[str, Any]: ...
def device(spec: str) -> DeviceInfo: ...
def formats() -> list[tuple[str, str]]: ...
def presets() -> list[Preset]: ...
def gen_workload(
    kind: str,
    output: _Path,
    seed: int,
    params: dict[str, Any] | None = None,
    with_bytes: bool = False,
    frames: int | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> GenReport: ...
def fit_trace(
    pages: int,
    requests: int,
    seed: int,
    write_share: float | None = None,
    skew: tuple[float, float] | None = None,
    lru_misses: list[tuple[int, int]] | None = None,
    lru_writes: list[tuple[int, int]] | None = None,
    output: _Path | None = None,
    name: _Path = ...,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[Trace, dict[str, Any]]: ...

class PowerCut(OSError):
    """The emulated NAND chip lost power during the operation."""

class NandChip:
    """A NAND chip of ``blocks`` blocks. Every argument left at None takes
    the engine's default (``flashlayer::nand::ChipBuilder``: 64 pages of
    2,048 + 64 bytes, preset pdl10-mlc-nand, 2 spare programs, 1 data
    program, seed 0)."""
    def __init__(
        self,
        blocks: int,
        pages_per_block: int | None = None,
        page_size: int | None = None,
        spare_size: int | None = None,
        path: _Path | None = None,
        preset: str | None = None,
        spare_programs: int | None = None,
        data_programs: int | None = None,
        seed: int | None = None,
    ) -> None: ...
    def power_cut_after(self, n: int) -> None: ...
    def power_on(self) -> None: ...
    @property
    def is_on(self) -> bool: ...
    def stats(self) -> dict[str, int | float]: ...
    def erase_counts(self) -> list[int]: ...
    def sync(self) -> None: ...

class FlashStore:
    def __init__(
        self,
        chip: NandChip,
        method: str = "pdl:256",
        logical_pages: int | None = None,
        obsolete_in_memory: bool = False,
    ) -> None: ...
    @staticmethod
    def recover(
        chip: NandChip,
        method: str = "pdl:256",
        logical_pages: int | None = None,
        obsolete_in_memory: bool = False,
    ) -> FlashStore: ...
    @property
    def method(self) -> str: ...
    @property
    def logical_pages(self) -> int: ...
    @property
    def page_size(self) -> int: ...
    def write(self, page_id: int, data: bytes, changed: list[tuple[int, int]] | None = None) -> None: ...
    def read(self, page_id: int) -> bytes: ...
    def flush(self) -> None: ...
    def stats(self) -> dict[str, int | float | str]: ...

def crash_test(
    method: str,
    cuts: int | None = None,
    seed: int | None = None,
    blocks: int | None = None,
    pages_per_block: int | None = None,
    page_size: int | None = None,
    spare_size: int | None = None,
    data_programs: int | None = None,
    logical_pages: int | None = None,
    obsolete_in_memory: bool = False,
    progress: Callable[[int], object] | None = None,
) -> dict[str, int | bool | str]:
    """The crash test; None takes the engine's default
    (``flashlayer::flash::crash::CrashConfig``: 1,000 cuts, seed 0, 16
    blocks of 64 pages of 2,048 + 64 bytes, 16 data programs)."""



def flash_updates(
    method: str,
    blocks: int,
    pages_per_block: int | None = None,
    page_size: int | None = None,
    spare_size: int | None = None,
    preset: str | None = None,
    data_programs: int | None = None,
    logical_pages: int | None = None,
    obsolete_in_memory: bool = False,
    operations: int | None = None,
    update_share: float | None = None,
    updates_till_write: int | None = None,
    changed_share: float | None = None,
    warmup_erases_per_block: float | None = None,
    max_warmup_operations: int | None = None,
    seed: int | None = None,
    placement: str | None = None,
) -> dict[str, Any]:
    """PDL §5.1's update operations; None takes the engine's default (the
    chip's from ``ChipBuilder`` with 16 data programs, the run's from
    ``flashlayer::flash::updates::UpdateParams``: 20,000 operations, all
    updates, N = 1, 2% changed, warm-up to 10 erases per block, at most
    2,000,000 warm-up operations, seed 0, each update's changed bytes at a
    ``random`` offset, §5.1's words; ``following``: right after the
    previous update's on the page, footnote 17's analysis)."""



def workload_on_flash(
    kind: str,
    params: dict[str, Any],
    method: str,
    blocks: int,
    frames: int,
    seed: int = 0,
    pages_per_block: int | None = None,
    page_size: int | None = None,
    spare_size: int | None = None,
    data_programs: int | None = None,
    logical_pages: int | None = None,
    obsolete_in_memory: bool = False,
    warmup_erases: int = 0,
    max_warmup_steps: int = 0,
    progress: Callable[[int, int], object] | None = None,
) -> dict[str, Any]:
    """A workload on a buffer pool over a flash store; the chip's shape left
    at None takes the engine's default (``ChipBuilder``, 16 data programs).
    Before measuring, steps run unmeasured until the store has erased
    ``warmup_erases`` blocks or ``max_warmup_steps`` steps have run
    (default: none)."""



def chip_bench(blocks: int = 256, rounds: int = 4) -> tuple[int, float]: ...

def lru_curve(
    trace: Trace,
    sizes: list[int | str] | None = None,
    points: int | None = None,
    devices: list[str] | None = None,
    sample: float | None = None,
    sample_size: int | None = None,
    bins: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]: ...
def log_sizes(pages: int, points: int) -> list[int]: ...
def bound(
    trace: Trace,
    buffer_pages: int,
    device: str | None = None,
    flush_at_end: bool = False,
    iterations: int | None = None,
    search: bool = True,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]: ...
def hybrid_sequence(
    sets: list[dict[str, Any]],
    sequence: list[int],
    placement: str | None = None,
    records: int | None = None,
    buffer_pages: int | None = None,
    page_size: int | None = None,
    policy: str | None = None,
    flash: str | None = None,
    magnetic: str | None = None,
    flash_capacity: int | None = None,
    seed: int | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> dict[str, Any]: ...
def flash_method(spec: str) -> str: ...
