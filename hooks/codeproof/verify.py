"""Prove a quote: a contiguous run of whole lines of its file, byte for byte.

For [REAL SOURCE] the run must also lie within the named symbols and touch each.
A quote that is not such a run is drift: reported with a unified diff against
the closest run of the file, and with the text `update` would write instead.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .blocks import Block
from .problems import Problem
from .sources import FileRef
from .symbols import Span, SymbolError, SymbolIndex, parse_symbols


@dataclass(frozen=True)
class Excerpt:
    """A verified quote: the lines first..last of the file (1-based, inclusive)."""

    first: int
    last: int
    text: str


@dataclass(frozen=True)
class Checked:
    block: Block
    excerpt: Excerpt | None = None
    problem: Problem | None = None  # fails every build
    warning: Problem | None = None  # fails a strict build only
    repair: str | None = None  # what `update` writes in place of the fenced text
    run: object | None = None  # the experiment run behind an [OUTPUT] block


@dataclass(frozen=True)
class _File:
    lines: tuple[str, ...]
    starts: dict[str, tuple[int, ...]]  # line text -> 0-based indexes where it occurs


@lru_cache(maxsize=256)
def _analyse(text: str) -> _File:
    lines = tuple(text[:-1].split("\n") if text.endswith("\n") else text.split("\n"))
    starts: dict[str, list[int]] = {}
    for index, line in enumerate(lines):
        starts.setdefault(line, []).append(index)
    return _File(lines, {k: tuple(v) for k, v in starts.items()})


@lru_cache(maxsize=256)
def _symbols(text: str) -> SymbolIndex:
    return SymbolIndex(text)


def verify_source_quote(block: Block, ref: FileRef, text: str) -> Checked:
    label = f"REAL SOURCE {ref.path} (Symbol {block.fields['Symbol']}) at {ref.commit[:7]}"
    try:
        index = _symbols(text)
        spans = [index.spans(spec) for spec in parse_symbols(block.fields["Symbol"])]
    except SymbolError as error:
        return Checked(block, problem=Problem(block.post, block.line, f"{label}: {error}", hint=error.hint))
    except SyntaxError as error:
        return Checked(block, problem=Problem(block.post, block.line, f"{label}: file does not parse: {error}"))
    region = Span(min(s.first for group in spans for s in group), max(s.last for group in spans for s in group))

    def inside(first: int, last: int) -> bool:
        in_region = region.first <= first and last <= region.last
        return in_region and all(any(s.touches(first, last) for s in group) for group in spans)

    return _locate(block, _analyse(text), label, inside, region, f"{ref.path}@{ref.commit[:7]}")


def verify_script_quote(block: Block, text: str) -> Checked:
    label = f"EXPERIMENT {block.fields['File']}"
    script = _analyse(text)
    region = Span(1, len(script.lines))
    return _locate(block, script, label, lambda first, last: True, region, block.fields["File"])


def _locate(
    block: Block, file: _File, label: str, inside: Callable[[int, int], bool], region: Span, name: str
) -> Checked:
    if block.quote is None:  # a header alone asks for the whole region
        text = "\n".join(file.lines[region.first - 1 : region.last])
        return Checked(block, excerpt=Excerpt(region.first, region.last, text))
    quote = block.quote.split("\n")
    runs = _runs(file, quote)
    fitting = [first for first in runs if inside(first, first + len(quote) - 1)]
    if fitting:
        first = fitting[0]
        return Checked(block, excerpt=Excerpt(first, first + len(quote) - 1, block.quote))
    if runs:
        first = runs[0]
        message = (f"{label}: quote is lines {first}-{first + len(quote) - 1}, "
                   f"outside the symbol (lines {region.first}-{region.last})")
        hint = "name the symbol these lines belong to, or quote lines inside the named symbol"
        return Checked(block, problem=Problem(block.post, block.line, message, hint=hint))
    first, closest = _closest_run(file, quote, region)
    last = first + len(closest) - 1
    diff = "".join(
        difflib.unified_diff(
            [line + "\n" for line in quote],
            [line + "\n" for line in closest],
            fromfile=f"{block.post} (quote)",
            tofile=f"{name} lines {first}-{last}",
            n=2,
        )
    )
    hint = f"run `./dev.sh update` to take lines {first}-{last} from the pinned file, or fix the quote by hand"
    problem = Problem(block.post, block.line, f"{label}: quote differs from source", detail=diff, hint=hint)
    return Checked(block, problem=problem, repair="\n".join(closest))


def _runs(file: _File, quote: list[str]) -> list[int]:
    """1-based first lines of every place where the quote's lines stand, in order, in the file."""
    n = len(quote)
    return [
        start + 1
        for start in file.starts.get(quote[0], ())
        if file.lines[start : start + n] == tuple(quote)
    ]


def _closest_run(file: _File, quote: list[str], region: Span) -> tuple[int, list[str]]:
    """The run of the region (give or take a line) most like the quote: most whole lines in common,
    then the highest ratio of characters in common (difflib)."""
    best = ((-1, -1.0), region.first, [])
    by_line = difflib.SequenceMatcher(autojunk=False)
    by_char = difflib.SequenceMatcher(autojunk=False)
    by_line.set_seq2(quote)
    by_char.set_seq2("\n".join(quote))
    lengths = {max(1, min(n, region.last - region.first + 1)) for n in (len(quote) - 1, len(quote), len(quote) + 1)}
    for length in sorted(lengths):
        for first in range(region.first, region.last - length + 2):
            window = list(file.lines[first - 1 : first - 1 + length])
            by_line.set_seq1(window)
            by_char.set_seq1("\n".join(window))
            common_lines = sum(block.size for block in by_line.get_matching_blocks())
            score = (common_lines, by_char.ratio())
            if score > best[0]:
                best = (score, first, window)
    return best[1], best[2]
