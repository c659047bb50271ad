"""Every route to readers besides the page itself (issue 52): the search index and the feeds, which third parties
write from the pages with parsers of their own, and every page's description in <meta> and Open Graph, are read
as the page guard reads a page (one HTML5 parser, one face check: guard.route_problems)."""

from __future__ import annotations

import json

import pytest
import yaml

from selectolax.lexbor import LexborHTMLParser

from codeproof.adapter.feeds import feed_items
from codeproof.common import pagetree
from codeproof.common.inlinecode import read_code
from codeproof.site.guard import route_problems
from fixture_site import make_site, report

STAMP = "✓ 输出已验证 · Python 3.11.7 · autograd 1.9.1"


@pytest.mark.parametrize("fragment, said", [
    ("<p>a ✓ 输出<b></b>已验证 · Python</p>", ["shows '输出已验证', a card's face"]),
    ("<p>use <code>[OUTPUT]</code> here</p>", []),
    ("<p>use [OUTPUT] here</p>", ["shows [OUTPUT] outside inline code"]),
    ("<p>✓ 输出<!-- -- > 已验证 · Python 3.11.7 --></p>", []),  # a browser's reading: the rest is a comment
    ("<p>✓ 输出<span title='已验证'>x</span></p>", []),
    ("<p>✓ 输出⺒验证 · Python</p>", ["shows '输出已验证', a card's face"]),  # ⺒, a radical drawn as 巳 (and so 已)
    ('<div class="proof-card" data-codeproof="">✓ 输出已验证</div>', ["shows '输出已验证', a card's face"]),
])
def test_a_route_is_read_as_a_browser_reads_it_and_holds_no_card(fragment, said):
    assert [what for _, what in route_problems(fragment)] == said


def test_text_a_comment_hides_from_a_browser_reaches_no_reader_by_the_search_plugin(tmp_path):
    """Issue 52: the guard and Chromium read `✓ 输出`; Python's html.parser, which Material's search uses, ended
    the comment at `-- >`, and search/search_index.json held the whole stamp. The build writes each page from the
    guard's reading, without comments: the search plugin reads what a browser reads."""
    site = make_site(tmp_path)  # MkDocs' own search reads with html.parser too
    site.edit("The end.", "✓ 输出<!-- -- > 已验证 · Python 3.11.7 · autograd 1.9.1 -->\n\nThe end.")
    built, log = site.build()
    assert built is not None, report(log)
    index = (built / "search" / "search_index.json").read_text(encoding="utf-8")
    page = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert "✓ 输出" in index and "-- &gt;" not in index and "-- >" not in index
    assert "<p>✓ 输出</p>" in page and "已验证 · Python 3.11.7 · autograd 1.9.1 --" not in page


def test_a_pages_description_is_read_as_the_guard_reads_a_page_posts_or_not(tmp_path):
    """Issue 52: the guide had the stamp as inline code in its first paragraph: allowed on the page, but <meta
    name="description"> and og:description carried it as plain text. Only posts' excerpts were read."""
    site = make_site(tmp_path)
    (site.root / "docs" / "guide.md").write_text(f"# 指南\n\n每个输出下方有 `{STAMP}` 这样的标记。\n",
                                                 encoding="utf-8")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["nav"] = ["index.md", "guide.md"]
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert ("docs/guide.md:3: the page's description shows '输出已验证', a card's face: its first paragraph, which "
            "<meta> and Open Graph publish as plain text, where it would pass for a verified card\n  hint: say it in "
            "other words, give the page a `description:` in its front matter, or begin it with another paragraph"
            ) in report(log)


