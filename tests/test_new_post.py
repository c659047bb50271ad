"""`./dev.sh new N TITLE`: a post is one new file, scaffolded from the series, and its announcement goes."""

from __future__ import annotations

import contextlib
import io
import logging

import pytest
from selectolax.lexbor import LexborHTMLParser

from codeproof.__main__ import main as codeproof
from codeproof.series.model import SCAFFOLD_OPENING
from codeproof.common.yamledit import without_item
from fixture_site import make_site

ANNOUNCED = """\
    announced:
    # what comes next (this comment stays)
    - number: 2
      title: 二的预告
    - number: 3
"""


@pytest.fixture
def site(tmp_path):
    site = make_site(tmp_path, material=True)
    config = site.root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("  series:\n", "  series:\n" + ANNOUNCED, 1), encoding="utf-8")
    return site


def new(site, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = codeproof(["new", *args, "--config", str(site.root / "mkdocs.yml")])
    return code, out.getvalue(), err.getvalue()


def write_opening(post) -> None:
    """What the author writes first: the post's opening paragraph, in place of the scaffold's placeholder."""
    lines = post.read_text(encoding="utf-8").split("\n")
    post.write_text("\n".join("本文的第一段。" if line.startswith(SCAFFOLD_OPENING) else line for line in lines),
                    encoding="utf-8")


def test_a_new_post_is_scaffolded_its_announcement_removed_and_the_site_builds_with_it(site):
    before = (site.root / "mkdocs.yml").read_text(encoding="utf-8")
    code, out, _ = new(site, "2", "Broadcasting 的反向传播")
    assert code == 0
    assert out.splitlines()[:3] == ["wrote docs/posts/broadcasting.md: Fixture series（二）：Broadcasting 的反向传播",
                                    f"removed the announcement of 第二篇 from mkdocs.yml (line {before.split(chr(10)).index('    - number: 2') + 1})",
                                    "next: write it (its scripts under experiments/), then ./dev.sh lock and ./dev.sh "
                                    "check; the tests derive what a reader's search must find of it"]
    after = (site.root / "mkdocs.yml").read_text(encoding="utf-8")
    assert after == before.replace("    - number: 2\n      title: 二的预告\n", "")  # the comment and the rest stay
    text = (site.root / "docs" / "posts" / "broadcasting.md").read_text(encoding="utf-8")
    assert text.startswith('---\ntitle: "Fixture series（二）：Broadcasting 的反向传播"\nseries: 2\ndate: ')
    assert "\n## 本文目标\n" in text and "\n## 参考资料\n" in text
    assert '\ncategories: ["Fixture series"]\n' in text  # the latest post has none: the series' name
    write_opening(site.root / "docs" / "posts" / "broadcasting.md")
    built, log = site.build()
    assert built is not None, log
    nav = LexborHTMLParser((built / "posts" / "broadcasting" / "index.html").read_text(encoding="utf-8"))
    assert "第二篇：Broadcasting 的反向传播" in [a.text(strip=True) for a in nav.css("nav.md-nav--primary a")]


def test_the_last_announcement_removed_leaves_an_empty_list(site):
    new(site, "2", "二", "--slug", "two")
    new(site, "3", "三", "--slug", "three")
    assert "    announced: []\n    # what comes next (this comment stays)\n    baseline:" in (
        site.root / "mkdocs.yml").read_text(encoding="utf-8")
    for slug in ("two", "three"):
        write_opening(site.root / "docs" / "posts" / f"{slug}.md")
    built, log = site.build()
    assert built is not None, log


def test_new_refuses_a_number_that_is_published(site):
    code, out, err = new(site, "1", "重复")
    assert (code, out) == (1, "")
    assert err == "1 problem:\n\ndocs/posts/p.md:1: new: 第一篇 is published already\n" \
                  "  hint: choose a number no post has; the overview lists them\n"
    assert not (site.root / "docs" / "posts" / "post-01.md").exists()


@pytest.mark.parametrize("args, expected", [
    (["4", "标题", "--slug", "Bad Slug"], "mkdocs.yml:1: new: the slug 'Bad Slug' is not lowercase words joined by -\n"
                                          "  hint: e.g. --slug broadcasting-vjp"),
    (["4", "标题", "--slug", "p"], "docs/posts/p.md:1: new: the file exists already\n  hint: choose another slug with --slug"),
    (["4", "两行\n标题"], "mkdocs.yml:1: new: the title '两行\\n标题' is not one line of text of at most 120 characters\n"
                        '  hint: e.g. "Broadcasting 的反向传播"'),
    (["4", "a <b>"], "docs/posts/a-b.md:2: front matter: title 'Fixture series（四）：a <b>' holds <>, which the "
                     "navigation, tags and feed would publish as markup\n  hint: write it without <, > and & (use 与 or "
                     "“and” for &)"),
    (["0", "零"], "mkdocs.yml:1: new: 0 is not a series number from 1 to 9999"),
    (["3", "二的预告"], "mkdocs.yml:6: new: 第二篇 is announced with the title '二的预告'\n"
                      "  hint: publish it as `new 2`, or give this post its own title"),
    (["3", "Fixture post"], "docs/posts/p.md:1: new: 第一篇 is published with the title 'Fixture post'\n"
                            "  hint: give this post its own title"),  # not "publish it as new 1": it is
])
def test_new_refuses_what_would_not_build_and_writes_nothing(site, args, expected):
    before = sorted((site.root / "docs").rglob("*"))
    code, _, err = new(site, *args)
    assert (code, err) == (1, f"1 problem:\n\n{expected}\n")
    assert sorted((site.root / "docs").rglob("*")) == before


def test_a_published_post_supersedes_its_announcement_with_an_info_line_not_a_failure(site):
    post = site.post.read_text(encoding="utf-8")
    (site.root / "docs" / "posts" / "q.md").write_text(post.replace("series: 1", "series: 3"), encoding="utf-8")
    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.setLevel(logging.INFO)  # as `mkdocs build` runs
    try:
        built, log = site.build()
    finally:
        logger.setLevel(level)
    assert built is not None, log
    assert "第三篇 is published (docs/posts/q.md): its announcement in extra.series.announced is superseded; " \
           "remove it from mkdocs.yml (`./dev.sh new` does)" in log


def test_a_new_post_takes_the_categories_of_the_latest_post(site):
    site.edit("date: 2026-01-01", "date: 2026-01-01\ncategories: [应用数学, 源码]")
    new(site, "2", "二", "--slug", "two")
    assert '\ncategories: ["应用数学", "源码"]\n' in (site.root / "docs" / "posts" / "two.md").read_text(encoding="utf-8")


def test_a_new_post_takes_the_tags_of_the_latest_post(site):
    """The scaffold wrote `tags: [autograd]` where the posts have three."""
    site.edit("date: 2026-01-01", "date: 2026-01-01\ntags: [autograd, automatic-differentiation, python]")
    new(site, "2", "二", "--slug", "two")
    assert '\ntags: ["autograd", "automatic-differentiation", "python"]\n' in (
        site.root / "docs" / "posts" / "two.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("before, number, after", [
    ("a:\n  # c1\n  - number: 5\n    title: t\n  # about 7\n  - number: 7\n\n# next\nb: 1\n", "5",
     "a:\n  # c1\n  # about 7\n  - number: 7\n\n# next\nb: 1\n"),
    ("a:\n  - number: 5\n  - number: 7\n\n# next\nb: 1\n", "7", "a:\n  - number: 5\n\n# next\nb: 1\n"),
    ("a:  # to come\n  - {number: 5}\nb: 1\n", "5", "a: []  # to come\nb: 1\n"),
    ("a: [{number: 5}]\n", "5", "a: [{number: 5}]\n"),  # one line of flow style: left to the author
])
def test_an_announcement_goes_with_its_own_lines_only(before, number, after):
    assert without_item(before, ("a",), "number", number)[0] == after


