"""The providers of pinned upstream files: git (`GitProvider`) and the release archive from the package index
(`SdistProvider`, fetched by `index.py`), both what the store asks through `Provider`. Each proves the bytes it gives (git's object
checks, the archive's pinned SHA-256); the store then proves them against the lock."""

from __future__ import annotations

import difflib
import hashlib
import io
import logging
import re
import subprocess
import tarfile
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Protocol

from codeproof.series.config import SHA_RE, Baseline, normal_path
from codeproof.common.filesystem import holding
from codeproof.common.gitrun import run_git
from codeproof.common.structure import FileRef
from codeproof.quotes.index import IndexUnavailable, fetch_release_archive
from codeproof.quotes.lock import SourceError, git_blob_sha1

log = logging.getLogger("mkdocs.codeproof.sources")  # shown by MkDocs; info only, so --strict is unaffected


class ProviderUnavailable(Exception):
    """This provider cannot give the file here (no network, not in the archive…); try the next."""


class Provider(Protocol):
    """What gives the files of a commit, each proven by the provider's own means. `fetch` and `tree` raise
    ProviderUnavailable when it cannot give them here (no network, not a commit it holds…): the store asks the
    next provider."""

    name: str  # in messages: where a file came from, or why it could not
    # A pinned release archive: once downloaded it needs no network, and its pinned SHA-256 proves every file it
    # holds at once, so the store asks it first for a commit's whole tree or its list of files.
    pinned_archive: bool

    def where(self, ref: FileRef) -> str:
        """What holds the commit's files, as a message that names a path not there says it."""

    def fetch(self, ref: FileRef) -> bytes:
        """The file's bytes; SourceError when it knows the commit has no such file, or a folder by that name."""

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """Every file of the commit, or None if this provider cannot say."""

    def tree(self, repo: str, commit: str) -> dict[str, bytes]:
        """Every regular file of the commit: path -> bytes."""

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, bytes]]:
        """The file at other commits this provider holds, without the network: (a name for the commit, bytes)."""

    def prefetch(self) -> None:
        """A pinned archive's: start reading it (downloading it when the cache does not hold it) beside the
        caller's work; what goes wrong is said when a file of it is read."""


REF_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*\Z")  # a SHA, HEAD, a tag or a branch name


