"""A build of the site driven without MkDocs (codeproof.build): the hook only passes MkDocs' events in as
plain values, so what a build decides can be asked of it directly."""

from __future__ import annotations

from pathlib import Path

from codeproof.build import SiteBuild
from codeproof.engine import Engine
from codeproof.series.config import load_series
from fixture_site import SCRIPT, make_site


def a_build(tmp_path) -> tuple[SiteBuild, Path]:
    site = make_site(tmp_path)
    build = SiteBuild(Engine(load_series(site.root / "mkdocs.yml")))
    notes, unreadable = build.read_posts([(site.post, "posts/p.md", "posts/p/")])
    assert (notes, unreadable) == ([], [])
    return build, site.root


def test_the_build_adds_the_scripts_the_archive_and_the_source_pages_and_keeps_generated_pages_out_of_the_nav(tmp_path):
    build, _ = a_build(tmp_path)
    assert build.add_files("mkdocs.yml", lambda src: None, lambda message: None) == []
    build.engine.runner.finish()
    added = {file.src_uri: file.in_nav for file in build.site.files}
    assert added == {SCRIPT: True, "experiments/show.md": False, "downloads/experiments.zip": True,
                     "source/raw/pkg/mod.py": True, "source/pkg/mod.py.md": False, "source/index.md": False}
    assert build.site.page_title("experiments/show.md") == "show.py"
    assert build.problems == []


def test_an_authors_file_where_the_build_adds_one_is_a_problem_and_is_left_out(tmp_path):
    build, root = a_build(tmp_path)
    mine = root / "docs" / "experiments" / "show.md"
    replaced = build.add_files("mkdocs.yml", lambda src: mine if src == "experiments/show.md" else None,
                               lambda message: None)
    build.engine.runner.finish()
    assert replaced == ["experiments/show.md"]
    assert [str(problem) for problem in build.problems] == [
        f"docs/experiments/show.md:1: the build publishes the page of {SCRIPT} at experiments/show.md, which this file would take\n"
        "  hint: rename or move it"]


def test_a_build_proves_each_page_once_before_any_renders(tmp_path, monkeypatch):
    """The proving phase (SiteBuild.prove_posts, at the end of on_files) proves every page of the author's once;
    rendering takes each page's proof, so no post is proved again as MkDocs renders it."""
    from codeproof.build import SiteBuild

    site = make_site(tmp_path)
    proved, rendered = [], []
    prove, render_page = Engine.prove_page, SiteBuild.page_markdown
    monkeypatch.setattr(Engine, "prove_page", lambda self, parsed, *args: proved.append(parsed.post)
                        or prove(self, parsed, *args))
    monkeypatch.setattr(SiteBuild, "page_markdown", lambda self, src_uri, *args: rendered.append((src_uri, len(proved)))
                        or render_page(self, src_uri, *args))
    built, log = site.build()
    assert built is not None, log
    assert sorted(proved) == ["docs/index.md", "docs/posts/p.md"]
    assert rendered and all(count == 2 for _, count in rendered)  # every proof made before the first page renders
