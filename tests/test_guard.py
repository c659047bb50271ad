"""The rendered-page guard: it does not trust the parser, so a block that escapes parsing still fails."""

from __future__ import annotations

import dataclasses
import time

import pytest

from codeproof.blocks import parse_post
from codeproof.engine import Engine
from codeproof.guard import check_page, check_titles, unseal
from fixture_site import make_site

POST = "docs/posts/x.md"
SOURCE = ["Intro.", "", "[REAL SOURCE]", "File: a.py"]
SEAL = "5eal" * 8
CODE_LINE = '<span id="l1"><a href="#l1"></a><span class="p">[</span><span class="n">REAL</span> SOURCE<span class="p">]</span>\n</span>'
CARD = f'<div class="proof-card proof-card--source" data-codeproof="{SEAL}"><pre><code>x = 1</code></pre></div>'
EXAMPLE = '<div class="language-markdown highlight"><pre><span></span><code>{}</code></pre></div>'


def guard(html: str, cards: int = 0, reported: frozenset = frozenset()):
    return check_page(html, POST, SOURCE, 5, cards, SEAL, set(reported))


def test_marker_text_in_plain_code_is_a_problem_at_the_markers_source_line():
    (problem,) = guard(f'<div class="highlight"><pre><code>{CODE_LINE}File: a.py</code></pre></div>')
    assert str(problem).startswith(
        f"{POST}:7: the rendered page shows [REAL SOURCE] outside a verified card: a block was published without "
        "being verified, or the text names a marker outside inline code"
    )


def test_marker_text_in_a_paragraph_is_a_problem_whatever_its_width_or_invisible_characters():
    (problem,) = guard("<p>\u200b\uff3bReal Source\uff3d\nFile: a.py</p>")
    assert "the rendered page shows [REAL SOURCE] outside a verified card" in problem.message


def test_a_marker_heading_with_its_permalink_is_a_problem():
    (problem,) = guard('<h2 id="x">[REAL SOURCE]<a class="headerlink" href="#x">&para;</a></h2>')
    assert "the rendered page shows [REAL SOURCE] outside a verified card" in problem.message


@pytest.mark.parametrize("html", [
    f'<div class="proof-card proof-card--source" data-codeproof="{SEAL}"><pre><code>{CODE_LINE}</code></pre></div>',
    f'<div class="proof-error" data-codeproof="{SEAL}"><pre><code>{CODE_LINE}</code></pre></div>',
    EXAMPLE.format(CODE_LINE),
])
def test_marker_text_in_sealed_cards_error_boxes_and_markdown_examples_is_allowed(html):
    assert guard(html, cards=html.count("proof-card ")) == []


def test_marker_text_in_a_hand_written_markdown_wrapper_but_not_its_code_is_a_problem():
    (problem,) = guard('<div class="language-markdown highlight"><p>[REAL SOURCE]\nFile: a.py</p></div>')
    assert "the rendered page shows [REAL SOURCE] outside a verified card" in problem.message


def test_prose_that_mentions_a_marker_is_allowed():
    assert guard("<p>头部自成一段：<code>[REAL SOURCE]</code> 一行，随后是字段。</p>") == []


@pytest.mark.parametrize("forgery", [
    '<div class="proof-card proof-card--source"><pre>x = 1</pre></div>',
    '<div class="proof-card proof-card--source" data-codeproof="guessed"><pre>x = 1</pre></div>',
    '<div class="proof-card proof-card--source" class="x"><pre>x = 1</pre></div>',
    EXAMPLE.format("") + '<div class="language-markdown"><div class="proof-card"><pre>x</pre></div></div>',
    '<div class="proof-error"><p>looks like an error box</p></div>',
])
def test_a_card_or_error_box_the_engine_did_not_render_is_a_forgery(forgery):
    problems = guard(CARD + forgery, cards=1)
    assert problems[0].message.startswith("the page holds a hand-written proof-")
    assert problems[0].message.endswith("element: only the build renders verified cards")


def test_the_sealed_cards_must_be_the_blocks_verified():
    assert guard(CARD, cards=1) == []
    (problem,) = guard("<p>nothing</p>", cards=1)
    assert problem.message == "the rendered page has 0 verified cards, but 1 blocks were verified"


