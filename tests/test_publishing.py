"""The publishing pipeline and what feed readers and search engines get."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

from conftest import ROOT
from site_text import read_page

WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"


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
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1))
    assert validate_workflow(broken).returncode != 0


def test_the_workflow_builds_strictly_on_push_and_pull_request_and_deploys_main():
    text = WORKFLOW.read_text()
    assert re.search(r"^on:\n  push:\n  pull_request:", text, re.M)
    assert "./dev.sh build" in text and "actions/deploy-pages" in text
    assert "refs/heads/main" in text


def test_the_feed_lists_each_published_post_with_title_date_summary_and_link(built):
    channel = ElementTree.parse(built / "feed_rss_created.xml").getroot().find("channel")
    items = {item.findtext("link"): item for item in channel.findall("item")}
    assert set(items) == {channel.findtext("link") + "posts/numpy-primitive-vjp/",
                          channel.findtext("link") + "posts/custom-primitive/"}
    for item in items.values():
        assert item.findtext("title") and "2026" in item.findtext("pubDate")
        assert len(item.findtext("description")) > 20


def test_each_post_has_a_canonical_link_and_its_first_paragraph_as_description(built):
    page = read_page(built, "posts/custom-primitive/")
    assert re.search(r'<link rel="canonical" href="https?://[^"]+/posts/custom-primitive/">', page.html)
    description = re.search(r'<meta name="description" content="([^"]+)">', page.html).group(1)
    assert description.startswith("如果一个计算已经被声明为 primitive，Autograd 就把它当作原子调用。")
