"""A new post is only its own files (issue 53): on a fixture site that gains one (its Markdown, and `lock`), the
search expectations the suite derives from each post (tests/search_expectations.py) exist for it and hold in
Chromium, with nothing written under tests/."""

from __future__ import annotations

import contextlib

import pytest
import yaml

from codeproof.__main__ import main as codeproof
from fixture_site import make_site
from search_expectations import first_queries, listing_queries, search_results
from site_server import serve

pytestmark = pytest.mark.browser

NEW_POST = """\
---
title: "Fixture series（二）：广播的反向传播"
series: 2
date: 2026-02-01
categories: [Fixture]
tags: [autograd]
---

广播让形状不同的数组相加；反向传播时，梯度要按原来的形状求和还原，这一步由 unbroadcast 负责。

## 形状如何还原

每个被广播的轴都要沿它求和，长度为一的轴保留下来，梯度于是回到输入的形状。

## 为什么要求和

同一个输入元素被复制到许多输出位置，每个位置的梯度都属于它，所以要加在一起。
"""


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    """The fixture site (Material, with the real site's script and Chinese search) and a second post, added as an
    author adds one: its file, then `lock`."""
    site = make_site(tmp_path_factory.mktemp("grown"), material=True)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["extra_javascript"] = ["assets/series.js"]  # the real site's ordering of results (in overrides/)
    config["plugins"] = [{"search": {"lang": "zh"}}]
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    (site.root / "docs" / "posts" / "q.md").write_text(NEW_POST, encoding="utf-8")
    assert codeproof(["lock", "--config", str(site.root / "mkdocs.yml")]) == 0
    built, log = site.build()
    assert built is not None, log
    return site, built


@contextlib.contextmanager
def served(built):
    server, url = serve(built, "/series/")
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def test_a_new_posts_search_is_derived_from_it_and_holds(browser, grown):
    site, built = grown
    posts = {"posts/q/": site.root / "docs" / "posts" / "q.md", "posts/p/": site.post}
    listing = {url: listing_queries(post, built, url, "Fixture series") for url, post in posts.items()}
    first = {url: [query for query, _ in first_queries(post, built, url)] for url, post in posts.items()}
    assert listing["posts/q/"][:3] == ["广播的反向传播", "形状如何还原", "为什么要求和"]  # its title, its headings
    assert first["posts/q/"]  # a phrase only it holds
    page = browser.new_page()
    with served(built) as url:
        missing = [(post, query) for post, queries in listing.items() for query in queries
                   if post not in search_results(page, url, query)]
        not_first = [(post, query) for post, queries in first.items() for query in queries
                     if search_results(page, url, query)[:1] != [post]]
    page.close()
    assert missing == [] and not_first == []
