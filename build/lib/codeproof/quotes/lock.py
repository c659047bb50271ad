"""The committed lock file, the evidence every pinned upstream file is proven against: the blob SHA-1 of every
quoted (repo, commit, path), as git hashes a blob."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from codeproof.series.config import SHA_RE, normal_path, valid_repo
from codeproof.common.errors import CodeproofError
from codeproof.common.filesystem import write_atomically
from codeproof.common.structure import FileRef


class SourceError(CodeproofError):
    """A file that cannot be had, or that is not what the lock says."""


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Lock:
    """The committed lock file: blob SHA-1 of every quoted (repo, commit, path).

    It is the evidence every upstream file is proven against, so a lock that is not
    exactly {repo: {commit: {path: sha1}}} is refused as a whole, with the line at fault."""

    def __init__(self, path: Path, entries: dict[str, dict[str, dict[str, str]]] | None = None):
        self.path = path
        self.entries = entries or {}

    @classmethod
    def read(cls, path: Path) -> "Lock":
        if not path.exists():
            return cls(path)
        name = path.name
        if not path.is_file() and not path.is_dir():  # a FIFO would block the build; a device is no lock
            raise LockFileError(f"{name}:1: is not a regular file", "remove it; `./dev.sh lock` writes it anew")
        try:
            text = path.read_bytes().decode("utf-8")
            entries = json.loads(text)
        except IsADirectoryError:
            raise LockFileError(f"{name}:1: is a directory, not a JSON file", "remove it; `./dev.sh lock` writes it anew") from None
        except UnicodeDecodeError as error:
            raise LockFileError(f"{name}:1: byte {error.start} is not UTF-8", "restore it from git") from None
        except json.JSONDecodeError as error:
            raise LockFileError(f"{name}:{error.lineno}: not valid JSON: {error.msg}", "restore it from git") from None
        except OSError as error:
            raise LockFileError(f"{name}:1: cannot be read: {error.strerror}", "check its permissions") from None
        problem = _lock_shape_problem(entries)
        if problem:
            line = next((n for n, text_line in enumerate(text.splitlines(), 1) if problem[0] and problem[0] in text_line), 1)
            raise LockFileError(f"{name}:{line}: {problem[1]}", "restore it from git, or delete the entry and run `./dev.sh lock`")
        return cls(path, entries)

    def expected(self, ref: FileRef) -> str | None:
        return self.entries.get(ref.repo, {}).get(ref.commit, {}).get(ref.path)

    def record(self, ref: FileRef, sha: str) -> None:
        self.entries.setdefault(ref.repo, {}).setdefault(ref.commit, {})[ref.path] = sha

    def save(self) -> None:
        write_atomically(self.path, self.data())

    def data(self) -> bytes:
        """The lock file's bytes as save writes them."""
        return (json.dumps(self.entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


class LockFileError(SourceError):
    """The lock file itself is unusable; nothing can be verified until it is mended."""


def _lock_shape_problem(entries: object) -> tuple[str, str] | None:
    """(text to find the line by, what is wrong), or None when the lock has the shape it must have."""
    if not isinstance(entries, dict):
        return "", f"must be a JSON object {{repo: {{commit: {{path: blob}}}}}}, not {type(entries).__name__}"
    for repo, commits in entries.items():
        if not valid_repo(repo) or not isinstance(commits, dict):
            return repo, f"{repo!r} must be an owner/name repository holding {{commit: {{path: blob}}}}"
        for commit, paths in commits.items():
            if not SHA_RE.match(commit) or not isinstance(paths, dict):
                return commit, f"{commit!r} must be a full 40-hex commit holding {{path: blob}}"
            for path, sha in paths.items():
                if normal_path(path) != path:
                    return path, f"{path!r} is not a normalised relative path"
                if not isinstance(sha, str) or not SHA_RE.match(sha):
                    return path, f"the blob of {path!r} must be a 40-hex SHA-1, not {sha!r}"
    return None