def test_new_keeps_the_line_endings_of_mkdocs_yml(site):
    config = site.root / "mkdocs.yml"
    config.write_bytes(config.read_bytes().replace(b"\n", b"\r\n"))
    assert new(site, "2", "二", "--slug", "two")[0] == 0
    data = config.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"") and b"number: 2" not in data


@pytest.mark.parametrize("before, number, after", [
    # A lone CR in a comment is a line break to YAML: the item's lines are YAML's, so the right ones go.
    ("a:\n  # one\r  # two\n  - number: 5\n    title: t\n  - number: 7\n    title: u\nb: 1\n", "7",
     "a:\n  # one\r  # two\n  - number: 5\n    title: t\nb: 1\n"),
    # Mixed breaks: each line keeps its own, and only the item's lines change.
    ("a:\r\n  - number: 5\n  - number: 7\r\n    title: u\r\nb: 1\n", "5", "a:\r\n  - number: 7\r\n    title: u\r\nb: 1\n"),
])
def test_an_announcement_goes_with_exactly_its_own_bytes_whatever_the_line_breaks(before, number, after):
    assert without_item(before, ("a",), "number", number)[0] == after


def test_new_with_a_lone_cr_and_one_crlf_line_in_mkdocs_yml_removes_exactly_the_announcement(site):
    config = site.root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    text = text.replace("# what comes next (this comment stays)", "# what comes\r    # next (this comment stays)")
    text = text.replace("site_name:", "# one CRLF line\r\nsite_name:", 1)
    config.write_bytes(text.encode("utf-8"))
    assert new(site, "3", "三", "--slug", "three")[0] == 0
    expected = text.replace("    - number: 3\n", "")
    assert config.read_bytes().decode("utf-8") == expected


def test_a_scaffolded_post_not_yet_written_fails_at_its_placeholder(site):
    """Its placeholder paragraph would be published as the post's description."""
    new(site, "2", "二", "--slug", "two")
    text = (site.root / "docs" / "posts" / "two.md").read_text(encoding="utf-8")
    assert SCAFFOLD_OPENING in text  # the rule and the template agree
    line = text.split("\n").index(next(l for l in text.split("\n") if l.startswith(SCAFFOLD_OPENING))) + 1
    code, err = site.check()
    assert code == 1 and (f"docs/posts/two.md:{line}: the post still opens with the scaffold's placeholder, which "
                          "would be its description in <meta>, feeds and the overview\n"
                          "  hint: write the post's first paragraph in its place") in err