class GitProvider:
    """`git fetch --depth 1` of the exact commit, with every received object checked by git (fsck),
    then the blob read and hashed again. `fresh` fetches into a new temporary repository (for `lock`)
    instead of the cache, so nothing a cache holds is trusted."""

    name = "git"
    pinned_archive = False

    @staticmethod
    def where(ref: FileRef) -> str:
        return f"{ref.repo} at {ref.commit[:7]}"

    def __init__(self, remote_template: str, cache_dir: Path, timeout: float = 120, fresh: bool = False):
        self.remote_template = remote_template
        self._fresh = tempfile.TemporaryDirectory(prefix="codeproof-git-") if fresh else None
        self.cache_dir = Path(self._fresh.name) if fresh else cache_dir / "git"
        self.timeout = timeout
        self._failed: dict[tuple[str, str], str] = {}  # one failed fetch per commit is enough

    def fetch(self, ref: FileRef) -> bytes:
        repo_dir = self._ensure_commit(ref.repo, ref.commit)
        spec = f"{ref.commit}:{ref.path}"
        kind = self._git(repo_dir, "cat-file", "-t", spec).stdout.strip()
        if kind == b"tree":
            raise SourceError(f"{ref.path} is a directory at {ref.repo}@{ref.commit[:7]}", hint="name a file in File")
        if kind != b"blob":
            raise not_there(ref, f"{ref.repo} at {ref.commit[:7]}", self.paths(ref.repo, ref.commit) or [])
        blob = self._git(repo_dir, "rev-parse", spec).stdout.decode().strip()
        data = self._git(repo_dir, "cat-file", "blob", spec).stdout
        if git_blob_sha1(data) != blob:
            raise ProviderUnavailable(f"the object store {self.cache_dir} is damaged ({ref.path} is not blob {blob}); delete that folder")
        return data

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """Every file of the commit (fetched as for a file), or None if it cannot be had."""
        try:
            listed = self._git(self._ensure_commit(repo, commit), "ls-tree", "-r", "--name-only", "-z", commit)
        except ProviderUnavailable:
            return None
        return [name.decode("utf-8", "replace") for name in listed.stdout.split(b"\0") if name] \
            if listed.returncode == 0 else None

    def resolve(self, repo: str, ref: str, remote: str | None = None) -> str:
        """Fetch a commit, tag or branch of `repo` (from `remote`, else the configured remote), every object
        checked by git; its commit SHA. SourceError saying why when it cannot be fetched."""
        url = remote or self.remote_template.format(repo=repo)
        if not REF_RE.match(ref) or ".." in ref or url.startswith("-"):  # never an option to git
            raise SourceError(f"{ref!r} from {url!r} is not a commit, tag or branch git can be asked for",
                              hint="e.g. --to master, --to v1.9.2 or --to 90dbeb8d23f0…; --remote a URL or a path")
        repo_dir = self._repo_dir(repo)
        try:
            reason = self._fetch(repo_dir, url, ref)
        except ProviderUnavailable as error:
            raise SourceError(str(error), hint="try again, or fetch from another --remote") from None
        if reason is not None:
            raise SourceError(f"cannot fetch {ref} from {url}: {reason}",
                              hint="name a commit, tag or branch of the repository, or another --remote")
        commit = self._git(repo_dir, "rev-parse", "FETCH_HEAD^{commit}").stdout.decode().strip()
        if not SHA_RE.match(ref):  # named for versions_at_hand: the commit a tag or branch was when fetched
            self._git(repo_dir, "update-ref", f"refs/fetched/{ref}", commit)
        return commit

    def export(self, repo: str, commit: str, dest: Path) -> None:
        """Write the commit's regular files under dest (fetched already), as git archive gives them. Upstream
        content is data: a symbolic link (absolute or relative, inside the tree or out) and a submodule are
        left out, never followed, and never a reason to fail."""
        archived = self._git(self._ensure_commit(repo, commit), "archive", "--format=tar", commit)
        try:
            with tarfile.open(fileobj=io.BytesIO(archived.stdout)) as tree:
                tree.extractall(dest, members=[m for m in tree.getmembers() if m.isreg() or m.isdir()], filter="data")
        except (tarfile.TarError, OSError) as error:
            raise SourceError(f"cannot read {repo}@{commit[:7]}: {error}",
                              hint="check that the commit is a tree of source files") from None

    def tree(self, repo: str, commit: str) -> dict[str, bytes]:
        """Every regular file of the commit (fetched as for a file), as `export` writes them."""
        with tempfile.TemporaryDirectory(prefix="codeproof-tree-") as tmp:
            self.export(repo, commit, Path(tmp))
            return {p.relative_to(tmp).as_posix(): p.read_bytes() for p in Path(tmp).rglob("*") if p.is_file()}

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, bytes]]:
        """The file at every other commit the object store holds (drift and rebase fetched them), without the
        network: (a name for the commit, the file's bytes); a commit fetched as a tag or branch is named by it."""
        repo, path, pinned = ref.repo, ref.path, ref.commit
        repo_dir = self.cache_dir / (repo.replace("/", "__") + ".git")
        if not (repo_dir / "HEAD").exists():
            return []
        listed = self._git(repo_dir, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)")
        commits = [line.split()[1].decode() for line in listed.stdout.splitlines() if line.startswith(b"commit ")]
        refs = self._git(repo_dir, "for-each-ref", "--format=%(objectname) %(refname:strip=2)", "refs/fetched")
        names = {sha: f"{name} ({sha[:7]}, as last fetched)" for sha, _, name in
                 (line.partition(" ") for line in refs.stdout.decode(errors="replace").splitlines())}
        found = []
        for commit in commits:
            if commit != pinned:
                shown = self._git(repo_dir, "cat-file", "blob", f"{commit}:{path}")
                if shown.returncode == 0:
                    found.append((names.get(commit, commit[:7]), shown.stdout))
        return found

    def _repo_dir(self, repo: str) -> Path:
        repo_dir = self.cache_dir / (repo.replace("/", "__") + ".git")
        if not (repo_dir / "HEAD").exists():
            repo_dir.mkdir(parents=True, exist_ok=True)
            self._git(repo_dir, "init", "--quiet", "--bare")
        return repo_dir

    def _ensure_commit(self, repo: str, commit: str) -> Path:
        key = (repo, commit)
        if key in self._failed:
            raise ProviderUnavailable(self._failed[key])
        repo_dir = self._repo_dir(repo)
        if self._git(repo_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0:
            return repo_dir
        url = self.remote_template.format(repo=repo)
        log.info(f"asking git for {repo}@{commit[:7]} (once: what it gives is kept in the cache)")  # the store says why
        reason = self._fetch(repo_dir, url, commit)
        if reason is not None:
            self._failed[key] = f"git fetch {url} {commit[:7]}: {reason}"
            raise ProviderUnavailable(self._failed[key])
        return repo_dir

    def _fetch(self, repo_dir: Path, url: str, ref: str) -> str | None:
        """Fetch `ref` (a commit, tag or branch) from `url`, every received object checked by git; None when it
        could, else why not: the last `fatal:` or `error:` line git wrote, or its last line."""
        fetched = self._git(repo_dir, "fetch", "--quiet", "--depth", "1", "--end-of-options", url, ref)
        if fetched.returncode == 0:
            return None
        said = fetched.stderr.decode(errors="replace").strip().splitlines() or ["git fetch failed"]
        return next((line for line in reversed(said) if line.startswith(("fatal:", "error:"))), said[-1])

    def _git(self, repo_dir: Path, *args: str) -> subprocess.CompletedProcess:
        try:
            return run_git(*args, git_dir=repo_dir, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise ProviderUnavailable(f"git {args[0]} timed out after {self.timeout:.0f} s") from None


class SdistProvider:
    """The release archive from the package index (PyPI's), which holds the baseline commit's files. It is kept as
    downloaded, its SHA-256 is checked against the pin in mkdocs.yml every time it is opened, and
    files are read out of the verified archive itself, never from an unpacked tree."""

    name = "PyPI sdist"
    pinned_archive = True

    def where(self, ref: FileRef) -> str:  # the archive holds the package's files, not every file of the commit
        return f"{ref.repo} {self.baseline.version}'s release archive ({self.baseline.sdist}, the files of {ref.commit[:7]})"

    def __init__(self, baseline: Baseline, cache_dir: Path, timeout: float = 120):
        self.baseline = baseline
        self.folder = cache_dir / "sdist"
        self.archive = self.folder / (baseline.sdist.replace("==", "-") + ".tar.gz")
        self.timeout = timeout
        self._files: dict[str, bytes] | None = None  # path inside the project -> bytes
        self._failure: str | None = None
        self._opening = threading.Lock()  # one download and one unpacking, whoever asks first (prefetch)

    def prefetch(self) -> None:
        """Download and open the archive in a thread of its own, so that a build's first download overlaps what
        the build does before it reads a file (MkDocs configures itself; Material loads its Chinese dictionary).
        What goes wrong is left to the build's own read, which meets it again and says it."""

        def opened() -> None:
            try:
                self._open()
            except Exception:  # said by the build's own read (tree, fetch), with its file and hint
                pass

        threading.Thread(target=opened, name="codeproof-prefetch", daemon=True).start()

    def fetch(self, ref: FileRef) -> bytes:
        files = self.tree(ref.repo, ref.commit)
        if ref.path in files:
            return files[ref.path]
        if any(name.startswith(ref.path + "/") for name in files):
            raise SourceError(f"{ref.path} is a directory in {self.baseline.sdist}", hint="name a file in File")
        raise ProviderUnavailable(f"{ref.path} is not in {self.baseline.sdist}")

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """The files the archive holds (downloaded as for a file), or None if it is not that commit or cannot
        be had."""
        try:
            return sorted(self.tree(repo, commit))
        except ProviderUnavailable:
            return None

    def tree(self, repo: str, commit: str) -> dict[str, bytes]:
        """Every file the archive holds (path inside the project -> bytes), its SHA-256 checked against the pin;
        ProviderUnavailable for any commit but the baseline's."""
        if (repo, commit) != (self.baseline.repo, self.baseline.commit):
            raise ProviderUnavailable(f"{self.baseline.sdist} holds only {self.baseline.repo}@{self.baseline.commit[:7]}")
        return self._open()

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, bytes]]:
        """None: the archive holds the pinned commit alone (the releases drift and rebase downloaded are
        `releases_at_hand`)."""
        return []

    def _open(self) -> dict[str, bytes]:
        with self._opening:
            if self._files is None:
                if not self.archive.is_file():
                    with holding(self.folder / ".downloading"):  # (or by dev.sh's codeproof.fetch)
                        if not self.archive.is_file():
                            self._download()
                data = self.archive.read_bytes()
                actual = hashlib.sha256(data).hexdigest()
                if actual != self.baseline.sdist_sha256:
                    raise SourceError(
                        f"the release archive {self.archive} changed on disk: its SHA-256 is {actual}, "
                        f"mkdocs.yml pins {self.baseline.sdist_sha256}",
                        hint=f"delete the folder {self.folder} and build again to download it afresh",
                    )
                self._files = _unpacked(data, actual)
            return self._files

    def _download(self) -> None:
        if self._failure:
            raise ProviderUnavailable(self._failure)
        log.info(f"downloading {self.baseline.sdist} from the package index: the pinned files are read from this release archive "
                 "(its SHA-256 pinned; once: then it is in the cache)")
        started = time.monotonic()
        try:
            download_sdist(self.baseline.sdist, self.archive, self.baseline.sdist_sha256, self.timeout)
        except ProviderUnavailable as error:
            self._failure = str(error)
            raise
        log.info(f"downloaded {self.baseline.sdist} in {time.monotonic() - started:.1f} s")


