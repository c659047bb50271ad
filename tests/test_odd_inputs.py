"""Odd files among the docs: each fails the build and `check` alike, with the file and what to do, never a
traceback or a hang."""

from __future__ import annotations

import os

import markdown
import pytest

from codeproof.__main__ import main as codeproof
from codeproof.common.filesystem import FILE_HINT, LINK_HINT, RENAME_HINT
from fixture_site import make_site, report


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def built_and_checked(site, capsys):
    built, log = site.build()
    code = codeproof(["check", "--config", str(site.root / "mkdocs.yml")])
    return built, log, code, capsys.readouterr().err


def reported_alike(log: str, err: str) -> tuple[str, str]:
    """What a failed build and `check` reported, both as the build reports it (`check` ends with a newline)."""
    assert err.endswith("\n")
    return report(log), report(err)[:-1]




def test_a_post_that_is_a_fifo_fails_without_blocking(site, capsys):
    os.mkfifo(site.root / "docs" / "posts" / "fifo.md")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    expected = f"""\
1 problem:

docs/posts/fifo.md:1: not a regular file, so it cannot be published
  hint: {FILE_HINT}"""
    assert reported_alike(log, err) == (expected, expected)


def test_a_post_linked_from_outside_the_repository_fails(site, capsys, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n", encoding="utf-8")
    (site.root / "docs" / "posts" / "link.md").symlink_to(outside)
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    expected = f"""\
1 problem:

docs/posts/link.md:1: a symbolic link (to {outside}): the site would publish whatever it leads to
  hint: {LINK_HINT}"""
    assert reported_alike(log, err) == (expected, expected)
    assert "Traceback" not in log + err


def test_a_file_name_that_is_not_utf8_fails_the_build_naming_it(site):
    (site.root / "docs" / os.fsdecode(b"bad\xff.md")).write_text("# Bad\n", encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert report(log) == f"""\
1 problem:

docs/bad\\xff.md:1: the file name is not printable UTF-8, so it has no address
  hint: {RENAME_HINT}"""


@pytest.mark.parametrize("name", ["page.html", "tamper.js", "picture.svg", "restyle.css", "page.shtml", "feed.xml"])
def test_a_static_page_or_script_in_docs_fails_as_unchecked(site, capsys, name):
    (site.root / "docs" / name).write_text('<div class="proof-card">all checks passed</div>\n', encoding="utf-8")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    expected = f"""\
1 problem:

docs/{name}:1: would be published as it is, unchecked: docs/ holds Markdown pages, images and fonts only
  hint: write it as a Markdown page, or remove it from docs/"""
    assert reported_alike(log, err) == (expected, expected)


def test_a_failed_build_leaves_no_page_in_the_site_folder(site):
    assert site.build()[0] is not None
    assert (site.root / "site" / "posts" / "p" / "index.html").is_file()
    site.post.write_text(site.post.read_text().replace("self.parents = []", "self.parents = ['tampered']"))
    built, log = site.build()
    assert built is None
    assert report(log) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at {site.commit}: quote differs from source (first difference at docs/posts/p.md:16, line 11 of the file)
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{site.commit} lines 9-11
@@ -1,3 +1,3 @@
     def __init__(self, value):
         self.value = value
-        self.parents = ['tampered']
+        self.parents = []
  hint: run `./dev.sh update` to take lines 9-11 from the pinned file, or fix the quote by hand (a quote copied from GitHub's default branch may be another version than the pin ({site.commit}, 1.9.1))"""
    assert not any((site.root / "site").iterdir())


KEYS = "title, description, series, date, categories, tags, hide, search_expects"
UNKNOWN_KEY = ("is not a key this site uses: the theme would publish it unchecked\n"
               f"  hint: remove it; the keys are {KEYS} (case-sensitive)")
CLOSE_KEY = ("is not a key this site uses: the theme would publish it unchecked\n"
             f"  hint: did you mean {{}}? Else remove it; the keys are {KEYS} (case-sensitive)")
OUTSIDE_A_CARD = "names a block marker, which would be published outside a verified card\n  hint: write it without the brackets"


@pytest.mark.parametrize("line, problem", [
    ("author: '\"><script>alert(2)</script>'", f"front matter: 'author' {UNKNOWN_KEY}"),
    ("subtitle: '<b onclick=alert(3)>x</b>'", f"front matter: 'subtitle' {CLOSE_KEY.format('title')}"),
    ("status: 'x\" onmouseover=\"alert(9)'", f"front matter: 'status' {CLOSE_KEY.format('tags')}"),
    ("template: redirect.html", f"front matter: 'template' {UNKNOWN_KEY}"),
    ("icon: nonexistent/thing", f"front matter: 'icon' {UNKNOWN_KEY}"),
    ("Title: lower case matters", f"front matter: 'Title' {CLOSE_KEY.format('title')}"),
    ("tags: ['[OUTPUT]']", f"front matter: tags '[OUTPUT]' {OUTSIDE_A_CARD}"),
    ("description: '[REAL SOURCE] forged'", f"front matter: description '[REAL SOURCE] forged' {OUTSIDE_A_CARD}"),
    ("description: '✓ 输出已验证 · 源码 REAL SOURCE'",  # meta tags and feeds, which no guard reads
     "front matter: description '✓ 输出已验证 · 源码 REAL SOURCE' shows '输出已验证', a card's own face, which would be "
     "published outside a verified card\n  hint: say it in other words"),
    ("date: yesterday", "front matter: date 'yesterday' is not a date\n  hint: write it as 2026-09-05"),
    ("hide: [everything]", "front matter: hide ['everything'] is not what the theme hides\n"
                           "  hint: hide takes navigation, toc, footer, tags, feedback, path"),
    ("tags: autograd", "front matter: tags must be a list of words, not 'autograd'\n  hint: e.g. tags: [a, b]"),
])
def test_front_matter_the_site_cannot_publish_safely_fails_at_its_line(site, capsys, line, problem):
    key = line.split(":")[0]
    text = "".join(kept for kept in site.post.read_text(encoding="utf-8").splitlines(True) if not kept.startswith(f"{key}:"))
    site.post.write_text(text.replace("series: 1\n", f"series: 1\n{line}\n", 1), encoding="utf-8")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    expected = f"1 problem:\n\ndocs/posts/p.md:4: {problem}"  # the line after `series: 1`
    assert reported_alike(log, err) == (expected, expected)
    assert "Traceback" not in log + err


def test_a_docs_file_where_the_build_publishes_a_script_page_fails(site):
    (site.root / "docs" / "experiments").mkdir()
    (site.root / "docs" / "experiments" / "show.md").write_text("# mine\n", encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert report(log) == """\
1 problem:

docs/experiments/show.md:1: the build publishes the page of experiments/show.py at experiments/show.md, which this file would take
  hint: rename or move it"""
    assert "DeprecationWarning" not in log


def test_links_in_docs_fail_before_mkdocs_walks_them(site, capsys):
    (site.root / "docs" / "assets").mkdir()
    (site.root / "docs" / "assets" / "leak.css").symlink_to("/etc/hostname")
    (site.root / "docs" / "loop").mkdir()
    (site.root / "docs" / "loop" / "up").symlink_to("..")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    expected = f"""\
2 problems:

docs/assets/leak.css:1: a symbolic link (to /etc/hostname): the site would publish whatever it leads to
  hint: {LINK_HINT}

docs/loop/up:1: a symbolic link (to ..): the site would publish whatever it leads to
  hint: {LINK_HINT}"""
    assert reported_alike(log, err) == (expected, expected)
    assert "Traceback" not in log + err


def too_much(first: int, *others: int) -> str:
    """The report of lines Markdown would fail on (the body added to the post starts at line 42): one problem,
    at the first line, naming ten others and counting the rest."""
    also = ", ".join(f"docs/posts/p.md:{line}" for line in others[:10]) + (f" and {len(others) - 10} more" if
                                                                           len(others) > 10 else "")
    return (f"1 problem:\n\ndocs/posts/p.md:{first}: the line is too long, too deeply indented or nested, or holds a "
            "run of over 100 brackets or emphasis marks: Markdown would fail on it"
            + (f"\n  also at {also}" if others else "")
            + "\n  hint: keep lines under 10000 characters and nesting shallow")


@pytest.mark.parametrize("body, expected", [
    ("[" * 20_000, too_much(42)),
    ("*" * 5000 + "x" + "*" * 5000, too_much(42)),
    # each item past the 50th is indented over 200 columns: lines 42 + 51 on
    ("".join("    " * i + "- a\n" for i in range(400)), too_much(*range(93, 442))),
    ('<div markdown="1">\n' * 1500 + "x\n" + "</div>\n" * 1500,
     "1 problem:\n\ndocs/posts/p.md:1: over 200 HTML blocks: nested so deep, Markdown would fail on them\n"
     "  hint: a post is Markdown: write it without raw HTML blocks"),
    ("[a" * 3000, too_much(42)),
], ids=["brackets", "emphasis", "deep-list", "nested-divs", "many-links"])
def test_a_post_markdown_would_fail_or_stall_on_fails_first_with_its_line(site, body, expected, monkeypatch):
    """First: Markdown is never given the post, so it can neither fail nor stall on it."""
    site.post.write_text(site.post.read_text() + "\n" + body + "\n", encoding="utf-8")
    converted, convert = [], markdown.Markdown.convert
    monkeypatch.setattr(markdown.Markdown, "convert", lambda self, text: converted.append(text) or convert(self, text))
    built, log = site.build()
    assert not [text for text in converted if body in text]
    assert built is None and "Traceback" not in log and "RecursionError" not in log
    assert report(log) == expected
