"""Render verified blocks as Markdown for MkDocs: a card head in HTML, the code as a fence.

The HTML comes from the Jinja2 templates in templates/, with autoescape on, so every value taken from
a post or a file is escaped wherever it lands, text or attribute. The code goes in a Markdown fence that
no run of backticks in it can close, and pymdownx.highlight (Pygments) renders it with the file's real
first line number. The fence, and a figure the engine drew or cleaned, are the values passed to a template as they
are (Markup).
"""

from __future__ import annotations

import html
import secrets
import textwrap

from markupsafe import Markup

from codeproof.common.fences import fence
from codeproof.common.kinds.base import Kind
from codeproof.common.kinds.registry import CARD_CLASS, BlockKind, card_class
from codeproof.common.structure import Excerpt, FileRef, Problem
from codeproof.common.templates import TEMPLATES

SEAL_ATTRIBUTE = "data-codeproof"

def new_seal() -> str:
    """A secret made anew for each build: what the engine renders carries it, what an author writes cannot
    (see guard)."""
    return secrets.token_hex(16)


def sealed(template: str, seal: str, kind: Kind | None = None, **values) -> str:
    """A template rendered sealed: a problem box, or a card with its kind's face (label, name) and class. A kind
    renders its card's own template with it."""
    face = dict(kind=kind, label=kind.label, css=kind.css) if kind else {}
    return TEMPLATES.get_template(template).render(seal_name=SEAL_ATTRIBUTE, seal=seal, **face, **values)


def card_opening(css: str, seal: str) -> str:
    """How a sealed card of the kind whose `css` this is ("source", "experiment"...) starts in a rendered page: the
    engine's own, which nothing an author writes can show (see guard)."""
    return f'<div class="{CARD_CLASS} {card_class(css)}" {SEAL_ATTRIBUTE}="{seal}"'


def copied_lines(html: str, seal: str, cards: list[tuple[str, Excerpt]]) -> str:
    """A rendered page, still sealed, whose quote cards give their copy button the quoted lines as in the file
    (`data-copy`, which Material's copy button takes), indentation included: what a quote of them must hold.
    `cards` is each verified quote card's kind (its css: "source", "experiment") and lines, in the page's order per kind.
    Added to the HTML after Markdown, which would expand tabs and entities in an attribute it reads."""
    pieces, at = [], {kind: 0 for kind, _ in cards}
    for kind, excerpt in cards:
        opening = card_opening(kind, seal)
        start = html.find(opening, at[kind])
        if start < 0:
            break
        at[kind] = start + len(opening)
        pieces.append((at[kind], f' data-copy="{_attribute_text(excerpt.text)}"'))
    for where, attribute in sorted(pieces, reverse=True):
        html = html[:where] + attribute + html[where:]
    return html


def _attribute_text(text: str) -> str:
    """Text as an attribute's value that a browser reads back exactly: the HTML parser would turn a CR into LF."""
    return html.escape(text, quote=True).replace("\r", "&#13;").replace("\n", "&#10;").replace("\t", "&#9;")


def _code_fence(kind: Kind, excerpt: Excerpt, dedent: bool) -> str:
    """The quote as its card shows it, numbered with the file's lines. `dedent` removes the indentation its
    lines share (blank lines, whatever spaces they hold, share any), so a quote from deep inside a function
    does not waste a phone's width; the quote verified, its lines and its links stay those of the file."""
    text = textwrap.dedent(excerpt.text) if dedent else excerpt.text
    return fence(text, kind.lang, f'linenums="{excerpt.first}"')


def source_card(ref: FileRef, symbol: str, excerpt: Excerpt, seal: str, dedent: bool = True,
                onsite: str | None = None) -> str:
    """`onsite`: the quoted lines on the file's page on this site, where the baseline's files are published."""
    base = f"https://github.com/{ref.repo}"
    return sealed(
        "source_card.html", seal, BlockKind.SOURCE, ref=ref, symbol=symbol, excerpt=excerpt, onsite=onsite,
        permalink=f"{base}/blob/{ref.commit}/{ref.path}#L{excerpt.first}-L{excerpt.last}",
        commit_url=f"{base}/commit/{ref.commit}", fence=_code_fence(BlockKind.SOURCE, excerpt, dedent),
    )


def experiment_card(path: str, page_url: str, purpose: str, excerpt: Excerpt, seal: str, dedent: bool = True) -> str:
    """`page_url` is the script's page; the card links to the quoted lines there (#L15-L17, which the page
    marks)."""
    return sealed(
        "experiment_card.html", seal, BlockKind.EXPERIMENT, path=path,
        page_url=f"{page_url}#L{excerpt.first}-L{excerpt.last}",
        purpose=purpose, excerpt=excerpt, fence=_code_fence(BlockKind.EXPERIMENT, excerpt, dedent),
    )


def output_console(path: str, output: str, stamp: str, seal: str) -> str:
    return sealed("output_console.html", seal, BlockKind.OUTPUT, path=path, stamp=stamp,
                   fence=fence(output, BlockKind.OUTPUT.lang))


def figure_card(path: str, page_url: str, svg: str, stamp: str, seal: str, traced: str | None = None) -> str:
    """`svg` is a figure the engine drew or cleaned (experiments.figures, site.graphs): inline, on one line.
    `traced`: the call whose graph it is."""
    return sealed("figure_card.html", seal, BlockKind.FIGURE, path=path, page_url=page_url,
                   svg=Markup(svg), stamp=stamp, traced=traced)


def problem_box(problem: Problem, seal: str) -> str:
    """What `mkdocs serve` shows in place of a block that failed, so the author sees it while typing."""
    return sealed("problem_box.html", seal, fence=fence(str(problem), "text"))
