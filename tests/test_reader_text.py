"""The guard reads what a reader sees (integrity round four, class 2), checked against an oracle that is not the
guard's code: Chromium's innerText of the rendered HTML, with what a reader does not see (invisible format
characters, white space) dropped and what the guard exempts by design (inline code, which names things) hidden.
Whenever Chromium shows a stamp's words or a block marker there, the guard must refuse the page."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codeproof.common import pagetree
from codeproof.site.guard import check_page, route_problems
from fixture_site import make_site
from site_server import ROOT, pages, reads_as_a_face, serve, shown_faces

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


def test_the_reader_of_faces_reads_the_last_lines_of_a_source_page_laid_out_near_the_screen(page):
    """The site's style sheet lays out a source page's chunks of lines only near the screen, and innerText leaves
    out a chunk not laid out: the reader of faces reads the whole page, as a reader scrolling through it does."""
    style = (ROOT / "overrides" / "assets" / "series.css").read_text(encoding="utf-8")
    chunks = "".join(f'<span class="series-src__chunk">' + "".join(
        f'<span id="L{n}" data-n="{n}">x = {n}\n</span>' for n in range(first, first + 50)) + "</span>"
        for first in range(1, 2000, 50))
    page.set_content(f"<!doctype html><html><head><style>{style}</style></head><body><div class='md-content'>"
                     f"<article class='md-content__inner md-typeset'><h1>t</h1><div class='highlight series-src'>"
                     f"<pre><code>{chunks}<span class='series-src__chunk'><span># ✓ 输出已验证 · Python 3.11.7</span>"
                     "</span></code></pre></div></article></div></body></html>")
    assert "输出已验证" not in page.evaluate("document.body.innerText")  # as the page first lays out
    assert "输出已验证" in shown_faces(page)


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


# HTML that parsers are known to read differently (issue 52): a browser (and the guard: Lexbor) by the WHATWG
# algorithm, Python's html.parser (Material's search, MkDocs' own) by its own rules, which change between CPython
# releases. Each pair wraps the second half of a face.
DIVERGENT = [("<!-- -- >", "-->"), ("<!--", "--!>"), ("<!-- a -- b", "-->"), ("<!--", "-- >"), ("<!--->", ""),
             ("<![CDATA[", "]]>"), ("<noscript>", "</noscript>"), ("<template>", "</template>"), ("<plaintext>", ""),
             ('<span title="', '">x</span>'), ("<span title='&quot;'", ">x</span>"), ("<textarea>", "</textarea>"),
             ("<title>", "</title>"), ("<xmp>", "</xmp>"), ("<?", ">"), ("</", ">"), ("<style>", "</style>"),
             ("<script>", "</script>"), ("<iframe>", "</iframe>"), ("<noembed>", "</noembed>"),
             ("<svg><![CDATA[", "]]></svg>"), ("<select>", "</select>"), ("<b>", ""), ("<code>", "</code>")]


def search_text(fragment: str) -> str:
    """What Material's search plugin keeps of a page's HTML for its index (its own parser)."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(f'<h1 id="t">T</h1>{fragment}')
    parser.close()
    return "".join(part for section in parser.data for part in section.text)


@st.composite
def divergent_faces(draw) -> str:
    """A face whose second half is wrapped in HTML the parsers read differently, in a paragraph, a heading, a list
    item or a cell."""
    face = draw(st.sampled_from([STAMP + " · Python 3.11.7", "[OUTPUT]", "源码 REAL SOURCE"]))
    cut = draw(st.integers(1, len(face) - 1))
    opening, closing = draw(st.sampled_from(DIVERGENT))
    inner = face[:cut] + opening + draw(st.sampled_from(["", " "])) + face[cut:] + closing
    tag = draw(st.sampled_from(["p", "h2", "li", "td"]))
    return {"li": f"<ul><li>{inner}</li></ul>", "td": f"<table><tr><td>{inner}</td></tr></table>",
            "h2": f'<h2 id="s">{inner}</h2>'}.get(tag, f"<{tag}>{inner}</{tag}>")


@settings(max_examples=48, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(divergent_faces())
def test_whatever_chromium_or_the_search_results_show_as_a_face_the_build_refuses(page, fragment):
    """Two oracles: Chromium's innerText of the page, and of the search index's text as the search shows it (HTML,
    in the reader's browser). Whenever either shows a face, the page guard or the route check refuses."""
    searched = search_text(written(fragment))
    on_page, in_search = reads_as_a_face(inner_text(page, fragment)), reads_as_a_face(inner_text(page, searched))
    if on_page:
        assert refused(fragment), fragment
    if in_search:
        assert refused(fragment) or route_problems(searched), (fragment, searched)


def test_the_search_oracle_sees_what_the_guard_does_not_in_a_page_not_written_by_the_build():
    """The property above tests something: a comment Python's parser ends early would show the stamp in search alone.
    The build writes the page without comments (common.pagetree), so the search reads what the guard read."""
    fragment = "<p>✓ 输出<!-- -- > 已验证 · Python 3.11.7 --></p>"
    assert not refused(fragment) and route_problems(search_text(fragment))
    assert search_text(written(fragment)) == "<p>✓ 输出</p>" and not route_problems(search_text(written(fragment)))


def written(fragment: str) -> str:
    """The page as the build writes it after the guard."""
    return pagetree.written(pagetree.read(fragment))
