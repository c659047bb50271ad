"""The release archive is fetched from the package index's own listing of the release and kept only once its SHA-256
is proven (codeproof.quotes.index): no installer, build backend or metadata hook runs, nothing of the archive is
executed. A local index on the loopback stands in for PyPI (CODEPROOF_INDEX_URL)."""

from __future__ import annotations

import hashlib
import os
import sys
import textwrap

import pytest
import yaml

from archive_index import Index, serving
from codeproof import fetch
from codeproof.quotes import index as index_module
from codeproof.quotes.index import IndexUnavailable, fetch_release_archive
from codeproof.quotes.providers import release_files
from codeproof.quotes.sources import default_store
from codeproof.series.config import load_series
from fixture_site import make_site
from test_sources import make_sdist
from tracing import traced
from upstream import MODULE_V1

ARCHIVE = make_sdist(None, {"pkg/mod.py": MODULE_V1.encode()})
SHA = hashlib.sha256(ARCHIVE).hexdigest()


@pytest.fixture
def index(monkeypatch):
    """The local index, serving fixture-0.tar.gz (and its wheel) for the project `fixture`, named by
    CODEPROOF_INDEX_URL."""
    with serving(Index()) as served:
        served.publish("fixture", "fixture-0.tar.gz", ARCHIVE)
        served.publish("fixture", "fixture-0-py3-none-any.whl", b"a wheel")
        monkeypatch.setenv("CODEPROOF_INDEX_URL", served.url)
        yield served


def test_the_pinned_archive_is_fetched_from_the_json_listing_and_kept(index, tmp_path):
    kept = tmp_path / "cache" / "fixture-0.tar.gz"
    assert fetch_release_archive("fixture==0", kept, SHA) == SHA
    assert kept.read_bytes() == ARCHIVE
    assert index.asked == ["/simple/fixture/", "/files/fixture-0.tar.gz"]  # the wheel is never asked for


def test_an_html_listing_is_read_too_with_its_hash_in_the_link(index, tmp_path):
    index.html = True
    kept = tmp_path / "fixture-0.tar.gz"
    assert fetch_release_archive("fixture==0", kept, SHA) == SHA and kept.read_bytes() == ARCHIVE


def test_a_name_is_looked_up_in_its_normal_form(index, tmp_path):
    assert fetch_release_archive("Fixture==0", tmp_path / "a.tar.gz", SHA) == SHA
    assert index.asked[0] == "/simple/fixture/"


def test_bytes_other_than_the_pinned_are_refused_and_nothing_is_kept(index, tmp_path):
    index.files["/files/fixture-0.tar.gz"] = b"other bytes"
    index.listings["fixture"][0] = ("fixture-0.tar.gz", "../../files/fixture-0.tar.gz", None)  # no hash listed
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)
    assert str(raised.value) == (f"{index.url.removesuffix('simple/')}files/fixture-0.tar.gz gave bytes of SHA-256 "
                                 f"{hashlib.sha256(b'other bytes').hexdigest()}, not the {SHA} mkdocs.yml pins")
    assert list(tmp_path.iterdir()) == []


def test_a_listing_whose_hash_is_not_the_pin_is_refused_before_any_download(index, tmp_path):
    index.listings["fixture"][0] = ("fixture-0.tar.gz", "../../files/fixture-0.tar.gz", "e" * 64)
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)
    assert str(raised.value) == f"the index {index.url} lists fixture-0.tar.gz with SHA-256 {'e' * 64}; mkdocs.yml pins {SHA}"
    assert index.asked == ["/simple/fixture/"]


def test_a_release_without_a_source_archive_says_what_the_index_lists(index, tmp_path):
    index.publish("fixture", "fixture-1-py3-none-any.whl", b"a wheel")
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==1", tmp_path / "fixture-1.tar.gz", None)
    assert str(raised.value) == (f"the index {index.url} lists no source archive of fixture==1 "
                                 "(only fixture-1-py3-none-any.whl)")


def test_a_release_nothing_pins_is_proven_by_the_listings_hash_which_is_returned(index, tmp_path):
    assert fetch_release_archive("fixture==0", tmp_path / "a.tar.gz", None) == SHA
    index.listings["fixture"][0] = ("fixture-0.tar.gz", "../../files/fixture-0.tar.gz", None)
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==0", tmp_path / "b.tar.gz", None)
    assert str(raised.value) == f"the index {index.url} gives no SHA-256 for fixture-0.tar.gz, and nothing pins one"


@pytest.mark.parametrize("url", ["http://example.org/files/fixture-0.tar.gz", "file:///etc/passwd",
                                 "ftp://127.0.0.1/fixture-0.tar.gz"])
def test_a_listing_that_sends_elsewhere_than_https_or_the_index_itself_is_refused(index, tmp_path, url):
    index.listings["fixture"][0] = ("fixture-0.tar.gz", url, SHA)
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)
    assert str(raised.value) == (f"the index {index.url} sends to {url}, which is neither https nor the index's own "
                                 "loopback address")


