"""SourceStore: the pinned upstream files, fetched once, cached, and proven against the lock.

Every file, whatever gave it (cache, git, the release archive), is hashed as git
hashes a blob and must equal the blob SHA-1 that the committed lock file records.
A networked machine fetches and caches; an offline one builds from the cache.
"""

from __future__ import annotations

import logging
from pathlib import Path

from codeproof.series.config import in_ci
from codeproof.common.filesystem import write_atomically
from codeproof.common.structure import FileRef
from codeproof.quotes.lock import Lock, SourceError, git_blob_sha1
from codeproof.quotes.providers import (GitProvider, Provider, ProviderUnavailable, SdistProvider, not_there,
                                        releases_at_hand)

log = logging.getLogger("mkdocs.codeproof.sources")  # shown by MkDocs; info only, so --strict is unaffected


class SourceStore:
    """Gives the text of a pinned upstream file, proven equal to its lock entry.

    Fetched files are cached by their blob SHA-1 (content-addressed), so a cached copy is
    looked up by what the lock expects and proven by its own name: a wrong lock entry is a
    cache miss and a fetch, never mistaken for a changed cache. A cached copy only proves that it
    matches the lock, not that the lock matches upstream: a store that must prove both (CI, `lock`)
    reads no cached copy, so every file is fetched and proven by its provider, then by the lock.

    `providers` are asked in their order for a file, the pinned archives first for a whole tree or a listing.
    `git` (one of them) is the provider drift and rebase ask for other commits than the pin."""

    def __init__(self, lock: Lock, cache_dir: Path, providers: list[Provider], read_cache: bool = True,
                 git: GitProvider | None = None):
        self.lock = lock
        self.cache_dir = cache_dir / "blobs"
        self.providers = providers
        self.read_cache = read_cache
        self.git = git
        self._texts: dict[FileRef, str] = {}  # once per build, whatever the number of quotes

    def cache_path(self, blob: str) -> Path:
        return self.cache_dir / blob[:2] / blob

    def tree(self, repo: str, commit: str, folder: str) -> dict[str, bytes]:
        """Every file under `folder` at the commit, from the pinned release archive when it holds that commit
        (its SHA-256 proves it), else from git (whose object checks prove it); a file the lock names must be
        its locked blob too. SourceError when it cannot be had or does not match."""
        unavailable = "no provider is configured"
        for provider in self._archives_first():
            try:
                files = provider.tree(repo, commit)
                break
            except ProviderUnavailable as error:
                unavailable = str(error)
        else:
            raise SourceError(f"cannot read {repo}@{commit[:7]}: {unavailable}",
                              hint="build once on a machine that reaches GitHub or PyPI (it fills the cache in ~/.cache/codeproof/)")
        chosen = {path: data for path, data in files.items() if path.startswith(folder.rstrip("/") + "/")}
        for path, data in chosen.items():
            expected = self.lock.expected(FileRef(repo, commit, path))
            if expected and git_blob_sha1(data) != expected:
                raise SourceError(f"{repo}@{commit[:7]}:{path} is not the blob the lock records",
                                  hint=f"the lock entry is wrong: delete it from {self.lock.path.name} and run `./dev.sh lock`")
        return chosen

    def prefetch(self) -> None:
        """Start reading the pinned release archives (downloading one the cache does not hold) beside the caller's
        work: what a build reads first, from the network on a first build."""
        for provider in self.providers:
            if provider.pinned_archive:
                provider.prefetch()

    def paths(self, repo: str, commit: str) -> list[str] | None:
        """Every file of the commit: the pinned release archive's when it holds that commit (no network, and its
        SHA-256 proves it), else git's; None when neither can say."""
        for provider in self._archives_first():
            found = provider.paths(repo, commit)
            if found is not None:
                return found
        return None

    def _archives_first(self) -> list[Provider]:
        return sorted(self.providers, key=lambda provider: not provider.pinned_archive)

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, str]]:
        """Other versions of the file at hand offline, (name, text): other commits in git's object store, and the
        release archives drift and rebase downloaded. Evidence of where a quote was copied from, never of a quote."""
        found = [version for provider in self.providers for version in provider.versions_at_hand(ref)]
        found += releases_at_hand(self.cache_dir.parent, ref.path)
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
            for provider in self._archives_first():  # a file not upstream needs no lock entry but a new File line
                paths = provider.paths(ref.repo, ref.commit)
                if paths is not None and ref.path not in paths:
                    raise not_there(ref, provider.where(ref), paths)
                if paths is not None:  # it is upstream, with no lock entry: no other provider need be asked
                    break
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
        data = self._fetch_locked(ref, expected)
        write_atomically(cached, data)
        return data

    def _fetch_locked(self, ref: FileRef, expected: str) -> bytes:
        """The file's bytes from the first provider whose copy is the locked blob, pinned archives first (once
        downloaded they need no network, and the lock proves each file either way). A file another provider than
        the first served is logged once, with why the ones before it did not."""
        tried, unlike = [], None
        for provider in self._archives_first():
            try:
                data = provider.fetch(ref)
            except ProviderUnavailable as unavailable:
                tried.append(f"{provider.name}: {unavailable}")
                continue
            actual = git_blob_sha1(data)
            if actual == expected:
                if tried:
                    log.info(f"{ref.path}: from {provider.name}, as " + "; ".join(tried))
                return data
            unlike = unlike or f"{ref} is blob {actual} (from {provider.name}), but the lock says {expected}"
            tried.append(f"{provider.name}: its copy is blob {actual}, not the locked one")
        if unlike:
            raise SourceError(unlike, hint=f"the lock entry is wrong: delete it from {self.lock.path.name} and run "
                                           "`./dev.sh lock`")
        raise _cannot_fetch(ref, tried)

    def fetch(self, ref: FileRef) -> tuple[bytes, str]:
        """(bytes, provider name) from the first provider in their order that can give the file (for `lock`, which
        records what git's commit holds, as the permalinks show it); SourceError naming every reason if none can.
        Each provider proves its own bytes (git's object check, the pinned archive hash); the lock is checked by the
        caller."""
        reasons = []
        for provider in self.providers:
            try:
                return provider.fetch(ref), provider.name
            except ProviderUnavailable as unavailable:
                reasons.append(f"{provider.name}: {unavailable}")
        raise _cannot_fetch(ref, reasons)


def _cannot_fetch(ref: FileRef, reasons: list[str]) -> SourceError:
    return SourceError(
        f"cannot fetch {ref}: no cached copy, and " + "; ".join(reasons or ["no provider is configured"]),
        hint="build once on a machine that reaches GitHub or PyPI (it fills the cache in ~/.cache/codeproof/)",
    )


def default_store(series, lock: Lock | None = None, fresh: bool = False) -> SourceStore:
    """The store a build uses. `fresh` (for `lock`, and always with CI=true) trusts no cache: git
    commits are fetched anew and no cached copy is read; the release archive is used only as its
    pinned SHA-256 proves it."""
    fresh = fresh or in_ci()
    lock = lock or Lock.read(series.lock_file)
    git = GitProvider(series.git_remote, series.cache_dir, fresh=fresh)
    providers: list[Provider] = [git]
    if series.baseline.sdist:
        providers.append(SdistProvider(series.baseline, series.cache_dir))
    return SourceStore(lock, series.cache_dir, providers, read_cache=not fresh, git=git)
