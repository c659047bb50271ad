"""Citations in a post's words linked to what they cite, once the page guard has passed the page (as names in
cards are): an inline code span whose text resolves (quotes.citations) becomes a link inside the same code, and
a whole identifier in a `text` fence links where a bare name would. The text a reader sees is unchanged: only
elements are added around it, as edits of the page's tree (common.pagetree)."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from codeproof.common import pagetree
from codeproof.common.inlinecode import FenceText, InlineCode, read_code
from codeproof.common.pagetree import Tree
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


def read_words(tree: Tree) -> tuple[list[InlineCode], list[FenceText]]:
    """The inline code and the `text` fences of a rendered post, its cards and error boxes left out."""
    return read_code(tree, _in_card)


def link_citations(codes: list[InlineCode], verdicts: list[Verdict], fences: list[FenceText],
                   name_verdict: Callable[[str], Verdict], address: Callable[[Target], str | None],
                   tip: Callable[[Target], str]) -> list[Mention]:
    """Each citation linked in the page's tree, and each inline one that was (for the source pages' notes).
    `codes` and `fences` are the page's (read_words), `verdicts` what each code cites (only text alone cites);
    `name_verdict(name)` reads an identifier of a fence; `address(target)` is where a link leads from the page
    (None: nowhere it can), `tip(target)` what hovering it shows."""
    mentions = []
    for code, found in zip(codes, verdicts, strict=True):
        if not (found.target and code.bare):
            continue
        linked, rest = _split(code.node, len(found.linked))
        link = _link(linked, found.target, address, tip)
        if link:
            code.node.inner_html = link + rest
            mentions.append(Mention(found.target, code.section))
    for run in fences:
        text, pieces, at = run.node.text_content, [], 0
        for match in IDENTIFIER_RE.finditer(text):
            found = name_verdict(match.group())
            link = found.target and _link(html.escape(match.group(), quote=False), found.target, address, tip)
            if link:
                pieces += [html.escape(text[at:match.start()], quote=False), link]
                at = match.end()
        if pieces:
            pagetree.replace(run.node, "".join(pieces) + html.escape(text[at:], quote=False))
    return mentions


def show_problems(codes: list[InlineCode], problems: list[tuple[int, str]]) -> None:
    """Each problem (the index of the code it is about, and what it says) shown right after that code in the
    page's tree: what `mkdocs serve` shows an author while typing (the strict build fails on them)."""
    for n, said in problems:
        pagetree.put_after(codes[n].node, f'<span class="proof-error proof-error--inline">{html.escape(said)}</span>')


def _split(code, shown: int) -> tuple[str, str]:
    """A code element of text alone (and <wbr>s, comments) as HTML: what holds its first `shown` characters, and the
    rest (without its comments)."""
    pieces = []
    for child in code.iter(include_text=True):
        if not child.is_comment_node:
            pieces += list(map(html.escape, child.text_content)) if child.is_text_node else ["<wbr>"]
    at = 0
    while at < len(pieces) and shown > 0:
        shown -= pieces[at] != "<wbr>"
        at += 1
    return "".join(pieces[:at]), "".join(pieces[at:])


def _link(content: str, target: Target, address, tip) -> str | None:
    """A link around `content` (HTML the engine escaped)."""
    href = address(target)
    if href is None:
        return None
    return (f'<a class="series-xref series-cite" href="{html.escape(href)}" data-tip="{html.escape(tip(target)[:TIP_CHARS])}">'
            f"{content}</a>")
