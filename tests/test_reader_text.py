"""The guard reads what a reader sees (integrity round four, class 2), checked against an oracle that is not the
guard's code: Chromium's innerText of the rendered HTML, with what a reader does not see (invisible format
characters, white space) dropped and what the guard exempts by design (inline code, which names things) hidden.
Whenever Chromium shows a stamp's words or a block marker there, the guard must refuse the page."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codeproof.site.guard import check_page
from fixture_site import make_site
from site_server import pages, reads_as_a_face, serve, shown_faces

pytestmark = pytest.mark.browser

STAMP = "✓ 输出已验证"
# What a reader does not read as text: inline code names things (the guard exempts a single span), and the
# theme hides a heading's permalink.
HIDDEN_FROM_THE_ORACLE = ":not(pre) > code, .headerlink { display: none !important; }"
# What may come between two characters of a face: elements that show nothing (with attributes a reader sees only
# as a tooltip, or an image's alt), formatting, comments, entities, invisible characters, breaks.
BETWEEN = ["", " ", '<span title="t"></span>', '<abbr title="a"></abbr>', '<span aria-label="l"></span>',
           '<img alt="" width="0" height="0">', '<img alt="已">', "<b></b>", "<b>", "</b>", "<em>", "</em>",
           "<!-- c -->", "\u00ad", "&shy;", "\u200d", "&zwj;", "\ufe0f", "\u200b", "&#8203;", "<wbr>", "<br>",
           "<code>", "</code>", '<span class="x"></span>', "<s></s>", "<sup></sup>", "&nbsp;", "\n",
           "<details><summary>s</summary>x</details>", "<ruby>x<rt>y</rt></ruby>", '<a href="#x"></a>']


@pytest.fixture(scope="module")
def page(browser):
    """One page, reused for every example."""
    page = browser.new_page()
    yield page
    page.close()


def inner_text(page, fragment: str) -> str:
    page.set_content(f"<!doctype html><html><head><style>{HIDDEN_FROM_THE_ORACLE}</style></head>"
                     f"<body><article>{fragment}</article></body></html>")
    return page.evaluate("document.querySelector('article').innerText")


def refused(fragment: str) -> bool:
    return bool(check_page(fragment, "docs/posts/x.md", fragment.splitlines() or [""], 1, 0, "s" * 32, set()))


@st.composite
def split_faces(draw) -> str:
    """A face (the stamp or a marker) with anything of BETWEEN between its characters, inside a paragraph or a
    heading, with ordinary words around it."""
    face = draw(st.sampled_from([STAMP, "[OUTPUT]", "[REAL SOURCE]", "源码 REAL SOURCE"]))
    parts = [draw(st.sampled_from(BETWEEN)) + character for character in face]
    tag = draw(st.sampled_from(["p", "h2", "li", "td"]))
    inner = draw(st.sampled_from(["", "见 ", "<code>x</code> "])) + "".join(parts)
    return {"li": f"<ul><li>{inner}</li></ul>", "td": f"<table><tr><td>{inner}</td></tr></table>"}.get(
        tag, f"<{tag}>{inner}</{tag}>")


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(split_faces())
def test_whatever_chromium_shows_as_a_face_the_guard_refuses(page, fragment):
    if reads_as_a_face(inner_text(page, fragment)):
        assert refused(fragment), fragment


def test_the_oracle_sees_a_face_through_elements_that_show_nothing(page):
    """The property above tests something: Chromium reads these as the stamp, and the oracle says so."""
    for fragment in ['<p>✓ 输出<span title="x"></span>已验证</p>', "<p>✓ 输\u00ad出已验证</p>",
                     '<h2><code>✓ 输出已验证</code></h2>']:
        assert reads_as_a_face(inner_text(page, fragment.replace("<code>", "<span>").replace("</code>", "</span>")))
        assert refused(fragment), fragment
    assert not reads_as_a_face(inner_text(page, "<p>盖章写作 <code>输出已验证</code>。</p>"))


def test_a_fixture_sites_pages_show_card_faces_only_inside_their_cards(browser, tmp_path):
    """The built fixture site (its post with a quote, an experiment and its output, in Material), every page as a
    reader's browser shows it: its verified cards hold the faces, nothing else does."""
    site = make_site(tmp_path, material=True)
    built, log = site.build()
    assert built is not None, log
    server, base = serve(built)
    try:
        page = browser.new_page()
        found, cards = {}, 0
        for path in pages(built):
            page.goto(base + path, wait_until="load")
            found[path] = shown_faces(page)
            cards += page.locator(".proof-card").count()
        page.close()
    finally:
        server.shutdown()
    assert cards > 0 and {path: faces for path, faces in found.items() if faces} == {}
