"""Render verified blocks as Markdown for MkDocs: a card head in HTML, the code as a fence.

The HTML comes from the Jinja2 templates in templates/, with autoescape on, so every value taken from
a post or a file is escaped wherever it lands, text or attribute. The code goes in a Markdown fence that
no run of backticks in it can close, and pymdownx.highlight (Pygments) renders it with the file's real
first line number; the fence is the one value passed to a template as it is (Markup).
"""

from __future__ import annotations

import secrets
import textwrap

from markupsafe import Markup, escape

from codeproof.common.fences import fence
from codeproof.common.markers import CARD_LABELS
from codeproof.common.structure import BlockKind, Excerpt, FileRef, Problem
from codeproof.common.templates import TEMPLATES

SEAL_ATTRIBUTE = "data-codeproof"

def new_seal() -> str:
    """A secret made anew for each build: what the engine renders carries it, what an author writes cannot
    (see guard)."""
    return secrets.token_hex(16)


def _render(template: str, seal: str, **values) -> str:
    label = CARD_LABELS.get(values.get("kind"))
    return TEMPLATES.get_template(template).render(seal_name=SEAL_ATTRIBUTE, seal=seal, label=label, **values)


def _copied(excerpt: Excerpt) -> Markup:
    """The quoted lines as an attribute's value, on one line of HTML (a card's head must stay one HTML block)."""
    return Markup(str(escape(excerpt.text)).replace("\r", "&#13;").replace("\n", "&#10;"))


def _code_fence(kind: BlockKind, excerpt: Excerpt, dedent: bool) -> str:
    """The quote as its card shows it, numbered with the file's lines. `dedent` removes the indentation its
    lines share (blank lines, whatever spaces they hold, share any), so a quote from deep inside a function
    does not waste a phone's width; the quote verified, its lines and its links stay those of the file."""
    text = textwrap.dedent(excerpt.text) if dedent else excerpt.text
    return fence(text, kind.lang, f'linenums="{excerpt.first}"')


def source_card(ref: FileRef, symbol: str, excerpt: Excerpt, seal: str, dedent: bool = True,
                onsite: str | None = None) -> str:
    """`onsite`: the quoted lines on the file's page on this site, where the baseline's files are published."""
    base = f"https://github.com/{ref.repo}"
    return _render(
        "source_card.html", seal, kind=BlockKind.SOURCE, css="source", ref=ref, symbol=symbol, excerpt=excerpt, onsite=onsite,
        permalink=f"{base}/blob/{ref.commit}/{ref.path}#L{excerpt.first}-L{excerpt.last}",
        commit_url=f"{base}/commit/{ref.commit}", fence=_code_fence(BlockKind.SOURCE, excerpt, dedent),
        copy=_copied(excerpt),
    )


def experiment_card(path: str, page_url: str, purpose: str, excerpt: Excerpt, seal: str, dedent: bool = True) -> str:
    """`page_url` is the script's page; the card links to the quoted lines there (#L15-L17, which the page
    marks)."""
    return _render(
        "experiment_card.html", seal, kind=BlockKind.EXPERIMENT, css="experiment", path=path,
        page_url=f"{page_url}#L{excerpt.first}-L{excerpt.last}",
        purpose=purpose, excerpt=excerpt, fence=_code_fence(BlockKind.EXPERIMENT, excerpt, dedent),
        copy=_copied(excerpt),
    )


def output_console(path: str, output: str, stamp: str, seal: str) -> str:
    return _render("output_console.html", seal, kind=BlockKind.OUTPUT, css="output", path=path, stamp=stamp,
                   fence=fence(output, BlockKind.OUTPUT.lang))


def problem_box(problem: Problem, seal: str) -> str:
    """What `mkdocs serve` shows in place of a block that failed, so the author sees it while typing."""
    return _render("problem_box.html", seal, fence=fence(str(problem), "text"))
