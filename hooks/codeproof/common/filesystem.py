"""Small file utilities: write a file whole, name a file as reports show it, and the one policy of what a
folder walked for publishing (docs/, experiments/) may hold."""

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


# What to do about an entry that cannot be published, by why.
RENAME_HINT = "rename it (letters, digits, '-', '_' and '.' are safe everywhere)"
LINK_HINT = "replace the link with a copy of the file it points to, or delete it"
FILE_HINT = "keep only folders and regular files: replace it with a copy of the file, or delete it"


def unpublishable(path: Path, info: os.stat_result) -> tuple[str, str] | None:
    """Why a folder entry (its lstat, or the fstat of the file opened) cannot be published as it is, and what
    to do; None for a folder or a regular file with one name. A name that is not printable UTF-8 has no
    address; a symbolic link would publish whatever it leads to, inside the repository or not (and a loop
    never ends a walk); a FIFO or device hangs or leaks a reader; a hard link is also another file, maybe
    outside the repository."""
    if not path.name.isprintable():  # control characters, or bytes that are not UTF-8 (surrogates)
        return "the file name is not printable UTF-8, so it has no address", RENAME_HINT
    if stat.S_ISLNK(info.st_mode):
        return f"a symbolic link (to {os.readlink(path)}): the site would publish whatever it leads to", LINK_HINT
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file, so it cannot be published", FILE_HINT
    if info.st_nlink > 1:
        return f"a hard link (the file has {info.st_nlink} names), so it cannot be published", FILE_HINT
    return None


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
