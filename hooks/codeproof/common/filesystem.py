"""Small file utilities: write a file whole, and name a file as reports show it."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Readers see the old file or the new one, never half of one; concurrent writers are safe.
    The file keeps its mode (a new one gets the umask's), not the private mode of a temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_text(path: Path) -> tuple[str, str]:
    """A UTF-8 text file with its line endings made \\n, and the ending it had, to write it back alike."""
    raw = path.read_bytes().decode("utf-8")
    return raw.replace("\r\n", "\n"), "\r\n" if "\r\n" in raw else "\n"


def _umask() -> int:
    """The process umask, read without setting it (os.umask would change it for every thread)."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Umask:")), 8)
    except (OSError, StopIteration):
        return 0o022


def shown_path(path: str | os.PathLike, root: str | os.PathLike | None = None) -> str:
    """A file's path as a report shows it: from `root` when it lies there (links are not followed), and
    printable, with bytes that are not UTF-8 and control characters escaped."""
    text = os.fspath(path)
    if root is not None and not os.path.relpath(text, root).startswith(".."):
        text = os.path.relpath(text, root)
    text = os.fsencode(text).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
