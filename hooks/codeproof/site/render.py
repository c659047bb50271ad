"""Render verified blocks as Markdown for MkDocs: a card head in HTML, the code as a fence.

The HTML comes from the Jinja2 templates in templates/, with autoescape on, so every value taken from
a post or a file is escaped wherever it lands, text or attribute. The code goes in a Markdown fence that
no run of backticks in it can close, and pymdownx.highlight (Pygments) renders it with the file's real
first line number. The fence, and a figure the engine drew or cleaned, are the values passed to a template as they
are (Markup).
"""

from __future__ import annotations

import secrets
import textwrap

from markupsafe import Markup
from selectolax.lexbor import LexborNode

from codeproof.common.fences import fence
from codeproof.common.kinds.base import Kind
from codeproof.common.pagetree import Tree
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


def sealed_cards(tree: Tree, css: str, seal: str) -> list[LexborNode]:
    """The sealed cards of the kind whose `css` this is ("source", "experiment"...) in a rendered page's tree, in
    order: the engine's own, which nothing an author writes can show (see guard)."""
    opening = f"{CARD_CLASS} {card_class(css)}"
    return [node for node in tree.css(f"div[{SEAL_ATTRIBUTE}]")
            if node.attributes.get(SEAL_ATTRIBUTE) == seal and node.attributes.get("class") == opening]


def copied_lines(tree: Tree, seal: str, cards: list[tuple[str, Excerpt]]) -> None:
    """The quote cards of a rendered page (its tree, still sealed) give their copy button the quoted lines as in
    the file (`data-copy`, which Material's copy button takes), indentation included: what a quote of them must
    hold. `cards` is each verified quote card's kind (its css: "source", "experiment") and lines, in the page's
    order per kind. Added to the tree after Markdown, which would expand tabs and entities in an attribute it reads."""
    found = {kind: iter(sealed_cards(tree, kind, seal)) for kind, _ in cards}
    for kind, excerpt in cards:
        card = next(found[kind], None)
        if card is not None:
            card.attrs["data-copy"] = excerpt.text


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


def output_console(path: str, output: str, stamp: str, record: str, seal: str) -> str:
    """`record`: where the run's record is, which the stamp links to."""
    return sealed("output_console.html", seal, BlockKind.OUTPUT, path=path, stamp=stamp, record=record,
                   fence=fence(output, BlockKind.OUTPUT.lang))


def figure_card(path: str, page_url: str, svg: str, stamp: str, record: str, seal: str,
                traced: str | None = None) -> str:
    """`svg` is a figure the engine drew or cleaned (experiments.figures, site.graphs): inline, on one line.
    `record`: where the run's record is, which the stamp links to; `traced`: the call whose graph it is."""
    return sealed("figure_card.html", seal, BlockKind.FIGURE, path=path, page_url=page_url,
                   svg=Markup(svg), stamp=stamp, record=record, traced=traced)


def problem_box(problem: Problem, seal: str) -> str:
    """What `mkdocs serve` shows in place of a block that failed, so the author sees it while typing."""
    return sealed("problem_box.html", seal, fence=fence(str(problem), "text"))
