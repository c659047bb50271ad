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
from collections.abc import Callable, Hashable, Sequence
from html.parser import HTMLParser

from pygments.token import STANDARD_TYPES, Name

from codeproof.common.structure import LONE_CR
from codeproof.site.xref import Reference

# The classes Pygments' HTML formatter gives name tokens (n, nf, nc, nn, nd...): only they can be linked.
NAME_CLASSES = frozenset(css for kind, css in STANDARD_TYPES.items() if kind in Name and css)

Href = Callable[[str, int], str]  # (file, line) of a definition -> its address from the page


class NameLinks:
    """The references of one file, by where they start."""

    def __init__(self, references: Sequence[Reference], href: Href, key: Hashable = None):
        """`key`, if given, names all the links are made of (the index, the file, the page they are addressed
        from): a card linked once with links of that key is linked alike for the rest of the process."""
        self._at = {(r.line, r.column): r for r in references}
        self._href = href
        self.key = key

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


def link_card_names(page: str, opening: str, cards: Sequence[tuple[str, int, NameLinks] | None]) -> str:
    """The rendered post with the names in its REAL SOURCE cards' code linked. Each card starts with the text
    `opening` (the engine's own, sealed); `cards` gives, for each in the page's order, the text of the file
    it quotes, the file line its code starts at and the file's links (None: a card left as it is)."""
    pieces, at = [], 0
    for card in cards:
        start = page.find(opening, at)
        code = page.find("<pre", start) if start >= 0 else -1
        end = page.find("</pre>", code) if code >= 0 else -1
        if end < 0:
            break
        pieces += [page[at:code], _kept(page[code:end], *card) if card and card[2] else page[code:end]]
        at = end
    return "".join(pieces) + page[at:]


_KEPT: dict[tuple, str] = {}  # (code, file text, first line, links' key) -> the code linked: serve builds again
KEPT_CARDS = 1024


def _kept(pre: str, text: str, first: int, links: NameLinks) -> str:
    if links.key is None:
        return _linked(pre, text, first, links)
    key = (pre, text, first, links.key)
    if key not in _KEPT:
        if len(_KEPT) >= KEPT_CARDS:
            _KEPT.clear()
        _KEPT[key] = _linked(pre, text, first, links)
    return _KEPT[key]


def _linked(pre: str, text: str, first: int, links: NameLinks) -> str:
    """A card's <pre> element (less its end tag), its names linked: a line only where it is its file line
    less leading whitespace, a name only where its text is all that is replaced."""
    if LONE_CR.search(text):  # the index's lines (parso's, as Python's) break there, the card's do not
        return pre
    reader = _CardCode()
    reader.feed(pre)
    reader.close()
    starts = [0] + [match.end() for match in re.finditer("\n", pre)]  # HTMLParser counts lines by \n alone
    file_lines = text.split("\n")
    edits = []  # (start, end, html): a token's text and what replaces it, by offsets in `pre`
    for line, (shown, tokens) in enumerate(reader.lines, first):
        if line > len(file_lines):
            break
        whole = file_lines[line - 1]
        margin = len(whole) - len(shown)
        if margin < 0 or whole[margin:] != shown or whole[:margin].strip():
            continue  # not this file line as quoted: link nothing on it
        for column, token, (start, end) in tokens:
            linked = links.link(token, line, column + margin)
            begin, stop = starts[start[0] - 1] + start[1], starts[end[0] - 1] + end[1]
            if linked is not None and pre[begin:stop] == token:
                edits.append((begin, stop, linked))
    for begin, stop, replacement in sorted(edits, reverse=True):
        pre = pre[:begin] + replacement + pre[stop:]
    return pre


class _CardCode(HTMLParser):
    """The code of a card's <pre><code>, line by line: each line's text and its name tokens (column in the
    line, text, and the positions where the token's text starts and ends)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[str, list]] = []
        self._in_code = False
        self._line: list[str] = []  # the current line's text so far
        self._tokens: list = []  # the current line's name tokens
        self._name: tuple[int, tuple[int, int], list[str]] | None = None  # the open name token

    def handle_starttag(self, tag, attrs):
        if tag == "code":
            self._in_code = True
        elif self._in_code and tag == "span" and dict(attrs).get("class") in NAME_CLASSES:
            line, column = self.getpos()
            self._name = (sum(map(len, self._line)), (line, column + len(self.get_starttag_text())), [])

    def handle_endtag(self, tag):
        if self._name is not None and tag == "span":
            column, start, text = self._name
            self._tokens.append((column, "".join(text), (start, self.getpos())))
            self._name = None
        elif tag == "code" and self._in_code:
            if "".join(self._line) or self._tokens:
                self._end_line()
            self._in_code = False

    def handle_data(self, data):
        if not self._in_code:
            return
        for n, piece in enumerate(data.split("\n")):
            if n:
                self._end_line()
            self._line.append(piece)
            if self._name is not None:
                self._name[2].append(piece)

    def _end_line(self):
        self.lines.append(("".join(self._line), self._tokens))
        self._line, self._tokens = [], []
