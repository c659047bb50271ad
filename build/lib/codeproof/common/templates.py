"""The engine's Jinja2 templates (templates/), with autoescape on: every value taken from a post or a file is
escaped wherever it lands, text or attribute. The cards, the error boxes, the overview's lists and a new post's
scaffold are all rendered from here."""

from __future__ import annotations

import jinja2
from markupsafe import Markup, escape

TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("codeproof", "templates"),
    autoescape=True,
    keep_trailing_newline=True,
    auto_reload=False,  # they ship with the engine: no file check per card
    undefined=jinja2.StrictUndefined,  # a name a template misspells fails, rather than rendering as nothing
)


MARKDOWN_SIGNS = set("\\`*_{}[]|!#~^=:")  # emphasis, code, attribute lists, links, table cells, headings, marks


def cell(text: object) -> Markup:
    """Text as the content of a Markdown table cell, list item or link text, shown as written: HTML-escaped,
    and every sign Markdown (or an extension) reads written as a character reference, so none of them splits
    a row, ends a link, emphasises or adds an attribute; and on one line, where no block can begin."""
    text = " ".join(str(text).splitlines())  # on one line: at a line's start, `---` or `1.` would begin a block
    return Markup("".join(f"&#{ord(ch)};" if ch in MARKDOWN_SIGNS else str(escape(ch)) for ch in text))


TEMPLATES.filters["cell"] = cell
