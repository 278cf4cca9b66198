"""What a command writes, and the one rule by which it may replace what is
there (``docs/design/grammar.md``: outputs are written whole or not at
all, and never over what flashlayer did not write).

- A file is written through a temporary name in its folder and renamed on
  success, so a failed run never leaves a partial file. An existing file
  at the path is replaced only when flashlayer wrote it (`is_own_file`: a
  PNG, Parquet file or Markdown page carries flashlayer's mark, an ``flt``
  trace is flashlayer's format, and any other file it wrote, a ``csv``
  trace say, carries the extended attribute ``user.flashlayer.output``
  with its size and modification time as written, so a file changed since
  is not flashlayer's any more) or the user passed ``--force``.
- A folder (``report``, ``reproduce``) carries a marker file,
  ``.flashlayer-output``, listing the files flashlayer wrote into it with
  each one's size and SHA-256. A new folder is filled beside its place and
  renamed into it whole. Onto an existing folder that is empty or has the
  marker, the files written now take their places (each by a rename) and
  the files the marker lists that this run does not write are removed:
  each only while it is still flashlayer's (it carries the mark of its
  format, or its size and hash are those recorded); a file the user
  replaced or changed stays, and the run says so in one line. A file of
  the new output whose place holds a file that is not flashlayer's stops
  the run before anything is moved, unless ``--force``. An existing folder
  that is neither empty nor marked is refused unless ``--force``, which
  writes the files into it and removes nothing.

Every file and folder gets the mode a plain ``open()`` or ``mkdir`` gives it
under the umask, so an output can be shared or served.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flashlayer._native import FlashlayerError
from flashlayer.version import __version__

__all__ = ["MARKDOWN_MARK", "MARKER", "OWN_MARK", "atomic_output", "check_folder", "check_writable", "dir_mode",
           "file_mode", "is_own_file", "png_software", "write_folder"]

T = TypeVar("T")

#: The marker file of a folder flashlayer wrote.
MARKER = ".flashlayer-output"
#: The mark flashlayer leaves in the files it writes: a PNG's ``Software``
#: text, a Parquet file's schema metadata key, a Markdown page's first line.
OWN_MARK = "flashlayer"
MARKDOWN_MARK = "<!-- written by flashlayer; regenerate, do not edit -->"
FLT_MAGIC = b"FLTRACE\x01"
#: The extended attribute that marks a file flashlayer wrote whose format
#: carries no mark of its own: its size and modification time (ns).
OUTPUT_ATTR = "user.flashlayer.output"


def _stamp(path: Path) -> bytes:
    st = path.stat()
    return f"{st.st_size} {st.st_mtime_ns}".encode()


def mark_output(path: Path) -> None:
    """Marks `path` as written by flashlayer as it is now; on a file system
    without extended attributes nothing is marked (the file is then not
    recognised, and replacing it takes ``--force``)."""
    with contextlib.suppress(OSError):
        os.setxattr(path, OUTPUT_ATTR, _stamp(path))


def _marked(path: Path) -> bool:
    try:
        return os.getxattr(path, OUTPUT_ATTR) == _stamp(path)
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a plain ``open()`` gives a new file under this umask."""
    return 0o666 & ~_umask()


def dir_mode() -> int:
    """The mode ``mkdir`` gives a new folder under this umask."""
    return 0o777 & ~_umask()


def png_software() -> dict[str, str]:
    """The metadata every PNG flashlayer draws carries (matplotlib's
    ``savefig(metadata=...)``)."""
    return {"Software": f"{OWN_MARK} {__version__}"}


def is_own_file(path: Path) -> bool:
    """Whether flashlayer wrote the file `path`, by the mark its format
    carries; a file it cannot tell is not its own."""
    name = path.name.lower()
    try:
        if name.endswith(".flt"):
            with path.open("rb") as f:
                return f.read(len(FLT_MAGIC)) == FLT_MAGIC
        if name.endswith(".md"):
            with path.open("rb") as f:
                return f.readline().rstrip(b"\r\n") == MARKDOWN_MARK.encode()
        if name.endswith(".png"):
            from PIL import Image

            with Image.open(path) as im:
                text = getattr(im, "text", {}) or {}
                return str(text.get("Software", "")).startswith(OWN_MARK)
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq

            meta = pq.read_schema(path).metadata or {}
            return OWN_MARK.encode() in meta
    except Exception:  # an unreadable or damaged file is not recognisably ours
        return False
    return _marked(path)


def check_writable(out: Path, force: bool) -> None:
    """Refuses, before a long run, an output file `out` that would replace
    a file flashlayer did not write (unless `force`), or that cannot be
    written (a folder, a missing parent folder)."""
    if out.is_dir():
        raise FlashlayerError(f"{out}: is a directory")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise FlashlayerError(f"{parent}: no such directory")
    if out.exists() and not force and not is_own_file(out):
        raise FlashlayerError(f"{out}: exists and was not written by flashlayer; choose another name, or pass "
                              "--force to replace it")


