"""The publishing pipeline and what feed readers and search engines get."""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree

import pytest
import yaml
from selectolax.lexbor import LexborHTMLParser

from codeproof.adapter import search
from codeproof.adapter.feeds import complete_json_feed
from codeproof.series.config import load_series
from conftest import ROOT, mkdocs
from site_text import read_page

WORKFLOWS = ROOT / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "publish.yml"


def validate_workflow(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True, text=True,
    )


def test_the_workflow_is_valid_github_actions_syntax():
    done = validate_workflow(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_validator_rejects_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    text = WORKFLOW.read_text()
    assert "runs-on: ubuntu-24.04" in text
    broken.write_text(text.replace("runs-on: ubuntu-24.04", "runs_on: ubuntu-24.04", 1))
    assert validate_workflow(broken).returncode != 0


def test_the_workflow_runs_the_suite_on_push_and_pull_request_and_deploys_main_only_after_it():
    text = WORKFLOW.read_text()
    assert re.search(r"^on:\n  push:\n  pull_request:", text, re.M)
    jobs = yaml.safe_load(text)["jobs"]
    assert [step["run"] for step in jobs["test"]["steps"] if "run" in step][-1] == "bash .ci/run"
    assert jobs["build"]["needs"] == "test" and sorted(jobs["deploy"]["needs"]) == ["build", "test"]
    assert "./dev.sh build" in text and "actions/deploy-pages" in text
    assert jobs["deploy"]["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'"


def test_both_jobs_provide_the_matrixs_pythons_and_the_build_runs_the_matrix():
    """Each Python of extra.series.experiments.matrix is built (.ci/pythons) before the suite and before the build,
    which runs the matrix; no job has uv download a Python."""
    wanted = sorted(e.python for e in load_series(ROOT / "mkdocs.yml").matrix.environments)
    assert wanted
    text = WORKFLOW.read_text()
    jobs = yaml.safe_load(text)["jobs"]
    for name in ("test", "build"):
        runs = [step["run"] for step in jobs[name]["steps"] if "run" in step]
        built = [run.split()[2:] for run in runs if run.startswith("bash .ci/pythons ")]
        assert len(built) == 1, name
        assert sorted(version.rsplit(".", 1)[0] for version in built[0]) == wanted, name
        assert runs.index(f"bash .ci/pythons {' '.join(built[0])}") < next(
            n for n, run in enumerate(runs) if ".ci/run" in run or "./dev.sh build" in run), name
    assert "./dev.sh build --matrix" in next(step["run"] for step in jobs["build"]["steps"]
                                             if "./dev.sh build" in step.get("run", ""))
    assert "UV_PYTHON_DOWNLOADS" not in text  # dev.sh sets it to never; no job may change it


def test_the_suite_and_the_deployed_build_run_where_bubblewrap_works():
    """Both jobs run in the same pinned Debian container, privileged so that bubblewrap may make namespaces;
    the build installs bubblewrap and fails at once if it cannot run."""
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    for name in ("test", "build"):
        container = jobs[name]["container"]
        assert re.fullmatch(r"python:3\.11-bookworm@sha256:[0-9a-f]{64}", container["image"]), name
        assert container["options"] == "--privileged", name
    install = next(step["run"] for step in jobs["build"]["steps"] if step.get("name") == "Install the experiments' sandbox")
    assert "apt-get install -y -qq bubblewrap" in install
    assert install.strip().splitlines()[-1] == "bwrap --unshare-all --die-with-parent --ro-bind / / true"


def zizmor(*paths: Path) -> subprocess.CompletedProcess:
    """zizmor (pinned in requirements-test.txt) with its strictest persona, offline and without any token, so it makes
    no network request and runs no online audit; no configuration file and no `# zizmor: ignore` comment counts."""
    exe = Path(sys.executable).parent / "zizmor"
    exe = str(exe) if exe.exists() else shutil.which("zizmor")
    assert exe, "zizmor is not installed: it is pinned in requirements-test.txt"
    env = {k: v for k, v in os.environ.items()
           if k not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN", "GH_HOST", "ZIZMOR_CONFIG")}
    env["ZIZMOR_OFFLINE"] = "1"
    return subprocess.run(
        [exe, "--offline", "--no-config", "--no-ignores", "--persona", "auditor", "--color", "never",
         "--no-progress", *map(str, paths)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )


def test_zizmor_finds_nothing_in_the_workflows():
    done = zizmor(WORKFLOWS.relative_to(ROOT))
    report = done.stdout + done.stderr
    assert done.returncode == 0 and "No findings to report" in done.stdout, report
    audited = set(re.findall(r"completed (\S+)", done.stderr))
    assert audited == {str(p.relative_to(ROOT)) for p in WORKFLOWS.glob("*.y*ml")}, report


def test_zizmor_flags_an_unpinned_action_and_persisted_credentials(tmp_path):
    """The audit is not vacuous: the workflow as it was before hardening fails it."""
    text = WORKFLOW.read_text()
    checkout = re.search(r"- uses: actions/checkout@\S+ # \S+\n\s+with:\n\s+persist-credentials: false\n", text)
    assert checkout, "the checkout step is expected to set persist-credentials: false"
    weak = tmp_path / "publish.yml"
    weak.write_text(text.replace(checkout.group(0), "- uses: actions/checkout@v4\n"))
    done = zizmor(weak)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "unpinned-uses" in done.stdout and "artipacked" in done.stdout, done.stdout


USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$", re.M)


def test_every_action_is_pinned_to_a_commit_sha_with_its_version_in_a_comment():
    for path in sorted(WORKFLOWS.glob("*.y*ml")):
        text = path.read_text()
        found = [(m.group("ref"), m.group("rest")) for m in USES.finditer(text)]
        # Every `uses:` the YAML holds is one the pattern saw (no flow-style step slips past).
        jobs = yaml.safe_load(text)["jobs"].values()
        parsed = [step["uses"] for job in jobs for step in job.get("steps", []) if "uses" in step]
        parsed += [job["uses"] for job in jobs if "uses" in job]
        assert sorted(ref for ref, _ in found) == sorted(parsed), path
        assert found, path
        for ref, rest in found:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned to a commit SHA"
            assert re.fullmatch(r"\s+# v\d+(\.\d+)*", rest), f"{path.name}: {ref} lacks its `# vX.Y.Z` comment"


def test_the_drift_watch_runs_weekly_and_by_hand_reports_in_the_summary_fails_on_change_and_never_deploys():
    path = WORKFLOWS / "drift.yml"
    done = validate_workflow(path)
    assert done.returncode == 0, done.stdout + done.stderr
    workflow = yaml.safe_load(path.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"schedule", "workflow_dispatch"} and triggers["schedule"][0]["cron"].endswith("* * 1")
    assert workflow["permissions"] == {} and workflow["jobs"]["drift"]["permissions"] == {"contents": "read"}
    run = next(step["run"] for step in workflow["jobs"]["drift"]["steps"] if "run" in step)
    assert "./dev.sh drift --to HEAD --report drift.txt" in run and "$GITHUB_STEP_SUMMARY" in run
    assert 'exit "$status"' in run  # drift's own status: 1 when a quote changed or is gone
    assert not [step for step in workflow["jobs"]["drift"]["steps"] if "pages" in step.get("uses", "")]  # never deploys


def test_the_jobs_get_only_the_token_permissions_they_need():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert jobs["build"]["permissions"] == {"contents": "read", "pages": "read"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    checkout = next(s for s in jobs["build"]["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False


def published_posts(built) -> dict[str, str]:
    """Every post page of the built site -> its date, as its Open Graph tags give it."""
    posts = {}
    for page in sorted((built / "posts").glob("*/index.html")):
        html = LexborHTMLParser(page.read_text(encoding="utf-8"))
        posts[f"posts/{page.parent.name}/"] = html.css_first('meta[property="article:published_time"]').attributes["content"]
    return posts


@pytest.mark.parametrize("feed", ["feed_rss_created.xml", "feed_rss_updated.xml"])
def test_each_feed_lists_every_post_dated_by_its_front_matter_with_an_image(built, feed):
    channel = ElementTree.parse(built / feed).getroot().find("channel")
    site = channel.findtext("link")
    items = {item.findtext("link").removeprefix(site): item for item in channel.findall("item")}
    posts = published_posts(built)
    assert posts and set(items) == set(posts)
    for url, item in items.items():
        assert item.findtext("title") and len(item.findtext("description")) > 20
        published = datetime.datetime.strptime(item.findtext("pubDate"), "%a, %d %b %Y %H:%M:%S %z").date()
        assert published.isoformat() == posts[url]  # never the build's own date
    image = channel.find("image").findtext("url")
    assert image == site + "assets/og.png" and (built / "assets" / "og.png").is_file()
    assert channel.findtext("language") == "zh"


def test_every_page_links_the_feed_once_and_says_what_a_shared_link_shows(built):
    posts = published_posts(built)
    for page in sorted(built.rglob("*.html")):
        html = LexborHTMLParser(page.read_text(encoding="utf-8"))
        assert html.css_first("html").attributes["lang"] == "zh-Hans"
        feeds = [link.attributes["href"].rsplit("/", 1)[-1] for link in html.css('link[rel="alternate"]')]
        assert feeds == ["feed_rss_created.xml"], page  # Material fetches the sitemap once per such link
        og = {m.attributes["property"]: m.attributes["content"] for m in html.css('meta[property^="og:"]')}
        assert og["og:title"] and og["og:description"] and og["og:image"].endswith("/assets/og.png"), page
        assert html.css_first('meta[name="twitter:card"]').attributes["content"] == "summary_large_image"
        url = page.relative_to(built).as_posix().removesuffix("index.html")
        assert og["og:type"] == ("article" if url in posts else "website"), page


def test_each_post_has_a_canonical_link_and_its_first_paragraph_as_description(built):
    posts = published_posts(built)
    assert posts
    for url in posts:
        html = LexborHTMLParser(read_page(built, url).html)
        assert re.fullmatch(rf"https?://[^/]+/.*{url}", html.css_first('link[rel="canonical"]').attributes["href"]), url
        first = html.css_first("article > p:not([class])")  # the post's own first paragraph, after its header
        description = html.css_first('meta[name="description"]').attributes["content"]
        assert description == " ".join(first.text().split()), url


NO_PROSE = """\
---
title: 只有示例的一篇
series: 98
date: 2026-10-01
---

## 示例

~~~html
<img src="https://evil.invalid/x.png" onerror="alert(1)">
~~~
"""


def test_a_post_without_a_prose_paragraph_reaches_the_feeds_as_its_title_never_as_raw_markdown(site):
    """The feed plugin renders a post's raw Markdown with plain Python-Markdown when the post has no description:
    an HTML example in a fence would be live HTML there. Every post has one: its first paragraph, else its title."""
    (site / "docs" / "posts" / "no-prose.md").write_text(NO_PROSE, encoding="utf-8")
    out = site / "out"
    done = mkdocs(site, "build", "--strict", "--site-dir", str(out))
    assert done.returncode == 0, done.stderr
    for feed in ("feed_rss_created.xml", "feed_rss_updated.xml"):
        channel = ElementTree.parse(out / feed).getroot().find("channel")
        item = next(i for i in channel.findall("item") if i.findtext("link").endswith("posts/no-prose/"))
        assert item.findtext("description") == "只有示例的一篇"
        assert "evil.invalid" not in (out / feed).read_text(encoding="utf-8")


def test_each_generated_page_has_a_description_of_its_own(built):
    """The source pages, the map and the script pages all had the site's description (40 pages alike)."""
    site_description = re.search(r"^site_description: (.*)$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
                                 re.M).group(1)
    pages = sorted([*(built / "source").rglob("index.html"), *(built / "experiments").rglob("index.html")])
    assert len(pages) > 3
    descriptions = [LexborHTMLParser(page.read_text(encoding="utf-8")).css_first('meta[name="description"]')
                    .attributes["content"] for page in pages]
    assert site_description not in descriptions
    assert len(set(descriptions)) == len(pages)  # each its own
    core = LexborHTMLParser((built / "source" / "autograd" / "core.py" / "index.html").read_text(encoding="utf-8"))
    assert core.css_first('meta[name="description"]').attributes["content"].startswith("autograd/core.py：HIPS/autograd ")


def test_robots_txt_points_crawlers_to_the_sitemap(built):
    robots = (built / "robots.txt").read_text(encoding="utf-8")
    sitemap = re.search(r"^Sitemap: (\S+)$", robots, re.M).group(1)
    site_url = LexborHTMLParser((built / "index.html").read_text(encoding="utf-8")).css_first(
        'link[rel="canonical"]').attributes["href"]
    assert sitemap == site_url + "sitemap.xml" and (built / "sitemap.xml").is_file()
    assert "User-agent: *\nAllow: /\n" in robots


def test_every_page_shows_the_series_favicon(built):
    """Material's own icon was every page's."""
    base = urlsplit(LexborHTMLParser((built / "index.html").read_text(encoding="utf-8")).css_first(
        'link[rel="canonical"]').attributes["href"]).path  # 404.html links from the site's root, the others relatively
    for page in sorted(built.rglob("*.html")):
        icon = LexborHTMLParser(page.read_text(encoding="utf-8")).css_first('link[rel="icon"]').attributes["href"]
        target = built / icon.removeprefix(base) if icon.startswith("/") else page.parent / icon
        assert target.resolve() == (built / "assets" / "favicon.svg").resolve(), (page, icon)
    assert (built / "assets" / "favicon.svg").read_bytes() == (ROOT / "overrides" / "assets" / "favicon.svg").read_bytes()


def test_the_site_holds_no_file_a_reader_never_fetches(built):
    """No source maps; of the search's language support, only what the Chinese search loads."""
    assert sorted(p.name for p in built.rglob("*.map")) == []
    lunr = built / "assets" / "javascripts" / "lunr"
    assert sorted(p.relative_to(lunr).as_posix() for p in lunr.rglob("*") if p.is_file()) == \
        ["min/lunr.stemmer.support.min.js", "min/lunr.zh.min.js"]


def test_the_unfetched_theme_files_depend_on_the_search_languages():
    files = ["assets/javascripts/bundle.js", "assets/javascripts/bundle.js.map", "assets/stylesheets/main.css.map",
             "assets/javascripts/lunr/tinyseg.js", "assets/javascripts/lunr/wordcut.js",
             "assets/javascripts/lunr/min/lunr.stemmer.support.min.js", "assets/javascripts/lunr/min/lunr.multi.min.js",
             "assets/javascripts/lunr/min/lunr.ja.min.js", "assets/javascripts/lunr/min/lunr.de.min.js"]
    kept = lambda languages: [f for f in files if f not in search.unfetched_theme_files(files, languages)]  # noqa: E731
    assert kept(["en"]) == files[:1] + files[5:6]
    assert kept(["ja", "de"]) == files[:1] + files[3:4] + files[5:]


@pytest.mark.parametrize("feed", ["feed_json_created.json", "feed_json_updated.json"])
def test_each_json_feed_item_has_the_series_image_and_author(built, feed):
    data = json.loads((built / feed).read_text(encoding="utf-8"))
    assert data["items"] and set(data["items"][0]) >= {"image", "authors"}
    for item in data["items"]:
        assert item["image"] == data["icon"] and item["image"].endswith("/assets/og.png")
        assert item["authors"] == data["authors"] == [{"name": "Autograd 源码学习"}]


def test_an_items_own_image_and_author_are_kept():
    feed = {"icon": "i.png", "authors": [{"name": "A"}], "items": [{"image": "own.png", "authors": [{"name": "B"}]}, {}]}
    assert complete_json_feed(feed)["items"] == [{"image": "own.png", "authors": [{"name": "B"}]},
                                                 {"image": "i.png", "authors": [{"name": "A"}]}]


def test_what_every_page_shares_stays_under_half_a_megabyte(built):
    """The theme's scripts, styles and images (assets/), which every reader fetches: the site's weight beyond
    them grows with the posts and the package's pages, each fetched only by those who open it."""
    assert sum(p.stat().st_size for p in (built / "assets").rglob("*") if p.is_file()) <= 500_000
