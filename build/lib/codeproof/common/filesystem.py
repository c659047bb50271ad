"""Small file utilities: write a file whole, write several files all or none (write_together, recover), name a
file as reports show it, and the one policy of what a folder walked for publishing (docs/, experiments/) may hold."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.common.usercache import repository_cache


def write_atomically(path: Path, data: bytes) -> None:
    """Readers see the old file or the new one, never half of one; concurrent writers are safe.
    The file keeps its mode (a new one gets the umask's), not the private mode of a temporary file."""
    made: list[Path] = []
    try:
        _write_aside(path, data, made, prefix=f".{path.name}.", durable=False)
        os.replace(made[0], path)
    except BaseException as error:
        for tmp in made:
            tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, WriteError):
            raise WriteError(path, error) from None
        raise


class WriteError(CodeproofError, OSError):
    """A file could not be written, named as the command meant it (not the temporary file it wrote first)."""

    def __init__(self, path: Path, error: OSError):
        CodeproofError.__init__(self, f"cannot write {path}: {error.strerror or error}",
                                hint="make the file and its folder writable, then run the command again")
        self.filename, self.strerror, self.errno = str(path), error.strerror, error.errno

    def __str__(self) -> str:
        return self.args[0]  # not OSError's "[Errno 30] …" form


# --- several files, all or none ------------------------------------------------------------------------

ASIDE = ".codeproof-aside-"  # the prefix of a new content written beside the file it replaces
PRUNED = {".git", ".venv", ".cache", "node_modules", "site"}  # never holds what write_together writes


def journal_file(root: Path) -> Path:
    """The journal of a change of several files that is landing: tool state, so in the user's cache, never in
    the repository, where a committed journal would name files for recover to overwrite."""
    return repository_cache(root) / "journal.json"


def write_together(root: Path, changes: dict[Path, bytes]) -> None:
    """Replace every file of `changes` (paths under `root`), or none, whatever ends the process.

    Each new content is first written aside, beside its file (flushed to disk, with the file's mode); then
    the journal, naming each file, its aside copy and the SHA-256 of its new content, is renamed into place:
    that rename is the point of no return. Then each aside copy is renamed over its file and the journal is
    removed. Ctrl-C and SIGTERM are held from the journal's rename to the end, so an interruption leaves
    all old files (before) or all new ones (after). A SIGKILL or a power cut may leave the journal:
    recover, which every command runs first, finishes the change from it; before the journal exists the
    aside copies are strays that recover removes."""
    for path in changes:  # what a rename cannot replace, found before anything is committed
        if os.path.ismount(path):
            raise WriteError(path, OSError(errno.EBUSY, "it is a mount point, which a rename cannot replace"))
    journal = journal_file(root)
    asides: list[Path] = []  # each aside copy as soon as it exists, so an interruption leaves none
    try:
        entries = []
        for path, data in changes.items():
            _write_aside(path, data, asides)
            entries.append({"path": os.path.relpath(path, root), "aside": os.path.relpath(asides[-1], root),
                            "sha256": hashlib.sha256(data).hexdigest()})
        _check_entries(root, entries)
        _write_aside(journal, json.dumps(entries, indent=1).encode("utf-8"), asides)
        with _signals_held():
            os.replace(asides.pop(), journal)  # the point of no return
            asides = []  # the journal owns them now
            _finish(root, entries)
    finally:
        for aside in asides:  # not committed: nothing was changed
            aside.unlink(missing_ok=True)


def recover(root: Path) -> list[str]:
    """Finish a change that write_together committed but did not complete, and remove aside copies of one it
    did not commit; what was done, to be said (empty when nothing was pending). ChangeUnfinished when a
    file that the journal names is neither its old self with its new content aside, nor its new content, or
    when the journal names a file it could not have written (outside the repository, through a link)."""
    journal = journal_file(root)
    said = []
    if journal.is_file():
        try:
            entries = json.loads(journal.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError):
            entries = None
        _check_entries(root, entries)
        _finish(root, entries)
        said.append(f"finished an interrupted change of {len(entries)} files: "
                    + ", ".join(entry["path"] for entry in entries))
    strays = [journal.parent / name for name in (os.listdir(journal.parent) if journal.parent.is_dir() else ())
              if name.startswith(f".{journal.name}{ASIDE}")]
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in PRUNED]
        strays += [Path(folder) / name for name in names if name.startswith(".") and ASIDE in name]
    for stray in strays:
        stray.unlink()
        said.append(f"removed {shown_path(stray, root)}, left by a change interrupted before it wrote anything")
    return said


