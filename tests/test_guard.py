"""The rendered-page guard: it does not trust the parser, so a block that escapes parsing still fails."""

from __future__ import annotations

import dataclasses
import time
from html import escape

import pytest

from codeproof.common.markers import card_face
from codeproof.series.blocks import parse_post
from codeproof.engine import Engine
from codeproof.site.guard import check_page, check_titles, unseal
from codeproof.common.structure import Problem
from fixture_site import make_site, report

pytestmark = pytest.mark.kills("guard")  # tests/mutations.py

POST = "docs/posts/x.md"
SOURCE = ["Intro.", "", "[REAL SOURCE]", "File: a.py"]
SEAL = "5eal" * 8
CODE_LINE = '<span id="l1"><a href="#l1"></a><span class="p">[</span><span class="n">REAL</span> SOURCE<span class="p">]</span>\n</span>'
CARD = f'<div class="proof-card proof-card--source" data-codeproof="{SEAL}"><pre><code>x = 1</code></pre></div>'
EXAMPLE = '<div class="language-markdown highlight"><pre><span></span><code>{}</code></pre></div>'

# The reasons the guard gives, each written once here and in full in every expected problem.
NEVER_NEEDED = "a post is Markdown, which never needs one"  # an element Markdown does not write
CHANGES_THE_PAGE = "it would change what the page shows"  # an attribute Markdown does not write
A_STAMP = "outside a card: it would pass for one"
NOT_MARKDOWNS = "Markdown does not write it, and the theme or the site could use it to hide, draw or imitate a part of the page"
ONLY_THE_BUILD = "only the build renders verified cards"  # a proof- element without the seal
LOOKS_LIKE_A_CARD = "a card's label outside a card would pass for a verified one"
HELD_HINT = "remove it from the post: a post is Markdown, and only the build renders cards"


def guard(html: str, cards: int = 0, reported: frozenset = frozenset()):
    return check_page(html, POST, SOURCE, 5, cards, SEAL, set(reported))


def held(what: str, line: int = 5, post: str = POST) -> Problem:
    """The problem of a page that holds what only the build may write (line 5: no source line shows it)."""
    return Problem(post, line, f"the page holds {what}", hint=HELD_HINT)


def face(shown: str, line: int = 5) -> Problem:
    """The problem of a page that shows a card's face (label or stamp) outside a card."""
    return Problem(POST, line, f"the page shows {shown!r} outside a verified card: a card's face (its label, or its "
                               "stamp's wording) would pass for one", hint="remove it from the post: only the build renders cards")


def escaped(kind: str, line: int = 5, post: str = POST) -> Problem:
    """The problem of a marker in the rendered page outside a card (line 7 is SOURCE's `[REAL SOURCE]`)."""
    return Problem(
        post, line,
        f"the rendered page shows [{kind}] outside a verified card: a block was published without being verified, "
        "or the text names a marker outside inline code",
        hint=f"write a block as the authoring guide shows (`[{kind}]` alone at the start of a line, at the top level); "
             "mention a marker in prose as inline code; fence an example of the format with ```markdown",
    )


def test_marker_text_in_plain_code_is_a_problem_at_the_markers_source_line():
    (problem,) = guard(f'<div class="highlight"><pre><code>{CODE_LINE}File: a.py</code></pre></div>')
    assert str(problem) == (
        f"{POST}:7: the rendered page shows [REAL SOURCE] outside a verified card: a block was published without "
        "being verified, or the text names a marker outside inline code\n"
        "  hint: write a block as the authoring guide shows (`[REAL SOURCE]` alone at the start of a line, at the top "
        "level); mention a marker in prose as inline code; fence an example of the format with ```markdown"
    )


def test_marker_text_in_a_paragraph_is_a_problem_whatever_its_width_or_invisible_characters():
    (problem,) = guard("<p>\u200b\uff3bReal Source\uff3d\nFile: a.py</p>")
    assert problem == escaped("REAL SOURCE", line=7)


def test_a_marker_heading_with_its_permalink_is_a_problem():
    (problem,) = guard('<h2 id="x">[REAL SOURCE]<a class="headerlink" href="#x">&para;</a></h2>')
    assert problem == escaped("REAL SOURCE", line=7)


