"""The source pages: the quoted package at the pin on the site, cross-referenced by jedi, with the posts that
quote each range; and the map of the package."""

from __future__ import annotations

import re

import json
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from codeproof.site import sourcepages
from codeproof.site import xref
from codeproof.__main__ import main as codeproof
from codeproof.common import pagetree
from codeproof.site.namelinks import NameLinks, link_names
from codeproof.site.render import SEAL_ATTRIBUTE, copied_lines
from codeproof.site.sourcepages import Note, SourceSite, link_post_cards
from codeproof.series.config import Baseline
from codeproof.common.structure import Excerpt, FileRef
from codeproof.site.xref import Reference, XrefIndex
from codeproof.site.xref import cross_references
from conftest import git
from fixture_site import make_site

CORE = '''\
"""The core."""

LIMIT = 3


def primitive(f):
    """Wraps f."""
    return f


class Box:
    def unbox(self):
        return self.value
'''
USER = '''\
from .core import primitive, Box


def check(x):
    if isinstance(x, list):
        return primitive(x)

    def inner(y):
        return Box().unbox()

    return inner(x)
'''
DECORATED = '''\
from .core import primitive


@primitive
def twice(x):
    return 2 * x
'''
SHADOW = '''\
def isinstance(x, kind):
    return False


def uses():
    return isinstance(1, int)
'''
POST = '''\
---
title: "Fixture：源码页"
series: 1
date: 2026-01-01
---

Prose.

## 检查

[REAL SOURCE]
File: pkg/user.py
Symbol: check

```python
def check(x):
    if isinstance(x, list):
        return primitive(x)
```

## 内部

[REAL SOURCE]
File: pkg/user.py
Symbol: check

```python
    def inner(y):
        return Box().unbox()
```
'''


