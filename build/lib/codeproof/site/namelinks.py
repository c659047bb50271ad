"""Names in highlighted code linked to their definitions: on the source pages, which the engine writes
token by token, and in the REAL SOURCE cards of a rendered post, which pymdownx.highlight wrote.

A name is linked where the cross-reference index (see xref) holds a reference that starts at its line and
column and spans its whole token: the index decides, never the text. A card shows a run of the file's lines,
perhaps without the indentation they share; a card line is linked only where it is its file line with
leading whitespace removed, so a column of the card is always a column of the file.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Hashable, Sequence

from pygments.token import STANDARD_TYPES, Name
from selectolax.lexbor import LexborNode

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


def link_names(pre: LexborNode, text: str, first: int, links: NameLinks) -> None:
    """The names in a card's code (its <pre>, in the page's tree) linked: `text` is the file it quotes, `first`
    the file line its code starts at."""
    if links.key is None:
        _linked(pre, text, first, links)
        return
    key = (pre.html, text, first, links.key)
    if key not in _KEPT:
        if len(_KEPT) >= KEPT_CARDS:
            _KEPT.clear()
        _linked(pre, text, first, links)
        _KEPT[key] = pre.inner_html
    else:
        pre.inner_html = _KEPT[key]


_KEPT: dict[tuple, str] = {}  # (code, file text, first line, links' key) -> the code linked: serve builds again
KEPT_CARDS = 1024


def _linked(pre: LexborNode, text: str, first: int, links: NameLinks) -> None:
    """A line is linked only where it is its file line less leading whitespace, a name only where its token
    is all its element holds."""
    code = pre.css_first("code")
    if code is None or LONE_CR.search(text):  # the index's lines (parso's, as Python's) break there, the card's do not
        return
    file_lines = text.split("\n")
    for line, (shown, tokens) in enumerate(_code_lines(code), first):
        if line > len(file_lines):
            break
        whole = file_lines[line - 1]
        margin = len(whole) - len(shown)
        if margin < 0 or whole[margin:] != shown or whole[:margin].strip():
            continue  # not this file line as quoted: link nothing on it
        for column, token, span in tokens:
            linked = links.link(token, line, column + margin)
            if linked is not None:
                span.inner_html = linked


def _code_lines(code: LexborNode) -> list[tuple[str, list]]:
    """The code's lines: each line's text and its name tokens (column in the line, text, and its element)."""
    lines, shown, tokens = [], [], []
    for node in code.traverse(include_text=True):
        if not node.is_text_node:
            continue
        parent = node.parent
        if parent.tag == "span" and parent.attributes.get("class") in NAME_CLASSES \
                and node.prev is None and node.next is None:
            tokens.append((sum(map(len, shown)), node.text_content, parent))
        for n, piece in enumerate(node.text_content.split("\n")):
            if n:
                lines.append(("".join(shown), tokens))
                shown, tokens = [], []
            shown.append(piece)
    if "".join(shown) or tokens:
        lines.append(("".join(shown), tokens))
    return lines