@pytest.mark.parametrize("html", [
    f'<div class="proof-card proof-card--source" data-codeproof="{SEAL}"><pre><code>{CODE_LINE}</code></pre></div>',
    f'<div class="proof-error" data-codeproof="{SEAL}"><pre><code>{CODE_LINE}</code></pre></div>',
    EXAMPLE.format(CODE_LINE),
])
def test_marker_text_in_sealed_cards_error_boxes_and_markdown_examples_is_allowed(html):
    assert guard(html, cards=html.count("proof-card ")) == []


def test_marker_text_in_a_hand_written_markdown_wrapper_but_not_its_code_is_a_problem():
    (problem,) = guard('<div class="language-markdown highlight"><p>[REAL SOURCE]\nFile: a.py</p></div>')
    assert problem == escaped("REAL SOURCE", line=7)


def test_prose_that_mentions_a_marker_is_allowed():
    assert guard("<p>头部自成一段：<code>[REAL SOURCE]</code> 一行，随后是字段。</p>") == []


@pytest.mark.parametrize("forgery, classes", [
    ('<div class="proof-card proof-card--source"><pre>x = 1</pre></div>', "proof-card proof-card--source"),
    ('<div class="proof-card proof-card--source" data-codeproof="guessed"><pre>x = 1</pre></div>',
     "proof-card proof-card--source"),
    ('<div class="proof-card proof-card--source" class="x"><pre>x = 1</pre></div>', "proof-card proof-card--source"),
    (EXAMPLE.format("") + '<div class="language-markdown"><div class="proof-card"><pre>x</pre></div></div>', "proof-card"),
    ('<div class="proof-error"><p>looks like an error box</p></div>', "proof-error"),
])
def test_a_card_or_error_box_the_engine_did_not_render_is_a_forgery(forgery, classes):
    # Its class is refused too, as any class Markdown does not write.
    assert guard(CARD + forgery, cards=1) == [
        held(f"a hand-written {classes} element: {ONLY_THE_BUILD}"),
        held(f"the class {classes.split()[0]!r}: {NOT_MARKDOWNS}"),
    ]


def test_the_sealed_cards_must_be_the_blocks_verified():
    assert guard(CARD, cards=1) == []
    (problem,) = guard("<p>nothing</p>", cards=1)
    assert str(problem) == (
        f"{POST}:5: the rendered page has 0 verified cards, but 1 blocks were verified\n"
        "  hint: a block was lost in rendering: check the Markdown around the blocks (unclosed HTML, a stray fence)"
    )


def test_a_marker_is_blamed_on_a_source_line_not_already_reported():
    source = ["[REAL SOURCE]", "", "## [REAL SOURCE]"]
    (problem,) = check_page("<h2>[REAL SOURCE]</h2>", POST, source, 10, 0, SEAL, {10})
    assert problem == escaped("REAL SOURCE", line=12)


def test_unseal_removes_the_seal_and_nothing_else():
    assert unseal(CARD, SEAL) == '<div class="proof-card proof-card--source"><pre><code>x = 1</code></pre></div>'


def test_a_block_the_parser_misses_still_fails_the_build(tmp_path, monkeypatch):
    """Defence in depth: with a parser blind to every block, the strict build fails on the page."""
    site = make_site(tmp_path)
    real_prove = Engine.prove_page

    def blind(self, parsed, *args):
        return real_prove(self, dataclasses.replace(parsed, blocks=[]), *args)

    monkeypatch.setattr(Engine, "prove_page", blind)
    built, log = site.build()
    assert built is None
    assert report(log) == "3 problems:\n\n" + "\n\n".join(
        str(escaped(kind, line, post="docs/posts/p.md"))
        for kind, line in (("REAL SOURCE", 9), ("EXPERIMENT", 21), ("OUTPUT", 32))
    )


