"""The real series under both hosts, page by page (issue 55): Zensical, through its adapter and the staging folder,
shows what MkDocs shows (tests/parity.py); the fixture site's comparison is in tests/test_zensical.py."""

from __future__ import annotations

import pytest

import parity


@pytest.mark.real_site
def test_the_real_site_under_zensical_shows_what_it_shows_under_mkdocs_page_by_page(built, built_zensical):
    """Issue 55: the series built by Zensical (a copy of the repository's site, its hook and all: conftest's
    built_zensical) against the MkDocs build CI publishes: every page's cards, their links and the citations', a
    post's header and navigation, every page the build adds and every other page's words, and the files the build
    adds, byte for byte; what the search holds of the package, and what the feeds say of each post."""
    urls = parity.pages(built)
    assert sum(url.startswith("source/") for url in urls) > 1 and sum(url.startswith("posts/") for url in urls) > 1
    said = parity.feeds_say(built)
    assert parity.package_in_search(built) and all(said.values()) and all(
        feed["items"] if isinstance(feed, dict) else feed for feed in said.values())  # the comparison reads them
    assert parity.differences(built, built_zensical, urls) == []
