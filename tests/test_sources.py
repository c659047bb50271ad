"""SourceStore: fetch once through git, cache, and prove every file against the lock."""

from __future__ import annotations

import logging
import hashlib
import io
import os
import tarfile
import threading

import pytest

from codeproof.series.config import load_series
from codeproof.__main__ import main
from codeproof.series.config import Baseline
from codeproof.quotes.lock import Lock, LockFileError, SourceError, git_blob_sha1
from codeproof.quotes import providers
from codeproof.quotes.providers import GitProvider, ProviderUnavailable, SdistProvider, release_files
from codeproof.quotes.sources import SourceStore, default_store
from codeproof.common.structure import FileRef
from conftest import ROOT, git
from upstream import MODULE_V1, MODULE_V2, make_upstream


@pytest.fixture
def upstream(tmp_path):
    return make_upstream(tmp_path)


def locked_store(upstream, *texts_by_commit):
    series = load_series(upstream.config())
    store = default_store(series)
    for commit, text in texts_by_commit:
        store.lock.record(FileRef("fixture/upstream", commit, "pkg/mod.py"), git_blob_sha1(text.encode()))
    return store


def test_blob_hash_is_gits(upstream):
    blob = git(upstream.remote / "fixture" / "upstream", "rev-parse", f"{upstream.commits[0]}:pkg/mod.py")
    assert git_blob_sha1(MODULE_V1.encode()) == blob


def test_each_commit_gives_its_own_text_through_git(upstream):
    old, new = upstream.commits
    store = locked_store(upstream, (old, MODULE_V1), (new, MODULE_V2))
    assert store.read(FileRef("fixture/upstream", old, "pkg/mod.py")) == MODULE_V1
    assert store.read(FileRef("fixture/upstream", new, "pkg/mod.py")) == MODULE_V2


def test_a_file_is_fetched_once_per_store(upstream, monkeypatch):
    old = upstream.commits[0]
    store = locked_store(upstream, (old, MODULE_V1))
    calls = []
    real = GitProvider.fetch
    monkeypatch.setattr(GitProvider, "fetch", lambda self, ref: calls.append(ref) or real(self, ref))
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    for _ in range(5):
        store.read(ref)
    assert len(calls) == 1