@pytest.mark.parametrize("html, problems", [
    ("<style>.proof-card code::after { content: 'x' }</style>", [held(f"a <style> element: {NEVER_NEEDED}")]),
    ("<script>document.title = 1</script>", [held(f"a <script> element: {NEVER_NEEDED}")]),
    ('<link rel="stylesheet" href="x.css">', [held(f"a <link> element: {NEVER_NEEDED}")]),
    ("<svg><text>x</text></svg>", [held(f"a <svg> element: {NEVER_NEEDED}"), held(f"a <text> element: {NEVER_NEEDED}")]),
    ('<input value="[OUTPUT] FAKE">', [held(f"a <input> element: {NEVER_NEEDED}"),
                                       held(f"a value='[OUTPUT] FAKE' attribute on <input>: {CHANGES_THE_PAGE}"),
                                       escaped("OUTPUT")]),
    ('<p style="color: red">x</p>', [held(f"a style='color: red' attribute on <p>: {CHANGES_THE_PAGE}")]),
    ('<img src="x" onerror="alert(1)">', [held(f"a onerror='alert(1)' attribute on <img>: {CHANGES_THE_PAGE}")]),
    ("<span hidden>x</span>", [held(f"a hidden='' attribute on <span>: {CHANGES_THE_PAGE}")]),
    ('<a href="javascript:alert(1)">x</a>', [held(f"a href='javascript:alert(1)' attribute on <a>: {CHANGES_THE_PAGE}")]),
    ('<div class="proof-card--output">x</div>', [held(f"a hand-written proof-card--output element: {ONLY_THE_BUILD}"),
                                                 held(f"the class 'proof-card--output': {NOT_MARKDOWNS}")]),
    ('<p class="proof-card__stamp">✓ 输出已验证</p>', [held(f"a hand-written proof-card__stamp element: {ONLY_THE_BUILD}"),
                                                   held(f"the class 'proof-card__stamp': {NOT_MARKDOWNS}"),
                                                   face("输出已验证")]),
])
def test_what_would_change_what_a_page_shows_is_refused(html, problems):
    assert guard(html) == problems


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
    assert problem == escaped("OUTPUT")


FORGED = '<div class="proof-card proof-card--output"><pre><code>FORGED</code></pre></div>'


@pytest.mark.parametrize("html", [
    f"<p>a</p><!-->{FORGED}<!-- -->",
    f"<![CDATA[ x >{FORGED} ]]>",
    f"<!--->{FORGED}<!-- -->",
])
def test_comment_and_cdata_tricks_do_not_hide_a_forged_card(html):
    assert guard(html) == [
        held("a hand-written proof-card proof-card--output element: only the build renders verified cards"),
        held(f"the class 'proof-card': {NOT_MARKDOWNS}"),
    ]


def test_a_script_behind_a_comment_trick_is_refused():
    assert guard("<!--><script>alert(1)</script><!-- -->") == [held(f"a <script> element: {NEVER_NEEDED}")]


@pytest.mark.parametrize("href, value", [("java&#9;script:alert(1)", "java\tscript:alert(1)"),
                                         ("java&#10;script:alert(2)", "java\nscript:alert(2)"),
                                         (" JavaScript:alert(3)", " JavaScript:alert(3)"),
                                         ("data:text/html,x", "data:text/html,x")])
def test_script_addresses_are_refused_however_they_are_spelled(href, value):
    assert guard(f'<a href="{href}">x</a>') == [held(f"a href={value!r} attribute on <a>: {CHANGES_THE_PAGE}")]


@pytest.mark.parametrize("html, problems", [
    ('<img src="https://tracker.invalid/p.png" alt="x">',
     [held(f"a src='https://tracker.invalid/p.png' attribute on <img>: {CHANGES_THE_PAGE}")]),
    ('<img src="//tracker.invalid/p.png" alt="x">', [held(f"a src='//tracker.invalid/p.png' attribute on <img>: {CHANGES_THE_PAGE}")]),
    # A browser reads a backslash as a slash: both load https://evil.invalid/…
    *[(f'<img src="{url}" alt="x">', [held("a src=" + repr(url) + f" attribute on <img>: {CHANGES_THE_PAGE}")])
      for url in ("\\\\evil.invalid/x.png", "/\\evil.invalid/y.png")],
    ('<video poster="https://x.invalid/p.png"></video>',
     [held(f"a <video> element: {NEVER_NEEDED}"),
      held(f"a poster='https://x.invalid/p.png' attribute on <video>: {CHANGES_THE_PAGE}")]),
    ('<picture><source srcset="a.png 1x, https://x.invalid/b.png 2x"></picture>',
     [held(f"a <picture> element: {NEVER_NEEDED}"), held(f"a <source> element: {NEVER_NEEDED}"),
      held(f"a srcset='a.png 1x, https://x.invalid/b.png 2x' attribute on <source>: {CHANGES_THE_PAGE}")]),
])
def test_media_from_another_host_is_refused(html, problems):
    assert guard(html) == problems


def test_local_images_and_outside_links_are_allowed():
    assert guard('<p><img src="../assets/diagram.png" alt="图"> <a href="https://github.com/HIPS/autograd">源码</a></p>') == []