def test_the_real_stamps_of_a_pages_cards_are_no_problem_in_its_search_entries(tmp_path):
    """Search keeps a card's output and stamp without its classes: they are matched to the page's own cards."""
    site = make_site(tmp_path, material=True)
    built, log = site.build()
    assert built is not None, log
    index = json.loads((built / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert any("验证" in entry["text"] and "Python" in entry["text"] for entry in index["docs"])  # a stamp is there


def test_each_feed_item_is_read_with_its_page_address(tmp_path):
    (tmp_path / "posts" / "p").mkdir(parents=True)
    (tmp_path / "posts" / "p" / "index.html").write_text("<p>x</p>")
    (tmp_path / "feed_rss_created.xml").write_text(
        '<?xml version="1.0"?><rss><channel><item><title>A &lt;b&gt;</title><link>https://example.org/series/posts/p/'
        f'</link><description>&lt;p&gt;{STAMP}&lt;/p&gt;</description></item></channel></rss>', encoding="utf-8")
    (tmp_path / "feed_json_created.json").write_text(json.dumps({"items": [
        {"title": "B", "url": "https://example.org/series/posts/p/", "content_html": "<p>[OUTPUT]</p>"}]}),
        encoding="utf-8")
    items = feed_items(tmp_path)
    assert items == [("posts/p/", f"<p>A &lt;b&gt;</p><p>{STAMP}</p>"), ("posts/p/", "<p>B</p><p>[OUTPUT]</p>")]
    assert [route_problems(fragment) for _, fragment in items] == [[("输出已验证", "shows '输出已验证', a card's face")],
                                                                   [("[OUTPUT]", "shows [OUTPUT] outside inline code")]]


def test_a_citation_whose_code_holds_a_comment_is_linked_as_a_browser_reads_it(tmp_path):
    """Issue 52: the citation linker split the HTML with a pattern and put its </a> inside the comment, so the next
    [OUTPUT] card, stamp included, lay inside the citation's link in Chromium. The link is now an edit of the
    guard's reading of the page: it holds the code's text as a browser shows it, and the comment is not written."""
    site = make_site(tmp_path)
    site.edit("Some prose about `Node`.", "Some prose about <code><!-- > abcdefghijk -->pkg/mod.py:1</code> here.")
    built, log = site.build()
    assert built is not None, report(log)
    page = LexborHTMLParser((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    citation = [a for a in page.css("a.series-cite") if a.text() == "pkg/mod.py:1"]
    assert len(citation) == 1 and citation[0].parent.tag == "code" and "abcdefghijk" not in page.html
    assert not [card for card in page.css(".proof-card") if any(p.tag == "a" for p in ancestors(card))]


def ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def test_a_sections_title_is_read_as_a_browser_reads_it():
    """Issue 52: section titles were read with Python's html.parser, which ended this comment at `-- >`: the source
    page's list of where the posts cite a line (正文提到) showed the stamp."""
    page = ('<h2 id="s">小节 ✓ 输出<!-- -- > 已验证 · Python 3.11.7 --></h2><p>见 <code>pkg/mod.py:1</code></p>'
            '<!-- <h3 id="t">藏起来的</h3> -- > --><p><code>pkg/mod.py:2</code></p>')
    codes, _ = read_code(pagetree.read(page))
    assert [code.text for code in codes] == ["pkg/mod.py:1", "pkg/mod.py:2"]
    assert [code.section for code in codes] == [("s", "小节 ✓ 输出")] * 2  # the hidden heading is no section


def test_a_posts_description_is_read_as_published_though_its_paragraph_holds_a_block(tmp_path):
    """Issue 52 (attack 7 of the second round): a block glued under the first paragraph made the series model pass
    over the paragraph (it holds a marker), and the description, made of it without the block, published the stamp
    as plain text in <meta> and Open Graph."""
    site = make_site(tmp_path)
    site.edit("Some prose about `Node`.\n\n[REAL SOURCE]", f"Some prose about `{STAMP}` here.\n[REAL SOURCE]")
    built, log = site.build()
    assert built is None
    line = site.post.read_text(encoding="utf-8").split("\n").index(f"Some prose about `{STAMP}` here.") + 1
    assert report(log) == (
        f"1 problem:\n\ndocs/posts/p.md:{line}: the page's description shows '输出已验证', a card's face: its first "
        "paragraph, which <meta> and Open Graph publish as plain text, where it would pass for a verified card\n  hint: "
        "say it in other words, give the page a `description:` in its front matter, or begin it with another paragraph")


def test_a_headings_title_in_the_table_of_contents_is_read_as_the_guard_reads_a_page(tmp_path):
    """Issue 52 (attack 2 of the second round): lines between two indented ``` (code to Markdown, a fence to the
    block parser's line check) hid a heading's `data-toc-label`; Material's tables of contents showed the stamp."""
    site = make_site(tmp_path, material=True)
    label = f'## Foo {{data-toc-label="{STAMP}"}}'
    site.edit("The end.", f"Intro.\n\n    ```\n\n{label}\n\nText.\n\n    ```\n\nThe end.")
    built, log = site.build()
    assert built is None
    line = site.post.read_text(encoding="utf-8").split("\n").index(label) + 1
    assert report(log) == (
        f"1 problem:\n\ndocs/posts/p.md:{line}: the table of contents shows '输出已验证', a card's face: a heading's "
        "title there, which the theme shows beside the page, outside any verified card\n  hint: say it in other words "
        "(a heading's data-toc-label too)")


def test_a_face_an_images_alt_completes_is_refused_at_its_line(tmp_path):
    """Issue 52 (the second round's attack 13): refused, but at the post's first line."""
    site = make_site(tmp_path)
    cell = "| ![✓ 输出](a.png)已验证 · Python 3.11.7 |"
    site.edit("The end.", f"| a |\n| --- |\n{cell}\n\nThe end.")
    built, log = site.build()
    assert built is None
    line = site.post.read_text(encoding="utf-8").split("\n").index(cell) + 1
    assert report(log).startswith(f"1 problem:\n\ndocs/posts/p.md:{line}: the page shows '输出已验证' outside a verified card")
