"""Citations in a post's words linked to what they cite, once the page guard has passed the page (as names in
cards are): an inline code span whose text resolves (quotes.citations) becomes a link inside the same code, and
a whole identifier in a `text` fence links where a bare name would. The text a reader sees is unchanged: only
elements are added around it."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from codeproof.common.inlinecode import FenceText, InlineCode, read_code
from codeproof.quotes.citations import IDENTIFIER_RE, Target, Verdict

CARD_CLASSES = ("proof-card", "proof-error")  # the engine's cards and error boxes: their code is not words
TIP_CHARS = 160


@dataclass(frozen=True)
class Mention:
    """A linked citation in a post's words: what it leads to, and the section (id, title) it stands in."""

    target: Target
    section: tuple[str, str]


def _in_card(tag: str, attributes: dict) -> bool:
    classes = (attributes.get("class") or "").split()
    return any(css.startswith(CARD_CLASSES) for css in classes)


def read_words(page: str) -> tuple[list[InlineCode], list[FenceText]]:
    """The inline code and the `text` fences of a rendered post, its cards and error boxes left out."""
    return read_code(page, _in_card)


def link_citations(page: str, codes: list[InlineCode], verdicts: list[Verdict], fences: list[FenceText],
                   name_verdict: Callable[[str], Verdict], address: Callable[[Target], str | None],
                   tip: Callable[[Target], str]) -> tuple[str, list[Mention]]:
    """The page with its citations linked, and each inline one that was (for the source pages' notes). `codes`
    and `fences` are the page's (read_words), `verdicts` what each code cites; `name_verdict(name)` reads an
    identifier of a fence; `address(target)` is where a link leads from the page (None: nowhere it can),
    `tip(target)` what hovering it shows."""
    edits: list[tuple[int, int, str]] = []
    mentions = []
    for code, found in zip(codes, verdicts, strict=True):
        content = page[code.start:code.end]
        split = _after(content, len(found.linked))
        link = found.target and _link(content[:split], found.target, address, tip)
        if link:
            edits.append((code.start, code.end, link + content[split:]))
            mentions.append(Mention(found.target, code.section))
    for run in fences:
        text = page[run.start:run.end]
        for match in IDENTIFIER_RE.finditer(text):
            found = name_verdict(match.group())
            link = found.target and _link(html.escape(match.group(), quote=False), found.target, address, tip)
            if link:
                edits.append((run.start + match.start(), run.start + match.end(), link))
    return _edited(page, edits), mentions


def show_problems(page: str, codes: list[InlineCode], problems: list[tuple[int, str]]) -> str:
    """The page with each problem (the index of the code it is about, and what it says) shown right after that
    code: what `mkdocs serve` shows an author while typing (the strict build fails on them)."""
    after = [page.index(">", codes[n].end) + 1 for n, _ in problems]  # past the code's end tag
    return _edited(page, [(at, at, f'<span class="proof-error proof-error--inline">{html.escape(said)}</span>')
                          for at, (_, said) in zip(after, problems)])


def _edited(page: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        page = page[:start] + replacement + page[end:]
    return page


PIECE_RE = re.compile(r"<[^>]*>|&[^;\s]*;|.", re.S)  # of a code element's content: a tag, a character's entity, a character


def _after(content: str, shown: int) -> int:
    """Where in a code element's HTML content the first `shown` characters a reader sees end (tags count none)."""
    for piece in PIECE_RE.finditer(content):
        if shown == 0:
            return piece.start()
        if not piece.group().startswith("<"):
            shown -= 1
    return len(content)


def _link(content: str, target: Target, address, tip) -> str | None:
    """A link around `content` (HTML, as the page holds it)."""
    href = address(target)
    if href is None:
        return None
    return (f'<a class="series-xref series-cite" href="{html.escape(href)}" data-tip="{html.escape(tip(target)[:TIP_CHARS])}">'
            f"{content}</a>")
