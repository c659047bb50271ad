"""SourceStore: fetch once through git, cache, and prove every file against the lock."""

from __future__ import annotations

import pytest

from codeproof.config import load_series
from codeproof.sources import FileRef, GitProvider, Lock, SourceError, SourceStore, default_store, git_blob_sha1
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


def test_a_tampered_cache_file_is_refused_with_both_hashes(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    store = locked_store(upstream, (old, MODULE_V1))
    store.read(ref)
    store.cache_path(ref).write_text(MODULE_V1.replace("x + 1", "x + 9"))
    fresh = locked_store(upstream, (old, MODULE_V1))
    with pytest.raises(SourceError) as raised:
        fresh.read(ref)
    assert git_blob_sha1(MODULE_V1.encode()) in str(raised.value)
    assert "the cache file was changed" in str(raised.value)
    assert "delete" in raised.value.hint


def test_a_file_that_differs_from_its_lock_entry_never_reaches_the_caller(upstream):
    old = upstream.commits[0]
    store = locked_store(upstream, (old, MODULE_V2))  # the lock expects the other text
    ref = FileRef("fixture/upstream", old, "pkg/mod.py")
    with pytest.raises(SourceError, match="the lock says " + git_blob_sha1(MODULE_V2.encode())):
        store.read(ref)
    assert not store.cache_path(ref).exists()


def test_an_unlocked_file_asks_for_the_lock_command(upstream):
    store = locked_store(upstream)
    with pytest.raises(SourceError) as raised:
        store.read(FileRef("fixture/upstream", upstream.commits[0], "pkg/mod.py"))
    assert "no entry in the lock file" in str(raised.value)
    assert "lock" in raised.value.hint


def test_offline_with_a_cold_cache_names_what_is_missing_and_how_to_fetch_it(upstream, tmp_path):
    old = upstream.commits[0]
    store = locked_store(upstream, (old, MODULE_V1))
    store.providers[0].remote_template = f"file://{tmp_path}/nowhere/{{repo}}"
    with pytest.raises(SourceError) as raised:
        store.read(FileRef("fixture/upstream", old, "pkg/mod.py"))
    message = str(raised.value)
    assert "cannot fetch fixture/upstream@" in message and "pkg/mod.py" in message
    assert "git: git fetch" in message and "PyPI sdist:" in message
    assert "GitHub or PyPI" in raised.value.hint


def test_a_path_missing_at_the_commit_is_named(upstream):
    old = upstream.commits[0]
    ref = FileRef("fixture/upstream", old, "pkg/absent.py")
    store = locked_store(upstream)
    store.lock.record(ref, "0" * 40)
    with pytest.raises(SourceError, match="pkg/absent.py does not exist at fixture/upstream@"):
        store.read(ref)


def test_the_lock_file_round_trips(tmp_path):
    lock = Lock(tmp_path / "sources.lock.json")
    ref = FileRef("a/b", "1" * 40, "x.py")
    lock.record(ref, "2" * 40)
    lock.save()
    assert Lock(tmp_path / "sources.lock.json").expected(ref) == "2" * 40


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
    locked = Lock(series.lock_file).entries[series.baseline.repo][series.baseline.commit]
    assert locked and all(tree[path] == sha for path, sha in locked.items())
