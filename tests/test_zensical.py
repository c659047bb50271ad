"""Zensical hosts the cards (issue 54): a fixture site whose mkdocs.yml loads `codeproof.cards`, built and served
by `python -m codeproof.adapter.zensical` (Zensical 0.0.73, the extra `zensical`). Every change a host must refuse
fails the build at its file and line with nothing published, a preview shows it on its page, and neither ever
shows a stale card."""

from __future__ import annotations

import http.client
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html import unescape
from pathlib import Path

import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from codeproof.site.render import SEAL_ATTRIBUTE
import parity
from fixture_site import SCRIPT, Site, make_site
from host_cases import REFUSED, break_front_matter, change_output, tamper_quote
from test_serve import free_port, wait_for


def zensical_site(tmp_path: Path) -> Site:
    """The fixture site, hosted by Zensical: no MkDocs hook, the cards loaded by name."""
    site = make_site(tmp_path)
    config_file = site.root / "mkdocs.yml"
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    del config["hooks"]
    config["theme"] = {"name": "material"}
    config["markdown_extensions"].append({"codeproof.cards": {"config_file": "mkdocs.yml"}})
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return site


@pytest.fixture
def site(tmp_path) -> Site:
    return zensical_site(tmp_path)


def host(site: Site, *args: str, **popen) -> subprocess.CompletedProcess | subprocess.Popen:
    argv = [sys.executable, "-m", "codeproof.adapter.zensical", *args]
    if popen:
        return subprocess.Popen(argv, cwd=site.root, text=True, **popen)
    return subprocess.run(argv, cwd=site.root, capture_output=True, text=True)


def test_zensical_builds_every_block_as_a_card_linked_from_its_page_with_no_seal(site):
    done = host(site, "build")
    assert done.returncode == 0, done.stderr
    page = (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert page.count('<div class="proof-card ') == 3 and SEAL_ATTRIBUTE not in page
    # Zensical rewrites a link as relative to the Markdown file: the cards' come out relative to the page.
    assert 'href="../../source/pkg/mod.py/#L9-L11"' in page and 'href="../../experiments/show/#L3-L4"' in page


@pytest.mark.parametrize("change, said", [case[1:] for case in REFUSED], ids=[case[0] for case in REFUSED])
def test_what_a_host_must_refuse_fails_the_zensical_build_at_its_line_and_publishes_nothing(site, change, said):
    change(site)
    done = host(site, "build")
    assert done.returncode == 1
    assert said in done.stderr and "Traceback" not in done.stderr + done.stdout
    assert done.stderr.endswith(f"error: the site was not built, and {site.root / 'site'} was removed: nothing in it "
                                "was verified\n")
    assert not (site.root / "site").exists()


def test_the_previews_switch_set_for_a_build_is_ignored(site, monkeypatch):
    monkeypatch.setenv("CODEPROOF_SHOW_PROBLEMS", "1")
    tamper_quote(site)
    done = host(site, "build")
    assert done.returncode == 1 and not (site.root / "site").exists()


def test_a_page_zensical_rendered_before_is_proved_again_when_its_script_changes(site):
    assert host(site, "build").returncode == 0
    change_output(site)
    done = host(site, "build")
    assert done.returncode == 1 and "docs/posts/p.md:32: OUTPUT experiments/show.py: output differs" in done.stderr


def test_a_theme_template_that_adds_a_card_fails_the_build_at_the_check_of_the_output(site):
    (site.root / "overrides").mkdir()
    (site.root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}{{ super() }}'
        '<div class="proof-card proof-card--output">✓ 输出已验证</div>{% endblock %}\n', encoding="utf-8")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = "overrides"
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    done = host(site, "build")
    assert done.returncode == 1
    assert ("docs/posts/p.md:1: the published page holds 4 cards, but the build verified 3\n  hint: the theme's "
            "template adds or drops cards: render only page.content") in done.stderr


def without_the_cards(site: Site) -> None:
    """The site's configuration as the MkDocs hook's site has it: no cards loaded (the adapter stages the site)."""
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["markdown_extensions"].pop()
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


