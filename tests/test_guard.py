"""The rendered-page guard: it does not trust the parser, so a block that escapes parsing still fails."""

from __future__ import annotations

import dataclasses

import pytest

from codeproof.engine import Engine
from codeproof.guard import check_page
from fixture_site import make_site

POST = "docs/posts/x.md"
SOURCE = ["Intro.", "", "[REAL SOURCE]", "File: a.py"]
CODE_LINE = '<span id="l1"><a href="#l1"></a><span class="p">[</span><span class="n">REAL</span> SOURCE<span class="p">]</span>\n</span>'


def guard(html: str, cards: int = 0):
    return check_page(html, POST, SOURCE, 5, cards)


def test_marker_text_in_plain_code_is_a_problem_at_the_markers_source_line():
    (problem,) = guard(f'<div class="highlight"><pre><code>{CODE_LINE}File: a.py</code></pre></div>')
    assert str(problem).startswith(
        f"{POST}:7: the rendered page shows '[REAL SOURCE]' outside a verified card: "
        "a [REAL SOURCE] block was published without being verified"
    )


def test_marker_text_in_a_paragraph_is_a_problem_whatever_its_width_or_invisible_characters():
    (problem,) = guard("<p>\u200b\uff3bReal Source\uff3d\nFile: a.py</p>")
    assert "a [REAL SOURCE] block was published without being verified" in problem.message


@pytest.mark.parametrize("wrapper", ['<div class="proof-card proof-card--source">{}</div>',
                                     '<div class="proof-error">{}</div>',
                                     '<div class="language-markdown highlight"><pre><code>{}</code></pre></div>'])
def test_marker_text_inside_cards_error_boxes_and_markdown_examples_is_allowed(wrapper):
    html = wrapper.format(CODE_LINE)
    assert guard(html, cards=html.count("proof-card ")) == []


def test_prose_that_mentions_a_marker_is_allowed():
    assert guard("<p>头部自成一段：<code>[REAL SOURCE]</code> 一行，随后是字段。</p>") == []


def test_a_card_the_engine_did_not_prove_is_a_problem():
    (problem,) = guard('<div class="proof-card proof-card--source"><pre>x = 1</pre></div>', cards=0)
    assert problem.message == "the rendered page has 1 verified cards, but 0 blocks were verified"


def test_a_proved_block_missing_from_the_page_is_a_problem():
    (problem,) = guard("<p>nothing</p>", cards=1)
    assert problem.message == "the rendered page has 0 verified cards, but 1 blocks were verified"


def test_a_block_the_parser_misses_still_fails_the_build(tmp_path, monkeypatch):
    """Defence in depth: with a parser blind to every block, the strict build fails on the page."""
    site = make_site(tmp_path)
    real_prove = Engine.prove_page

    def blind(self, parsed, link):
        return real_prove(self, dataclasses.replace(parsed, blocks=[]), link)

    monkeypatch.setattr(Engine, "prove_page", blind)
    built, log = site.build()
    assert built is None
    assert "docs/posts/p.md:9: the rendered page shows '[REAL SOURCE]' outside a verified card" in log
    assert "docs/posts/p.md:21: the rendered page shows '[EXPERIMENT]' outside a verified card" in log
    assert "docs/posts/p.md:32: the rendered page shows '[OUTPUT]' outside a verified card" in log
