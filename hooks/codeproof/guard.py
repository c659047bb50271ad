"""The last check of a rendered page, which does not trust the parser.

The engine seals every card and error box it renders with a secret made anew for each build (an
attribute the guard removes once it has checked the page), so nothing an author writes can pass for
one. On the rendered page:

- an element styled as a card or an error box without the seal is a forgery;
- the page must hold exactly as many sealed cards as the engine verified blocks;
- any line that announces a block (however written: see blocks.marker_kind) outside a sealed card or
  error box, and outside the code of a highlighted Markdown example (a fence that says `markdown`),
  means a block escaped verification.
"""

from __future__ import annotations

from html.parser import HTMLParser

from .blocks import marker_kind
from .problems import Problem
from .render import SEAL_ATTRIBUTE, seal_attribute

SEALED_CLASSES = {"proof-card", "proof-error"}  # what only the engine may render
CARD_CLASS = "proof-card"
EXAMPLE_CLASSES = {"language-markdown", "language-md"}  # set by pymdownx.highlight's pygments_lang_class
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements that end a line of text as a reader sees it.
BREAKS = {"br", "p", "div", "li", "pre", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd",
          "blockquote", "details", "summary", "table", "ul", "ol"}


def unseal(html: str, seal: str) -> str:
    """The page as published: the seal has done its work and is not part of the site."""
    return html.replace(" " + seal_attribute(seal), "")


class _Page(HTMLParser):
    """The page's text outside sealed and example regions, as lines; its sealed cards and its forgeries."""

    def __init__(self, seal: str):
        super().__init__(convert_charrefs=True)
        self.seal = seal
        # (tag, classes, sealed) of the elements we are inside
        self.open: list[tuple[str, set[str], bool]] = []
        self.cards = 0
        self.forged: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        # Every class attribute counts: a browser styles by the first, an attacker may add a second.
        classes = {c for name, value in attrs if name == "class" and value for c in value.split()}
        sealed = any(name == SEAL_ATTRIBUTE and value == self.seal for name, value in attrs)
        if classes & SEALED_CLASSES:
            if not sealed:
                self.forged.append(" ".join(sorted(classes & SEALED_CLASSES)))
            elif CARD_CLASS in classes:
                self.cards += 1
        if tag in BREAKS:
            self.text.append("\n")
        if tag not in VOID:
            self.open.append((tag, classes, sealed and bool(classes & SEALED_CLASSES)))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in BREAKS:
            self.text.append("\n")
        for index in range(len(self.open) - 1, -1, -1):  # close up to the matching element
            if self.open[index][0] == tag:
                del self.open[index:]
                break

    def handle_data(self, data):
        if not self._exempt():
            self.text.append(data)

    def _exempt(self) -> bool:
        if any(sealed for _, _, sealed in self.open):
            return True
        # The code of a highlighted Markdown example: the innermost highlight block says markdown.
        in_code = any(tag == "code" for tag, _, _ in self.open)
        highlight = next((classes for _, classes, _ in reversed(self.open) if "highlight" in classes), set())
        return in_code and bool(highlight & EXAMPLE_CLASSES)


def check_page(html: str, post: str, source_lines: list[str], first_line: int, proved_cards: int,
               seal: str, reported: set[int]) -> list[Problem]:
    """Problems of a rendered page. `source_lines` (the Markdown the page came from, starting at file
    line `first_line`) locate a marker; `reported` are file lines whose problems are already known."""
    page = _Page(seal)
    page.feed(html)
    page.close()
    problems = [
        Problem(post, first_line, f"the page holds a hand-written {name} element: only the build renders verified cards",
                hint="remove the proof-card or proof-error markup from the post")
        for name in page.forged
    ]
    unreported = [first_line + i for i, src in enumerate(source_lines) if marker_kind(src)]
    unreported = [line for line in unreported if line not in reported]
    for text in "".join(page.text).split("\n"):
        kind = marker_kind(text)
        if kind:
            line = next((n for n in unreported if marker_kind(source_lines[n - first_line]) == kind), first_line)
            problems.append(Problem(
                post, line, f"the rendered page shows {text.strip()!r} outside a verified card: a [{kind}] block "
                "was published without being verified",
                hint=f"write the block as the authoring guide shows (`[{kind}]` alone at the start of a line, "
                     "at the top level), or fence an example of the format with ```markdown",
            ))
    if page.cards != proved_cards:
        problems.append(Problem(
            post, first_line, f"the rendered page has {page.cards} verified cards, but {proved_cards} blocks were verified",
            hint="a block was lost in rendering: check the Markdown around the blocks (unclosed HTML, a stray fence)",
        ))
    return problems