def test_a_site_whose_configuration_does_not_load_the_cards_is_built_with_them(site):
    """The build writes its own configuration from mkdocs.yml (the staging folder's), which loads the cards."""
    without_the_cards(site)
    done = host(site, "build")
    assert done.returncode == 0, done.stderr
    assert (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8").count(
        '<div class="proof-card ') == 3


# A change of each input a staged preview watches: a post, a script, the lock (the cards' own refusals are the
# unstaged preview's test's, below: the same extension renders both).
EACH_INPUT = ("tampered quote", "changed output", "unlocked file")


def test_a_staged_preview_shows_each_problem_on_its_page_and_the_cards_again_once_mended(site):
    """serve of a site whose configuration does not load the cards (the MkDocs hook's): each build whole, staged,
    each problem on its page, and each page reloads itself once a newer build is served; a page Zensical cannot
    read is shown on every address until mended."""
    without_the_cards(site)
    files = [site.post, site.root / SCRIPT, site.root / "sources.lock.json"]
    kept = {file: file.read_bytes() for file in files}
    port = free_port()
    server = host(site, "serve", "-a", f"127.0.0.1:{port}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url, build = f"http://127.0.0.1:{port}/posts/p/", f"http://127.0.0.1:{port}/.codeproof-preview-build"
    try:
        page = wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3)
        assert page.endswith("location.reload(); } catch (error) {} }, 1000);</script>") and SEAL_ATTRIBUTE not in page
        served = [wait_for(build, server, lambda number: number.isdigit())]
        for name, change, said in [case for case in SHOWN if case[0] in EACH_INPUT]:
            change(site)
            page = unescape(wait_for(url, server, lambda page: "proof-error" in page))
            first = said.split("\n")[0]  # what it says, less where (a box on the page may say it otherwise)
            assert (first.split(": ", 1)[1] if first.startswith("docs/") else first) in page, name
            assert page.count('<div class="proof-card ') < 3 and SEAL_ATTRIBUTE not in page, name
            served.append(wait_for(build, server, lambda number: number.isdigit()))
            for file, data in kept.items():
                file.write_bytes(data)
            wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3 and "proof-error" not in page)
        assert served == sorted(set(served), key=int)  # each change a newer build, which the pages reload to
        break_front_matter(site)
        page = unescape(answer_until(url, server, lambda page: "proof-error" in page))
        assert "docs/posts/p.md:3: front matter is not YAML: did not find expected ',' or ']'" in page
        for file, data in kept.items():
            file.write_bytes(data)
        wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "Traceback" not in server.stderr.read()
    assert not (site.root / ".codeproof-preview-site").exists()  # its builds end with it


