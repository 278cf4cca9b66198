"""Progress bars on a terminal; elsewhere (pipes, logs, CI) silence, or a
line per step for commands that run long enough to need one
(:func:`log_lines`)."""

from __future__ import annotations

import sys
import threading
import time
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


class _Lines:
    """A line on stderr as a step starts, at each quarter of its total, as
    its description changes, and as it ends, with the time it took."""

    def __init__(self, total: int | None, description: str) -> None:
        self._total, self._text, self._done = total, description, 0
        self._started = time.monotonic()
        self._quarter = 0
        self._say(f"{description} ...")

    def _say(self, line: str) -> None:
        _line(line)

    def advance(self, n: int = 1) -> None:
        self._done += n
        if self._total:
            quarter = 4 * self._done // self._total
            if 0 < quarter < 4 and quarter > self._quarter:
                self._quarter = quarter
                self._say(f"{self._text}: {self._done:,}/{self._total:,}")

    def describe(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._say(f"{text} ...")

    def end(self) -> None:
        count = f" {self._done:,}/{self._total:,}" if self._total else ""
        self._say(f"{self._text}: done{count} in {time.monotonic() - self._started:.1f} s")


_LINES = False

# Bars open at once (sections run side by side) share one display: a
# terminal has room for one live display, with a row per bar.
_lock = threading.Lock()
_shown: Progress | None = None
_bars = 0


def log_lines(on: bool = True) -> None:
    """Where stderr is not a terminal, print a line per step instead of
    nothing (for long commands such as ``reproduce``)."""
    global _LINES
    _LINES = on


def note(text: str, quiet: bool = False) -> None:
    """One line on stderr where lines are on (:func:`log_lines`) and stderr
    is not a terminal; nothing elsewhere."""
    if not quiet and _LINES and not sys.stderr.isatty():
        _line(text)


def _line(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def enabled(quiet: bool) -> bool:
    """Bars are shown only on an interactive stderr and when not `quiet`."""
    return not quiet and sys.stderr.isatty()


@contextmanager
def bar(total: int | None, description: str, quiet: bool = False) -> Iterator[Bar]:
    """A progress bar of `total` steps on stderr (a pulsing bar when `total`
    is None), or a no-op."""
    if not enabled(quiet):
        if quiet or not _LINES:
            yield _Quiet()
            return
        lines = _Lines(total, description)
        yield lines
        lines.end()
        return
    global _shown, _bars
    with _lock:
        if _shown is None:
            _shown = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            _shown.start()
        progress = _shown
        _bars += 1
        task = progress.add_task(description, total=total)
    try:
        yield _Rich(progress, task)
    finally:
        with _lock:
            progress.remove_task(task)
            _bars -= 1
            if _bars == 0:
                progress.stop()
                _shown = None