def _temp_file(out: Path) -> Path:
    # The temporary name ends like `out`, so writers that pick the format
    # from the extension pick the same one.
    suffix = "".join(out.suffixes) or ".tmp"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent)
    except OSError as e:
        raise FlashlayerError(f"{out}: cannot write here ({e.strerror or e})") from None
    os.close(fd)
    return Path(tmp)


def atomic_output(out: Path, write: Callable[[Path], T], force: bool = False) -> T:
    """Writes `out` through a temporary file in the same folder, renamed
    only on success, so a failed run never leaves a partial file under
    `out`; an existing `out` flashlayer did not write is refused unless
    `force` (`check_writable`). Returns what `write` returns."""
    check_writable(out, force)
    out = out.resolve()
    tmp = _temp_file(out)
    try:
        os.chmod(tmp, file_mode())
        n = write(tmp)
        os.replace(tmp, out)
        mark_output(out)
        return n
    finally:
        if tmp.exists():
            tmp.unlink()


def _digest(path: Path) -> list[Any]:
    """A file's size and SHA-256, as a marker records them."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return [path.stat().st_size, h.hexdigest()]


def _marker(folder: Path) -> dict[str, Any] | None:
    """The marker of `folder`, or None if it has none. A listed path is
    kept only if it stays inside the folder."""
    marker = folder / MARKER
    if not marker.is_file():
        return None
    try:
        raw = json.loads(marker.read_text())
        listed = raw.get("files", [])
        # A marker from before digests were recorded vouches for its files
        # by listing them.
        digests = raw.get("digests")
    except (OSError, ValueError, AttributeError):
        return {"files": [], "digests": {}}
    safe = [p for p in listed
            if isinstance(p, str) and p and not os.path.isabs(p) and ".." not in Path(p).parts]
    return {"files": safe, "digests": digests if isinstance(digests, dict) or digests is None else {}}


def _still_ours(folder: Path, rel: str, marker: dict[str, Any]) -> bool:
    """Whether the file `rel` of `folder` is still the one flashlayer
    wrote there: a regular file inside the folder (not reached through a
    link) carrying its format's mark, or of the size and hash recorded
    in the folder's `marker` (one without sizes and hashes vouches for
    the files it lists)."""
    path = folder / rel
    if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(folder):
        return False
    if is_own_file(path):
        return True
    digests = marker["digests"]
    if digests is None:
        return rel in marker["files"]
    try:
        return bool(digests.get(rel) == _digest(path))
    except OSError:
        return False


def check_folder(out: Path, force: bool) -> None:
    """Refuses, before a long run, an output folder `out` that holds files
    flashlayer did not write (no marker), unless `force`."""
    if out.exists() and not out.is_dir():
        raise FlashlayerError(f"{out}: exists and is not a directory")
    if out.is_dir() and not force and _marker(out) is None and any(out.iterdir()):
        raise FlashlayerError(f"{out}: a folder that flashlayer did not write and is not empty; choose another "
                              "folder, or pass --force to write into it (files of the same names are replaced, "
                              "nothing is removed)")


def write_folder(out: Path, fill: Callable[[Path], None], force: bool = False) -> None:
    """Writes the folder `out` by the rule of this module: `fill` writes
    into a temporary folder beside it, whose files then take their places
    in `out`."""
    check_folder(out, force)
    out = out.resolve()
    previous = _marker(out) if out.is_dir() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as e:
        raise FlashlayerError(f"{out}: cannot write here ({e.strerror or e})") from None
    try:
        os.chmod(tmp, dir_mode())
        fill(tmp)
        for p in tmp.rglob("*"):
            os.chmod(p, dir_mode() if p.is_dir() else file_mode())
        files = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
        digests = {rel: _digest(tmp / rel) for rel in files}
        (tmp / MARKER).write_text(json.dumps({"written_by": f"{OWN_MARK} {__version__}", "files": files,
                                              "digests": digests}, indent=1) + "\n")
        os.chmod(tmp / MARKER, file_mode())
        if not out.exists():
            os.replace(tmp, out)
            return
        old = previous or {"files": [], "digests": {}}
        if not force:
            # Nothing moves while a file of the new output would land on
            # one that is not flashlayer's.
            theirs = [rel for rel in files if (out / rel).exists() or (out / rel).is_symlink()
                      if not _still_ours(out, rel, old)]
            if theirs:
                more = f" and {len(theirs) - 1} more" if len(theirs) > 1 else ""
                raise FlashlayerError(f"{out / theirs[0]}{more}: not written by flashlayer (changed or replaced "
                                      "since); move it away, or pass --force to replace it")
        # Into an existing folder: file by file, the marker last, so a
        # folder is never marked with files it does not hold.
        for rel in files:
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / rel, dest)
        kept = []
        for rel in old["files"]:
            if rel in files or not (out / rel).exists():
                continue
            if _still_ours(out, rel, old):
                (out / rel).unlink()
            else:
                kept.append(rel)
        if kept:
            more = f" and {len(kept) - 1} more" if len(kept) > 1 else ""
            print(f"kept {out / kept[0]}{more}: flashlayer wrote it there before, but it has changed since, so "
                  "it is not flashlayer's to remove", file=sys.stderr)
        os.replace(tmp / MARKER, out / MARKER)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
