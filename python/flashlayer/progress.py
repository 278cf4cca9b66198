"""Progress bars on a terminal, silence elsewhere (pipes, ``--json``, CI)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


class Bar(Protocol):
    def advance(self, n: int = 1) -> None: ...
    def describe(self, text: str) -> None: ...


class _Quiet:
    def advance(self, n: int = 1) -> None:
        pass

    def describe(self, text: str) -> None:
        pass


class _Rich:
    def __init__(self, progress: Progress, task: TaskID) -> None:
        self._p = progress
        self._t = task

    def advance(self, n: int = 1) -> None:
        self._p.advance(self._t, n)

    def describe(self, text: str) -> None:
        self._p.update(self._t, description=text)


def enabled(quiet: bool) -> bool:
    """Bars are shown only on an interactive stderr and when not `quiet`."""
    return not quiet and sys.stderr.isatty()


@contextmanager
def bar(total: int | None, description: str, quiet: bool = False) -> Iterator[Bar]:
    """A progress bar of `total` steps on stderr (a pulsing bar when `total`
    is None), or a no-op."""
    if not enabled(quiet):
        yield _Quiet()
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield _Rich(progress, task)
