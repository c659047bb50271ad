"""The real series built by Zensical, read in Chromium as readers read it (issue 55): axe-core on every page in
both colour schemes at 1280 and 375 px, no code hidden sideways on a phone, no card face outside a card; its search."""

from __future__ import annotations

import json

import pytest

from codeproof.adapter import search
from search_expectations import headings, title_words, zensical_search_results
from codeproof.series.config import load_series
from site_server import (AXE, ROOT, SCHEME_WRITES, SWEEP_PARTS, accessibility_sweep, pages, palette_schemes, serve, site_prefix,
                         sweep_part)

POSTS = sorted((ROOT / "docs" / "posts").glob("*.md"))  # every post, by its file

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def zensical_url(built_zensical):
    server, url = serve(built_zensical, site_prefix())  # as GitHub Pages would serve it, under the site_url's path
    yield url
    server.shutdown()


@pytest.mark.heavy
@pytest.mark.parametrize("part", range(SWEEP_PARTS))
def test_no_page_of_the_zensical_site_has_a_serious_accessibility_violation_nor_hides_code_on_a_phone(
        browser, built_zensical, zensical_url, part):
    """Every page of the Zensical site (a part of them in each test) read as the MkDocs site's are
    (tests/test_browser.py): axe-core at both widths in both schemes, no code hidden sideways on a phone, no card
    face outside a card."""
    assert AXE.is_file(), f"{AXE} is missing: run ./dev.sh test, which installs axe-core there"
    assert len(pages(built_zensical)) >= SWEEP_PARTS
    found, hidden, faces = accessibility_sweep(browser, zensical_url, sweep_part(built_zensical, part))
    assert len(found) == 4 * len(hidden) == 4 * len(faces) > 0
    assert {path: shown for path, shown in faces.items() if shown} == {}
    assert {key: v for key, v in found.items() if v} == {}
    assert {path: blocks for path, blocks in hidden.items() if blocks} == {}


def test_the_zensical_sites_scheme_is_set_while_a_pages_header_is_parsed_and_its_toggle_switches_it(
        browser, zensical_url):
    """The series' palette (overrides/partials/palette.html) in Zensical's pages, whose bundle has Material's."""
    assert POSTS
    context = browser.new_context(viewport={"width": 375, "height": 812}, color_scheme="dark")
    try:
        page = context.new_page()
        page.add_init_script(SCHEME_WRITES)
        for post in POSTS:
            page.goto(f"{zensical_url}posts/{post.stem}/", wait_until="load")
            writes = page.evaluate("seriesSchemeWrites")
            assert writes and not [write for write in writes if write[1]], (post.stem, writes)
            assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()["dark"]
        page.locator("form[data-series-palette] label:not([hidden])").click()
        assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()["light"]
        page.goto(zensical_url, wait_until="load")
        assert page.evaluate("document.body.dataset.mdColorScheme") == palette_schemes()["light"]
    finally:
        context.close()


def test_a_reader_finds_a_definition_of_the_package_by_its_name_in_the_zensical_sites_search(
        browser, built_zensical, zensical_url):
    """The engine adds the package's definitions to Zensical's index as to Material's: a name only one definition
    has lists that definition's line first."""
    entries = json.loads((built_zensical / search.ZENSICAL_INDEX).read_text(encoding="utf-8"))["items"]
    titles = [entry["title"] for entry in entries]
    definitions = [entry for entry in entries if entry["location"].startswith("source/") and "#L" in entry["location"]
                   and titles.count(entry["title"]) == 1]
    assert definitions, "the index holds no definition of the package"
    page = browser.new_page()
    try:
        for entry in definitions[:: max(1, len(definitions) // 5)][:5]:  # five, spread over the package
            assert zensical_search_results(page, zensical_url, entry["title"])[0] == entry["location"]
    finally:
        page.close()


@pytest.mark.parametrize("post", POSTS, ids=lambda post: post.stem)
def test_each_posts_title_and_headings_list_it_in_the_zensical_sites_search(browser, built_zensical, zensical_url, post):
    """Zensical's search segments Chinese in the browser (Intl.Segmenter, no jieba dictionary): a post's title
    words and each of its headings list it, as under Material (tests/test_browser.py)."""
    url, series = f"posts/{post.stem}/", load_series(ROOT / "mkdocs.yml").name
    page = browser.new_page()
    try:
        queries = [title_words(post, series), *headings(built_zensical, url)]
        missing = [query for query in queries
                   if url not in {link.split("#")[0] for link in zensical_search_results(page, zensical_url, query)}]
    finally:
        page.close()
    assert len(queries) > 1 and missing == []
