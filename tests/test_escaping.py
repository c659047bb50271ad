"""Values from a post's front matter and prose reach HTML escaped, in text and in attributes; values that
templates outside the project would publish as markup are refused. On the fixture site with the real
site's theme (Material and overrides/), built in this process."""

from __future__ import annotations

import re

import pytest

from codeproof.series.prose import first_paragraph
from fixture_site import make_site, report


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path, material=True)


def set_front_matter(site, text: str) -> None:
    site.edit('title: "Fixture post"\n', text)


def test_quotes_and_bars_in_title_categories_and_description_are_escaped_where_they_reach_html(site):
    set_front_matter(site, "title: 'Fixture（一）：自定义 \"Primitive\" | 第二部分'\ncategories: ['C \"x\" | y']\n")
    site.edit("Some prose about `Node`.", '第一段有 "引号" 与 `"><b>`。')
    built, log = site.build()
    assert built is not None, log
    html = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    description = re.search(r'<meta name="description" content="([^"]*)">', html).group(1)
    assert description == "第一段有 &#34;引号&#34; 与 &#34;b。"  # quotes escaped; no markup for the feed
    assert "<title>Fixture（一）：自定义 &#34;Primitive&#34; | 第二部分 - f</title>" in html
    assert '<span class="series-meta__category">C &#34;x&#34; | y</span>' in html
    # what a shared link shows: the same text, escaped in the attribute
    assert '<meta property="og:title" content="Fixture（一）：自定义 &#34;Primitive&#34; | 第二部分">' in html
    assert '<meta property="og:description" content="第一段有 &#34;引号&#34; 与 &#34;b。">' in html
    overview = (built / "index.html").read_text(encoding="utf-8")
    (item,) = [li for li in re.findall(r"<li>(.*?)</li>", overview, flags=re.S) if "第一篇" in li]
    assert '<a href="posts/p/">自定义 "Primitive" | 第二部分</a>' in item  # as written from the page's tree: text


@pytest.mark.parametrize("text, line, value, held", [
    ("title: '自定义 <img src=x onerror=alert(1)>'\n", 2, "'自定义 <img src=x onerror=alert(1)>'", "<>"),
    ("title: x\ntags: [autograd, '<img src=x onerror=alert(2)>']\n", 3, "'<img src=x onerror=alert(2)>'", "<>"),
    ("title: x\ncategories: ['<script>alert(4)</script>']\n", 3, "'<script>alert(4)</script>'", "<>"),
    ("title: 'A & B'\n", 2, "'A & B'", "&"),
])
def test_front_matter_that_others_would_publish_as_markup_fails_with_its_line(site, text, line, value, held):
    set_front_matter(site, text)
    key = text.splitlines()[-1].split(":")[0]
    built, log = site.build()
    assert built is None
    assert report(log) == (
        f"1 problem:\n\ndocs/posts/p.md:{line}: front matter: {key} {value} holds {held}, which the navigation, tags "
        "and feed would publish as markup\n  hint: write it without <, > and & (use 与 or “and” for &)")


def test_the_description_feeds_publish_holds_no_markup_and_no_marker():
    assert first_paragraph('说明 `<div><b>[OUTPUT]</b><pre>grad = 42.0</pre></div>` 结束。') == ""
    assert first_paragraph("说明 `<b>x</b>` & 结束。") == "说明 bx/b 结束。"
    assert first_paragraph("~~~\n[OUTPUT]\n~~~\n\n    indented\n\n正文。") == "正文。"