@pytest.mark.parametrize("html", ['<p><img src="x.png" alt="[OUTPUT]"></p>', '<p><a href="x" title="[OUTPUT]">x</a></p>',
                                  '<table><tr><td data-label="[OUTPUT]">x</td></tr></table>',
                                  "<p>[OUTP<code>UT]</code> done</p>", "<p><code>[OUTP</code>UT]</p>"])
def test_a_marker_in_shown_attributes_or_split_across_inline_code_is_a_problem(html):
    (problem,) = guard(html)
    assert problem == escaped("OUTPUT")


@pytest.mark.parametrize("html, what", [
    ('<table><tr><td data-label="\u202e[ECRUOS LAER]\u202c源码">x</td></tr></table>',
     "a bidirectional control character (U+202E) in the data-label of <td>: it can make text read as something else"),
    ('<p title="\u202e]TUPTUO[">x</p>',
     "a bidirectional control character (U+202E) in the title of <p>: it can make text read as something else"),
    ('<table><tr><td data-label="REAL SOURCE">def f(): return 42</td></tr></table>',
     "a data-label reading 'REAL SOURCE' on <td>: a card's label outside a card would pass for a verified one"),
    ('<table><tr><td data-label="Real Source 源码 core.py">x</td></tr></table>',
     "a data-label reading 'REAL SOURCE 源码 CORE PY' on <td>: a card's label outside a card would pass for a verified one"),
    ('<p title="Output">x</p>', "a title reading 'OUTPUT' on <p>: a card's label outside a card would pass for a verified one"),
])
def test_text_an_attribute_shows_cannot_be_reversed_or_read_as_a_cards_label(html, what):
    assert guard(html) == [held(what)]


def test_a_table_whose_cells_carry_their_headers_and_code_break_points_is_allowed():
    assert guard('<table><tr><td data-label="File / symbol"><code>a/<wbr>b.<wbr>py</code></td></tr></table>') == []


def test_a_right_to_left_override_is_refused():
    (problem,) = guard("<p>\u202e[TUPTUO]\u202c</p>")
    assert problem == held("a bidirectional control character (U+202E): it can make text read as something else")


def test_each_escaped_marker_is_blamed_on_its_own_source_line():
    source = ["[OUTPUT] one", "prose", "[OUTPUT] two"]
    problems = check_page("<p>[OUTPUT] one</p><p>[OUTPUT] two</p>", POST, source, 10, 0, SEAL, set())
    assert problems == [escaped("OUTPUT", line=10), escaped("OUTPUT", line=12)]


@pytest.mark.parametrize("html, problems", [
    ("<p>[OUT<rp>-</rp>PUT]</p>", [held(f"a <rp> element: {NEVER_NEEDED}")]),
    ("<p>[OUT<title>z</title>PUT]</p>", [held(f"a <title> element: {NEVER_NEEDED}")]),
    ("<p>[OUT<noembed>z</noembed>PUT]</p>", [held(f"a <noembed> element: {NEVER_NEEDED}")]),
    ('<p><bdo dir="rtl">[TUPTUO]</bdo></p>', [held(f"a <bdo> element: {NEVER_NEEDED}"),
                                              held(f"a dir='rtl' attribute on <bdo>: {CHANGES_THE_PAGE}")]),
    ('<p dir="rtl">x</p>', [held(f"a dir='rtl' attribute on <p>: {CHANGES_THE_PAGE}")]),
    ('<p>[EXPERI<span class="md-toggle">z</span>MENT]</p>', [held(f"the class 'md-toggle': {NOT_MARKDOWNS}")]),
    ('<p>[OUT<span class="tabbed-block">XYZ</span>PUT]</p>', [held(f"the class 'tabbed-block': {NOT_MARKDOWNS}")]),
    ('<p class="highlight"><span data-linenos="[OUTPUT]"></span></p>',
     [held(f"a data-linenos='[OUTPUT]' attribute on <span>: {CHANGES_THE_PAGE}")]),
    ('<div class="series-nav">上一篇</div>', [held(f"the class 'series-nav': {NOT_MARKDOWNS}")]),
])
def test_what_a_browser_hides_or_reorders_is_refused(html, problems):
    assert guard(html) == problems