def test_a_marker_is_blamed_on_a_source_line_not_already_reported():
    source = ["[REAL SOURCE]", "", "## [REAL SOURCE]"]
    (problem,) = check_page("<h2>[REAL SOURCE]</h2>", POST, source, 10, 0, SEAL, {10})
    assert problem.line == 12


def test_unseal_removes_the_seal_and_nothing_else():
    assert unseal(CARD, SEAL) == '<div class="proof-card proof-card--source"><pre><code>x = 1</code></pre></div>'


def test_a_block_the_parser_misses_still_fails_the_build(tmp_path, monkeypatch):
    """Defence in depth: with a parser blind to every block, the strict build fails on the page."""
    site = make_site(tmp_path)
    real_prove = Engine.prove_page

    def blind(self, parsed, link):
        return real_prove(self, dataclasses.replace(parsed, blocks=[]), link)

    monkeypatch.setattr(Engine, "prove_page", blind)
    built, log = site.build()
    assert built is None
    assert "docs/posts/p.md:9: the rendered page shows [REAL SOURCE] outside a verified card" in log
    assert "docs/posts/p.md:21: the rendered page shows [EXPERIMENT] outside a verified card" in log
    assert "docs/posts/p.md:32: the rendered page shows [OUTPUT] outside a verified card" in log


@pytest.mark.parametrize("html, refused", [
    ("<style>.proof-card code::after { content: 'x' }</style>", "a <style> element"),
    ("<script>document.title = 1</script>", "a <script> element"),
    ('<link rel="stylesheet" href="x.css">', "a <link> element"),
    ("<svg><text>x</text></svg>", "a <svg> element"),
    ('<input value="[OUTPUT] FAKE">', "a <input> element"),
    ('<p style="color: red">x</p>', "a style='color: red' attribute on <p>"),
    ('<img src="x" onerror="alert(1)">', "a onerror='alert(1)' attribute on <img>"),
    ("<span hidden>x</span>", "a hidden='' attribute on <span>"),
    ('<a href="javascript:alert(1)">x</a>', "a href='javascript:alert(1)' attribute on <a>"),
    ('<div class="proof-card--output">x</div>', "a hand-written proof-card--output element"),
    ('<p class="proof-card__stamp">✓ 输出已验证</p>', "a hand-written proof-card__stamp element"),
])
def test_what_would_change_what_a_page_shows_is_refused(html, refused):
    problem = guard(html)[0]
    assert problem.message.startswith(f"the page holds {refused}")


def test_the_alignment_markdown_tables_write_is_allowed():
    assert guard('<table><tr><th style="text-align: center;">a</th></tr></table>') == []


@pytest.mark.parametrize("html", [
    "<p>foo <strong>[OUTPUT]</strong></p>",
    "<p>some text [OUTPUT] in the middle</p>",
    "<p>[OUT<b></b>PUT]</p>",
    "<p>x<span>[</span>OUTPUT]</p>",
    "<table><tr><td>[OUTPUT]</td></tr></table>",
])
def test_a_marker_anywhere_in_the_text_outside_inline_code_is_a_problem(html):
    (problem,) = guard(html)
    assert "the rendered page shows [OUTPUT] outside a verified card" in problem.message


FORGED = '<div class="proof-card proof-card--output"><pre><code>FORGED</code></pre></div>'


@pytest.mark.parametrize("html", [
    f"<p>a</p><!-->{FORGED}<!-- -->",
    f"<![CDATA[ x >{FORGED} ]]>",
    f"<!--->{FORGED}<!-- -->",
])
def test_comment_and_cdata_tricks_do_not_hide_a_forged_card(html):
    messages = [p.message for p in guard(html)]
    assert "the page holds a hand-written proof-card proof-card--output element: only the build renders verified cards" in messages


def test_a_script_behind_a_comment_trick_is_refused():
    assert guard("<!--><script>alert(1)</script><!-- -->")[0].message.startswith("the page holds a <script> element")


@pytest.mark.parametrize("href", ["java&#9;script:alert(1)", "java&#10;script:alert(2)", " JavaScript:alert(3)",
                                  "data:text/html,x"])