def built_with_package(tmp_path: Path, package: dict[str, str], post: str, _script: tuple[str, str] | None = None,
                       **series) -> Path:
    """A fixture site whose upstream holds `package` (file names under pkg/ -> text) at the baseline commit,
    with `post` as its post, `_script` (path, text) among its experiments and `series` among its settings, locked
    and built; the built site's folder."""
    site = make_site(tmp_path, material=True)
    if _script:
        (site.root / _script[0]).write_text(_script[1], encoding="utf-8")
    repo = site.upstream.remote / "fixture" / "upstream"
    for name, text in package.items():
        (repo / "pkg" / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a package")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["baseline"]["commit"] = git(repo, "rev-parse", "HEAD")
    config["extra"]["series"].update(series)
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    site.post.write_text(post, encoding="utf-8")
    assert codeproof(["lock", "--config", str(site.root / "mkdocs.yml")]) == 0
    out, log = site.build()
    assert out is not None, log
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    package = {"__init__.py": "", "core.py": CORE, "user.py": USER, "builtins.py": SHADOW, "deco.py": DECORATED}
    return built_with_package(tmp_path_factory.mktemp("sources"), package, POST)


def page(built, path: str) -> LexborHTMLParser:
    return LexborHTMLParser((built / path / "index.html").read_text(encoding="utf-8"))


def links(built, path: str, line: int) -> dict[str, str]:
    """name -> where it links, on one line of a source page."""
    element = page(built, f"source/{path}").css_first(f"#L{line}")
    return {a.text(): a.attributes["href"] for a in element.css("a.series-xref")}


def test_every_file_of_the_quoted_package_has_a_page_with_a_line_anchor_per_line(built):
    for path, text in {"pkg/core.py": CORE, "pkg/user.py": USER, "pkg/builtins.py": SHADOW}.items():
        html = page(built, f"source/{path}")
        assert [e.attributes["id"] for e in html.css(".series-src__chunk > span")] == [f"L{n}" for n in range(1, text.count("\n") + 1)]
        for note in html.css(".series-src__note"):
            note.decompose()
        assert "".join(e.text() for e in html.css(".series-src__chunk > span")) == text  # the file, character for character
        assert (built / "source" / "raw" / path).read_text() == text


def test_an_import_links_to_where_the_name_is_defined(built):
    assert links(built, "pkg/user.py", 1) == {"core": "../core.py/", "primitive": "../core.py/#L6", "Box": "../core.py/#L11"}


def test_a_module_links_to_its_page_not_to_its_first_line(built):
    name = page(built, "source/pkg/user.py").css_first("#L1 a.series-xref")
    assert (name.text(), name.attributes["href"], name.attributes["data-tip"]) == ("core", "../core.py/", "module core")


def test_a_builtin_is_not_linked_but_a_module_that_shadows_it_links_its_own(built):
    assert "isinstance" not in links(built, "pkg/user.py", 5)  # Python's isinstance, not pkg/builtins.py's
    assert "list" not in links(built, "pkg/user.py", 5)
    assert links(built, "pkg/builtins.py", 6) == {"isinstance": "./#L1"}  # this module's own, which shadows it


def test_methods_nested_functions_and_calls_link_to_their_definitions(built):
    assert links(built, "pkg/user.py", 6) == {"primitive": "../core.py/#L6"}
    assert links(built, "pkg/user.py", 9) == {"Box": "../core.py/#L11", "unbox": "../core.py/#L12"}
    assert links(built, "pkg/user.py", 11) == {"inner": "./#L8"}


def test_a_decorator_links_its_name_and_keeps_its_at_sign_outside_the_link(built):
    assert links(built, "pkg/deco.py", 4) == {"primitive": "../core.py/#L6"}
    assert page(built, "source/pkg/deco.py").css_first("#L4").text() == "@primitive\n"


def test_a_link_shows_the_definitions_line_and_the_first_line_of_its_docstring(built):
    element = page(built, "source/pkg/user.py").css_first("#L6 a.series-xref")
    assert element.attributes["data-tip"] == "def primitive(f): — Wraps f."


def test_a_card_links_to_its_lines_on_the_site_and_to_github_beside(built):
    card = page(built, "posts/p").css_first(".proof-card--source")
    hrefs = [a.attributes["href"] for a in card.css("dd a")]
    assert hrefs[0] == "../../source/pkg/user.py/#L4-L6"
    assert hrefs[1].startswith("https://github.com/fixture/upstream/blob/") and hrefs[1].endswith("/pkg/user.py#L4-L6")


def card_links(built, number: int) -> list[tuple[str, str, str]]:
    """(name, where it links, its tip) in the code of a post's card."""
    card = page(built, "posts/p").css(".proof-card--source")[number]
    return [(a.text(), a.attributes["href"], a.attributes["data-tip"]) for a in card.css("pre a.series-xref")]


def test_the_names_in_a_card_link_to_their_definitions_but_not_builtins(built):
    assert card_links(built, 0) == [("primitive", "../../source/pkg/core.py/#L6", "def primitive(f): — Wraps f.")]


def test_a_card_without_the_indentation_its_lines_share_links_its_names_at_their_file_columns(built):
    card = page(built, "posts/p").css(".proof-card--source")[1]
    assert card.css_first("pre code").text().startswith("def inner(y):")  # shown without its 4 spaces
    assert [(name, href) for name, href, _ in card_links(built, 1)] == [("Box", "../../source/pkg/core.py/#L11"),
                                                                         ("unbox", "../../source/pkg/core.py/#L12")]


def test_a_quoted_range_has_its_own_anchor_and_names_the_post_section_that_quotes_it(built):
    html = page(built, "source/pkg/user.py")
    assert html.css_first('#L4 > span[id="L4-L6"]') is not None
    assert [e.attributes["id"] for e in html.css(".series-src__quoted")] == ["L4", "L5", "L6", "L8", "L9"]
    note = html.css_first("#L4 a.series-src__note")
    section = page(built, "posts/p").css_first("h2").attributes["id"]
    assert (note.text(), note.attributes["href"]) == ("第一篇 · 检查", f"../../../posts/p/#{section}")


def test_a_definition_lists_the_quotes_that_use_it(built):
    note = page(built, "source/pkg/core.py").css_first("#L6 a.series-src__note")
    section = page(built, "posts/p").css_first("h2").attributes["id"]
    assert (note.text(), note.attributes["href"]) == ("被引用于 第一篇 · 检查", f"../../../posts/p/#{section}")
    assert [a.text() for a in page(built, "source/pkg/core.py").css("#L11 a.series-src__note")] == ["被引用于 第一篇 · 内部"]
    assert page(built, "source/pkg/core.py").css_first("#L3 a.series-src__note") is None  # LIMIT: in no quote


def test_the_map_lists_each_file_with_the_share_quoted_and_its_symbols(built):
    html = page(built, "source")
    rows = {li.css_first("a code").text(): li for li in html.css(".series-map > li")}
    assert sorted(rows) == ["pkg/__init__.py", "pkg/builtins.py", "pkg/core.py", "pkg/deco.py", "pkg/mod.py",
                            "pkg/user.py"]
    user = rows["pkg/user.py"]
    assert user.css_first(".series-map__bar").attributes["aria-label"] == "已引用 5 / 11 行"
    assert [(a.text(), bool(a.css_first("strong")), a.attributes["href"]) for a in user.css(".series-map__symbols a")] == \
        [("check", True, "pkg/user.py/#L4")]


def test_search_finds_each_file_by_its_path_and_each_definition_by_its_name_but_not_the_code(built):
    index = json.loads((built / "search" / "search_index.json").read_text(encoding="utf-8"))
    source = {doc["location"]: (doc["title"], doc["text"]) for doc in index["docs"] if doc["location"].startswith("source/")}
    assert source["source/pkg/core.py/"] == ("pkg/core.py", "")
    assert source["source/pkg/core.py/#L6"] == ("primitive", "pkg/core.py:6 def primitive(f):")
    assert source["source/pkg/core.py/#L11"] == ("Box", "pkg/core.py:11 class Box:")
    assert source["source/pkg/user.py/#L4"] == ("check", "pkg/user.py:4 def check(x):")
    assert not [text for _, text in source.values() if "unbox" in text or "return" in text]  # no code beyond a definition's line
    assert any(doc["location"].startswith("posts/p/") for doc in index["docs"])


def test_the_outline_of_a_file_lists_its_definitions_where_the_package_uses_them_and_the_posts_that_quote_them(built):
    outline = page(built, "source/pkg/core.py").css_first("details.series-src__outline")
    rows = {li.css_first("a code").text(): li for li in outline.css("li")}
    assert list(rows) == ["LIMIT", "primitive", "Box"]
    assert rows["primitive"].css_first("a").attributes["href"] == "#L6"
    uses = [(a.text(), a.attributes["href"]) for a in rows["primitive"].css("small a") if "posts/" not in a.attributes["href"]]
    assert uses == [("pkg/deco.py:1", "../deco.py/#L1"), ("pkg/user.py:1", "../user.py/#L1")]
    assert "pkg/deco.py:1 等 2 处" in rows["primitive"].text() and "pkg/user.py:1 等 2 处" in rows["primitive"].text()
    section = page(built, "posts/p").css_first("h2").attributes["id"]
    assert [(a.text(), a.attributes["href"]) for a in rows["primitive"].css("small a") if "posts/" in a.attributes["href"]] \
        == [("第一篇 · 检查", f"../../../posts/p/#{section}")]
    assert rows["LIMIT"].css("small a") == []  # used nowhere, quoted nowhere


@pytest.mark.slow
def test_without_source_pages_cards_link_to_github_and_nothing_is_generated(tmp_path):
    site = make_site(tmp_path, material=True)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["source_pages"] = False
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    out, log = site.build()
    assert out is not None, log
    assert not (out / "source").exists()
    card = page(out, "posts/p").css_first(".proof-card--source")
    assert card.css_first("dd a").attributes["href"].startswith("https://github.com/fixture/upstream/blob/")
    assert card.css_first("a.proof-card__github") is None


OPENING = '<div class="proof-card proof-card--source">'


def card_html(code: str) -> str:
    """A REAL SOURCE card as pymdownx.highlight renders one: name tokens in <span class="n">."""
    return (OPENING + '<div class="proof-card__head"><code>primitive</code></div>'
            f'<div class="highlight"><pre><span></span><code>{code}</code></pre></div></div>')


def linked_names(code: str, file: str, first: int, links: NameLinks) -> list[str]:
    """The names linked in a card showing `code`, which quotes `file` from line `first`, as the page is written."""
    tree = pagetree.read(card_html(code))
    link_names(tree.css_first("pre"), file, first, links)
    return [a.text() for a in pagetree.read(pagetree.written(tree)).css("pre a.series-xref")]


def test_a_card_line_that_is_not_its_file_line_less_indentation_links_nothing():
    index = [Reference(2, 1, 9, "pkg/core.py", 6, "def primitive(f):")]
    links = NameLinks(index, lambda path, line: f"{path}#L{line}")
    file = 'x = 1\n\tprimitive(x)\n'
    shown = '<span id="__span-0-1"><span class="n">x</span> = 1\n</span><span id="__span-0-2">{}<span class="n">primitive</span>(x)\n</span>'
    assert linked_names(shown.format("\t"), file, 1, links) == ["primitive"]
    assert linked_names(shown.format("    "), file, 1, links) == []  # a tab expanded
    assert linked_names(shown.format("\t"), file, 2, links) == []  # not these lines


@pytest.mark.slow
def test_with_ci_the_cross_references_are_computed_afresh_though_the_process_has_them(tmp_path, monkeypatch):
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/user.py": USER.encode()}
    said = []
    first = cross_references(files, tmp_path, said.append)
    assert cross_references(files, tmp_path, said.append) is first  # a rebuild of the process takes them as kept
    monkeypatch.setenv("CI", "true")
    assert cross_references(files, tmp_path, said.append) == first
    computed = [line for line in said if not line.startswith("cross-referencing: ")]  # (progress, on a slow machine)
    assert computed == ["cross-referencing 3 files with jedi (once per pinned commit, kept for every clone)"] * 2


# review2 (adversarial review): a file with a lone CR, a memo read under CI, damaged caches, a memo's bound.

LONE_CR = "from .core import foo, bar\n# odd\rbyte\n\n\ndef f():\n    a = foo()\n    b = bar()\n"
TWO = "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n"
TWO_NAMES = ('<span class="n">a</span> = <span class="n">foo</span>()\n'
             '<span class="n">b</span> = <span class="n">bar</span>()\n')


@pytest.mark.slow
def test_a_file_with_a_lone_carriage_return_links_no_card_name_to_another_names_definition(tmp_path):
    # parso (as Python) breaks a line at a lone CR; the card's lines are the file's split at LF alone.
    files = {"pkg/__init__.py": b"", "pkg/core.py": TWO.encode(), "pkg/user.py": LONE_CR.encode()}
    index = cross_references(files, tmp_path)
    links = NameLinks(index.references["pkg/user.py"], lambda path, line: f"{path}#L{line}")
    tree = pagetree.read(card_html(TWO_NAMES))
    link_names(tree.css_first("pre"), LONE_CR, 6, links)
    linked = {(a.text(), a.attributes["href"]) for a in pagetree.read(pagetree.written(tree)).css("pre a.series-xref")}
    assert linked <= {("foo", "pkg/core.py#L1"), ("bar", "pkg/core.py#L5")}  # right, or not linked at all


def test_with_ci_a_card_is_linked_afresh_though_the_process_linked_it_before(monkeypatch):
    text = "from .core import foo, bar\n\n\ndef f():\n    a = foo()\n    b = bar()\n"
    baseline = Baseline("o/r", "c" * 40, "1.0", None, None)
    quoted = [(FileRef("o/r", "c" * 40, "pkg/user.py"), Excerpt(5, 6, "    a = foo()\n    b = bar()"))]
    def linked(targets: tuple[int, int], seal: str = "seal") -> list[tuple[str, str]]:
        # The same files (so the same key), an index made from a tampered cache or computed afresh.
        index = XrefIndex({"pkg/user.py": [Reference(5, 8, 3, "pkg/core.py", targets[0], "t"),
                                           Reference(6, 8, 3, "pkg/core.py", targets[1], "t")]}, {}, "same files")
        site = SourceSite({"pkg/user.py": text.encode()}, index)
        tree = pagetree.read(card_html(TWO_NAMES).replace(
            OPENING, f'<div class="proof-card proof-card--source" data-codeproof="{seal}">'))
        link_post_cards(tree, "seal", quoted, site, baseline, "posts/p/", lambda path, line: f"{path}#L{line}")
        return [(a.text(), a.attributes["href"]) for a in pagetree.read(pagetree.written(tree)).css("pre a.series-xref")]

    assert linked((1, 1), seal="another build") == []  # not the engine's card
    assert linked((1, 1)) == [("foo", "pkg/core.py#L1"), ("bar", "pkg/core.py#L1")]  # a developer's build
    monkeypatch.setenv("CI", "true")
    assert linked((1, 5)) == [("foo", "pkg/core.py#L1"), ("bar", "pkg/core.py#L5")]  # CI's, from its fresh index


@pytest.mark.parametrize("damage", ['{"references": [], "definitions": {}}', "[" * 100_000 + "]" * 100_000,
                                    '{"references": {"pkg/core.py": {"abcdef": 1}}, "definitions": {}}'],
                         ids=["a list for a mapping", "nested past the recursion limit", "a reference of strings"])
def test_a_damaged_cross_reference_cache_is_computed_again(tmp_path, damage):
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/user.py": USER.encode()}
    fresh = cross_references(files, tmp_path)
    next((tmp_path / "xref").glob("*.json")).write_text(damage)
    xref._INDEXES.clear()  # as a new process finds it
    assert cross_references(files, tmp_path) == fresh


def test_a_damaged_source_page_cache_is_made_again(tmp_path):
    index = XrefIndex({}, {}, "k")
    made = sourcepages._cached_code("pkg/core.py", CORE, index, [], [], lambda path, line: path, tmp_path)
    next((tmp_path / "sourcepages").glob("*.html")).write_bytes(b"\xff not UTF-8")
    sourcepages._CODES.clear()  # as a new process finds it
    assert sourcepages._cached_code("pkg/core.py", CORE, index, [], [], lambda path, line: path, tmp_path) == made


def test_the_source_pages_code_kept_in_the_process_is_bounded(tmp_path):
    index = XrefIndex({}, {}, "k")
    for n in range(600):  # a long serve session: each edit of a heading makes the pages' notes anew
        sourcepages._cached_code("pkg/core.py", CORE, index, [], [Note(1, f"post {n}", "u")], lambda p, l: p, tmp_path)
    assert len(sourcepages._CODES) <= 256


def test_a_source_page_cache_edited_by_hand_is_made_again(tmp_path):
    index = XrefIndex({}, {}, "k")
    made = sourcepages._cached_code("pkg/core.py", CORE, index, [], [], lambda path, line: path, tmp_path)
    kept = next((tmp_path / "sourcepages").glob("*.html"))
    signature = kept.read_bytes().split(b"\n", 1)[0]
    kept.write_bytes(signature + b"\n<script>alert(1)</script>")  # its signature kept, its content not
    sourcepages._CODES.clear()  # as a new process finds it
    assert sourcepages._cached_code("pkg/core.py", CORE, index, [], [], lambda path, line: path, tmp_path) == made


def test_a_cross_reference_cache_edited_by_hand_is_computed_again(tmp_path):
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/user.py": USER.encode()}
    fresh = cross_references(files, tmp_path)
    kept = next((tmp_path / "xref").glob("*.json"))
    signature, data = kept.read_bytes().split(b"\n", 1)
    kept.write_bytes(signature + b"\n" + data.replace(b"Wraps f.", b"Deletes your files."))
    xref._INDEXES.clear()  # as a new process finds it
    assert cross_references(files, tmp_path) == fresh


ODD_NAME = "pkg/odd #1?%.py"
ODD_POST = '''\
---
title: "Fixture：奇怪的文件名"
series: 1
date: 2026-01-01
---

## 检查

[REAL SOURCE]
File: pkg/odd #1?%.py
Symbol: twice

```python
def twice(x):
    return helper(x) * 2
```
'''


@pytest.mark.slow
def test_a_file_whose_name_holds_url_signs_is_reached_by_every_link_to_it(tmp_path):
    out = built_with_package(tmp_path, {"odd #1?%.py": "from .core import helper\n\n\ndef twice(x):\n    return helper(x) * 2\n",
                                        "core.py": "def helper(x):\n    return x\n"}, ODD_POST)

    def reached(page: str, href: str) -> Path:
        """The built file a link on `page` leads to, as a browser and a static server resolve it."""
        path = unquote(urlsplit(urljoin(f"http://site/{page}", href)).path).lstrip("/")
        return out / path / "index.html" if path.endswith("/") else out / path

    card = page(out, "posts/p").css_first(".proof-card--source")
    onsite = card.css_first("dd a").attributes["href"]
    assert reached("posts/p/", onsite) == out / "source" / ODD_NAME / "index.html" and urlsplit(onsite).fragment == "L4-L5"
    odd = page(out, f"source/{ODD_NAME}")
    assert reached(f"source/{quote(ODD_NAME)}/", odd.css_first("a[download]").attributes["href"]).read_text().startswith("from")
    assert [reached(f"source/{quote(ODD_NAME)}/", a.attributes["href"]) for a in odd.css("#L5 a.series-xref")] == \
        [out / "source" / "pkg" / "core.py" / "index.html"]
    assert ODD_NAME in [str(reached("source/", a.attributes["href"]).relative_to(out / "source").parent)
                        for a in page(out, "source").css(".series-map > li > a")]
    index = json.loads((out / "search" / "search_index.json").read_text(encoding="utf-8"))
    found = [doc["location"] for doc in index["docs"] if doc["title"] == "twice"]  # search leads to it too
    assert [(reached("", location), urlsplit(location).fragment) for location in found] == \
        [(out / "source" / ODD_NAME / "index.html", "L4")]


def test_a_file_with_a_lone_carriage_return_keeps_its_lines_on_its_page_and_links_nothing(tmp_path):
    files = {"pkg/__init__.py": b"", "pkg/core.py": TWO.encode(), "pkg/user.py": LONE_CR.encode()}
    index = cross_references(files, tmp_path)
    assert index.references["pkg/user.py"]  # the index has links for the file, on Python's lines
    html = LexborHTMLParser(str(sourcepages.code_html(LONE_CR, index.references["pkg/user.py"], [], [], lambda p, n: p)))
    assert [e.text() for e in html.css(".series-src__chunk > span")] == [line + "\n" for line in
                                                                 LONE_CR.replace("\r", "\u240d").split("\n")[:-1]]
    assert html.css("a.series-xref") == []


@pytest.mark.parametrize("name, path", [("source-page", "source/pkg/core.py"), ("package-map", "source")])
def test_a_published_source_page_and_the_package_map(built, golden, name, path):
    """Pinned whole (the article the template writes from the engine's values), so a change to either shows."""
    article = page(built, path).css_first("article")
    html = re.sub(r"[0-9a-f]{40}", "<commit>", article.html)
    html = re.sub(r"<code( title=\"<commit>\")?>[0-9a-f]{7}</code>", r"<code\1><short></code>", html)
    golden(f"published-{name}.html", re.sub(r"(autograd|Python|numpy) [0-9.]+", r"\1 <version>", html) + "\n")


@pytest.mark.slow
def test_links_in_the_upstream_tree_are_left_out_and_never_fail_the_build(tmp_path):
    """Upstream content is data: an absolute link (which stopped every build with a traceback) and a relative
    one in the baseline's tree are not published, and the regular files are."""
    site = make_site(tmp_path, material=True)
    repo = site.upstream.remote / "fixture" / "upstream"
    (repo / "pkg" / "passwd.py").symlink_to("/etc/passwd")
    (repo / "pkg" / "again.py").symlink_to("mod.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "links")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["baseline"]["commit"] = git(repo, "rev-parse", "HEAD")
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    assert codeproof(["lock", "--config", str(site.root / "mkdocs.yml")]) == 0
    out, log = site.build()
    assert out is not None, log
    assert sorted(p.name for p in (out / "source" / "raw" / "pkg").iterdir()) == ["mod.py"]
    assert not (out / "source" / "pkg" / "passwd.py").exists() and not (out / "source" / "pkg" / "again.py").exists()


@pytest.mark.slow
def test_upstream_files_are_published_as_data_never_as_pages(tmp_path):
    """A folder the posts quote may hold HTML, SVG or Markdown: published as text (.txt added), so a browser
    renders none of it on the site's origin and MkDocs makes no page of it (a README.md broke the strict build)."""
    package = {"__init__.py": "", "core.py": CORE, "user.py": USER, "builtins.py": SHADOW, "deco.py": DECORATED,
               "page.html": "<script>alert(1)</script>\n",
               "logo.svg": '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>\n', "README.md": "# Pkg\n"}
    out = built_with_package(tmp_path, package, POST)
    raw = out / "source" / "raw" / "pkg"
    assert sorted(p.name for p in raw.iterdir()) == [
        "README.md.txt", "__init__.py", "builtins.py", "core.py", "deco.py", "logo.svg.txt", "mod.py", "page.html.txt",
        "user.py"]
    assert (raw / "page.html.txt").read_text() == "<script>alert(1)</script>\n"
    assert not (out / "source" / "raw" / "pkg" / "README").exists()


def test_a_file_over_the_size_the_site_highlights_is_plain_text_and_says_so(tmp_path):
    """Work on a file is bounded: over source_page_max_lines its page is neither highlighted nor
    cross-referenced (a 300,000-line file took 30 minutes in jedi; bench/huge_file.py), every line still anchored."""
    long_user = USER + "".join(f"\n\ndef f_{i}(x):\n    return primitive(x)\n" for i in range(10))
    package = {"__init__.py": "", "core.py": CORE, "user.py": long_user}
    out = built_with_package(tmp_path, package, POST, source_page_max_lines=40)
    user = page(out, "source/pkg/user.py")
    assert user.css_first(".series-src__plain").text().split() == [
        "这个文件有", str(len(long_user.splitlines())), "行，超过本站高亮并交叉引用的", "40", "行", "（extra.series.source_page_max_lines），因此以纯文本显示。"]
    for note in user.css(".series-src__note"):  # which posts quote a line: beside it, not of it
        note.decompose()
    assert [e.text() for e in user.css(".series-src__chunk > span")] == [line + "\n" for line in long_user.splitlines()]
    assert user.css(".series-src a.series-xref, .series-src span.k, .series-src span.nf") == []
    core = page(out, "source/pkg/core.py")  # a file within the size: highlighted and linked as before
    assert core.css_first(".series-src__plain") is None and core.css(".series-src span.k")


def test_a_new_clone_of_the_same_pin_takes_the_cross_references_from_the_users_cache(tmp_path, monkeypatch):
    """The first `check` of a fresh clone spent 115 s cross-referencing what another clone had done already."""
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/user.py": USER.encode()}
    first = cross_references(files, tmp_path / "clone-a" / ".cache")
    xref._INDEXES.clear()  # another process, another clone

    def computed(*args):
        raise AssertionError("computed again")

    monkeypatch.setattr(xref, "_compute", computed)
    assert cross_references(files, tmp_path / "clone-b" / ".cache") == first
    assert list((tmp_path / "clone-b" / ".cache" / "xref").glob("*.json"))  # and kept in that clone too
    monkeypatch.setenv("CI", "true")  # CI reads no cache: it computes
    xref._INDEXES.clear()
    with pytest.raises(AssertionError, match="computed again"):
        cross_references(files, tmp_path / "clone-c" / ".cache")


def test_cross_references_are_the_same_from_workers_and_without_them(tmp_path, monkeypatch):
    """A package's files and the experiment scripts are shared among worker processes; a worker that fails leaves
    its files to the build itself, which also does a small package alone."""
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/user.py": USER.encode(),
             "pkg/builtins.py": SHADOW.encode()}
    scripts = {"experiments/use.py": USING.encode()}
    in_process = xref._compute(files, "k", scripts=scripts)
    resolve_here = xref._references

    def only_nothing_here(root, paths, *rest):
        assert paths == [], "resolved in the build's process"
        return resolve_here(root, paths, *rest)

    monkeypatch.setattr(xref, "IN_PROCESS_BYTES", 0)
    monkeypatch.setattr(xref, "_references", only_nothing_here)
    in_workers = xref._compute(files, "k", scripts=scripts)
    monkeypatch.setattr(xref, "_references", resolve_here)
    monkeypatch.setattr(xref, "WORKER", "import sys; sys.exit(3)")
    assert xref._compute(files, "k", scripts=scripts) == in_workers == in_process
    index, script_references = in_workers
    lines = USING.splitlines()
    assert index.references["pkg/user.py"] and [
        (lines[r.line - 1][r.column:r.column + r.length], r.path, r.target_line)
        for r in script_references["experiments/use.py"]] == [
        ("pkg", "pkg/__init__.py", 0), ("core", "pkg/core.py", 0), ("primitive", "pkg/core.py", 6),
        ("Box", "pkg/core.py", 11), ("pkg", "pkg/__init__.py", 0), ("user", "pkg/user.py", 0),
        ("primitive", "pkg/core.py", 6), ("Box", "pkg/core.py", 11), ("user", "pkg/user.py", 0),
        ("check", "pkg/user.py", 4)]


FORMS = '''\
import pkg.core as c
from .core import primitive as prim
from . import core
LIMIT, (A, B) = 1, (2, 3)
for LOOPED in range(2):
    pass
with open(__file__) as HANDLE:
    pass
try:
    pass
except ValueError as CAUGHT:
    pass
match LIMIT:
    case [*REST]:
        pass
    case {**KW}:
        pass
    case CAPTURED:
        pass


def setter():
    global LATE
    LATE = 1

    def nested():
        return prim

    class Local:
        inner = 1

        def m(self):
            return self.inner

    return Local().inner, nested


class Box:
    size = 2

    def grow(self):
        return Box.size + LIMIT + A + B + LOOPED + LATE


lam = lambda q: q


def user():
    x = c.primitive(core.LIMIT)
    return prim, HANDLE, CAUGHT, REST, KW, CAPTURED, setter, Box().grow(), lam, x
'''


def test_jedi_is_asked_only_of_names_that_may_link_and_the_index_is_the_same(monkeypatch):
    """linkable_names: a name bound in any way at module or class level, a function, a class, an import."""
    files = {"pkg/__init__.py": b"", "pkg/core.py": CORE.encode(), "pkg/forms.py": FORMS.encode()}
    asked = xref._compute(files, "k")
    monkeypatch.setattr(xref, "linkable_names", lambda files: None)  # jedi asked of every name
    assert xref._compute(files, "k") == asked
    lines = FORMS.splitlines()
    linked = {lines[r.line - 1][r.column:r.column + r.length] for r in asked[0].references["pkg/forms.py"]}
    assert {"c", "prim", "core", "LIMIT", "A", "B", "LOOPED", "HANDLE", "CAUGHT", "LATE", "inner", "Box", "size",
            "lam", "setter", "primitive"} <= linked  # (jedi links no name a `match` binds, asked or not)
    assert "x" not in linked and "q" not in linked  # a local variable, a parameter


def test_a_file_that_ast_cannot_read_has_jedi_asked_of_every_name():
    assert xref.linkable_names({"pkg/a.py": b"def f(:\n", "pkg/b.py": b"X = 1\n"}) is None
    assert xref.linkable_names({"pkg/b.py": b"X = 1\n", "pkg/notes.txt": b"def f(:"}) == {"pkg", "b", "X"}


USING = "from pkg.core import primitive, Box\nfrom pkg import user\n\n\nprint(primitive(Box), user.check)\n"
WITH_EXPERIMENT = POST + '''
## 实验

[EXPERIMENT]
File: experiments/use.py
Purpose: 用包里的名字。

```python
print(primitive(Box), user.check)
```
'''


@pytest.mark.slow
def test_an_experiment_card_and_its_scripts_page_link_the_packages_names_to_their_definitions(tmp_path):
    package = {"__init__.py": "", "core.py": CORE, "user.py": USER}
    out = built_with_package(tmp_path, package, WITH_EXPERIMENT, _script=("experiments/use.py", USING))
    card = LexborHTMLParser((out / "posts" / "p" / "index.html").read_text(encoding="utf-8")).css_first(".proof-card--experiment")
    assert [(a.text(), a.attributes["href"]) for a in card.css("pre a.series-xref")] == [
        ("primitive", "../../source/pkg/core.py/#L6"), ("Box", "../../source/pkg/core.py/#L11"),
        ("user", "../../source/pkg/user.py/"), ("check", "../../source/pkg/user.py/#L4")]
    script = page(out, "experiments/use")
    # As on a source page: each module of a dotted import too (`from pkg.core import`).
    assert [(a.text(), a.attributes["href"], a.attributes["data-tip"]) for a in script.css("pre a.series-xref")] == [
        ("pkg", "../../source/pkg/__init__.py/", "module pkg"), ("core", "../../source/pkg/core.py/", "module core"),
        ("primitive", "../../source/pkg/core.py/#L6", "def primitive(f): — Wraps f."),
        ("Box", "../../source/pkg/core.py/#L11", "class Box:"), ("pkg", "../../source/pkg/__init__.py/", "module pkg"),
        ("user", "../../source/pkg/user.py/", "module user"), ("primitive", "../../source/pkg/core.py/#L6", "def primitive(f): — Wraps f."),
        ("Box", "../../source/pkg/core.py/#L11", "class Box:"), ("user", "../../source/pkg/user.py/", "module user"),
        ("check", "../../source/pkg/user.py/#L4", "def check(x):")]


def test_a_scripts_page_marks_the_lines_an_experiment_card_quotes_where_the_card_leads(tmp_path):
    """As a source page marks the lines a post quotes: an anchor the card's link reaches without a script, the
    lines marked, and the post's section beside the first."""
    package = {"__init__.py": "", "core.py": CORE, "user.py": USER}
    out = built_with_package(tmp_path, package, WITH_EXPERIMENT, _script=("experiments/use.py", USING))
    card = page(out, "posts/p").css_first(".proof-card--experiment")
    assert [a.attributes["href"] for a in card.css("dd a")] == ["../../experiments/use/#L5-L5"]
    script = page(out, "experiments/use")
    assert [span.attributes["id"] for span in script.css('[id="L5-L5"], .series-src__quoted')] == ["L5", "L5-L5"]
    section = next(h for h in page(out, "posts/p").css("h2") if h.text().strip().rstrip("¶").strip() == "实验")
    assert [(a.text(), a.attributes["href"]) for a in script.css("a.series-src__note")] == [
        ("第一篇 · 实验", f"../../posts/p/#{section.attributes['id']}")]


ODD_TEXT = 'def odd():\n    s = "a\tb &amp; </div></pre> <x> \'q\'"\n    return s\n'
ODD_TEXT_POST = POST.replace('''## 内部''', '''## 字符

[REAL SOURCE]
File: pkg/text.py
Symbol: odd

```python
    s = "a\tb &amp; </div></pre> <x> 'q'"
    return s
```

## 内部''')


@pytest.mark.slow
def test_a_cards_copy_gives_its_lines_exactly_tabs_entities_and_markup_included(tmp_path):
    package = {"__init__.py": "", "core.py": CORE, "user.py": USER, "text.py": ODD_TEXT}
    out = built_with_package(tmp_path, package, ODD_TEXT_POST)
    cards = page(out, "posts/p").css(".proof-card--source")
    copies = [card.attributes["data-copy"] for card in cards]  # as a browser reads the attribute
    assert copies[1] == "\n".join(ODD_TEXT.split("\n")[1:3])
    assert copies[0] == "\n".join(USER.split("\n")[3:6]) and len(cards) == 3


def test_a_copied_quote_keeps_a_carriage_return_which_html_parsing_would_turn_into_a_newline():
    page_html = f'<div class="proof-card proof-card--experiment" {SEAL_ATTRIBUTE}="s"><pre>x</pre></div>'
    text = "a = 1\r\n\tb = '&lt;'\n"
    tree = pagetree.read(page_html)
    copied_lines(tree, "s", [("experiment", Excerpt(text=text, first=1, last=2))])
    assert LexborHTMLParser(pagetree.written(tree)).css_first("div").attributes["data-copy"] == text
