"""The real site, built with --strict as a reader gets it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin, urlparse
from xml.etree import ElementTree

import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from codeproof.series.blocks import read_post
from codeproof.experiments.compare import outputs_match
from codeproof.series.config import load_series
from codeproof.common.kinds.registry import BlockKind
from conftest import ROOT
from site_server import SWEEP_PARTS, pages, sweep_part
from site_text import fold, read_page

BASELINE = load_series(ROOT / "mkdocs.yml").baseline.commit
POSTS = sorted(f"posts/{post.stem}/" for post in (ROOT / "docs" / "posts").glob("*.md"))  # every post, by its file
assert POSTS, "no post in docs/posts/"
# A post's sections, in order: those the scaffold of `./dev.sh new` gives it (a heading may add to a section's name).
SECTIONS = re.findall(r"^## (.+)$", (ROOT / "hooks" / "codeproof" / "templates" / "new_post.md").read_text(encoding="utf-8"),
                      re.M)
SEEDS = ROOT / "tests" / "reference" / "seeds"  # the published posts as readers saw them (copied from shared/seeds)
pytestmark = pytest.mark.real_site


@pytest.mark.parametrize("url", POSTS)
def test_each_post_has_every_section_in_order(built, url):
    assert len(SECTIONS) > 1
    headings = read_page(built, url).headings
    positions = [next(i for i, h in enumerate(headings) if h.startswith(s)) for s in SECTIONS]
    assert positions == sorted(positions)


def source(url: str) -> Path:
    """The file of the post published at `url` (posts/<file name>/)."""
    return (ROOT / "docs" / url.rstrip("/")).with_suffix(".md")


def front_matter(url: str) -> dict:
    """The front matter of the post published at `url`, as its author wrote it."""
    return yaml.safe_load(source(url).read_text(encoding="utf-8").split("---\n")[1])


@pytest.mark.parametrize("url", POSTS)
def test_each_post_shows_its_date_baseline_categories_tags_and_real_tables(built, url):
    page = read_page(built, url)
    meta, baseline = front_matter(url), load_series(ROOT / "mkdocs.yml").baseline
    html = LexborHTMLParser(page.html)
    assert fold(html.css_first(".series-meta__date").text()) == f"发布于 {meta['date']}"
    assert fold(html.css_first(".series-baseline").text()) == (
        f"源码基线：HIPS/autograd {baseline.version}，commit {baseline.commit[:7]} （完整：{baseline.commit}）。")
    assert [fold(a.text()) for a in html.css(".series-meta__category")] == meta["categories"]
    assert list(dict.fromkeys(fold(a.text()) for a in html.css("nav.md-tags a.md-tag"))) == meta["tags"]
    assert page.html.count("<table>") >= 2


@pytest.mark.parametrize("url", POSTS)
def test_every_real_source_card_links_the_pinned_commit_and_its_real_lines(built, url):
    page = read_page(built, url)
    cards = LexborHTMLParser(page.html).css("div.proof-card--source")
    assert cards
    for card in cards:
        [(path, first, _last)] = re.findall(rf'href="https://github.com/HIPS/autograd/blob/{BASELINE}/([^"#]+)#L(\d+)-L(\d+)"',
                                            card.html)
        assert f'data-linenos="{first} "' in card.html  # the code's first line number is the file's


def test_every_link_labelled_previous_or_next_on_a_post_agrees_and_resolves(built):
    """上一篇/下一篇 in the series bar (top and bottom) and 上一页/下一页 in the footer lead to the same pages, which
    exist; an announced post is named without a link. For every post, whichever posts there are."""
    posts = sorted(p.parent.name for p in (built / "posts").glob("*/index.html"))
    assert posts
    for name in posts:
        html = LexborHTMLParser((built / "posts" / name / "index.html").read_text(encoding="utf-8"))
        bars = html.css("nav.series-nav")
        assert len(bars) == 2  # top and bottom
        for role in ("prev", "next"):
            footer = [a.attributes["href"] for a in html.css(f"a.md-footer__link--{role}")]
            for bar in bars:
                assert [a.attributes["href"] for a in bar.css(f"a.series-nav__{role}")] == footer, (name, role)
        for href in [a.attributes["href"] for bar in bars for a in bar.css("a")] + [a.attributes["href"] for a in
                                                                                     html.css("a.md-footer__link")]:
            target = urlparse(urljoin(f"http://site/posts/{name}/", href)).path.lstrip("/")
            assert (built / target / "index.html").is_file() or (built / target).is_file(), href
        assert all(span.css_first("a") is None for bar in bars for span in bar.css(".series-nav__announced"))


def test_every_category_of_every_post_links_to_its_entry_on_the_overview_which_lists_that_post(built):
    posts = sorted(p.parent.name for p in (built / "posts").glob("*/index.html"))
    assert posts
    overview = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8"))
    for name in posts:
        header = LexborHTMLParser((built / "posts" / name / "index.html").read_text(encoding="utf-8"))
        categories = header.css(".series-meta__category")
        assert len(categories) == len(read_post(ROOT / "docs" / "posts" / f"{name}.md", name)[1].meta.get("categories", []))
        assert all(c.tag == "a" for c in categories), name
        for category in categories:
            path, fragment = category.attributes["href"].split("#")
            assert urlparse(urljoin(f"http://site/posts/{name}/", path)).path == "/"
            entry = overview.css_first(f'[id="{fragment}"]')
            assert entry is not None and entry.text() == category.text(), (name, fragment)
            assert f"posts/{name}/" in [a.attributes["href"] for a in entry.parent.css("a")]


def test_every_post_is_in_the_nav_the_feed_and_the_overview_in_one_order(built):
    posts = {f"posts/{p.parent.name}/" for p in (built / "posts").glob("*/index.html")}
    overview = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8"))
    listed = list(dict.fromkeys(a.attributes["href"] for a in overview.css("article li a") if a.attributes["href"] in posts))
    nav = [a.attributes["href"] for a in overview.css("nav.md-nav--primary a.md-nav__link")
           if a.attributes["href"] in posts]
    assert set(listed) == posts and listed == nav  # the overview's list and the nav: every post, series order
    for feed in ("feed_rss_created.xml", "feed_rss_updated.xml"):
        links = {urlparse(item.findtext("link")).path.split("/", 2)[-1]
                 for item in ElementTree.parse(built / feed).getroot().iter("item")}
        assert links == posts, feed


def test_a_source_pages_lists_of_the_posts_that_quote_or_cite_a_line_follow_the_series_order(built):
    """A host renders the posts in its own order (Zensical's is not MkDocs'): the lists beside a definition (the
    posts that quote it, that cite it) are in the series' order, each post's in its page's."""
    overview = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8"))
    order = [a.attributes["href"] for a in overview.css("nav.md-nav--primary a.md-nav__link")
             if a.attributes["href"].startswith("posts/")]
    lists = []
    for source_page in (built / "source").rglob("index.html"):
        for note in LexborHTMLParser(source_page.read_text(encoding="utf-8")).css(".series-src__outline small"):
            url = source_page.parent.relative_to(built).as_posix() + "/"
            posts = [urlparse(urljoin(url, a.attributes["href"])).path for a in note.css("a") if "posts/" in a.attributes["href"]]
            lists += [[order.index(post) for post in posts]] if posts else []
    assert order and lists and [found for found in lists if found != sorted(found)] == []