def test_script_addresses_are_refused_however_they_are_spelled(href):
    assert "attribute on <a>: it would change what the page shows" in guard(f'<a href="{href}">x</a>')[0].message


@pytest.mark.parametrize("html, refused", [
    ('<img src="https://tracker.invalid/p.png" alt="x">', "a src='https://tracker.invalid/p.png' attribute on <img>"),
    ('<img src="//tracker.invalid/p.png" alt="x">', "a src='//tracker.invalid/p.png' attribute on <img>"),
    ('<video poster="https://x.invalid/p.png"></video>', "a <video> element"),
    ('<picture><source srcset="a.png 1x, https://x.invalid/b.png 2x"></picture>', "a <picture> element"),
])
def test_media_from_another_host_is_refused(html, refused):
    assert guard(html)[0].message.startswith(f"the page holds {refused}")


def test_local_images_and_outside_links_are_allowed():
    assert guard('<p><img src="../assets/diagram.png" alt="图"> <a href="https://github.com/HIPS/autograd">源码</a></p>') == []


@pytest.mark.parametrize("html", ['<p><img src="x.png" alt="[OUTPUT]"></p>', '<p><a href="x" title="[OUTPUT]">x</a></p>',
                                  "<p>[OUTP<code>UT]</code> done</p>", "<p><code>[OUTP</code>UT]</p>"])
def test_a_marker_in_shown_attributes_or_split_across_inline_code_is_a_problem(html):
    (problem,) = guard(html)
    assert "the rendered page shows [OUTPUT] outside a verified card" in problem.message


def test_a_right_to_left_override_is_refused():
    (problem, *_) = guard("<p>\u202e[TUPTUO]\u202c</p>")
    assert problem.message.startswith("the page holds a bidirectional control character (U+202E)")


def test_each_escaped_marker_is_blamed_on_its_own_source_line():
    source = ["[OUTPUT] one", "prose", "[OUTPUT] two"]
    problems = check_page("<p>[OUTPUT] one</p><p>[OUTPUT] two</p>", POST, source, 10, 0, SEAL, set())
    assert [p.line for p in problems] == [10, 12]


@pytest.mark.parametrize("html, refused", [
    ("<p>[OUT<rp>-</rp>PUT]</p>", "a <rp> element"),
    ("<p>[OUT<title>z</title>PUT]</p>", "a <title> element"),
    ("<p>[OUT<noembed>z</noembed>PUT]</p>", "a <noembed> element"),
    ('<p><bdo dir="rtl">[TUPTUO]</bdo></p>', "a <bdo> element"),
    ('<p dir="rtl">x</p>', "a dir='rtl' attribute on <p>"),
    ('<p>[EXPERI<span class="md-toggle">z</span>MENT]</p>', "the class 'md-toggle'"),
    ('<p>[OUT<span class="tabbed-block">XYZ</span>PUT]</p>', "the class 'tabbed-block'"),
    ('<p class="highlight"><span data-linenos="[OUTPUT]"></span></p>', "a data-linenos='[OUTPUT]' attribute on <span>"),
    ('<div class="series-nav">上一篇</div>', "the class 'series-nav'"),
])
def test_what_a_browser_hides_or_reorders_is_refused(html, refused):
    assert any(p.message.startswith(f"the page holds {refused}") for p in guard(html))


@pytest.mark.parametrize("marker", ["\u3010OUTPUT\u3011", "\u27e6REAL SOURCE\u27e7", "\u3014EXPERIMENT\u3015",
                                    "[\u1d0f\u1d1c\u1d1b\u1d18\u1d1c\u1d1b]", "[\u13beUT\u13e2UT]"])
def test_brackets_and_letters_that_only_look_alike_still_make_a_marker(marker):
    (problem,) = guard(f"<p>{marker}</p>")
    assert "outside a verified card" in problem.message


def test_titles_outside_the_page_are_checked_like_the_page():
    problems = check_titles(["第六篇", "<b>[OUTPUT]</b> nav", "<img src=x onerror=alert(1)>"], "mkdocs.yml", 1)
    messages = [p.message for p in problems]
    assert "the page holds a onerror='alert(1)' attribute on <img>: it would change what the page shows" in messages
    assert any("the rendered page shows [OUTPUT] outside a verified card" in m for m in messages)