def download_sdist(pin: str, archive: Path, sha256: str | None, timeout: float = 120) -> str:
    """The source archive of `pin` (name==version) from the index's listing to `archive`, its bytes proven by
    `sha256` (else by the listing's): its SHA-256. ProviderUnavailable saying why when it cannot be had."""
    try:
        return fetch_release_archive(pin, archive, sha256, timeout)
    except IndexUnavailable as error:
        raise ProviderUnavailable(f"{pin}: {error}") from None


def release_files(pin: str, cache_dir: Path) -> tuple[dict[str, bytes], str]:
    """The files of a release's source archive (fetched once into the cache) and its SHA-256, as the index's
    listing gave it and the bytes matched: the drift report names it, nothing is pinned by it. SourceError when it
    cannot be had."""
    archive = _releases(cache_dir) / (pin.replace("==", "-") + ".tar.gz")
    if not archive.is_file():
        try:
            download_sdist(pin, archive, None)
        except ProviderUnavailable as error:
            raise SourceError(str(error), hint="name a version published on the package index, or check the "
                                               "network") from None
    data = archive.read_bytes()
    return _archive_files(data), hashlib.sha256(data).hexdigest()


def releases_at_hand(cache_dir: Path, path: str) -> list[tuple[str, bytes]]:
    """The file in each release archive that drift and rebase downloaded (release_files), without the network:
    ("release <version>", the file's bytes). An archive that cannot be read is passed over."""
    found = []
    for archive in sorted(_releases(cache_dir).glob("*.tar.gz")):
        try:
            files = _archive_files(archive.read_bytes())
        except (OSError, tarfile.TarError, EOFError, zlib.error):
            continue
        if path in files:
            found.append((f"release {archive.name.removesuffix('.tar.gz').rpartition('-')[2]}", files[path]))
    return found


