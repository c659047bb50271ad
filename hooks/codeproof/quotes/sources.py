"""SourceStore: the pinned upstream files, fetched once, cached, and proven against the lock.

Every file, whatever gave it (cache, git, the release archive), is hashed as git
hashes a blob and must equal the blob SHA-1 that the committed lock file records.
A networked machine fetches and caches; an offline one builds from the cache.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import logging
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

from codeproof.series.config import SHA_RE, Baseline, in_ci, normal_path, valid_repo
from codeproof.common.errors import CodeproofError
from codeproof.common.filesystem import write_atomically
from codeproof.common.structure import FileRef

log = logging.getLogger("mkdocs.codeproof.sources")  # shown by MkDocs; info only, so --strict is unaffected


class SourceError(CodeproofError):
    """A file that cannot be had, or that is not what the lock says."""


class ProviderUnavailable(Exception):
    """This provider cannot give the file here (no network, not in the archive…); try the next."""


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


REF_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*\Z")  # a SHA, HEAD, a tag or a branch name


class GitProvider:
    """`git fetch --depth 1` of the exact commit, with every received object checked by git (fsck),
    then the blob read and hashed again. `fresh` fetches into a new temporary repository (for `lock`)
    instead of the cache, so nothing a cache holds is trusted."""

    name = "git"

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
            fetched = self._git(repo_dir, "-c", "transfer.fsckObjects=true", "fetch", "--quiet", "--depth", "1",
                                "--end-of-options", url, ref)
        except ProviderUnavailable as error:
            raise SourceError(str(error), hint="try again, or fetch from another --remote") from None
        if fetched.returncode != 0:
            said = fetched.stderr.decode(errors="replace").strip().splitlines() or ["git fetch failed"]
            reason = next((line for line in reversed(said) if line.startswith(("fatal:", "error:"))), said[-1])
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

    def versions_at_hand(self, repo: str, path: str, pinned: str) -> list[tuple[str, bytes]]:
        """The file at every other commit the object store holds (drift and rebase fetched them), without the
        network: (a name for the commit, the file's bytes); a commit fetched as a tag or branch is named by it."""
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
        log.info(f"asking git for {repo}@{commit[:7]} (once: what it gives is kept in the cache)")
        fetched = self._git(repo_dir, "-c", "transfer.fsckObjects=true", "fetch", "--quiet", "--depth", "1", url, commit)
        if fetched.returncode != 0:
            said = fetched.stderr.decode(errors="replace").strip().splitlines() or ["git fetch failed"]
            reason = next((line for line in reversed(said) if line.startswith(("fatal:", "error:"))), said[-1])
            self._failed[key] = f"git fetch {url} {commit[:7]}: {reason}"
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
    """The release archive from PyPI, which holds the baseline commit's files. It is kept as
    downloaded, its SHA-256 is checked against the pin in mkdocs.yml every time it is opened, and
    files are read out of the verified archive itself, never from an unpacked tree."""

    name = "PyPI sdist"

    def where(self, ref: FileRef) -> str:  # the archive holds the package's files, not every file of the commit
        return f"{ref.repo} {self.baseline.version}'s release archive ({self.baseline.sdist}, the files of {ref.commit[:7]})"

    def __init__(self, baseline: Baseline, cache_dir: Path, timeout: float = 300):
        self.baseline = baseline
        self.folder = cache_dir / "sdist"
        self.archive = self.folder / (baseline.sdist.replace("==", "-") + ".tar.gz")
        self.timeout = timeout
        self._files: dict[str, bytes] | None = None  # path inside the project -> bytes
        self._failure: str | None = None

    def fetch(self, ref: FileRef) -> bytes:
        if (ref.repo, ref.commit) != (self.baseline.repo, self.baseline.commit):
            raise ProviderUnavailable(f"{self.baseline.sdist} holds only {self.baseline.repo}@{self.baseline.commit[:7]}")
        files = self._open()
        if ref.path in files:
            return files[ref.path]
        if any(name.startswith(ref.path + "/") for name in files):
            raise SourceError(f"{ref.path} is a directory in {self.baseline.sdist}", hint="name a file in File")
        raise ProviderUnavailable(f"{ref.path} is not in {self.baseline.sdist}")

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """The files the archive holds (downloaded as for a file), or None if it is not that commit or cannot
        be had."""
        if (repo, commit) != (self.baseline.repo, self.baseline.commit):
            return None
        try:
            return sorted(self.files())
        except ProviderUnavailable:
            return None

    def files(self) -> dict[str, bytes]:
        """Every file the archive holds (path inside the project -> bytes), its SHA-256 checked against the pin."""
        return self._open()

    def _open(self) -> dict[str, bytes]:
        if self._files is None:
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
        log.info(f"downloading {self.baseline.sdist} from PyPI (its SHA-256 pinned; once: then it is in the cache)")
        try:
            download_sdist(self.baseline.sdist, self.archive, self.baseline.sdist_sha256, self.timeout)
        except ProviderUnavailable as error:
            self._failure = str(error)
            raise


def download_sdist(pin: str, archive: Path, sha256: str | None, timeout: float = 300) -> None:
    """pip downloads the sdist of `pin` (name==version) to `archive`; with `sha256`, pip itself refuses an
    archive of other bytes. ProviderUnavailable saying why when it cannot."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=archive.parent) as tmp:
        requirement = Path(tmp) / "requirement.txt"
        requirement.write_text(f"{pin} --hash=sha256:{sha256}\n" if sha256 else f"{pin}\n")
        # Only the release itself as an sdist: `--no-binary :all:` would reach the build backend that pip
        # installs to read the sdist's metadata, and build it and its dependencies from source (30 s).
        release = pin.partition("==")[0]  # a pin, name==version (config.PIN_RE)
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", release,
               *(["--require-hashes"] if sha256 else []), "--retries", "1", "--timeout", "20", "--dest", tmp,
               "-r", str(requirement)]
        try:
            done = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            done = None
        archives = sorted(Path(tmp).glob("*.tar.gz"))
        if done is None or done.returncode != 0 or len(archives) != 1:
            tail = (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1] if done else "timed out"
            raise ProviderUnavailable(f"pip download {pin}: {tail}")
        os.replace(archives[0], archive)


def release_files(pin: str, cache_dir: Path) -> tuple[dict[str, bytes], str]:
    """The files of a release's sdist (downloaded once into the cache) and the archive's SHA-256, which PyPI
    served over TLS: the drift report names it, nothing is pinned by it. SourceError when it cannot be had."""
    archive = cache_dir / "sdist" / "releases" / (pin.replace("==", "-") + ".tar.gz")
    if not archive.is_file():
        try:
            download_sdist(pin, archive, None)
        except ProviderUnavailable as error:
            raise SourceError(str(error), hint="name a version published on PyPI, or check the network") from None
    data = archive.read_bytes()
    return _archive_files(data), hashlib.sha256(data).hexdigest()


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


class SourceStore:
    """Gives the text of a pinned upstream file, proven equal to its lock entry.

    Fetched files are cached by their blob SHA-1 (content-addressed), so a cached copy is
    looked up by what the lock expects and proven by its own name: a wrong lock entry is a
    cache miss and a fetch, never mistaken for a changed cache. A cached copy only proves that it
    matches the lock, not that the lock matches upstream: a store that must prove both (CI, `lock`)
    reads no cached copy, so every file is fetched and proven by its provider, then by the lock."""

    def __init__(self, lock: Lock, cache_dir: Path, providers: list, read_cache: bool = True):
        self.lock = lock
        self.cache_dir = cache_dir / "blobs"
        self.providers = providers
        self.read_cache = read_cache
        self._texts: dict[FileRef, str] = {}  # once per build, whatever the number of quotes

    def cache_path(self, blob: str) -> Path:
        return self.cache_dir / blob[:2] / blob

    def tree(self, repo: str, commit: str, folder: str) -> dict[str, bytes]:
        """Every file under `folder` at the commit, from the pinned release archive when it holds that commit
        (its SHA-256 proves it), else from git (whose object checks prove it); a file the lock names must be
        its locked blob too. SourceError when it cannot be had or does not match."""
        sdist = next((p for p in self.providers if isinstance(p, SdistProvider)), None)
        files = None
        if sdist and (repo, commit) == (sdist.baseline.repo, sdist.baseline.commit):
            try:
                files = sdist.files()
            except ProviderUnavailable:
                files = None
        if files is None:
            with tempfile.TemporaryDirectory(prefix="codeproof-tree-") as tmp:
                try:
                    self.git.export(repo, commit, Path(tmp))
                except ProviderUnavailable as error:
                    raise SourceError(f"cannot read {repo}@{commit[:7]}: {error}",
                                      hint="build once on a machine that reaches GitHub or PyPI (it fills .cache/)") from None
                files = {p.relative_to(tmp).as_posix(): p.read_bytes() for p in Path(tmp).rglob("*") if p.is_file()}
        chosen = {path: data for path, data in files.items() if path.startswith(folder.rstrip("/") + "/")}
        for path, data in chosen.items():
            expected = self.lock.expected(FileRef(repo, commit, path))
            if expected and git_blob_sha1(data) != expected:
                raise SourceError(f"{repo}@{commit[:7]}:{path} is not the blob the lock records",
                                  hint=f"the lock entry is wrong: delete it from {self.lock.path.name} and run `./dev.sh lock`")
        return chosen

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """Every file of the commit: the pinned release archive's when it holds that commit (no network, and its
        SHA-256 proves it), else git's; None when neither can say."""
        for provider in sorted(self.providers, key=lambda p: not isinstance(p, SdistProvider)):
            found = provider.paths(repo, commit)
            if found is not None:
                return found
        return None

    @property
    def git(self) -> GitProvider:
        return next(provider for provider in self.providers if isinstance(provider, GitProvider))

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, str]]:
        """Other versions of the file at hand offline, (name, text): other commits in git's object store, and the
        release archives drift and rebase downloaded. Evidence of where a quote was copied from, never of a quote."""
        found = [(name, data) for provider in self.providers if isinstance(provider, GitProvider)
                 for name, data in provider.versions_at_hand(ref.repo, ref.path, ref.commit)]
        for archive in sorted((self.cache_dir.parent / "sdist" / "releases").glob("*.tar.gz")):
            try:
                files = _archive_files(archive.read_bytes())
            except (OSError, tarfile.TarError, EOFError, zlib.error):
                continue
            if ref.path in files:
                found.append((f"release {archive.name.removesuffix('.tar.gz').rpartition('-')[2]}", files[ref.path]))
        return [(name, data.decode("utf-8", "replace")) for name, data in found]

    def read(self, ref: FileRef) -> str:
        if ref not in self._texts:
            data = self._load(ref)
            try:
                self._texts[ref] = data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise SourceError(f"{ref} is not UTF-8 text (byte {error.start}): only source files can be quoted",
                                  hint="quote a Python source file") from None
        return self._texts[ref]

    def _load(self, ref: FileRef) -> bytes:
        expected = self.lock.expected(ref)
        if expected is None:
            for provider in self.providers:  # a file that is not upstream needs no lock entry but a new File line
                paths = provider.paths(ref.repo, ref.commit)
                if paths is not None and ref.path not in paths:
                    raise not_there(ref, provider.where(ref), paths)
            raise SourceError(
                f"{ref} has no entry in the lock file {self.lock.path.name}",
                hint="run `./dev.sh lock` (python -m codeproof lock) to record it, and commit the lock",
            )
        cached = self.cache_path(expected)
        if self.read_cache and cached.is_file():
            data = cached.read_bytes()
            if git_blob_sha1(data) != expected:
                raise SourceError(
                    f"the cached copy of {ref} changed on disk: {cached} is not blob {expected}",
                    hint=f"delete the folder {self.cache_dir} and build again to fetch and check every file afresh",
                )
            return data
        data, provider = self.fetch(ref)
        actual = git_blob_sha1(data)
        if actual != expected:
            raise SourceError(
                f"{ref} is blob {actual} (from {provider}), but the lock says {expected}",
                hint=f"the lock entry is wrong: delete it from {self.lock.path.name} and run `./dev.sh lock`",
            )
        write_atomically(cached, data)
        return data

    def fetch(self, ref: FileRef) -> tuple[bytes, str]:
        """(bytes, provider name) from the first provider that can give the file; SourceError naming
        every reason if none can. Each provider proves its own bytes (git's object check, the pinned
        archive hash); the lock is checked by the caller."""
        reasons = []
        for provider in self.providers:
            try:
                return provider.fetch(ref), provider.name
            except ProviderUnavailable as unavailable:
                reasons.append(f"{provider.name}: {unavailable}")
        raise SourceError(
            f"cannot fetch {ref}: no cached copy, and " + "; ".join(reasons or ["no provider is configured"]),
            hint="build once on a machine that reaches GitHub or PyPI (it fills .cache/), or copy .cache/ here",
        )


def not_there(ref: FileRef, where: str, paths: list[str]) -> SourceError:
    """A File that is not upstream, with the paths it probably meant."""
    close = difflib.get_close_matches(ref.path, paths, n=3, cutoff=0.6)
    named = [p for p in paths if p.rsplit("/", 1)[-1] == ref.path.rsplit("/", 1)[-1] and p not in close]
    hint = f"did you mean {', '.join(close + named[:3])}?" if close or named else "check the File path (and Commit)"
    return SourceError(f"{ref.path} is not in {where}", hint=hint)


def default_store(series, lock: Lock | None = None, fresh: bool = False) -> SourceStore:
    """The store a build uses. `fresh` (for `lock`, and always with CI=true) trusts no cache: git
    commits are fetched anew and no cached copy is read; the release archive is used only as its
    pinned SHA-256 proves it."""
    fresh = fresh or in_ci()
    lock = lock or Lock.read(series.lock_file)
    providers = [GitProvider(series.git_remote, series.cache_dir, fresh=fresh)]
    if series.baseline.sdist:
        providers.append(SdistProvider(series.baseline, series.cache_dir))
    return SourceStore(lock, series.cache_dir, providers, read_cache=not fresh)