@pytest.mark.parametrize("html, refused", [
    ("<section>x</section>", "a <section> element"),
    ('<p data-toc-label="x">y</p>', "a data-toc-label='x' attribute on <p>"),
    ('<p translate="no">y</p>', "a translate='no' attribute on <p>"),
])
def test_only_what_markdown_writes_is_allowed(html, refused):
    assert guard(html)[0].message.startswith(f"the page holds {refused}")


def test_while_serving_a_page_the_guard_refuses_shows_its_problems_instead(tmp_path):
    site = make_site(tmp_path)
    forged = '<div class="proof-card proof-card--output"><pre><code>FORGED</code></pre></div>'
    site.post.write_text(site.post.read_text() + "\n" + forged + "\n", encoding="utf-8")
    built, _ = site.build(command="serve")
    html = (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert "FORGED</code>" not in html
    assert "the page holds a hand-written proof-card proof-card--output element" in html


@pytest.mark.parametrize("marker", ["[OUTPU\u1e6c]", "[\u022eUTPUT]", "[REAL SOURC\u0116]", "[OUT\u200aPUT]",
                                    "[EXPERlMENT]", "[REAL S0URCE]"])
def test_accents_spaces_and_ascii_look_alikes_still_make_a_marker(marker):
    (problem,) = guard(f"<p>{marker}</p>")
    assert "outside a verified card" in problem.message


@pytest.mark.parametrize("html", ['<p>[OUT<span class="highlight"><code><a id="h1">X</a></code></span>PUT]</p>',
                                  '<p>[OUT<a class="headerlink" href="#t6">X</a>PUT]</p>'])
def test_text_the_theme_hides_is_refused(html):
    assert any(p.message.startswith("the page holds text the theme hides ('X'") for p in guard(html))


@pytest.mark.parametrize("html", ['<div class="admonition example"><p class="admonition-title">OUTPUT</p></div>',
                                  "<details><summary>Real Source</summary><p>x</p></details>"])
def test_a_box_titled_like_a_card_is_refused(html):
    assert "a card's label outside a card would pass for a verified one" in guard(html)[0].message


def test_quotation_elements_are_refused_as_the_browser_draws_brackets_around_them():
    assert any(p.message.startswith("the page holds a <q> element") for p in guard('<p><q lang="ja"><q>OUTPUT</q></q></p>'))


@pytest.mark.parametrize("line", ["[OUTPUT]" + "~" * 100_000 + "x", "~~~a" + " " * 100_000 + "b",
                                  "File: a" + " " * 100_000 + "b"])
def test_a_very_long_line_is_read_in_linear_time(line):
    started = time.monotonic()
    parse_post(POST, f"[OUTPUT]\n{line}\n\n{line}\n")
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("html, refused", [
    ('<div class="admonition success"><p class="admonition-title">REAL SOURCE · autograd/core.py L101–L107</p></div>',
     "a <p> reading 'REAL SOURCE AUTOGRAD CORE PY L101 L107'"),
    ("<div><p><strong>REAL SOURCE</strong></p></div>", "a <p> reading 'REAL SOURCE'"),
    ("<dl><dt>File</dt><dd>autograd/core.py</dd></dl>", "a <dl> element"),
    ('<div class="highlight"><pre><code><span class="linenos" data-linenos="101 "></span>fake</code></pre></div>',
     "a data-linenos='101 ' attribute on <span>"),
])
def test_a_cards_label_rows_or_line_numbers_outside_a_card_are_refused(html, refused):
    assert any(p.message.startswith(f"the page holds {refused}") for p in guard(html))


@pytest.mark.parametrize("marker", ["[\U0001f17e\U0001f184\U0001f183\U0001f17f\U0001f184\U0001f183]", "[\u25cbUTPUT]",
                                    "[EXPER\u4e28MENT]", "\u23a1OUTPUT\u23a6", "[\U0001f1f4\U0001f1fa\U0001f1f9\U0001f1f5\U0001f1fa\U0001f1f9]"])
def test_letters_and_brackets_named_like_latin_ones_still_make_a_marker(marker):
    (problem,) = guard(f"<p>{marker}</p>")
    assert "outside a verified card" in problem.message
