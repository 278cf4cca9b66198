"""Type stubs for the native engine module (``crates/flashlayer-python``)."""

from collections.abc import Callable, Iterator
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from flashlayer.results import DeviceInfo, GenReport, Preset, SimResult, TraceStats

_Path = str | PathLike[str]

class FlashlayerError(ValueError):
    """A user-facing error: bad trace, unknown name, impossible size."""

class Trace:
    @staticmethod
    def open(path: _Path, format: str | None = None, page_size: int | None = None) -> Trace: ...
    @property
    def path(self) -> Path: ...
    @property
    def pages(self) -> int: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[tuple[int, Literal["R", "W"]]]: ...
    def stats(self) -> TraceStats: ...

def run(
    trace: Trace,
    policy: str,
    buffer_pages: int,
    device: str | None = None,
    series_every: int = 0,
    progress: Callable[[int], object] | None = None,
    flush_at_end: bool = False,
) -> SimResult: ...
def run_on_file(
    trace: Trace,
    policy: str,
    buffer_pages: int,
    path: _Path,
    page_size: int = 4096,
    direct: bool = False,
    device: str | None = None,
    series_every: int = 0,
    progress: Callable[[int], object] | None = None,
) -> SimResult: ...
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
def gen_zipf(output: _Path, requests: int, pages: int, alpha: float, write_ratio: float, seed: int) -> int: ...
def device(spec: str) -> DeviceInfo: ...
def policy_name(name: str) -> str: ...
def policy_list(specs: str) -> list[str]: ...
def policies() -> list[tuple[str, str, list[tuple[str, str, str, str]]]]: ...
def formats() -> list[tuple[str, str]]: ...
def presets() -> list[Preset]: ...
def gen_workload(
    kind: str,
    output: _Path,
    seed: int,
    params: dict[str, Any],
    with_bytes: bool = False,
    frames: int = 16384,
    progress: Callable[[int, int], object] | None = None,
) -> GenReport: ...
