"""The real series built by Zensical, read in Chromium as readers read it (issue 55): axe-core on each kind of page
in both colour schemes at 1280 and 375 px, no code hidden sideways on a phone, no card face outside a card."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_server import AXE, accessibility_sweep, pages, serve, site_prefix

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def zensical_url(built_zensical):
    server, url = serve(built_zensical, site_prefix())  # as GitHub Pages would serve it, under the site_url's path
    yield url
    server.shutdown()


def kinds_of_page(site: Path) -> list[str]:
    """Every page of the site but the package's source pages, of which the largest: one template draws them all,
    from the engine's values, with one style sheet (the largest holds the most kinds of highlighted token), and
    the MkDocs site's sweep reads every one (tests/test_browser.py)."""
    found = pages(site)
    sources = [path for path in found if path.startswith("source/") and path != "source/"]
    largest = max(sources, key=lambda path: (site / path / "index.html").stat().st_size)
    return [path for path in found if path not in sources] + [largest]


@pytest.mark.heavy
def test_no_kind_of_page_of_the_zensical_site_has_a_serious_accessibility_violation_nor_hides_code_on_a_phone(
        browser, built_zensical, zensical_url):
    assert AXE.is_file(), f"{AXE} is missing: run ./dev.sh test, which installs axe-core there"
    paths = kinds_of_page(built_zensical)
    assert {"", "404.html", "source/"} <= set(paths) and any(path.startswith("posts/") for path in paths)
    found, hidden, faces = accessibility_sweep(browser, zensical_url, paths)
    assert len(found) == 4 * len(hidden) == 4 * len(faces) == 4 * len(paths)
    assert {path: shown for path, shown in faces.items() if shown} == {}
    assert {key: v for key, v in found.items() if v} == {}
    assert {path: blocks for path, blocks in hidden.items() if blocks} == {}
