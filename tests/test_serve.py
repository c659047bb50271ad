"""The author's loop: a real `mkdocs serve` shows problems on the page and keeps serving."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
import yaml

from fixture_site import SCRIPT, make_site

PAGE = "posts/p/"  # the fixture site's one post
SOURCE_CARD = 'class="proof-card proof-card--source"'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(site, *options: str):
    """`mkdocs serve` of the site's folder with `options`: (the site's address, the server's process)."""
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1:{port}/"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}", *options],
        cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        yield f"http://127.0.0.1:{port}/", server
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def served(tmp_path, request):
    """A fixture site served by `mkdocs serve`, with the options a test gives as its parameter."""
    site = make_site(tmp_path).root
    with serving(site, *getattr(request, "param", [])) as (base, server):
        yield site, base, server


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def wait_for(url: str, server, predicate, timeout: float = 60.0) -> str:
    """Poll the served page until predicate(html) holds; the server must stay up all along."""
    deadline = time.monotonic() + timeout
    html = ""
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read()
        try:
            html = fetch(url)
            if predicate(html):
                return html
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} never matched; last page had {len(html)} characters")


@pytest.mark.slow
def test_a_broken_quote_shows_an_error_box_and_fixing_it_removes_the_box(served):
    site, base, server = served
    post = site / "docs" / "posts" / "p.md"
    good = post.read_text(encoding="utf-8")
    wait_for(base + PAGE, server, lambda h: h.count(SOURCE_CARD) == 1 and "proof-error" not in h)
    post.write_text(good.replace("        self.parents = []\n", "        self.parents = ()\n"), encoding="utf-8")
    html = wait_for(base + PAGE, server, lambda h: "proof-error" in h)
    assert "REAL SOURCE pkg/mod.py (Symbol Node.__init__) at " in html and ": quote differs from source" in html
    assert html.count(SOURCE_CARD) == 0  # the broken quote is shown as its problem, not as a card
    assert "node value 3" in html  # the rest of the page still renders
    broken = post.stat().st_mtime
    post.write_text(good, encoding="utf-8")
    os.utime(post, (broken + 2, broken + 2))  # a distinct mtime for the watcher, however fast the machine
    html = wait_for(base + PAGE, server, lambda h: "proof-error" not in h)
    assert html.count(SOURCE_CARD) == 1


@pytest.mark.parametrize("served", [[], ["--dirty"]], indirect=True, ids=["serve", "serve --dirty"])
def test_editing_an_experiment_reruns_it_and_a_mismatch_shows_on_the_page(served):
    """Issue 53: under --dirty, MkDocs rebuilt only pages whose Markdown changed: the post kept its old stamp."""
    site, base, server = served
    wait_for(base + PAGE, server, lambda h: "parents []" in h and "proof-error" not in h)
    script = site / SCRIPT
    script.write_text(script.read_text() + 'print("one line more")\n')  # the quoted lines stay as they are
    html = wait_for(base + PAGE, server, lambda h: "proof-error" in h)
    assert f"OUTPUT {SCRIPT}: output differs from the recorded output" in html
    assert "+one line more" in html and "proof-card--output" not in html  # the problem in place of the old card


SOURCE_PAGE = "source/pkg/mod.py/"  # the fixture package's page, which the site generates


def test_serve_answers_with_the_authors_pages_first_and_the_source_pages_follow_unasked(served):
    """Issue 53: serve's first build leaves the package's source pages to the next build, which begins as the
    server answers, with no file changed: the first page comes as soon as plain MkDocs' would."""
    site, base, server = served
    wait_for(base + PAGE, server, lambda h: h.count(SOURCE_CARD) == 1)
    html = wait_for(base + SOURCE_PAGE, server, lambda h: "pkg/mod.py" in h)
    assert 'id="L22"' in html
    server.terminate()
    server.wait(timeout=10)
    assert "source pages (1): in the next build, which begins as the server answers" in server.stderr.read()


@pytest.mark.parametrize("served", [["--no-livereload"]], indirect=True, ids=["serve --no-livereload"])
def test_a_serve_that_never_rebuilds_builds_the_source_pages_with_the_first(served):
    """Without livereload nothing builds again: the source pages are built with the author's, and are served
    with them."""
    site, base, server = served
    wait_for(base + PAGE, server, lambda h: h.count(SOURCE_CARD) == 1)
    assert 'id="L22"' in fetch(base + SOURCE_PAGE)
    server.terminate()
    server.wait(timeout=10)
    assert "source pages (" not in server.stderr.read()


def test_serves_first_build_leaves_the_check_of_its_output_to_the_next_which_reports_it(tmp_path):
    """Issue 53: the first build answers without reading its search index, feeds and output folder again; the
    build that follows at once, with the source pages, reads them and says what they show (serve reports such a
    problem in its log; `build` fails on it)."""
    site = make_site(tmp_path).root
    config = yaml.safe_load((site / "mkdocs.yml").read_text(encoding="utf-8"))
    config["site_description"] = "✓ 输出已验证"
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    with serving(site) as (base, server):
        wait_for(base + SOURCE_PAGE, server, lambda h: 'id="L22"' in h)
        server.terminate()
        server.wait(timeout=10)
        said = server.stderr.read()
    builds = said.split("Documentation built in")
    assert len(builds) >= 3, said  # two builds at least: the first, then the source pages' build
    assert "a card's face, outside any verified card" not in builds[0]
    assert "the published page shows '输出已验证', a card's face, outside any verified card" in builds[1]
