"""The site's navigation lists the series' posts in number order, titled from the series model, wherever
mkdocs.yml's nav puts them, or without it listing them; the footer's 上一页/下一页 follow it."""

from __future__ import annotations

import yaml
from selectolax.lexbor import LexborHTMLParser

from fixture_site import POST, make_site, report


def add_post(site, slug: str, number: int, title: str) -> None:
    text = POST.replace('title: "Fixture post"', f'title: "Fixture：{title}"').replace("series: 1", f"series: {number}")
    (site.root / "docs" / "posts" / f"{slug}.md").write_text(text, encoding="utf-8")


def set_nav(site, nav: list) -> None:
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["nav"] = nav
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


def nav_and_footer(built, page: str) -> tuple[list[str], list[str]]:
    html = LexborHTMLParser((built / page / "index.html").read_text(encoding="utf-8"))
    nav = [a.text(strip=True) for a in html.css("nav.md-nav--primary a.md-nav__link")]
    footer = [a.attributes["href"] for a in html.css("a.md-footer__link")]
    return nav, footer


def test_posts_are_listed_by_number_where_the_first_of_them_stands(tmp_path):
    site = make_site(tmp_path, material=True)
    site.edit('title: "Fixture post"', 'title: "Fixture：第一篇的标题"')
    add_post(site, "b", 3, "第三篇的标题")
    add_post(site, "a", 2, "第二篇的标题")
    (site.root / "docs" / "about.md").write_text("# About\n", encoding="utf-8")
    set_nav(site, [{"Home": "index.md"}, {"B": "posts/b.md"}, {"About": "about.md"}])  # p.md and a.md unlisted
    built, log = site.build()
    assert built is not None, log
    nav, footer = nav_and_footer(built, "posts/a")
    assert nav == ["Home", "第一篇：第一篇的标题", "第二篇：第二篇的标题", "第三篇：第三篇的标题", "About", "源码地图"]  # the map: last, before any section
    assert footer == ["../p/", "../b/"]


def test_without_a_nav_in_mkdocs_yml_the_posts_follow_the_first_page(tmp_path):
    site = make_site(tmp_path, material=True)
    add_post(site, "z", 2, "二")
    built, log = site.build()
    assert built is not None, log
    assert nav_and_footer(built, "posts/z")[0][1:3] == ["第一篇：Fixture post", "第二篇：二"]


def test_a_nav_title_with_markup_fails_at_its_line_of_mkdocs_yml(tmp_path):
    site = make_site(tmp_path, material=True)
    set_nav(site, [{"Home": "index.md"}, {"<!--": "https://example.com/"}])
    line = next(n for n, text in enumerate((site.root / "mkdocs.yml").read_text().splitlines(), 1) if "<!--" in text)
    built, log = site.build()
    assert built is None
    assert report(log) == (f"1 problem:\n\nmkdocs.yml:{line}: the nav title '<!--' holds markup characters (<, > or &) "
                           "or names a block marker, and the theme prints it as HTML on every page\n"
                           "  hint: write the titles of the nav as plain text")


def test_a_posts_categories_link_to_their_entries_on_the_overview_when_it_lists_them(tmp_path):
    site = make_site(tmp_path, material=True)
    site.edit("date: 2026-01-01", "date: 2026-01-01\ncategories: [应用数学, Autograd 源码]")
    add_post(site, "b", 2, "二")
    built, log = site.build()
    assert built is not None, log
    header = LexborHTMLParser((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    assert [a.text() for a in header.css("span.series-meta__category")] == ["应用数学", "Autograd 源码"]  # no index
    assert header.css("a.series-meta__category") == []

    overview = site.root / "docs" / "index.md"
    overview.write_text(overview.read_text(encoding="utf-8") + "\n## 分类\n\n<!-- series-categories -->\n", encoding="utf-8")
    built, log = site.build()
    assert built is not None, log
    header = LexborHTMLParser((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    links = [(a.text(), a.attributes["href"]) for a in header.css("a.series-meta__category")]
    assert links == [("应用数学", "../..#category-应用数学"), ("Autograd 源码", "../..#category-autograd-源码")]
    index = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8"))
    for _, href in links:
        entry = index.css_first(f'[id="{href.split("#")[1]}"]').parent
        assert [a.text() for a in entry.css("a")] == ["第一篇：Fixture post"]  # b has no categories
