"""The last check of a rendered page, which does not trust the parser.

If any line that announces a block (any case, width, spacing or invisible character) survives in
the page's HTML outside a verified card, an error box, or a Markdown example of the format (a fence
that says `markdown`), a block escaped verification and its code would be published unproven. And
the page must hold exactly as many verified cards as the engine proved blocks.
"""

from __future__ import annotations

from html.parser import HTMLParser

from .blocks import marker_kind
from .problems import Problem

# Elements whose text is allowed to hold marker lines: what the engine rendered, and examples.
EXEMPT_CLASSES = {"proof-card", "proof-error", "language-markdown", "language-md"}
CARD_CLASS = "proof-card"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements that end a line of text as a reader sees it.
BREAKS = {"br", "p", "div", "li", "pre", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd",
          "blockquote", "details", "summary", "table", "ul", "ol"}


class _PageText(HTMLParser):
    """The page's text outside exempt elements, as lines, and the number of verified cards."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []  # (tag, exempt) of the elements we are inside
        self.cards = 0
        self.text: list[str] = []

    @property
    def exempt(self) -> bool:
        return any(exempt for _, exempt in self.open)

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        if tag in BREAKS:
            self.text.append("\n")
        if CARD_CLASS in classes and not self.exempt:
            self.cards += 1
        if tag not in VOID:
            self.open.append((tag, bool(classes & EXEMPT_CLASSES)))

    def handle_startendtag(self, tag, attrs):
        if tag in BREAKS:
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in BREAKS:
            self.text.append("\n")
        for index in range(len(self.open) - 1, -1, -1):  # close up to the matching element
            if self.open[index][0] == tag:
                del self.open[index:]
                break

    def handle_data(self, data):
        if not self.exempt:
            self.text.append(data)


def check_page(html: str, post: str, source_lines: list[str], first_line: int, proved_cards: int) -> list[Problem]:
    """Problems of a rendered page: marker lines outside cards, and cards the engine did not prove.
    `source_lines` (the Markdown the page came from, starting at file line `first_line`) locate them."""
    page = _PageText()
    page.feed(html)
    page.close()
    problems = []
    for text in "".join(page.text).split("\n"):
        kind = marker_kind(text)
        if kind:
            line = next((first_line + i for i, src in enumerate(source_lines) if marker_kind(src) == kind), first_line)
            problems.append(Problem(
                post, line, f"the rendered page shows {text.strip()!r} outside a verified card: a [{kind}] block "
                "was published without being verified",
                hint=f"write the block as the authoring guide shows (`[{kind}]` alone at the start of a line, "
                     "at the top level), or fence an example of the format with ```markdown",
            ))
    if page.cards != proved_cards:
        problems.append(Problem(
            post, first_line, f"the rendered page has {page.cards} verified cards, but {proved_cards} blocks were verified",
            hint="a card-like element was written by hand or a block was lost in rendering; remove hand-written "
                 "proof-card markup",
        ))
    return problems