def test_an_index_of_plain_http_elsewhere_than_this_machine_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEPROOF_INDEX_URL", "http://example.org/simple")
    with pytest.raises(IndexUnavailable, match=r"^the index http://example\.org/simple/ sends to "
                                               r"http://example\.org/simple/fixture/, which is neither"):
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)


def test_an_archive_past_its_cap_is_refused(index, tmp_path, monkeypatch):
    monkeypatch.setattr(index_module, "ARCHIVE_CAP", len(ARCHIVE) - 1)
    with pytest.raises(IndexUnavailable, match=r"fixture-0\.tar\.gz is larger than 0 MiB$"):
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)
    assert list(tmp_path.iterdir()) == []


def test_a_listing_that_is_not_the_json_of_pep_691_is_said_so(index, tmp_path):
    index.answers["/simple/fixture/"] = ("application/vnd.pypi.simple.v1+json", b'{"files": 3}')
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("fixture==0", tmp_path / "fixture-0.tar.gz", SHA)
    assert str(raised.value) == f"the index's listing {index.url}fixture/ is not the JSON of PEP 691"


def test_a_project_the_index_does_not_have_is_said_with_its_answer(index, tmp_path):
    with pytest.raises(IndexUnavailable) as raised:
        fetch_release_archive("missing==1", tmp_path / "m.tar.gz", None)
    assert str(raised.value) == f"{index.url}missing/: HTTP 404 Not Found"


def test_drift_fetches_a_release_the_same_way_and_names_the_hash_it_saw(index, tmp_path):
    files, sha256 = release_files("fixture==0", tmp_path)
    assert files == {"pkg/mod.py": MODULE_V1.encode()} and sha256 == SHA


@pytest.fixture
def pinned_site(tmp_path, index):
    """The fixture site with fixture==0's archive pinned, served by the local index."""
    site = make_site(tmp_path)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["baseline"].update({"sdist": "fixture==0", "sdist_sha256": SHA})
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    return site


def test_fetch_keeps_the_pinned_archive_and_the_build_reads_it_from_the_cache(pinned_site, index, capsys):
    assert fetch.main([str(pinned_site.root / "mkdocs.yml")]) == 0
    said = capsys.readouterr().err.splitlines()
    assert said[0] == ("codeproof.fetch: downloading fixture==0 from the package index: the pinned files are read from "
                       "this release archive (its SHA-256 pinned; once: then it is in the cache)")
    assert said[1].startswith("codeproof.fetch: downloaded fixture==0 in ") and len(said) == 2
    series = load_series(pinned_site.root / "mkdocs.yml")
    assert default_store(series).tree(series.baseline.repo, series.baseline.commit, "pkg")["pkg/mod.py"] == \
        MODULE_V1.encode()
    assert index.asked == ["/simple/fixture/", "/files/fixture-0.tar.gz"]  # the build found it in the cache


def test_fetch_that_cannot_have_the_archive_says_so_in_a_line_and_leaves_it_to_the_build(pinned_site, index, capsys):
    index.files["/files/fixture-0.tar.gz"] = b"other bytes"
    assert fetch.main([str(pinned_site.root / "mkdocs.yml")]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"codeproof.fetch: not fetched (fixture==0: {index.url.removesuffix('simple/')}files/fixture-0.tar.gz gave "
        f"bytes of SHA-256 {hashlib.sha256(b'other bytes').hexdigest()}, not the {SHA} mkdocs.yml pins); the build "
        "tries again")


def test_a_first_fetch_from_a_local_index_starts_no_program_and_runs_nothing_of_the_archive(tmp_path, monkeypatch):
    """Issue 50: pip download installed hatchling and ran the archive's build hooks (get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel) outside any sandbox. Here the archive's setup.py and build backend would
    leave a marker; under strace, the fetch starts no program but its own Python."""
    marker = tmp_path / "ran"
    hostile = {"pkg/mod.py": MODULE_V1.encode(),
               "setup.py": f"open({str(marker)!r}, 'w').close()\n".encode(),
               "backend.py": f"open({str(marker)!r}, 'w').close()\n".encode(),
               "pyproject.toml": textwrap.dedent("""\
                   [build-system]
                   requires = []
                   build-backend = "backend"
                   backend-path = ["."]
                   """).encode()}
    archive = make_sdist(None, hostile)
    site = make_site(tmp_path / "site")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["baseline"].update({"sdist": "fixture==0",
                                                  "sdist_sha256": hashlib.sha256(archive).hexdigest()})
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    with serving(Index()) as served:
        served.publish("fixture", "fixture-0.tar.gz", archive)
        env = {**os.environ, "CODEPROOF_INDEX_URL": served.url, "XDG_CACHE_HOME": str(tmp_path / "user-cache")}
        done, started = traced([sys.executable, "-m", "codeproof.fetch", str(site.root / "mkdocs.yml")], site.root,
                               env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert started == [sys.executable] and not marker.exists()
    series_cache = list((tmp_path / "user-cache").rglob("fixture-0.tar.gz"))
    assert [path.read_bytes() for path in series_cache] == [archive]
