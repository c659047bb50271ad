"""Every stamp leads to its evidence (issue 56): the stamp under an output or a figure links to the record of the
run behind it, on the script's page; the record names that run (its environment, date, time and digests), says
whether the build took it from its cache, lists the stamps that link to it and, under a tolerance, each number
printed otherwise than recorded; the records are also one JSON file beside the archive."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selectolax.lexbor import LexborHTMLParser

from fixture_site import SCRIPT, SCRIPT_TEXT, make_site
from parity import reached

STAMP_RE = re.compile(r"Python (?P<python>[0-9.]+) · numpy (?P<numpy>[0-9.]+) · autograd (?P<autograd>[0-9.]+) · "
                      r"运行 (?P<seconds>[0-9.]+) s · (?P<cached>缓存，)?验证于 (?P<date>[0-9-]+)")


def page(built: Path, url: str) -> LexborHTMLParser:
    return LexborHTMLParser((built / url / "index.html").read_text(encoding="utf-8"))


def stamps(built: Path, url: str) -> list[tuple[str, str]]:
    """Each stamp of the page at `url`: (its words, where its link leads)."""
    return [(link.text(), reached(url, link.attributes["href"])) for link in page(built, url).css(".proof-card__stamp a")]


def record_at(built: Path, target: str):
    """The record a link leads to: the section of its page with the link's fragment as id."""
    path, fragment = target.split("#", 1)
    return page(built, path).css_first(f"section.series-run#{fragment}")


def test_every_stamp_links_to_the_record_of_its_run_which_names_the_same_run(tmp_path):
    built, log = make_site(tmp_path).build()
    assert built is not None, log
    found = stamps(built, "posts/p/")
    assert len(found) == 1
    words, target = found[0]
    assert target.startswith("experiments/show/#run-")
    record = record_at(built, target)
    assert record is not None, target
    said = STAMP_RE.search(words).groupdict()
    facts = "".join(record.text().split())
    assert f"Python{said['python']}·numpy{said['numpy']}·autograd{said['autograd']}·平台" in facts
    assert f"运行于{said['date']}（UTC），用时{said['seconds']}s" in facts
    printed = hashlib.sha256("node value 3\nparents []\n".encode()).hexdigest()  # what the fixture's script prints
    assert record.css_first(".series-run__digest").text() == printed
    assert [item.text(deep=True).split("（")[0] for item in record.css(".series-run__stamps li")] == ["第一篇：Fixture post"]
    assert "docs/posts/p.md第32行的OUTPUT" in "".join(record.css_first(".series-run__stamps").text().split())
    runs = json.loads((built / "downloads" / "runs.json").read_text(encoding="utf-8"))["scripts"][SCRIPT]
    assert [(run["anchor"], run["printed"], run["verified_on"], run["environment"]["python"], run["cached"])
            for run in runs] == [(target.split("#")[1], printed, said["date"], said["python"], False)]
    assert runs[0]["stamps"] == [{"post": "docs/posts/p.md", "line": 32, "kind": "OUTPUT", "within_tolerance": []}]


def test_a_cached_runs_stamp_and_record_both_say_it_came_from_the_cache_and_when_it_ran(tmp_path):
    site = make_site(tmp_path)
    first, log = site.build()
    assert first is not None, log
    (_, fresh), = stamps(first, "posts/p/")
    fresh_record = "".join(record_at(first, fresh).text().split())
    built, log = site.build()  # the same inputs: the run comes from the build's cache
    assert built is not None, log
    (words, target), = stamps(built, "posts/p/")
    said = STAMP_RE.search(words).groupdict()
    assert said["cached"] == "缓存，" and target != fresh  # a record names its run: from the cache, another record
    record = "".join(record_at(built, target).text().split())
    assert "（取自缓存）" in record and f"运行于{said['date']}（UTC），用时{said['seconds']}s；本次构建取自缓存" in record
    assert "取自缓存" not in fresh_record


def test_under_a_tolerance_the_record_shows_each_number_printed_otherwise_and_how_far_apart(tmp_path):
    site = make_site(tmp_path)
    (site.root / SCRIPT).write_text(SCRIPT_TEXT + "print('x = 2.53221860000001')\n", encoding="utf-8")
    site.edit(f"File: {SCRIPT}\n\n```text\nnode value 3\nparents []\n",
              f"File: {SCRIPT}\nTolerance: 1e-7\n\n```text\nnode value 3\nparents []\nx = 2.5322186\n")
    built, log = site.build()
    assert built is not None, log
    (_, target), = stamps(built, "posts/p/")
    shown = "".join(record_at(built, target).css_first(".series-run__stamps").text().split())
    line = site.post.read_text(encoding="utf-8").split("\n").index("x = 2.5322186") + 1
    assert f"在容差内与记录不同的数字第{line}行记录2.5322186，打印2.53221860000001，相差1e-14" in shown
    run, = json.loads((built / "downloads" / "runs.json").read_text(encoding="utf-8"))["scripts"][SCRIPT]
    assert run["stamps"][0]["within_tolerance"] == [{"line": line, "recorded": "2.5322186",
                                                      "printed": "2.53221860000001", "apart": "1e-14"}]


@pytest.mark.real_site
def test_the_overview_says_where_the_records_are(built):
    links = [a.attributes["href"] for a in page(built, "").css("article a")]
    assert "downloads/runs.json" in links
    scripts = json.loads((built / "downloads" / "runs.json").read_text(encoding="utf-8"))["scripts"]
    assert scripts and all(runs for runs in scripts.values())


POSTS = sorted(Path(__file__).resolve().parent.parent.glob("docs/posts/*.md"))


@pytest.mark.real_site
@pytest.mark.parametrize("post", POSTS, ids=[post.stem for post in POSTS])
def test_every_stamp_of_a_real_post_links_to_a_record_of_the_same_run(built, post):
    url = f"posts/{post.stem}/"
    found = stamps(built, url)
    assert found, f"{url} has no stamp"
    for words, target in found:
        record = record_at(built, target)
        assert record is not None, (url, target)
        said = STAMP_RE.search(words).groupdict()
        facts = "".join(record.text().split())
        assert f"Python{said['python']}·numpy{said['numpy']}·autograd{said['autograd']}" in facts, target
        assert f"运行于{said['date']}（UTC），用时{said['seconds']}s" in facts, target
        assert (said["cached"] is not None) == ("本次构建取自缓存" in facts), target
        assert f"docs/posts/{post.name}" in facts  # the record lists this post's stamp
        assert urlsplit(target).path.startswith("experiments/")
