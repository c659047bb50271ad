"""The series' blocks as a Python-Markdown extension: each block proved and replaced by its sealed card (or by
its problem's box) before Markdown reads the text, so a generator that renders Python-Markdown can host the cards
without MkDocs' events (Zensical, a plain `markdown.Markdown(extensions=[...])`).

The extension proves one post's text with `Engine.prove_page`, the function the MkDocs build's proving phase
(codeproof.build) calls for each post, so both give the same cards; it keeps the result as `proved`: what the
host's page guard needs afterwards (the cards the page must show, the lines accounted for, every problem). It
runs first among the preprocessors, so the blocks are read in the text the author wrote, as the build reads them.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from codeproof.engine import Engine, ProvedPage
from codeproof.series.blocks import parse_post

# Above Python-Markdown's whitespace normalising (30), which expands tabs: a quote is proved as written.
PRIORITY = 40


class CardsExtension(Extension):
    """Cards for one post: `post` is its name in problems (docs/posts/x.md), `first_line` the file line of the
    text's first line (after the front matter), `link` makes a site URL relative to the page, `sources` are the
    package files the site publishes (what a traced graph's nodes link to)."""

    def __init__(self, engine: Engine, post: str, first_line: int = 1, link: Callable[[str], str] = lambda url: url,
                 sources: dict[str, bytes] | None = None):
        super().__init__()
        self.engine, self.post, self.first_line, self.link, self.sources = engine, post, first_line, link, sources
        self.proved: ProvedPage | None = None

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_Cards(md, self), "codeproof_cards", PRIORITY)


class _Cards(Preprocessor):
    def __init__(self, md: Markdown, cards: CardsExtension):
        super().__init__(md)
        self.cards = cards

    def run(self, lines: list[str]) -> list[str]:
        cards = self.cards
        cards.proved = cards.engine.prove_page(parse_post(cards.post, "\n".join(lines), cards.first_line), cards.link,
                                               cards.sources)
        return cards.proved.markdown.split("\n")
