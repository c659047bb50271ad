"""What the engine renders, pinned byte for byte in tests/golden/ (`./dev.sh test --update-golden` rewrites
them; review the diff). Every value holds characters that markup would read: <, >, &, quotes, | and fences."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from codeproof.common.templates import TEMPLATES
from codeproof.site import overview
from codeproof.site import render
from codeproof.experiments import resources
from codeproof.site import addresses
from codeproof.series.config import Baseline, Series
from codeproof.series.model import series_bar, series_model
from codeproof.common.structure import Excerpt, FileRef, Problem
from codeproof.series.model import Entry
from fixture_site import make_site

SEAL = "0" * 32
CODE = 'def f(x):\n    """A ```fence``` & <tag>."""\n    return x < 1 and "y" | 2\n'
SERIES = Series(
    name="Autograd 源码学习", baseline=Baseline("HIPS/autograd", "90dbeb8d23f0222b0124eaf961f1209db0cf4333", "1.9.1",
                                           "autograd==1.9.1", "7" * 64),
    announced={5: None, 7: "Broadcasting | 的 [反向] 传播"}, git_remote="", root=Path("/nowhere"),
    lock_file=Path("/nowhere/lock"), cache_dir=Path("/nowhere/.cache"), experiment_timeout=120, output_cap=1024)


def post(number: int, title: str, slug: str) -> Entry:
    return Entry(number, title, f"posts/{slug}/", f"posts/{slug}.md", f"docs/posts/{slug}.md", "2026-01-01",
                 excerpt=f"---\n1. 第一段 | 讲 [{title}]。", minutes=number)


def test_a_real_source_card(golden):
    ref = FileRef("HIPS/autograd", "90dbeb8d23f0222b0124eaf961f1209db0cf4333", "autograd/core.py")
    golden("source-card.md", render.source_card(ref, "f", Excerpt(101, 103, CODE.rstrip("\n")), SEAL))


def test_an_experiment_card(golden):
    card = render.experiment_card("experiments/show.py", "../../experiments/show/", 'print "<b>" & more',
                                  Excerpt(3, 5, CODE.rstrip("\n")), SEAL)
    golden("experiment-card.md", card)


def test_an_output_console(golden):
    golden("output-console.md", render.output_console("experiments/show.py", "node <3> & ```\nparents []",
                                                      "✓ 输出已验证 · Python 3.11.7 · 运行 0.01 s",
                                                      "../../experiments/show/#run-0123456789ab", SEAL))


def test_a_problem_box(golden):
    problem = Problem("docs/posts/x.md", 12, "REAL SOURCE autograd/core.py: quote differs",
                      detail="--- quote\n+++ source\n-    return x <= 1\n+    return x < 1 & ```", hint="run `./dev.sh update`")
    golden("problem-box.md", render.problem_box(problem, SEAL))


def test_the_overview_tables_and_texts(golden):
    model = series_model([post(6, "NumPy <Primitive> & VJP", "six"), post(13, "自定义 | Primitive [二]", "thirteen")],
                         SERIES.announced)
    archive = resources.Archive(b"an archive")
    golden("overview.md", "\n\n".join([
        overview.markdown_of("baseline.md", baseline=SERIES.baseline), overview.markdown_of("posts.md", model=model),
        overview.markdown_of("environment.md", pins=[["autograd", "1.9.1"], ["numpy", "2.2.6"]], matrix=None),
        overview.markdown_of("archive.md", archive=archive, url="downloads/x.zip", records="downloads/runs.json"),
    ]) + "\n")


def test_the_overview_of_a_series_with_a_matrix(golden):
    matrix = overview.MatrixFacts((("Python 3.12 + numpy 1.26.4 | [x]", "downloads/a.lock.txt"),), True,
                                  {"experiments/a.py": "1 个环境中一致", "experiments/b|c.py": "1 个环境不同"})
    golden("overview-matrix.md", "\n\n".join([
        overview.markdown_of("environment.md", pins=[["numpy", "2.2.6"]], matrix=matrix),
        overview.markdown_of("experiments.md", page=addresses.script_page_src, matrix=matrix,
                             experiments=[("experiments/a.py", ()), ("experiments/b|c.py", ())]),
    ]) + "\n")


def test_the_series_navigation_of_a_post(golden):
    """The engine's template, which both hosts show around a post."""
    six, thirteen = post(6, 'NumPy "<Primitive>" & VJP', "six"), post(13, "自定义", "thirteen")
    model = series_model([six, thirteen], SERIES.announced)
    for this in (six, thirteen):
        html = TEMPLATES.get_template("series_nav.html").render(
            series={**series_bar(model, this), "link": lambda url: "../../" + url}, nav_label="系列导航")
        golden(f"series-nav-{this.number}.html", html + "\n")


# --- as a build publishes them ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_build(tmp_path_factory) -> Path:
    site, log = make_site(tmp_path_factory.mktemp("golden")).build()
    assert site is not None, log
    return site


def steady(html: str) -> str:
    """What differs from run to run (the fixture repository's commits, versions, times, dates, and so the runs'
    records' anchors) as a name."""
    html = re.sub(r"#run-[0-9a-f]{12}", "#run-<record>", html)
    html = re.sub(r"[0-9a-f]{40}", "<commit>", html)
    html = re.sub(r"@[0-9a-f]{7}", "@<short>", html)
    html = re.sub(r"(Python|numpy|autograd) [0-9.]+", r"\1 <version>", html)
    return re.sub(r"运行 [0-9.]+ s · (缓存，)?验证于 [0-9-]+", "运行 <seconds> s · 验证于 <date>", html)


def element(html: str, selector: str) -> str:
    node = LexborHTMLParser(html).css_first(selector)
    assert node is not None, selector
    return node.html


@pytest.mark.parametrize("kind, selector", [
    ("source", ".proof-card--source"), ("experiment", ".proof-card--experiment"), ("output", ".proof-card--output"),
])
def test_a_published_card(fixture_build, golden, kind, selector):
    html = (fixture_build / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    golden(f"published-{kind}-card.html", steady(element(html, selector)) + "\n")


def test_a_published_record_of_a_run(fixture_build, golden):
    """The record a stamp links to, on the script's page (issue 56)."""
    html = (fixture_build / "experiments" / "show" / "index.html").read_text(encoding="utf-8")
    record = element(html, "section.series-run")
    record = re.sub(r"run-[0-9a-f]{12}", "run-<record>", record)
    record = re.sub(r"<code>[0-9a-f]{12}</code>", "<code><record></code>", record)
    record = re.sub(r"运行于 [0-9-]+（UTC），用时 [0-9.]+ s", "运行于 <date>（UTC），用时 <seconds> s", record)
    record = re.sub(r"平台 [^<]+</li>", "平台 <platform></li>", record)
    golden("published-run-record.html", steady(record) + "\n")


def test_a_published_script_page_header(fixture_build, golden):
    html = (fixture_build / "experiments" / "show" / "index.html").read_text(encoding="utf-8")
    golden("published-script-header.html", element(html, "p.series-script") + "\n")