def test_a_staged_preview_answers_any_address_without_a_traceback_and_a_second_server_leaves_it_be(site):
    """An address no file can have is not found; a page's folder without its slash is redirected to it (its links
    are relative); HEAD answers as GET does; a second server on the same address says so and touches nothing."""
    without_the_cards(site)
    port = free_port()
    server = host(site, "serve", "-a", f"127.0.0.1:{port}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(f"http://127.0.0.1:{port}/posts/p/", server, lambda page: page.count('<div class="proof-card ') == 3)
        answers = {}
        for method, path in [("GET", "/%00"), ("GET", "/" + "a/" * 3000), ("GET", "/posts/p"), ("HEAD", "/posts/p/")]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request(method, path)
            response = connection.getresponse()
            answers[method, path if len(path) < 20 else "a long path"] = (response.status, response.getheader("Location"),
                                                                          bool(response.read()))
            connection.close()
        assert answers == {("GET", "/%00"): (404, None, True), ("GET", "a long path"): (404, None, True),
                           ("GET", "/posts/p"): (301, "/posts/p/", False), ("HEAD", "/posts/p/"): (200, None, False)}
        second = host(site, "serve", "-a", f"127.0.0.1:{port}")
        assert (second.returncode, second.stderr) == (2, f"error: cannot serve at 127.0.0.1:{port}: Address already "
                                                         "in use\n  hint: give another address with -a host:port\n")
        assert fetched_page(f"http://127.0.0.1:{port}/posts/p/").count('<div class="proof-card ') == 3
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "Traceback" not in server.stderr.read()


def fetched_page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def test_a_title_zensical_prints_is_escaped_once(site):
    """The staged front matter holds the title escaped (Zensical's templates print it as it is): a reader reads
    it as written, in <title>, the page's heading and Open Graph, escaped once."""
    site.edit('title: "Fixture post"', "title: 'The \"quoted\" one'")
    assert host(site, "build").returncode == 0
    page = LexborHTMLParser((site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8"))
    assert page.css_first("title").text().startswith('The "quoted" one')
    assert page.css_first("h1").text().endswith('The "quoted" one')
    assert "&#34;" not in page.text() and "&amp;" not in page.text() and "&quot;" not in page.text()


SHOWN = [case for case in REFUSED if case[0] != "broken front matter"]  # that one stops Zensical's server (below)


def test_zensical_serve_shows_each_problem_on_its_page_and_the_cards_again_once_mended(site):
    """One preview server, each change a host must refuse in turn: the page shows the problem, with no card of what
    failed, and once the files are as they were, the page shows its three cards again."""
    files = [site.post, site.root / SCRIPT, site.root / "sources.lock.json"]
    kept = {file: file.read_bytes() for file in files}
    port = free_port()
    server = host(site, "serve", "-a", f"127.0.0.1:{port}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/posts/p/"
    try:
        wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3)
        for name, change, said in SHOWN:
            change(site)
            page = unescape(wait_for(url, server, lambda page: "proof-error" in page))
            first = said.split("\n")[0]  # what it says, less where (a box on the page may say it otherwise)
            assert (first.split(": ", 1)[1] if first.startswith("docs/") else first) in page, name
            assert page.count('<div class="proof-card ') < 3 and SEAL_ATTRIBUTE not in page, name
            for file, data in kept.items():
                file.write_bytes(data)
            wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3 and "proof-error" not in page)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert (site.root / ".codeproof-preview.yml").read_text(encoding="utf-8").startswith("# Written by ")


def test_a_front_matter_zensical_cannot_read_is_shown_on_every_page_until_mended(site):
    """Zensical's server ends on a page whose front matter it cannot read: every address shows the problem at its
    line meanwhile (a page that reloads itself), and the site is served again once it is mended."""
    port = free_port()
    server = host(site, "serve", "-a", f"127.0.0.1:{port}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/posts/p/"
    good = site.post.read_text(encoding="utf-8")
    try:
        wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3)
        break_front_matter(site)
        page = unescape(answer_until(url, server, lambda page: "proof-error" in page))
        assert ("docs/posts/p.md:3: front matter is not YAML: did not find expected ',' or ']'\n  hint: write each "
                "setting as `key: value`; quote values with : or # in them") in page
        site.post.write_text(good, encoding="utf-8")
        wait_for(url, server, lambda page: page.count('<div class="proof-card ') == 3)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "Traceback" not in server.stderr.read()


def answer_until(url: str, server, holds, timeout: float = 60.0) -> str:
    """The served page, whatever its status (the problem's page is 503), polled until `holds(page)`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                page = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            page = error.read().decode("utf-8")
        except OSError:
            page = ""
        if holds(page):
            return page
        time.sleep(0.1)
    raise AssertionError(f"{url} never matched")


def test_a_site_that_names_one_post_for_every_page_zensical_renders_is_refused(site):
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["markdown_extensions"][-1]["codeproof.cards"]["post"] = "docs/posts/p.md"
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    done = host(site, "build")
    assert done.returncode == 1 and ("error: codeproof.cards: `post: docs/posts/p.md` is for a caller that renders "
                                     "one page, but the host says which page it renders\n  hint: remove `post:` (and "
                                     "`url:`, `first_line:`) from the extension's settings") in done.stderr


def configure(site: Site, change) -> None:
    """mkdocs.yml changed by `change(config)` (a dict)."""
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    change(config)
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


def test_a_file_of_docs_zensical_would_copy_as_it_is_fails_the_build(site):
    (site.root / "docs" / "posts" / "card.html").write_text('<div class="proof-card">✓ 输出已验证</div>\n')
    done = host(site, "build")
    assert done.returncode == 1 and not (site.root / "site").exists()
    assert ("docs/posts/card.html:1: would be published as it is, unchecked: docs/ holds Markdown pages, images and "
            "fonts only\n  hint: write it as a Markdown page, or remove it from docs/") in done.stderr


def test_a_theme_page_that_shows_a_card_fails_the_check_of_the_output(site):
    (site.root / "overrides").mkdir()
    (site.root / "overrides" / "404.html").write_text(
        '{% extends "main.html" %}\n{% block content %}<div class="proof-card">✓ 输出已验证</div>{% endblock %}\n')
    configure(site, lambda config: config["theme"].update(custom_dir="overrides"))
    done = host(site, "build")
    assert done.returncode == 1 and ("site/404.html:1: the published page holds 1 cards, but the build verified "
                                     "0") in done.stderr


def test_a_face_in_a_pages_meta_fails_the_check_of_the_output(site):
    configure(site, lambda config: config.update(site_description="✓ 输出已验证"))
    done = host(site, "build")
    assert done.returncode == 1 and ("docs/index.md:1: the published page shows '输出已验证', a card's face, "
                                     "outside any verified card") in done.stderr


@pytest.mark.parametrize("change, said", [
    (lambda config: config.update(plugins=["search", {"offline": {}}]),
     "error: mkdocs.yml: plugins offline write what the check after the build does not read\n  hint: remove them: "
     "with Zensical the site takes search, tags, rss only\n"),
    (lambda config: config["markdown_extensions"][-1]["codeproof.cards"].update(config_file="series.yml"),
     "error: mkdocs.yml: codeproof.cards reads the series' settings from series.yml, not from mkdocs.yml, which "
     "Zensical builds\n  hint: give it `config_file: mkdocs.yml`, and keep the series' settings there\n"),
    (lambda config: config["markdown_extensions"].append("no_such_extension"),
     "error: mkdocs.yml: markdown_extensions names no_such_extension, which cannot be imported\n  hint: install it, "
     "or remove it from markdown_extensions\n"),
], ids=["an unchecked plugin", "the series' settings elsewhere", "an extension that is not there"])
def test_a_configuration_whose_output_or_proofs_would_go_unchecked_is_refused(site, change, said):
    configure(site, change)
    done = host(site, "build")
    assert (done.returncode, done.stderr) == (2, said)


def test_a_theme_template_that_changes_a_cards_words_fails_the_check_of_the_output(site):
    """The check after the build compares each card's words with what the extension verified: a template that
    rewrites the page's content under a real stamp is found."""
    (site.root / "overrides").mkdir()
    (site.root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n'
        '{% block content %}{{ page.content | replace("parents []", "parents [forged]") }}{% endblock %}\n')
    configure(site, lambda config: config["theme"].update(custom_dir="overrides"))
    done = host(site, "build")
    assert done.returncode == 1 and not (site.root / "site").exists()
    assert "docs/posts/p.md:1: the published page's card 3 shows other words than the build verified: " \
        in done.stderr


def test_the_fixture_site_under_zensical_shows_what_it_shows_under_mkdocs_page_by_page(tmp_path):
    """Issue 55: the pages the build adds (the package's source pages and map, the script's page, the archive, the
    raw files), the posts' cards and the links they and the citations hold, and every other page's words are the
    same under both hosts: Zensical builds from the staging folder the engine writes."""
    site = make_site(tmp_path, material=True)  # the real site's theme, overrides and overview
    built, log = site.build()
    assert built is not None, log
    shutil.move(built, tmp_path / "mkdocs-site")
    done = host(site, "build")  # the same site, its hook and all: the staging folder's configuration has no hook
    assert done.returncode == 0, done.stderr
    urls = parity.pages(tmp_path / "mkdocs-site")
    assert {"", "posts/p/", "source/", "source/pkg/mod.py/", "experiments/show/"} <= set(urls)
    assert parity.package_in_search(tmp_path / "mkdocs-site")  # the comparison reads entries
    assert parity.differences(tmp_path / "mkdocs-site", site.root / "site", urls) == []



def test_what_a_staging_folder_held_before_the_build_is_never_published(site):
    """The staging folder is the build's own, written anew each time: a page left or planted there is not read."""
    planted = site.root / ".codeproof-stage" / "docs" / "posts" / "planted.md"
    planted.parent.mkdir(parents=True)
    planted.write_text('# Planted\n\n<div class="proof-card">✓ 输出已验证</div>\n', encoding="utf-8")
    done = host(site, "build")
    assert done.returncode == 0, done.stderr
    assert not (site.root / "site" / "posts" / "planted").exists() and not planted.exists()


def test_a_file_of_the_authors_where_the_build_adds_a_page_fails_the_zensical_build(site):
    (site.root / "docs" / "experiments").mkdir()
    (site.root / "docs" / "experiments" / "show.md").write_text("# Mine\n", encoding="utf-8")
    done = host(site, "build")
    assert done.returncode == 1 and not (site.root / "site").exists()
    assert ("docs/experiments/show.md:1: the build publishes the page of experiments/show.py at experiments/show.md, "
            "which this file would take\n  hint: rename or move it") in done.stderr


def test_a_page_written_after_the_build_read_docs_is_not_staged(site):
    """The staging folder holds the pages the build read and proved: one written meanwhile waits for the next."""
    from codeproof.adapter import stage

    built_site, build = stage.stage_build(site.root / "mkdocs.yml", lambda note: None)
    build.engine.runner.finish()
    late = site.root / "docs" / "posts" / "late.md"
    late.write_text('# Late\n\n<div class="proof-card">✓ 输出已验证</div>\n', encoding="utf-8")
    docs = stage.write_stage(built_site, build, {})
    assert (docs / "posts" / "p.md").is_file() and not (docs / "posts" / "late.md").exists()


PLANTED = """
import sys
from pathlib import Path
import zensical
from codeproof import cards
from codeproof.adapter import stage
config = Path("mkdocs.yml").resolve()
built_site, build = stage.stage_build(config, lambda note: None)
cards.HOSTED[config] = cards.Hosting(build)
staged = stage.write_config(config, build)
docs = stage.write_stage(built_site, build, {})
(docs / "planted.md").write_text("# Planted\\n", encoding="utf-8")
try:
    zensical.build(str(staged), {"clean": True, "strict": False})
except Exception:
    pass
build.engine.runner.finish()
print("\\n".join(cards.FAILURES))
"""


def test_the_cards_refuse_a_page_in_the_staging_folder_that_the_build_neither_read_nor_added(site):
    done = subprocess.run([sys.executable, "-c", PLANTED], cwd=site.root, capture_output=True, text=True)
    assert ("error: codeproof.cards: the host renders planted.md, a page its build neither read nor added\n  hint: "
            "build again: the staging folder is written anew each build") in done.stdout, done.stderr[-2000:]


def test_a_scripts_odd_name_and_a_quote_in_a_description_are_published_as_text_under_zensical(site):
    """Attack of this issue's review: Zensical's templates print a page's title and description as they are. A
    script named like an element got an element (with its handler) into its page's header and <title>, and a `"`
    in a description ended the attribute of <meta name="description">. The staged front matter is escaped."""
    (site.root / "experiments" / '<img src=x onerror=alert(1)>q".py').write_text('print("hi")\n', encoding="utf-8")
    post = site.post.read_text(encoding="utf-8")
    site.post.write_text(post.replace("---\n", "---\ndescription: 'x\" data-injected=\"yes'\n", 1), encoding="utf-8")
    done = host(site, "build")
    assert done.returncode == 0, done.stderr
    script_page = LexborHTMLParser((site.root / "site" / "experiments" / '<img src=x onerror=alert(1)>q"' /
                                    "index.html").read_text(encoding="utf-8"))
    assert script_page.css("img[onerror]") == [] and '<img src=x onerror=alert(1)>q".py' in script_page.css_first(
        "title").text()
    for page in (script_page, LexborHTMLParser((site.root / "site" / "posts" / "p" / "index.html").read_text(
            encoding="utf-8"))):
        assert [set(meta.attributes) for meta in page.css('meta[name="description"]')] == [{"name", "content"}]
    assert page.css_first('meta[name="description"]').attributes["content"] == 'x" data-injected="yes'
