"""The check of the output folder once the host has built it (`codeproof.site.published`), under MkDocs here
(tests/test_zensical.py runs it under Zensical): what a theme's template or the site's settings put on a page after
its content was guarded."""

from __future__ import annotations

import yaml
from selectolax.lexbor import LexborHTMLParser

from codeproof.site import published
from fixture_site import make_site, report


def with_overrides(site, templates: dict[str, str]) -> None:
    """The fixture site's theme with a folder of templates ({file name: text}) overriding its own."""
    folder = site.root / "overrides"
    folder.mkdir()
    for name, text in templates.items():
        (folder / name).write_text(text, encoding="utf-8")
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = "overrides"
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")


def test_the_built_fixture_site_passes_the_check_of_its_output(tmp_path):
    built, log = make_site(tmp_path).build()
    assert built is not None, log
    assert (built / "posts" / "p" / "index.html").read_text(encoding="utf-8").count('<div class="proof-card ') == 3


def test_a_theme_page_that_shows_a_card_fails_the_build_and_publishes_nothing(tmp_path):
    site = make_site(tmp_path)
    with_overrides(site, {"404.html": '{% extends "base.html" %}\n'
                                      '{% block content %}<div class="proof-card">✓ 输出已验证</div>{% endblock %}\n'})
    built, log = site.build()
    assert built is None
    assert ("site/404.html:1: the published page holds 1 cards, but the build verified 0\n  hint: the theme's "
            "template adds or drops cards: render only page.content") in report(log)


def test_a_theme_template_that_changes_a_cards_words_fails_the_build(tmp_path):
    site = make_site(tmp_path)
    with_overrides(site, {"content.html": '{{ page.content | replace("parents []", "parents [forged]") }}\n'})
    built, log = site.build()
    assert built is None
    assert "docs/posts/p.md:1: the published page's card 3 shows other words than the build verified: " in report(log)


def test_a_face_in_the_sites_settings_that_a_page_shows_fails_the_build(tmp_path):
    site = make_site(tmp_path)
    config = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    config["site_description"] = "✓ 输出已验证"
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert "the published page shows '输出已验证', a card's face, outside any verified card" in report(log)


def test_a_template_of_the_generated_pages_that_shows_a_face_fails_the_build(tmp_path):
    """The source pages are read for faces in one of them (one template draws every page the build adds, from the
    engine's values): a template that adds a face shows it there, and on the script's page and the map."""
    site = make_site(tmp_path)
    with_overrides(site, {"series-page.html": '{% extends "main.html" %}\n'
                                                '{% block content %}<p>✓ 输出已验证</p>{% endblock %}\n'})
    built, log = site.build()
    assert built is None
    said = report(log)  # said once, at the first file, naming the others
    assert ("site/experiments/show/index.html:1: the published page shows '输出已验证', a card's face, outside any "
            "verified card") in said and "site/source/index.html:1" in said and "site/source/pkg/mod.py/index.html:1" in said


def test_a_page_is_parsed_again_only_when_its_text_changed(tmp_path, monkeypatch):
    """Serve's every rebuild writes every page again, and an edit changes a few: the check remembers its reading
    of a page's text, and reads a changed page anew (the second check sees the face the first could not)."""
    built, log = make_site(tmp_path).build()
    assert built is not None, log
    parsed = []
    monkeypatch.setattr(published, "LexborHTMLParser", lambda text: parsed.append(text) or LexborHTMLParser(text))
    published._reading.cache_clear()
    pages = sorted(built.rglob("*.html"))
    assert pages and published.output_problems(built, []) == published.output_problems(built, [])
    assert len(parsed) == len(pages)
    post = built / "posts" / "p" / "index.html"
    post.write_text(post.read_text(encoding="utf-8").replace("</body>", "<p>✓ 输出已验证</p></body>"), encoding="utf-8")
    said = [problem.message for problem in published.output_problems(built, [])]
    assert len(parsed) == len(pages) + 1
    assert "the published page shows '输出已验证', a card's face, outside any verified card" in said