@pytest.mark.parametrize("marker, problem", [
    ("\u3010OUTPUT\u3011", escaped("OUTPUT")), ("\u27e6REAL SOURCE\u27e7", escaped("REAL SOURCE", line=7)),
    ("\u3014EXPERIMENT\u3015", escaped("EXPERIMENT")), ("[\u1d0f\u1d1c\u1d1b\u1d18\u1d1c\u1d1b]", escaped("OUTPUT")),
    ("[\u13beUT\u13e2UT]", escaped("OUTPUT")),
])
def test_brackets_and_letters_that_only_look_alike_still_make_a_marker(marker, problem):
    assert guard(f"<p>{marker}</p>") == [problem]


def test_nav_titles_must_be_plain_text_without_a_marker():
    titles = ["第六篇", "<!--", "[OUTPUT] nav", "A & B", "<i>x"]
    lines = ["nav:", "  - 第六篇: a.md", '  - "<!--": https://example.com/', "  - \"[OUTPUT] nav\": b.md", "  - A & B: c.md"]
    assert [str(p) for p in check_titles(titles, "mkdocs.yml", lambda: lines)] == [
        f"mkdocs.yml:{line}: the nav title {title!r} holds markup characters (<, > or &) or names a block marker, and "
        "the theme prints it as HTML on every page\n  hint: write the titles of the nav as plain text"
        for title, line in (("<!--", 3), ("[OUTPUT] nav", 4), ("A & B", 5), ("<i>x", 1))
    ]


@pytest.mark.parametrize("html, problem", [
    ("<section>x</section>", held(f"a <section> element: {NEVER_NEEDED}")),
    ('<p data-toc-label="x">y</p>', held(f"a data-toc-label='x' attribute on <p>: {CHANGES_THE_PAGE}")),
    ('<p translate="no">y</p>', held(f"a translate='no' attribute on <p>: {CHANGES_THE_PAGE}")),
])
def test_only_what_markdown_writes_is_allowed(html, problem):
    assert guard(html) == [problem]