def test_a_warm_cache_needs_no_provider(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    locked_store(upstream, (old, MODULE_V1)).read(ref)  # fills the cache
    offline = SourceStore(locked_store(upstream, (old, MODULE_V1)).lock, load_series(upstream.config()).cache_dir, [])
    assert offline.read(ref) == MODULE_V1


def test_a_cached_copy_changed_on_disk_is_refused_and_its_folder_named(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    blob = git_blob_sha1(MODULE_V1.encode())
    store = locked_store(upstream, (old, MODULE_V1))
    store.read(ref)
    store.cache_path(blob).write_text(MODULE_V1.replace("x + 1", "x + 9"))
    fresh = locked_store(upstream, (old, MODULE_V1))
    with pytest.raises(SourceError) as raised:
        fresh.read(ref)
    assert str(raised.value) == (f"the cached copy of {ref} changed on disk: {store.cache_path(blob)} is not blob {blob}")
    assert raised.value.hint == f"delete the folder {store.cache_dir} and build again to fetch and check every file afresh"


def test_a_wrong_lock_entry_is_named_as_such_not_as_a_changed_cache(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    locked_store(upstream, (old, MODULE_V1)).read(ref)  # a warm cache of the right file
    store = locked_store(upstream, (old, MODULE_V2))  # the lock expects the other text
    with pytest.raises(SourceError) as raised:
        store.read(ref)
    assert str(raised.value) == (f"{ref} is blob {git_blob_sha1(MODULE_V1.encode())} (from git), "
                                 f"but the lock says {git_blob_sha1(MODULE_V2.encode())}")
    assert raised.value.hint == "the lock entry is wrong: delete it from sources.lock.json and run `./dev.sh lock`"
    assert not store.cache_path(git_blob_sha1(MODULE_V2.encode())).exists()


def test_an_unlocked_file_asks_for_the_lock_command(upstream):
    store = locked_store(upstream)
    with pytest.raises(SourceError) as raised:
        store.read(FileRef("fixture/upstream", upstream.commits[0], "pkg/mod.py"))
    assert str(raised.value) == f"fixture/upstream@{upstream.commits[0][:7]}:pkg/mod.py has no entry in the lock file sources.lock.json"
    assert raised.value.hint == "run `./dev.sh lock` (python -m codeproof lock) to record it, and commit the lock"


def test_offline_with_a_cold_cache_names_what_is_missing_and_how_to_fetch_it(upstream, tmp_path):
    old = upstream.commits[0]
    store = locked_store(upstream, (old, MODULE_V1))
    store.providers[0].remote_template = f"file://{tmp_path}/nowhere/{{repo}}"
    with pytest.raises(SourceError) as raised:
        store.read(FileRef("fixture/upstream", old, "pkg/mod.py"))
    # git's reason is the last line of what it printed that says "fatal:" (or "error:")
    assert str(raised.value) == (f"cannot fetch fixture/upstream@{old[:7]}:pkg/mod.py: no cached copy, and git: "
                                 f"git fetch file://{tmp_path}/nowhere/fixture/upstream {old[:7]}: fatal: Could not read from remote repository.")
    assert raised.value.hint == "build once on a machine that reaches GitHub or PyPI (it fills the cache in ~/.cache/codeproof/)"


class Held:
    """A provider of one commit's files held in memory: a Provider by its methods alone, no subclass."""

    def __init__(self, name: str, pinned_archive: bool, files: dict[str, bytes] | None):
        self.name, self.pinned_archive, self.files = name, pinned_archive, files  # None: unavailable here

    def where(self, ref: FileRef) -> str:
        return f"{self.name}'s copy"

    def tree(self, repo: str, commit: str) -> dict[str, bytes]:
        if self.files is None:
            raise ProviderUnavailable(f"{self.name} is out of reach")
        return self.files

    def fetch(self, ref: FileRef) -> bytes:
        if ref.path not in self.tree(ref.repo, ref.commit):
            raise ProviderUnavailable(f"{ref.path} is not in {self.name}'s copy")
        return self.files[ref.path]

    def paths(self, repo: str, commit: str) -> list[str] | None:
        return sorted(self.files) if self.files is not None else None

    def versions_at_hand(self, ref: FileRef) -> list[tuple[str, bytes]]:
        return [(f"{self.name}'s other", b"other")]


MIRROR = {"pkg/mod.py": b"x = 1\n", "pkg/extra.py": b""}
ARCHIVE = {"pkg/mod.py": b"x = 1\n"}


def held_store(tmp_path, *providers: Held) -> SourceStore:
    lock = Lock(tmp_path / "sources.lock.json")
    lock.record(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py"), git_blob_sha1(b"x = 1\n"))
    return SourceStore(lock, tmp_path / ".cache", list(providers))


def test_lock_fetches_a_file_from_the_first_provider_that_can_give_it_in_their_order(tmp_path):
    """Git before the archive: the lock records what the commit holds, as the permalinks show it."""
    store = held_store(tmp_path, Held("away", False, None), Held("mirror", False, MIRROR), Held("archive", True, ARCHIVE))
    assert store.fetch(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == (b"x = 1\n", "mirror")


def test_a_build_reads_a_locked_file_from_a_pinned_archive_before_any_other_provider(tmp_path, caplog):
    store = held_store(tmp_path, Held("mirror", False, {"pkg/mod.py": b"mirror's"}), Held("archive", True, ARCHIVE))
    with caplog.at_level(logging.INFO, logger="mkdocs.codeproof.sources"):
        assert store.read(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == "x = 1\n"
    assert caplog.messages == []


def test_a_file_the_archive_does_not_hold_is_read_from_the_next_provider_saying_once_why(tmp_path, caplog):
    store = held_store(tmp_path, Held("mirror", False, {"pkg/mod.py": b"x = 1\n"}), Held("archive", True, {}))
    ref = FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")
    with caplog.at_level(logging.INFO, logger="mkdocs.codeproof.sources"):
        assert store.read(ref) == store.read(ref) == "x = 1\n"
    assert caplog.messages == ["pkg/mod.py: from mirror, as archive: pkg/mod.py is not in archive's copy"]


def test_an_archives_copy_unlike_the_lock_gives_way_to_a_provider_whose_copy_is_the_locked_blob(tmp_path, caplog):
    store = held_store(tmp_path, Held("mirror", False, MIRROR), Held("archive", True, {"pkg/mod.py": b"x = 2\n"}))
    with caplog.at_level(logging.INFO, logger="mkdocs.codeproof.sources"):
        assert store.read(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == "x = 1\n"
    assert caplog.messages == [f"pkg/mod.py: from mirror, as archive: its copy is blob {git_blob_sha1(b'x = 2' + bytes([10]))}, "
                               "not the locked one"]


class Listed(Held):
    """A provider that says each time it is asked for its listing."""

    def __init__(self, *args):
        super().__init__(*args)
        self.listed = 0

    def paths(self, repo: str, commit: str) -> list[str] | None:
        self.listed += 1
        return super().paths(repo, commit)


def test_a_file_the_archive_lists_without_a_lock_entry_is_said_so_without_asking_the_next_provider(tmp_path):
    """The walkthrough of round four: citing a file no quote locks made every build ask git for the pin (and log
    it), though the archive had already listed the file."""
    mirror = Listed("mirror", False, MIRROR)
    store = held_store(tmp_path, mirror, Held("archive", True, {**ARCHIVE, "pkg/extra.py": b""}))
    with pytest.raises(SourceError) as raised:
        store.read(FileRef("fixture/upstream", "a" * 40, "pkg/extra.py"))
    assert (str(raised.value), mirror.listed) == ("fixture/upstream@aaaaaaa:pkg/extra.py has no entry in the lock file "
                                                  "sources.lock.json", 0)


def test_a_tree_and_a_listing_come_from_a_pinned_archive_before_any_other_provider(tmp_path):
    store = held_store(tmp_path, Held("mirror", False, MIRROR), Held("archive", True, ARCHIVE))
    assert store.tree("fixture/upstream", "a" * 40, "pkg") == ARCHIVE
    assert store.paths("fixture/upstream", "a" * 40) == ["pkg/mod.py"]


def test_a_tree_no_provider_can_give_names_the_last_reason(tmp_path):
    store = held_store(tmp_path, Held("mirror", False, None), Held("archive", True, None))
    with pytest.raises(SourceError) as raised:
        store.tree("fixture/upstream", "a" * 40, "pkg")
    assert str(raised.value) == "cannot read fixture/upstream@aaaaaaa: mirror is out of reach"
    assert raised.value.hint == "build once on a machine that reaches GitHub or PyPI (it fills the cache in ~/.cache/codeproof/)"


def test_other_versions_come_from_every_provider(tmp_path):
    store = held_store(tmp_path, Held("mirror", False, MIRROR), Held("archive", True, ARCHIVE))
    assert store.versions_at_hand(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == [
        ("mirror's other", "other"), ("archive's other", "other")]


def test_a_path_missing_at_the_commit_is_named(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/absent.py")
    store = locked_store(upstream)
    store.lock.record(ref, "0" * 40)
    with pytest.raises(SourceError) as raised:
        store.read(ref)
    assert str(raised.value) == f"pkg/absent.py is not in fixture/upstream at {old[:7]}"
    assert raised.value.hint == "did you mean pkg/mod.py?"


def test_a_directory_at_the_path_is_named(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg")
    store = locked_store(upstream)
    store.lock.record(ref, "0" * 40)
    with pytest.raises(SourceError) as raised:
        store.read(ref)
    assert str(raised.value) == f"pkg is a directory at fixture/upstream@{old[:7]}"
    assert raised.value.hint == "name a file in File"


def test_a_binary_upstream_file_is_a_clear_error(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    store = locked_store(upstream, (old, MODULE_V1))
    store.lock.record(ref, git_blob_sha1(b"\x89PNG\xff"))
    store.cache_path(git_blob_sha1(b"\x89PNG\xff")).parent.mkdir(parents=True)
    store.cache_path(git_blob_sha1(b"\x89PNG\xff")).write_bytes(b"\x89PNG\xff")
    with pytest.raises(SourceError) as raised:
        store.read(ref)
    assert str(raised.value) == f"{ref} is not UTF-8 text (byte 0): only source files can be quoted"
    assert raised.value.hint == "quote a Python source file"


def test_lock_takes_a_fresh_fetch_not_a_tampered_cache(upstream, capsys):
    """`lock` hashes what a fresh git fetch gives, whatever the cache repository holds."""
    old = upstream.commits[0]
    series = load_series(upstream.config())
    cache_repo = series.cache_dir / "git" / "fixture__upstream.git"
    cache_repo.mkdir(parents=True)
    git(cache_repo, "init", "-q", "--bare")
    upstream.post.write_text(upstream.post.read_text() + "\nSee `helper` too.\n")
    assert main(["lock", "--config", str(upstream.config())]) == 0
    out = capsys.readouterr().out
    lines = upstream.post.read_text().split("\n")
    quoted = [n + 1 for n, line in enumerate(lines) if line == "[REAL SOURCE]"]
    assert out == (f"locked fixture/upstream@{old[:7]}:pkg/mod.py = {git_blob_sha1(MODULE_V1.encode())} (from git): "
                   + ", ".join(f"quoted at docs/posts/p.md:{line}" for line in quoted)
                   + f", cited at docs/posts/p.md:{len(lines) - 1} (`helper`)\n")  # why it is locked
    assert not any(cache_repo.glob("objects/??/*"))  # nothing was fetched into the cache


def test_the_lock_file_round_trips(tmp_path):
    lock = Lock.read(tmp_path / "sources.lock.json")
    ref = FileRef("a/b", "1" * 40, "x.py")
    lock.record(ref, "2" * 40)
    lock.save()
    assert Lock.read(tmp_path / "sources.lock.json").expected(ref) == "2" * 40


RESTORE = "restore it from git"  # a lock that is not JSON at all
RESTORE_OR_RELOCK = "restore it from git, or delete the entry and run `./dev.sh lock`"  # JSON of the wrong shape
REWRITE = "remove it; `./dev.sh lock` writes it anew"  # not a file


@pytest.mark.parametrize("content, message, hint", [
    ("{\n  \"a/b\": \n", "sources.lock.json:3: not valid JSON: Expecting value", RESTORE),
    ("[1, 2]\n", "sources.lock.json:1: must be a JSON object {repo: {commit: {path: blob}}}, not list", RESTORE_OR_RELOCK),
    ('{\n  "../..": {}\n}\n', "sources.lock.json:2: '../..' must be an owner/name repository holding {commit: {path: blob}}",
     RESTORE_OR_RELOCK),
    ('{"a/b": {"' + "1" * 40 + '": {\n "x//y.py": "' + "2" * 40 + '"}}}', "sources.lock.json:2: 'x//y.py' is not a normalised relative path",
     RESTORE_OR_RELOCK),
    ('{"a/b": {"' + "1" * 40 + '": {"x.py": 7}}}', "sources.lock.json:1: the blob of 'x.py' must be a 40-hex SHA-1, not 7",
     RESTORE_OR_RELOCK),
    (b"\xff\xfe", "sources.lock.json:1: byte 0 is not UTF-8", RESTORE),
])
def test_a_malformed_lock_file_is_refused_with_its_line(tmp_path, content, message, hint):
    path = tmp_path / "sources.lock.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(LockFileError) as raised:
        Lock.read(path)
    assert (str(raised.value), raised.value.hint) == (message, hint)


def test_a_lock_path_that_is_a_directory_is_refused(tmp_path):
    (tmp_path / "sources.lock.json").mkdir()
    with pytest.raises(LockFileError) as raised:
        Lock.read(tmp_path / "sources.lock.json")
    assert (str(raised.value), raised.value.hint) == ("sources.lock.json:1: is a directory, not a JSON file", REWRITE)


# --- the release archive ---------------------------------------------------------------------


def make_sdist(folder, files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"fixture-0/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def sdist(tmp_path):
    """A release archive of the fixture, as if downloaded, and the provider that reads it."""
    data = make_sdist(tmp_path, {"pkg/mod.py": MODULE_V1.encode()})
    baseline = Baseline("fixture/upstream", "a" * 40, "0", "fixture==0", hashlib.sha256(data).hexdigest())
    provider = SdistProvider(baseline, tmp_path / ".cache")
    provider.archive.parent.mkdir(parents=True)
    provider.archive.write_bytes(data)
    return provider


def test_files_are_read_from_the_verified_archive(sdist):
    assert sdist.fetch(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == MODULE_V1.encode()


def test_an_archive_changed_on_disk_is_refused_and_its_folder_named(sdist):
    pinned = sdist.baseline.sdist_sha256
    tampered = make_sdist(None, {"pkg/mod.py": b"tampered\n"})
    sdist.archive.write_bytes(tampered)
    with pytest.raises(SourceError) as raised:
        sdist.fetch(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py"))
    assert str(raised.value) == (f"the release archive {sdist.archive} changed on disk: its SHA-256 is "
                                 f"{hashlib.sha256(tampered).hexdigest()}, mkdocs.yml pins {pinned}")
    assert raised.value.hint == f"delete the folder {sdist.folder} and build again to download it afresh"


def test_an_archive_changed_on_disk_after_a_build_is_refused_by_the_next_build_of_the_process(sdist):
    ref = FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")
    sdist.fetch(ref)  # the first build (serve builds again in one process) unpacks the archive
    tampered = make_sdist(None, {"pkg/mod.py": b"tampered\n"})
    sdist.archive.write_bytes(tampered)
    again = SdistProvider(sdist.baseline, sdist.folder.parent)  # the next build's
    with pytest.raises(SourceError) as raised:
        again.fetch(ref)
    assert str(raised.value) == (f"the release archive {again.archive} changed on disk: its SHA-256 is "
                                 f"{hashlib.sha256(tampered).hexdigest()}, mkdocs.yml pins {sdist.baseline.sdist_sha256}")


def test_a_prefetched_archive_is_downloaded_once_and_read_by_the_build(tmp_path, monkeypatch):
    """A first build downloads the release archive while MkDocs configures itself; the build's own read waits
    for that download rather than starting another."""
    data = make_sdist(tmp_path, {"pkg/mod.py": MODULE_V1.encode()})
    baseline = Baseline("fixture/upstream", "a" * 40, "0", "fixture==0", hashlib.sha256(data).hexdigest())
    downloads, started, release = [], threading.Event(), threading.Event()

    def download(pin, archive, sha256, timeout=120):
        downloads.append(pin)
        started.set()
        release.wait(10)  # still downloading when the build reads
        archive.parent.mkdir(parents=True, exist_ok=True)
        archive.write_bytes(data)

    monkeypatch.setattr(providers, "download_sdist", download)
    provider = SdistProvider(baseline, tmp_path / ".cache")
    provider.prefetch()
    assert started.wait(10)
    threading.Timer(0.2, release.set).start()
    assert provider.fetch(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py")) == MODULE_V1.encode()
    assert downloads == ["fixture==0"]


def test_a_prefetch_that_fails_is_said_by_the_builds_own_read_and_raises_nothing_itself(tmp_path, monkeypatch):
    baseline = Baseline("fixture/upstream", "a" * 40, "0", "fixture==0", "0" * 64)
    downloads, unhandled = [], []

    def download(pin, archive, sha256, timeout=120):
        downloads.append(pin)
        raise ProviderUnavailable("fixture==0: the index lists no source archive of fixture==0")

    monkeypatch.setattr(providers, "download_sdist", download)
    monkeypatch.setattr(threading, "excepthook", unhandled.append)  # else printed as a traceback
    provider = SdistProvider(baseline, tmp_path / ".cache")
    provider.prefetch()
    with pytest.raises(ProviderUnavailable, match="^fixture==0: the index lists no source archive of fixture==0$"):
        provider.fetch(FileRef("fixture/upstream", "a" * 40, "pkg/mod.py"))
    for thread in threading.enumerate():
        if thread.name == "codeproof-prefetch":
            thread.join(10)
    assert downloads == ["fixture==0"] and unhandled == []  # tried once, by whichever came first


def test_a_directory_in_the_archive_is_named(sdist):
    with pytest.raises(SourceError) as raised:
        sdist.fetch(FileRef("fixture/upstream", "a" * 40, "pkg"))
    assert (str(raised.value), raised.value.hint) == ("pkg is a directory in fixture==0", "name a file in File")


def test_the_committed_lock_matches_the_real_upstream_tree():
    """Every lock entry for the baseline equals the blob in the real tree's listing of v1.9.1
    (`git ls-tree -r`, copied from shared/upstream into tests/reference)."""
    (listing,) = (ROOT / "tests" / "reference").glob("HIPS-autograd-*.tree")
    tree = {}
    for line in listing.read_text().splitlines():
        if not line.startswith("#"):
            meta, path = line.split("\t")
            tree[path] = meta.split()[2]
    series = load_series(ROOT / "mkdocs.yml")
    locked = Lock.read(series.lock_file).entries[series.baseline.repo][series.baseline.commit]
    assert locked and all(tree[path] == sha for path, sha in locked.items())


def test_with_ci_no_cached_copy_is_read_so_a_forged_lock_and_cache_fail(upstream, monkeypatch):
    """A cached copy proves only that it matches the lock; CI proves the lock against a fresh fetch."""
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    forged = MODULE_V1.replace("x + 1", "x + 9")
    store = locked_store(upstream, (old, forged))
    store.cache_path(git_blob_sha1(forged.encode())).parent.mkdir(parents=True)
    store.cache_path(git_blob_sha1(forged.encode())).write_text(forged)
    assert store.read(ref) == forged  # a developer's build trusts its own cache
    monkeypatch.setenv("CI", "true")
    with pytest.raises(SourceError) as raised:
        locked_store(upstream, (old, forged)).read(ref)
    assert str(raised.value) == (f"{ref} is blob {git_blob_sha1(MODULE_V1.encode())} (from git), "
                                 f"but the lock says {git_blob_sha1(forged.encode())}")
    assert raised.value.hint == "the lock entry is wrong: delete it from sources.lock.json and run `./dev.sh lock`"


def test_a_lock_path_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "sources.lock.json")
    with pytest.raises(LockFileError) as raised:
        Lock.read(tmp_path / "sources.lock.json")
    assert (str(raised.value), raised.value.hint) == ("sources.lock.json:1: is not a regular file", REWRITE)


def test_a_release_archive_name_that_leads_outside_its_folder_names_no_file(tmp_path):
    """drift --to-release --run writes the files out: `top//tmp/x` and `top/../../x` must not lead anywhere."""
    data = make_sdist(None, {"pkg/mod.py": b"ok\n", "/tmp/planted": b"x", "../../planted": b"x", "pkg/./b.py": b"x"})
    archive = tmp_path / "sdist" / "releases" / "fixture-9.tar.gz"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(data)
    files, _ = release_files("fixture==9", tmp_path)
    assert files == {"pkg/mod.py": b"ok\n"}