def test_every_published_script_is_on_the_overview_with_the_posts_that_use_it(built):
    overview = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8"))
    rows = {row.css_first("td a").attributes["href"]: [a.attributes["href"] for a in row.css("td")[1].css("a")]
            for row in overview.css("article tr") if row.css_first("td a[href^='experiments/']")}
    scripts = sorted((built / "experiments").glob("*/index.html"))
    assert scripts and len(rows) == len(scripts)
    for script in scripts:
        page = LexborHTMLParser(script.read_text(encoding="utf-8"))
        using = [urljoin(f"experiments/{script.parent.name}/", a.attributes["href"])
                 for a in page.css(".series-script__posts a")]
        assert rows[f"experiments/{script.parent.name}/"] == using


def test_the_overview_lists_published_posts_as_links_and_announced_ones_as_text(built):
    page = read_page(built, "")
    titled = [title for title in load_series(ROOT / "mkdocs.yml").announced.values() if title]
    assert titled and all(fold(title) in page.folded for title in titled)
    assert not [url for url in POSTS if f"../{url}" in page.links]  # the overview is at the root
    assert [url for url in POSTS if url in page.links] == POSTS
    assert BASELINE in page.folded and "python -B experiments/<name>.py" in page.folded


def test_the_accessibility_sweeps_parts_hold_every_page_of_the_site_once(built):
    parts = [sweep_part(built, part) for part in range(SWEEP_PARTS)]
    assert all(parts) and sorted(path for part in parts for path in part) == sorted(pages(built))


def test_no_page_loads_fonts_or_scripts_from_another_host(built):
    tags = re.compile(r"<(script|link|img|iframe|source)\b[^>]*>", re.I)
    fetches = re.compile(r'\b(?:src|href)="(?:https?:)?//', re.I)
    for html in built.rglob("*.html"):
        for tag in tags.finditer(html.read_text(encoding="utf-8")):
            is_reference = re.search(r'rel="(?:canonical|alternate)"', tag.group(0))  # names a URL, loads nothing
            assert is_reference or not fetches.search(tag.group(0)), (html, tag.group(0))
    for css in built.rglob("*.css"):
        assert not re.search(r"@import|url\((['\"]?)(https?:)?//", css.read_text(encoding="utf-8")), css


