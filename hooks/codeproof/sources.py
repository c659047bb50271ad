"""SourceStore: the pinned upstream files, fetched once, cached, and proven against the lock.

Every file, whatever gave it (cache, git, the release archive), is hashed as git
hashes a blob and must equal the blob SHA-1 that the committed lock file records.
A networked machine fetches and caches; an offline one builds from the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .config import Baseline


@dataclass(frozen=True, order=True)
class FileRef:
    repo: str
    commit: str
    path: str

    def __str__(self) -> str:
        return f"{self.repo}@{self.commit[:7]}:{self.path}"


class SourceError(Exception):
    """A file that cannot be had, or that is not what the lock says. Carries a hint."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


class ProviderUnavailable(Exception):
    """This provider cannot give the file here (no network, not in the archive…); try the next."""


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    """Readers see the old file or the new one, never half of one; concurrent writers are safe."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Lock:
    """The committed lock file: blob SHA-1 of every quoted (repo, commit, path)."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, dict[str, dict[str, str]]] = {}
        if path.exists():
            self.entries = json.loads(path.read_text(encoding="utf-8"))

    def expected(self, ref: FileRef) -> str | None:
        return self.entries.get(ref.repo, {}).get(ref.commit, {}).get(ref.path)

    def record(self, ref: FileRef, sha: str) -> None:
        self.entries.setdefault(ref.repo, {}).setdefault(ref.commit, {})[ref.path] = sha

    def save(self) -> None:
        text = json.dumps(self.entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_atomically(self.path, text.encode("utf-8"))


class GitProvider:
    """`git fetch --depth 1` of the exact commit into a cache repository, then read the blob."""

    name = "git"

    def __init__(self, remote_template: str, cache_dir: Path, timeout: float = 120):
        self.remote_template = remote_template
        self.cache_dir = cache_dir / "git"
        self.timeout = timeout
        self._failed: dict[tuple[str, str], str] = {}  # one failed fetch per commit is enough

    def fetch(self, ref: FileRef) -> bytes:
        repo_dir = self._ensure_commit(ref.repo, ref.commit)
        shown = self._git(repo_dir, "cat-file", "blob", f"{ref.commit}:{ref.path}")
        if shown.returncode != 0:
            raise SourceError(
                f"{ref.path} does not exist at {ref.repo}@{ref.commit[:7]}",
                hint="check the File path (and Commit) in the block",
            )
        return shown.stdout

    def _ensure_commit(self, repo: str, commit: str) -> Path:
        key = (repo, commit)
        if key in self._failed:
            raise ProviderUnavailable(self._failed[key])
        repo_dir = self.cache_dir / (repo.replace("/", "__") + ".git")
        if not (repo_dir / "HEAD").exists():
            repo_dir.mkdir(parents=True, exist_ok=True)
            self._git(repo_dir, "init", "--quiet", "--bare")
        if self._git(repo_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0:
            return repo_dir
        url = self.remote_template.format(repo=repo)
        fetched = self._git(repo_dir, "fetch", "--quiet", "--depth", "1", url, commit)
        if fetched.returncode != 0:
            reason = fetched.stderr.decode(errors="replace").strip().splitlines() or ["git fetch failed"]
            self._failed[key] = f"git fetch {url} {commit[:7]}: {reason[-1]}"
            raise ProviderUnavailable(self._failed[key])
        return repo_dir

    def _git(self, repo_dir: Path, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        try:
            return subprocess.run(
                ["git", "-C", str(repo_dir), *args],
                capture_output=True, stdin=subprocess.DEVNULL, timeout=self.timeout, env=env,
            )
        except subprocess.TimeoutExpired:
            raise ProviderUnavailable(f"git {args[0]} timed out after {self.timeout:.0f} s") from None


class SdistProvider:
    """The release archive from PyPI (`pip download`), which holds the baseline commit's files."""

    name = "PyPI sdist"

    def __init__(self, baseline: Baseline, cache_dir: Path, timeout: float = 300):
        self.baseline = baseline
        self.tree = cache_dir / "sdist" / baseline.sdist.replace("==", "-")
        self.timeout = timeout
        self._failure: str | None = None

    def fetch(self, ref: FileRef) -> bytes:
        if (ref.repo, ref.commit) != (self.baseline.repo, self.baseline.commit):
            raise ProviderUnavailable(f"{self.baseline.sdist} holds only {self.baseline.repo}@{self.baseline.commit[:7]}")
        if not self.tree.is_dir():
            self._download()
        path = self.tree / ref.path
        if not path.is_file():
            raise ProviderUnavailable(f"{ref.path} is not in {self.baseline.sdist}")
        return path.read_bytes()

    def _download(self) -> None:
        if self._failure:
            raise ProviderUnavailable(self._failure)
        self.tree.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.tree.parent) as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   "--retries", "1", "--timeout", "20", "--dest", tmp, self.baseline.sdist]
            try:
                done = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                done = None
            archives = sorted(Path(tmp).glob("*.tar.gz"))
            if done is None or done.returncode != 0 or not archives:
                tail = (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1] if done else "timed out"
                self._failure = f"pip download {self.baseline.sdist}: {tail}"
                raise ProviderUnavailable(self._failure)
            unpacked = Path(tmp) / "unpacked"
            with tarfile.open(archives[0]) as archive:
                archive.extractall(unpacked, filter="data")
            (top,) = list(unpacked.iterdir())  # an sdist holds one top folder, e.g. autograd-1.9.1/
            if not self.tree.exists():  # another build may have unpacked it meanwhile
                os.replace(top, self.tree)


class SourceStore:
    """Gives the text of a pinned upstream file, proven equal to its lock entry."""

    def __init__(self, lock: Lock, cache_dir: Path, providers: list):
        self.lock = lock
        self.cache_dir = cache_dir / "sources"
        self.providers = providers
        self._texts: dict[FileRef, str] = {}  # once per build, whatever the number of quotes

    def cache_path(self, ref: FileRef) -> Path:
        return self.cache_dir / ref.repo.replace("/", "__") / ref.commit / ref.path

    def read(self, ref: FileRef) -> str:
        if ref not in self._texts:
            self._texts[ref] = self._load(ref).decode("utf-8")
        return self._texts[ref]

    def _load(self, ref: FileRef) -> bytes:
        expected = self.lock.expected(ref)
        if expected is None:
            raise SourceError(
                f"{ref} has no entry in the lock file {self.lock.path.name}",
                hint="run `./dev.sh lock` (python -m hooks.codeproof lock) to record it, and commit the lock",
            )
        cached = self.cache_path(ref)
        if cached.is_file():
            data = cached.read_bytes()
            actual = git_blob_sha1(data)
            if actual != expected:
                raise SourceError(
                    f"cached {ref} is blob {actual}, the lock says {expected}: the cache file was changed",
                    hint=f"delete {cached} and build again to fetch it afresh",
                )
            return data
        data = self.fetch_unverified(ref)
        actual = git_blob_sha1(data)
        if actual != expected:
            raise SourceError(
                f"fetched {ref} is blob {actual}, the lock says {expected}",
                hint="the provider gave other bytes than the pinned commit; check the lock entry and the provider",
            )
        write_atomically(cached, data)
        return data

    def fetch_unverified(self, ref: FileRef) -> bytes:
        """Ask each provider in turn; raise SourceError naming every reason if none can give the file."""
        reasons = []
        for provider in self.providers:
            try:
                return provider.fetch(ref)
            except ProviderUnavailable as unavailable:
                reasons.append(f"{provider.name}: {unavailable}")
        raise SourceError(
            f"cannot fetch {ref}: no cached copy, and " + "; ".join(reasons or ["no provider is configured"]),
            hint="build once on a machine that reaches GitHub or PyPI (it fills .cache/), or copy .cache/sources here",
        )


def default_store(series, lock: Lock | None = None) -> SourceStore:
    lock = lock or Lock(series.lock_file)
    providers = [
        GitProvider(series.git_remote, series.cache_dir),
        SdistProvider(series.baseline, series.cache_dir),
    ]
    return SourceStore(lock, series.cache_dir, providers)
