"""The inline code spans of a post's words, with their lines: what citations are read from.

The site's Markdown decides what is a code span (in prose, a table cell, a list or a heading): the spans are read
from the rendered page (common.inlinecode), the build's own render of the post, or, on the command line,
`rendered_words`, the same extensions' render of the post with its blocks left out (a card's code is proven as a
quote, not read as words). Markdown keeps no lines, so each span is found again in the post's text, in order, as
the backtick run that holds it: the line an author is sent to.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from markdown import Markdown

from codeproof.common.inlinecode import InlineCode
from codeproof.common.structure import ParsedPost

PLAIN = "plain"  # the class that keeps a span text: `grad`{.plain} (attr_list)


@dataclass(frozen=True)
class CodeSpan:
    line: int  # of the post's file
    text: str  # as the page shows it
    plain: bool  # the author asked for text, not a citation
    bare: bool = True  # text alone (not code an extension highlighted, which is never a citation)


@dataclass(frozen=True)
class MarkdownSetup:
    """The site's Markdown extensions (names or instances) and their settings, as its generator renders pages."""

    extensions: tuple = ()
    configs: tuple = ()  # (name, settings) pairs

    @classmethod
    def of(cls, extensions, configs: dict) -> "MarkdownSetup":
        return cls(tuple(extensions), tuple((name, settings) for name, settings in configs.items()))


def rendered_words(parsed: ParsedPost, setup: MarkdownSetup) -> str:
    """The post's words as the site's Markdown renders them, its blocks left out (blank lines in their place)."""
    return Markdown(extensions=list(setup.extensions), extension_configs=dict(setup.configs)).convert(words(parsed))


def words(parsed: ParsedPost) -> str:
    """The post's text with every block's lines blank, so every other line keeps its number."""
    lines = list(parsed.lines)
    for block in parsed.blocks:
        lines[block.start:block.end] = [""] * (block.end - block.start)
    return "\n".join(lines)


def code_spans(parsed: ParsedPost, codes: list[InlineCode]) -> list[CodeSpan]:
    """The rendered words' inline code elements (in order) as spans at the lines where their backticks stand: each
    the first backtick run after the span before it that holds its text (white space read as one space); one not
    found (an extension or raw HTML wrote it) keeps the line before. Linear in the post: its backtick runs are
    listed once, by what they hold."""
    text, first = words(parsed), parsed.first_line
    runs: dict[str, list[int]] = {}  # a run's text (white space as one space) -> where each such run ends
    lines: dict[int, int] = {}  # where a run ends -> the line its backticks open on
    line, at = first, 0
    for match in RUN_RE.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        runs.setdefault(" ".join(match.group(2).split()), []).append(match.end())
        lines[match.end()] = line
    found, after, line = [], -1, first
    for code in codes:
        ends = runs.get(" ".join(code.text.split()), [])
        n = bisect.bisect_right(ends, after)
        if code.text.split() and n < len(ends):
            after = ends[n]
            line = lines[after]
        found.append(CodeSpan(line, code.text, PLAIN in code.classes, code.bare))
    return found


# A run of backticks, what it holds, and the same run: Markdown's code span, as its extensions' renders are found.
RUN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