def recorded_outputs() -> list:
    """Every [OUTPUT] block of the real posts: (post, script, the output its author recorded)."""
    found = []
    for post in sorted((ROOT / "docs" / "posts").glob("*.md")):
        parsed, _ = read_post(post, post.name)
        found += [pytest.param(block.fields["File"], block, id=f"{post.name}:{block.line}")
                  for block in parsed.blocks if block.kind is BlockKind.OUTPUT]
    return found


@pytest.mark.parametrize("script, block", recorded_outputs())
def test_experiments_run_outside_the_build_print_what_the_posts_record(script, block):
    """A reader who runs the script with the pinned packages sees what the post shows (no sandbox, no cache),
    within the block's tolerance where it has one."""
    done = subprocess.run([sys.executable, "-B", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert outputs_match(block.quote, done.stdout, block.tolerance), (block.quote, done.stdout)


def seed_lines(seed: str):
    """What each line of a seed must leave in the rendered text (None: the line is site furniture)."""
    for raw in seed.splitlines():
        line = raw.strip()
        if not line or line in ("---", "上一篇 | 系列总览 | 下一篇") or line.startswith(("#", "源码基线：", "Commit: ")):
            continue  # nav, tag lines (checked apart), and the pin that moved from f53a217 to the baseline
        if "\t" in line:
            yield from (cell for cell in line.split("\t") if cell)
            continue
        line = re.sub(r"^(?:• |\d+\. )", "", line)
        line = re.sub(r"^\[(REAL SOURCE|EXPERIMENT)\]$", r"\1", line)
        line = re.sub(r"^(File|Symbol|Purpose): ", "", line)
        if line == """raise TypeError(f"Bad VJP '{vjpfun}' for '{fun.__name__}'")""":
            line = line.replace("TypeError", "Exception")  # the real line at v1.9.1
        yield line


def seeds() -> list[Path]:
    found = sorted(SEEDS.glob("*.txt"))
    assert found, f"no seed in {SEEDS}"
    return found


@pytest.mark.parametrize("seed", seeds(), ids=lambda seed: seed.name)
def test_no_prose_of_the_seed_is_lost(built, seed):
    """Each seed's prose is in the post that bears its title (the seed's third line, after the date)."""
    text = seed.read_text(encoding="utf-8")
    [url] = [url for url in POSTS if front_matter(url)["title"] == text.splitlines()[2]]
    rendered = read_page(built, url).folded
    missing = [line for line in seed_lines(text) if fold(line) not in rendered]
    assert missing == []


def test_the_overview_links_the_archive_with_its_real_size_and_sha256(built):
    import hashlib

    page = read_page(built, "")
    archive = built / "downloads" / "experiments.zip"
    data = archive.read_bytes()
    assert "downloads/experiments.zip" in page.links
    assert f"{len(data):,} 字节" in page.folded and hashlib.sha256(data).hexdigest() in page.folded


def scripts_of_posts() -> list:
    """Every post with each script its blocks name (experiments/<name>.py): (post, name)."""
    found = []
    for url in POSTS:
        parsed, _ = read_post(source(url), url)
        names = {Path(block.fields["File"]).stem for block in parsed.blocks
                 if block.fields.get("File", "").startswith("experiments/")}
        found += [pytest.param(url, name, id=f"{url}{name}") for name in sorted(names)]
    assert found, "no post names a script"
    return found


@pytest.mark.parametrize("post, script", scripts_of_posts())
def test_each_post_links_its_published_script_which_is_viewable_and_downloadable(built, post, script):
    assert f"../../experiments/{script}/" in read_page(built, post).links
    script_page = read_page(built, f"experiments/{script}/")
    assert f'<a href="../{script}.py" download="{script}.py">下载 {script}.py</a>' in script_page.html
    assert f"<code>python -B experiments/{script}.py</code>" in script_page.html
    published = (built / "experiments" / f"{script}.py").read_text(encoding="utf-8")
    assert published == (ROOT / "experiments" / f"{script}.py").read_text(encoding="utf-8")
    assert fold(published.splitlines()[-1]) in script_page.folded


def test_the_search_index_keeps_each_word_of_the_series_dictionary_whole(built):
    """Each word of search/terms.txt that the site holds is one token of the index (jieba alone splits some:
    真实行号 as 真/实行/号)."""
    import json

    text = " ".join(doc["text"] for doc in json.loads((built / "search" / "search_index.json").read_text())["docs"])
    words = [line.split()[0] for line in (ROOT / "search" / "terms.txt").read_text(encoding="utf-8").splitlines()]
    held = [word for word in words if word in text.replace("\u200b", "")]
    assert held
    for word in held:
        tokens = set(re.split(r"[\s\u200b]+", text))
        assert word in tokens, word