class ChangeUnfinished(CodeproofError):
    """A journaled change cannot be finished: a file it names has neither its new content nor a copy of it."""


def _check_entries(root: Path, entries: object) -> None:
    """Each entry names a file inside the repository and its aside copy beside it, as write_together writes
    them: relative, in normal form, reached through no link, the copy named as _write_aside names it. Checked
    before any write, so a journal from anywhere can change no file outside the repository, nor move one in."""
    def inside(relative: object) -> bool:
        if not isinstance(relative, str) or "\0" in relative or os.path.isabs(relative) \
                or os.path.normpath(relative) != relative or relative.split(os.sep)[0] == ".." \
                or PRUNED & set(relative.split(os.sep)):  # git's own folder, the tools': never a file of a change
            return False
        real_root = os.path.realpath(root)
        return os.path.realpath(os.path.join(real_root, relative)) == os.path.join(real_root, relative)

    def wrong_in(entry: object) -> str | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            return f"an entry is not a file, its copy and its SHA-256: {entry!r:.80}"
        path, aside = entry.get("path"), entry.get("aside")
        if not inside(path):
            return f"it names {shown_path(str(path))}, which is not a file inside the repository reached through no link"
        if not (inside(aside) and os.path.dirname(aside) == os.path.dirname(path)
                and os.path.basename(aside).startswith(f".{os.path.basename(path)}{ASIDE}")):
            return f"it names {shown_path(str(aside))} as the new content of {shown_path(path)}, not a copy beside it"
        return None

    wrong = next(filter(None, map(wrong_in, entries)), None) if isinstance(entries, list) \
        else "it is not a list of changes"
    if wrong:
        journal = journal_file(root)
        raise ChangeUnfinished(f"{journal}: the journal of an interrupted change cannot be followed: {wrong}",
                               hint=f"delete {journal} (nothing was changed by it), check `git status`, and run the "
                                    "command again")


def _finish(root: Path, entries: list[dict]) -> None:
    journal = journal_file(root)
    for entry in entries:
        target, aside = root / entry["path"], root / entry["aside"]
        if aside.is_file() and _sha256(aside) == entry["sha256"]:
            try:
                os.replace(aside, target)
            except OSError as error:
                raise WriteError(target, error) from None
        elif not (target.is_file() and _sha256(target) == entry["sha256"]):
            raise ChangeUnfinished(f"{journal}: cannot finish the interrupted change: {entry['path']} has neither "
                                   f"its new content nor a copy of it ({entry['aside']})",
                                   hint=f"restore the files with `git checkout -- .`, delete {journal}, and run the "
                                        "command again")
    _fsync_folder(root)
    journal.unlink()


def _write_aside(path: Path, data: bytes, made: list[Path], prefix: str | None = None, durable: bool = True) -> None:
    """`data` written beside `path` with path's mode (a new file's: the umask's), flushed to disk if `durable`;
    its path added to `made` as soon as it exists. WriteError names `path`, not the copy."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, aside = tempfile.mkstemp(dir=path.parent, prefix=prefix or f".{path.name}{ASIDE}")
        made.append(Path(aside))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(aside, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask())
    except OSError as error:
        raise WriteError(path, error) from None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _signals_held():
    """Ctrl-C, SIGTERM and SIGHUP wait until the block ends (then take effect as usual)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


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


@contextmanager
def holding(lock: Path):
    """`lock` (a file, made if missing) held exclusively while the block runs: another process holding it first
    (dev.sh's codeproof.fetch downloading what a build reads) is waited for."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


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