def _releases(cache_dir: Path) -> Path:
    """Where release_files keeps the release archives it downloads."""
    return cache_dir / "sdist" / "releases"


_UNPACKED: dict[str, dict[str, bytes]] = {}  # SHA-256 of an archive -> its files: unpacked once per process


def _unpacked(data: bytes, sha256: str) -> dict[str, bytes]:
    """The files of an archive whose bytes were read and hashed just now: unpacking is a function of those
    bytes, so a process that builds again (serve, the benchmarks) does it once; the hash is still checked on
    every use."""
    if sha256 not in _UNPACKED:
        _UNPACKED[sha256] = _archive_files(data)
    return _UNPACKED[sha256]


def _archive_files(data: bytes) -> dict[str, bytes]:
    """The regular files of an sdist, named without its one top folder (autograd-1.9.1/...). A name that is not
    a repository path in normal form (`top//etc/x`, `top/../../x`) names no file of the package: it is left out,
    so nothing that writes the files out can be led outside its folder."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        members = [(m, m.name.split("/", 1)[1]) for m in archive.getmembers() if m.isfile() and "/" in m.name]
        return {name: archive.extractfile(m).read() for m, name in members if normal_path(name) == name}

def not_there(ref: FileRef, where: str, paths: list[str]) -> SourceError:
    """A File that is not upstream, with the paths it probably meant."""
    close = difflib.get_close_matches(ref.path, paths, n=3, cutoff=0.6)
    named = [p for p in paths if p.rsplit("/", 1)[-1] == ref.path.rsplit("/", 1)[-1] and p not in close]
    hint = f"did you mean {', '.join(close + named[:3])}?" if close or named else "check the File path (and Commit)"
    return SourceError(f"{ref.path} is not in {where}", hint=hint)

