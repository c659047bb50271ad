"""Names in highlighted code linked to their definitions: on the source pages, which the engine writes
token by token, and in the REAL SOURCE cards of a rendered post, which pymdownx.highlight wrote.

A name is linked where the cross-reference index (see xref) holds a reference that starts at its line and
column and spans its whole token: the index decides, never the text. A card shows a run of the file's lines,
perhaps without the indentation they share; a card line is linked only where it is its file line with
leading whitespace removed, so a column of the card is always a column of the file.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from html.parser import HTMLParser

from pygments.token import STANDARD_TYPES, Name

from .structure import Reference

# The classes Pygments' HTML formatter gives name tokens (n, nf, nc, nn, nd...): only they can be linked.
NAME_CLASSES = frozenset(css for kind, css in STANDARD_TYPES.items() if kind in Name and css)

Href = Callable[[str, int], str]  # (file, line) of a definition -> its address from the page


class NameLinks:
    """The references of one file, by where they start."""

    def __init__(self, references: Sequence[Reference], href: Href):
        self._at = {(r.line, r.column): r for r in references}
        self._href = href

    def __bool__(self) -> bool:
        return bool(self._at)

    def link(self, text: str, line: int, column: int) -> str | None:
        """The HTML of a name token `text` (unescaped) at line:column, linked; None if it names nothing of
        the package. A decorator's token holds its @, which the name starts after."""
        lead = "@" if text.startswith("@") else ""
        reference = self._at.get((line, column + len(lead)))
        if reference is None or reference.length != len(text) - len(lead):
            return None
        href, tip = html.escape(self._href(reference.path, reference.target_line)), html.escape(reference.tip)
        return f'{lead}<a class="series-xref" href="{href}" data-tip="{tip}">{html.escape(text[len(lead):])}</a>'


def link_card_names(page: str, cards: Sequence[tuple[str, int, NameLinks] | None]) -> str:
    """The rendered post with the names in its REAL SOURCE cards' code linked. `cards` gives, for each such
    card in the page's order, the text of the file it quotes, the file line its code starts at and the
    file's links (None: a card whose file has no page, left as it is)."""
    if not any(cards):
        return page
    reader = _CardCode()
    reader.feed(page)
    reader.close()
    edits = []  # (start, end, html): a token's text and what replaces it, by offsets in `page`
    starts = _line_starts(page)
    for lines, card in zip(reader.cards, cards):
        if card is None or not card[2]:
            continue
        text, first, links = card
        file_lines = text.split("\n")
        for offset, (shown, tokens) in enumerate(lines):
            line = first + offset
            if line > len(file_lines):
                break
            whole = file_lines[line - 1]
            margin = len(whole) - len(shown)
            if margin < 0 or whole[margin:] != shown or whole[:margin].strip():
                continue  # not this file line as quoted: link nothing on it
            for column, token, (start, end) in tokens:
                linked = links.link(token, line, column + margin)
                begin, stop = starts[start[0] - 1] + start[1], starts[end[0] - 1] + end[1]
                if linked is not None and page[begin:stop] == token:  # a name is its own text: nothing else is replaced
                    edits.append((begin, stop, linked))
    for start, end, replacement in sorted(edits, reverse=True):
        page = page[:start] + replacement + page[end:]
    return page


def _line_starts(text: str) -> list[int]:
    """The offset of each line's start, for HTMLParser's (line, column) positions (it counts only \\n)."""
    return [0] + [match.end() for match in re.finditer("\n", text)]


class _CardCode(HTMLParser):
    """The code of each REAL SOURCE card of a rendered post, line by line: each line's text and its name
    tokens (column in the line, text, and the positions where the token's text starts and ends)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cards: list[list[tuple[str, list]]] = []
        self._divs = 0  # divs open inside the current card (0: outside any card)
        self._code = 0  # 1 inside a card's <pre>, 2 inside its <pre><code>
        self._line: list[str] = []  # the current line's text so far
        self._tokens: list = []  # the current line's name tokens
        self._name: tuple[int, tuple[int, int], list[str]] | None = None  # the open name token

    def handle_starttag(self, tag, attrs):
        if tag == "div" and self._divs:
            self._divs += 1
        elif tag == "div" and "proof-card--source" in (dict(attrs).get("class") or "").split():
            self._divs = 1
            self.cards.append([])
        elif self._divs and (self._code, tag) in ((0, "pre"), (1, "code")):
            self._code += 1
        elif self._code == 2 and tag == "span" and dict(attrs).get("class") in NAME_CLASSES:
            line, column = self.getpos()
            self._name = (sum(map(len, self._line)), (line, column + len(self.get_starttag_text())), [])

    def handle_endtag(self, tag):
        if tag == "div" and self._divs:
            self._divs -= 1
        elif self._code == 2 and tag == "span" and self._name is not None:
            column, start, text = self._name
            self._tokens.append((column, "".join(text), (start, self.getpos())))
            self._name = None
        elif (self._code, tag) in ((1, "pre"), (2, "code")):
            if self._code == 2 and ("".join(self._line) or self._tokens):
                self._end_line()
            self._code -= 1

    def handle_data(self, data):
        if self._code != 2:
            return
        for n, piece in enumerate(data.split("\n")):
            if n:
                self._end_line()
            self._line.append(piece)
            if self._name is not None:
                self._name[2].append(piece)

    def _end_line(self):
        self.cards[-1].append(("".join(self._line), self._tokens))
        self._line, self._tokens = [], []
