"""A build of the site driven without MkDocs (codeproof.build): the hook only passes MkDocs' events in as
plain values, so what a build decides can be asked of it directly."""

from __future__ import annotations

import shutil
from pathlib import Path

import jinja2
import yaml

from codeproof.adapter.hooks import COMPILED_TEMPLATES
from codeproof.build import SiteBuild
from codeproof.engine import Engine
from codeproof.series.config import load_series
from conftest import ROOT
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
                     "downloads/runs.json": True, "source/raw/pkg/mod.py": True, "source/pkg/mod.py.md": False,
                     "source/index.md": False}
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


def test_the_next_build_in_a_process_compiles_only_the_theme_templates_that_changed(tmp_path, monkeypatch):
    """MkDocs makes a new Jinja environment for each build (each `serve` rebuild): the theme's templates are
    compiled once a process, and an edited override again, so the page shows the edit. (Material's own plugins
    compile their language partials in environments of their own, every build.)"""
    site = make_site(tmp_path, material=True)
    overrides = site.root / "overrides"
    shutil.copytree(ROOT / "overrides", overrides)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = str(overrides)
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    compiled, compile_template = [], jinja2.Environment.compile

    def counted(env, source, name=None, *rest, **named):
        compiled.append(name)
        return compile_template(env, source, name, *rest, **named)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    # As in a new process: an earlier test on this worker may have built a Material site, and its templates kept.
    monkeypatch.setattr(COMPILED_TEMPLATES, "_code", {})
    assert site.build()[0]
    theme = {"main.html", "base.html", "partials/header.html", "partials/footer.html"}
    assert theme <= set(compiled)
    compiled.clear()
    assert site.build()[0]
    assert theme & set(compiled) == set()
    main = overrides / "main.html"
    edited = main.read_text(encoding="utf-8").replace("{% block extrahead %}", "{% block extrahead %}<!-- edited -->", 1)
    main.write_text(edited, encoding="utf-8")
    out, log = site.build()
    assert [name for name in compiled if name in theme] == ["main.html"], log
    assert "<!-- edited -->" in (out / "posts" / "p" / "index.html").read_text(encoding="utf-8")