def test_while_serving_a_page_the_guard_refuses_shows_its_problems_instead(tmp_path):
    site = make_site(tmp_path)
    forged = '<div class="proof-card proof-card--output"><pre><code>FORGED</code></pre></div>'
    site.post.write_text(site.post.read_text() + "\n" + forged + "\n", encoding="utf-8")
    built, _ = site.build(command="serve")
    html = (site.root / "site" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert "FORGED</code>" not in html
    # The forged card is the post's line 42, after the fixture's 40 lines and a blank one.
    shown = "2 problems:\n\n" + "\n\n".join(str(p) for p in (
        held("a hand-written proof-card proof-card--output element: only the build renders verified cards",
             line=42, post="docs/posts/p.md"),
        held(f"the class 'proof-card': {NOT_MARKDOWNS}", line=42, post="docs/posts/p.md"),
    ))
    assert f'<div class="proof-error"><pre>{escape(shown)}</pre></div>' in html


@pytest.mark.parametrize("marker, problem", [
    ("[OUTPU\u1e6c]", escaped("OUTPUT")), ("[\u022eUTPUT]", escaped("OUTPUT")),
    ("[REAL SOURC\u0116]", escaped("REAL SOURCE", line=7)), ("[OUT\u200aPUT]", escaped("OUTPUT")),
    ("[EXPERlMENT]", escaped("EXPERIMENT")), ("[REAL S0URCE]", escaped("REAL SOURCE", line=7)),
])
def test_accents_spaces_and_ascii_look_alikes_still_make_a_marker(marker, problem):
    assert guard(f"<p>{marker}</p>") == [problem]


@pytest.mark.parametrize("html", ['<p>[OUT<span class="highlight"><code><a id="h1">X</a></code></span>PUT]</p>',
                                  '<p>[OUT<a class="headerlink" href="#t6">X</a>PUT]</p>'])
def test_text_the_theme_hides_is_refused(html):
    assert guard(html) == [
        held("text the theme hides ('X' in <a>): a reader does not see it, so it could split what a reader sees"),
    ]


@pytest.mark.parametrize("html, problem", [
    ('<div class="admonition example"><p class="admonition-title">OUTPUT</p></div>',
     held(f"a <p> reading 'OUTPUT': {LOOKS_LIKE_A_CARD}")),
    # blamed on SOURCE's `[REAL SOURCE]` line, the first that holds the words
    ("<details><summary>Real Source</summary><p>x</p></details>",
     held(f"a <summary> reading 'REAL SOURCE': {LOOKS_LIKE_A_CARD}", line=7)),
])
def test_a_box_titled_like_a_card_is_refused(html, problem):
    assert guard(html) == [problem]


def test_quotation_elements_are_refused_as_the_browser_draws_brackets_around_them():
    assert guard('<p><q lang="ja"><q>OUTPUT</q></q></p>') == [
        held(f"a <p> reading 'OUTPUT': {LOOKS_LIKE_A_CARD}"),  # what the reader sees: “OUTPUT”
        held(f"a <q> element: {NEVER_NEEDED}"),
    ]


@pytest.mark.parametrize("line", ["[OUTPUT]" + "~" * 100_000 + "x", "~~~a" + " " * 100_000 + "b",
                                  "File: a" + " " * 100_000 + "b"])
def test_a_very_long_line_is_read_in_linear_time(line):
    """The time is made of regular-expression steps, which nothing counts: this process's processor time, which
    a busy machine does not add to (milliseconds; a pattern that backtracks over the line takes minutes)."""
    started = time.process_time()
    parse_post(POST, f"[OUTPUT]\n{line}\n\n{line}\n")
    assert time.process_time() - started < 2


@pytest.mark.parametrize("html, problems", [
    ('<div class="admonition success"><p class="admonition-title">REAL SOURCE · autograd/core.py L101–L107</p></div>',
     [held(f"a <p> reading 'REAL SOURCE AUTOGRAD CORE PY L101 L107': {LOOKS_LIKE_A_CARD}")]),
    ("<div><p><strong>REAL SOURCE</strong></p></div>",
     [held(f"a <p> reading 'REAL SOURCE': {LOOKS_LIKE_A_CARD}", line=7),
      held(f"a <strong> reading 'REAL SOURCE': {LOOKS_LIKE_A_CARD}", line=7)]),
    ("<dl><dt>File</dt><dd>autograd/core.py</dd></dl>",
     [held(f"a <{tag}> element: {NEVER_NEEDED}") for tag in ("dl", "dt", "dd")]),
    ('<div class="highlight"><pre><code><span class="linenos" data-linenos="101 "></span>fake</code></pre></div>',
     [held(f"the class 'linenos': {NOT_MARKDOWNS}"), held(f"a data-linenos='101 ' attribute on <span>: {CHANGES_THE_PAGE}")]),
    # The card's own face, hand-made: its label, line numbers drawn by the site's style sheet, its stamp.
    ("<p><strong>源码 REAL SOURCE</strong> autograd/core.py</p>", [face("源码 REAL SOURCE")]),
    ("<p>输出 OUTPUT</p>", [face("输出 OUTPUT")]),
    # ... however written: in a <div>, split by markup or code, in traditional or look-alike Han, in an attribute.
    ("<div>源码 REAL SOURCE</div>", [face("源码 REAL SOURCE")]),
    ("<p>源码<code>REAL SOURCE</code></p>", [face("源码 REAL SOURCE")]),
    ("<p>源碼 REAL SOURCE</p>", [face("源码 REAL SOURCE")]),
    ("<p>✓ 输出<span></span>已验证 · Python 3.11.7</p>", [face("输出已验证")]),
    ("<p>✓ 输出己验证 · Python 3.11.7</p>", [face("输出已验证")]),
    ("<p>✓ \ufac2出已验证 · Python 3.11.7</p>", [face("输出已验证")]),  # a compatibility ideograph of 輸
    ('<table><tbody><tr><td data-label="✓ 输出已验证 · Python 3.11.7">ok</td></tr></tbody></table>',
     [face("输出已验证")]),  # shown attributes are read as the page's text
    ('<div class="admonition note"><p class="admonition-title">源码 · autograd/core.py L88–L96</p></div>',
     [held(f"a <p> reading '源码 AUTOGRAD CORE PY L88 L96': {LOOKS_LIKE_A_CARD}")]),
    ('<div class="highlight"><pre><code><span class="linenos">101</span>x = 1</code></pre></div>',
     [held(f"the class 'linenos': {NOT_MARKDOWNS}")]),
    ("<p><em>✓ 输出已验证 · Python 3.11.7 · numpy 2.2.6 · autograd 1.9.1</em></p>", [face("输出已验证")]),
])
def test_a_cards_label_rows_or_line_numbers_outside_a_card_are_refused(html, problems):
    assert guard(html) == problems


@pytest.mark.parametrize("marker, kind", [
    ("[\U0001f17e\U0001f184\U0001f183\U0001f17f\U0001f184\U0001f183]", "OUTPUT"), ("[\u25cbUTPUT]", "OUTPUT"),
    ("[EXPER\u4e28MENT]", "EXPERIMENT"), ("\u23a1OUTPUT\u23a6", "OUTPUT"),
    ("[\U0001f1f4\U0001f1fa\U0001f1f9\U0001f1f5\U0001f1fa\U0001f1f9]", "OUTPUT"),
])
def test_letters_and_brackets_named_like_latin_ones_still_make_a_marker(marker, kind):
    assert guard(f"<p>{marker}</p>") == [escaped(kind)]


def test_prose_may_name_a_cards_label_in_inline_code():
    assert guard("<p>卡片的标签是 <code>源码 REAL SOURCE</code>。</p>") == []


@pytest.mark.parametrize("html, tag", [("<p><s>下面这段输出</p>\n", "s"), ("<p><small>x</p>\n", "small"),
                                       ('<p><a href="https://evil.example/">点这里</p>\n', "a")])
def test_an_element_left_open_before_a_card_is_refused(html, tag):
    """A browser re-opens it inside the card: the verified output struck through, made tiny, or a link elsewhere."""
    assert guard(html + CARD, cards=1) == [
        Problem(POST, 5, f"a <{tag}> is left open, so the browser carries it into the next verified card",
                hint=f"close it (</{tag}>) where it ends, or write it as Markdown")]


def test_an_element_left_open_at_the_end_is_refused():
    assert guard("<p><u>x</p>") == [
        Problem(POST, 5, "a <u> is left open, so the browser carries it on into the rest of the page",
                hint="close it (</u>) where it ends, or write it as Markdown")]


@pytest.mark.parametrize("control", ["\u200e", "\u200f", "\u061c"])
def test_the_marks_that_reorder_text_are_refused_too(control):
    assert guard(f"<p>3{control} - {control}5</p>") == [held(
        f"a bidirectional control character (U+{ord(control):04X}): it can make text read as something else",
        line=5)]


@pytest.mark.parametrize("written, html", [
    ("<p>&#x6e90;码 REAL SOURCE</p>", "<p>源码 REAL SOURCE</p>"),
    ("输出 ＯＵＴＰＵＴ", "<p>输出 ＯＵＴＰＵＴ</p>"),
])
def test_a_face_written_with_references_or_full_width_letters_is_found_at_its_line(written, html):
    """Adversarial A27: the locator looked for the decoded text as written and fell back to the first line."""
    source = ["Intro.", "", "More prose.", written]
    problems = check_page(html, POST, source, 5, 0, SEAL, set())
    assert [p.line for p in problems] == [8]


@pytest.mark.parametrize("written", [
    "| ✓ 输出<span></span>已验证 · Python 3.11.7 |", "<p>✓ 输出<span></span>已验证 · Python 3.11.7</p>",
    "✓ 输出己验证 · Python 3.11.7", "<p>源碼 REAL SOURCE</p>", "✓ 输出已験証 · Python 3.11.7"])
def test_a_face_is_reported_at_the_line_that_writes_it(written):
    """Adversarial round 2 (A2, A4, A5, A7, N2): refused, but blamed on the first line of the post."""
    html = "<p>" + written.strip("|<>p/ ").replace("<span></span>", "") + "</p>"
    source = ["Intro.", "", "源码在这里。", "", written]
    assert [p.line for p in check_page(html, POST, source, 5, 0, SEAL, set())] == [9]


def test_a_face_broken_over_two_lines_of_a_paragraph_is_one_face():
    """A browser shows the line break as a space: `✓ 输出` and `已验证 · …` read as the stamp (N1)."""
    source = ["Intro.", "", "✓ 输出", "已验证 · Python 3.11.7"]
    assert check_page("<p>Intro.</p>\n<p>✓ 输出\n已验证 · Python 3.11.7</p>", POST, source, 5, 0, SEAL, set()) == [
        face("输出已验证", line=7)]


def test_two_blocks_are_never_read_as_one_face():
    assert guard("<p>✓ 输出</p>\n<p>已验证的结果</p>") == []


@pytest.mark.parametrize("html, tag", [
    ("<h4>源码 · autograd/core.py L88–L96 · HIPS/autograd@90dbeb8</h4>", "h4"),
    ("<figure><figcaption>源码 · autograd/core.py L88–L96</figcaption></figure>", "figcaption"),
    ("<table><caption>源碼 · core.py @90dbeb8</caption></table>", "caption"),
])
def test_a_heading_or_caption_that_reads_as_a_cards_head_is_refused(html, tag):
    """Over a made-up code block it would pass for a verified card (N3)."""
    (problem,) = guard(html)
    assert problem.message.startswith(f"the page holds a <{tag}> reading ")
    assert problem.message.endswith(LOOKS_LIKE_A_CARD)


def test_a_heading_that_only_begins_with_a_label_word_is_prose():
    assert guard("<h2>源码导读：core.py 里的 VJPNode L12</h2><h3>输出</h3><h3>源码：core.py</h3>") == []


# --- what a reader sees (integrity round four, class 2) ------------------------------------------------------------


@pytest.mark.parametrize("split", ['<span title="x"></span>', '<abbr title="note"></abbr>',
                                   '<span aria-label="y"></span>', '<img alt="" width="0" height="0">',
                                   '<span title="a"><span title="b"></span></span>'])
def test_a_stamp_split_by_an_element_that_shows_nothing_is_a_stamp(split):
    """Before, an empty element with a text attribute split the guard's reading (the attribute's text was read in
    the flow, with breaks around it), while a browser shows the stamp whole."""
    assert guard(f"<p>✓ 输出{split}已验证</p>") == [face("输出已验证")]


def test_an_images_alt_text_is_read_where_the_image_stands():
    """An image that does not load (or has no size) shows its alt text in its place."""
    assert guard('<p>✓ 输出<img alt="已验证" src="a.png"></p>') == [face("输出已验证")]


def test_an_attribute_is_read_alone_and_may_not_hold_a_stamp():
    assert guard('<p><span title="✓ 输出已验证">a</span></p>') == [face("输出已验证")]


def test_a_code_span_exempts_only_itself_not_the_stamp_beside_it():
    """Before, one inline code span that held the stamp's words exempted the whole paragraph."""
    assert guard("<p>盖章写作 <code>输出已验证</code>。</p>") == []
    assert guard("<p>盖章写作 <code>输出已验证</code>：✓ 输出已验证</p>") == [face("输出已验证")]


def test_a_stamp_or_a_marker_in_a_headings_code_is_refused_as_the_table_of_contents_shows_it_plain():
    """The table of contents shows a heading's text without its code: there the stamp or a block's marker would
    read as the page's own."""
    assert guard('<h2 id="x"><code>✓ 输出已验证</code></h2>') == [face("输出已验证")]
    assert guard('<h2 id="x"><code>[OUTPUT]</code>：实验的输出</h2>') == [escaped("OUTPUT")]


@pytest.mark.parametrize("html", ["<p>✓ 输出<code>已验证<br>✓ 输出已验证</code></p>",
                                  "<p>✓ 输出<code>已验证 ✓ 输出已验证</code></p>",
                                  "<p>源码<code>REAL SOURCE<br>源码 REAL SOURCE</code></p>"])
def test_a_code_span_that_names_a_face_does_not_exempt_the_face_it_completes(html):
    """Review of round four: one span that held a whole face exempted the half of another that it completed."""
    assert guard(html) != []


@pytest.mark.parametrize("variant", ["✓ 输岀已验证", "✓ 输出已騐证", "✓ 输出已验讠正", "✓ 车俞出已验证"])
def test_rarer_han_forms_of_the_stamp_are_the_stamp(variant):
    assert guard(f"<p>{variant}</p>") == [face("输出已验证")]


def test_a_cells_phone_label_is_read_on_the_line_above_its_text():
    """On a phone the style sheet draws a cell's data-label above its text: `✓ 输出` over `已验证` reads as the stamp."""
    assert guard('<table><tr><td data-label="✓ 输出">已验证</td></tr></table>') == [face("输出已验证")]


def test_a_code_span_of_many_faces_is_read_in_n_log_n_readings(monkeypatch):
    """Issue 52 (the second round's attack 31): 40 spans, each `输出已验证` 79 times, took 22 s: each face was found by
    reading every suffix and prefix of the span. Each is now found by bisection: what the time is made of is counted."""
    from codeproof.site import guard

    read = []
    monkeypatch.setattr(guard, "card_face", lambda text: read.append(len(text)) or card_face(text))
    span = "输出已验证" * 79
    assert guard._without_faces(span) == guard.BREAK * 79
    assert len(read) <= 79 * 2 * (len(span).bit_length() + 2)  # was 79 · 2 · len(span): 62,000 readings
