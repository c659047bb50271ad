"""Odd files among the docs: each fails the build and `check` alike, with the file and what to do, never a
traceback or a hang."""

from __future__ import annotations

import os
import time

import pytest

from codeproof.__main__ import main as codeproof
from fixture_site import make_site


@pytest.fixture
def site(tmp_path):
    return make_site(tmp_path)


def built_and_checked(site, capsys):
    built, log = site.build()
    code = codeproof(["check", "--config", str(site.root / "mkdocs.yml")])
    return built, log, code, capsys.readouterr().err


def test_a_post_that_is_a_fifo_fails_without_blocking(site, capsys):
    os.mkfifo(site.root / "docs" / "posts" / "fifo.md")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    for text in (log, err):
        assert "docs/posts/fifo.md:1: not a regular file with one name, so it cannot be published" in text


def test_a_post_linked_from_outside_the_repository_fails(site, capsys, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n", encoding="utf-8")
    (site.root / "docs" / "posts" / "link.md").symlink_to(outside)
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    for text in (log, err):
        assert f"docs/posts/link.md:1: a symbolic link (to {outside}): the site would publish whatever it leads to" in text
    assert "Traceback" not in log + err


def test_a_file_name_that_is_not_utf8_fails_the_build_naming_it(site):
    (site.root / "docs" / os.fsdecode(b"bad\xff.md")).write_text("# Bad\n", encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert "docs/bad\\xff.md:1: the file name is not UTF-8 text, so it has no address" in log


@pytest.mark.parametrize("name", ["page.html", "tamper.js", "picture.svg", "restyle.css", "page.shtml", "feed.xml"])
def test_a_static_page_or_script_in_docs_fails_as_unchecked(site, capsys, name):
    (site.root / "docs" / name).write_text('<div class="proof-card">all checks passed</div>\n', encoding="utf-8")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    for text in (log, err):
        assert f"docs/{name}:1: would be published as it is, unchecked" in text


def test_a_failed_build_leaves_no_page_in_the_site_folder(site):
    assert site.build()[0] is not None
    assert (site.root / "site" / "posts" / "p" / "index.html").is_file()
    site.post.write_text(site.post.read_text().replace("self.parents = []", "self.parents = ['tampered']"))
    built, log = site.build()
    assert built is None and "quote differs from source" in log
    assert not any((site.root / "site").iterdir())


@pytest.mark.parametrize("line, message", [
    ("author: '\"><script>alert(2)</script>'", "front matter: 'author' is not a key this site uses: the theme would publish it unchecked"),
    ("subtitle: '<b onclick=alert(3)>x</b>'", "front matter: 'subtitle' is not a key this site uses"),
    ("status: 'x\" onmouseover=\"alert(9)'", "front matter: 'status' is not a key this site uses"),
    ("template: redirect.html", "front matter: 'template' is not a key this site uses"),
    ("icon: nonexistent/thing", "front matter: 'icon' is not a key this site uses"),
    ("Title: lower case matters", "front matter: 'Title' is not a key this site uses"),
    ("tags: ['[OUTPUT]']", "front matter: tags '[OUTPUT]' names a block marker"),
    ("description: '[REAL SOURCE] forged'", "front matter: description '[REAL SOURCE] forged' names a block marker"),
    ("date: yesterday", "front matter: date 'yesterday' is not a date"),
    ("hide: [everything]", "front matter: hide ['everything'] is not what the theme hides"),
    ("tags: autograd", "front matter: tags must be a list of words, not 'autograd'"),
])
def test_front_matter_the_site_cannot_publish_safely_fails_at_its_line(site, capsys, line, message):
    key = line.split(":")[0]
    text = "".join(kept for kept in site.post.read_text(encoding="utf-8").splitlines(True) if not kept.startswith(f"{key}:"))
    site.post.write_text(text.replace("series: 1\n", f"series: 1\n{line}\n", 1), encoding="utf-8")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    for text in (log, err):
        assert f"docs/posts/p.md:4: {message}" in text
    assert "Traceback" not in log + err


def test_a_docs_file_where_the_build_publishes_a_script_page_fails(site):
    (site.root / "docs" / "experiments").mkdir()
    (site.root / "docs" / "experiments" / "show.md").write_text("# mine\n", encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert "docs/experiments/show.md:1: is where the build publishes experiments/show.md of the experiments" in log
    assert "DeprecationWarning" not in log


def test_links_in_docs_fail_before_mkdocs_walks_them(site, capsys):
    (site.root / "docs" / "assets").mkdir()
    (site.root / "docs" / "assets" / "leak.css").symlink_to("/etc/hostname")
    (site.root / "docs" / "loop").mkdir()
    (site.root / "docs" / "loop" / "up").symlink_to("..")
    built, log, code, err = built_and_checked(site, capsys)
    assert built is None and code == 1
    for text in (log, err):
        assert "docs/assets/leak.css:1: a symbolic link (to /etc/hostname): the site would publish whatever it leads to" in text
        assert "docs/loop/up:1: a symbolic link (to ..)" in text
    assert "Traceback" not in log + err


@pytest.mark.parametrize("body", ["[" * 20_000, "*" * 5000 + "x" + "*" * 5000, "".join("    " * i + "- a\n" for i in range(400)),
                                  '<div markdown="1">\n' * 1500 + "x\n" + "</div>\n" * 1500, "[a" * 3000],
                         ids=["brackets", "emphasis", "deep-list", "nested-divs", "many-links"])
def test_a_post_markdown_would_fail_or_stall_on_fails_first_with_its_line(site, body):
    site.post.write_text(site.post.read_text() + "\n" + body + "\n", encoding="utf-8")
    started = time.monotonic()
    built, log = site.build()
    assert time.monotonic() - started < 20
    assert built is None and "Traceback" not in log and "RecursionError" not in log
    assert "Markdown would fail on" in log
