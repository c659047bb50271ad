"""Prove a quote: a contiguous run of whole lines of its file, byte for byte.

For [REAL SOURCE] the run must also lie within the named symbols and touch each.
A quote that is not such a run is drift: reported with a unified diff against
the closest run of the file, and with the text `update` would write instead.
That run is found in time about linear in the quote (see _closest_run).

The drift message names the post line of the first difference. On the diff's
changed lines (context lines are left as they are) what the eye cannot tell
apart is spelled out: a tab as `→`, trailing spaces as `·`, and as `<U+XXXX>`
every character outside printable ASCII that is invisible (U+200B, NBSP, a
control character) or narrow enough to pass for an ASCII one (Cyrillic `а`,
`é`). Wide characters, such as the Chinese of a docstring, cannot pass for
code and are shown as they are.
"""

from __future__ import annotations

import ast
import difflib
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Callable

from codeproof.common.structure import LONE_CR, Block, Checked, Excerpt, FileRef, Problem
from codeproof.quotes.symbols import LargeSymbolIndex, Span, SymbolError, SymbolIndex, holds, parse_symbols


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


LARGE_FILE_LINES = 20_000  # a parse of a file this long holds some 60 MB; 300,000 lines hold about 900 MB
_LARGE: dict[str, SymbolIndex] = {}  # the last large file's index: its runs of statements, not their parse


def symbols_of(text: str) -> SymbolIndex:
    """The symbols of a file, kept for its later quotes (and serve's next build). A large file is parsed a run of
    statements at a time (LargeSymbolIndex), unless a lone CR would make Python's lines differ from the cut's."""
    if text.count("\n") <= LARGE_FILE_LINES or "\r" in text:
        return _small_symbols(text)
    if text not in _LARGE:
        _LARGE.clear()
        _LARGE[text] = LargeSymbolIndex(text)
    return _LARGE[text]


@lru_cache(maxsize=256)
def _small_symbols(text: str) -> SymbolIndex:
    return SymbolIndex(text)


def verify_source_quote(block: Block, ref: FileRef, text: str) -> Checked:
    label = f"REAL SOURCE {ref.path} (Symbol {block.fields['Symbol']}) at {ref.commit[:7]}"
    lone_cr = LONE_CR.search(text)
    if lone_cr:  # the symbols' lines (Python's) would not be the quote's: a quote outside one could pass
        line = text.count("\n", 0, lone_cr.start()) + 1
        return Checked(block, problem=Problem(
            block.post, block.line, f"{label}: the file holds a carriage return not followed by a line feed (line "
            f"{line}), where Python breaks a line and the file's lines do not, so no symbol can be matched to its lines",
            hint="quote a file whose lines end in LF or CRLF"))
    try:
        index = symbols_of(text)
        specs = parse_symbols(block.fields["Symbol"])
        spans = [index.spans(spec) for spec in specs]
    except SymbolError as error:
        hint = imported_here(text, block.fields["Symbol"], ref.path) or error.hint
        return Checked(block, problem=Problem(block.post, block.line_of("Symbol"), f"{label}: {error}", hint=hint))
    except SyntaxError as error:
        return Checked(block, problem=Problem(block.post, block.line, f"{label}: file does not parse: {error}"))
    except (RecursionError, MemoryError, ValueError) as error:  # nested too deep, null bytes: ast gives up
        return Checked(block, problem=Problem(block.post, block.line, f"{label}: cannot be parsed: {type(error).__name__}",
                                              hint="quote a Python source file, with a short Symbol"))
    region = Span(min(s.first for group in spans for s in group), max(s.last for group in spans for s in group))
    places = [(spec.text, group) for spec, group in zip(specs, spans) if len(group) > 1]
    if places:  # a name assigned (or defined) twice: the quote must lie within one of its places
        name, group = places[0]
        lines = ", ".join(f"{s.first}-{s.last}" for s in group)
        if block.quote is None:
            return Checked(block, problem=Problem(
                block.post, block.line, f"{label}: symbol {name!r} stands in {len(group)} places (lines {lines}), "
                "so a header alone cannot say which to insert", hint="quote the lines you mean in a fenced block"))
        scope = f"lines {lines} of {name!r}, one of which must hold it"
    else:
        scope = f"lines {region.first}-{region.last}"
    return _locate(block, _analyse(text), label, lambda first, last: holds(spans, first, last), region,
                   f"{ref.path}@{ref.commit[:7]}", scope)


def imported_here(text: str, symbol: str, path: str) -> str:
    """Where a symbol that the file only imports comes from, as a hint ("" if it does not import it): the file at
    `path` imports `trace` by `from .tracer import trace`, so it comes from autograd/tracer.py, which defines it or
    imports it in turn (only this file is read here). A call (`defvjp(anp.add, ...)`) names one of this file's own
    call statements, never an import: no hint of this kind for it."""
    first = symbol.split(" and ")[0].split(",")[0].strip()
    if "(" in first:
        return ""
    name = first.split(".")[0]
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((alias.asname or alias.name) == name for alias in node.names):
            folder = path.split("/")[:-1][: len(path.split("/")) - node.level] if node.level else []
            module = "/".join(folder + (node.module or "").split(".")).strip("/")
            return (f"{path} only imports {name} (line {node.lineno}: `{ast.get_source_segment(text, node)}`), from "
                    f"{module}.py (or {module}/__init__.py): quote the file that defines it, that one or the one it "
                    "imports it from")
    return ""


def verify_script_quote(block: Block, text: str) -> Checked:
    label = f"EXPERIMENT {block.fields['File']}"
    script = _analyse(text)
    region = Span(1, len(script.lines))
    return _locate(block, script, label, lambda first, last: True, region, block.fields["File"], "the script")


def _locate(
    block: Block, file: _File, label: str, inside: Callable[[int, int], bool], region: Span, name: str, scope: str
) -> Checked:
    """`scope` says which lines `inside` accepts, for the message of a quote found outside them."""
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
        last = first + len(quote) - 1
        message = f"{label}: quote is lines {first}-{last}, outside the symbol ({scope})"
        inner = _inside_part(first, last, inside)
        # A quote that overruns its symbol by a line or two at one end (the blank line after a def, the next
        # statement): say which lines, and let update trim them. A quote mostly outside is other code.
        if inner and inner != (first, last) and (last - first) - (inner[1] - inner[0]) <= OVERRUN:
            extra = [f"{a}-{b}" if a != b else str(a) for a, b in ((first, inner[0] - 1), (inner[1] + 1, last)) if a <= b]
            several = len(extra) > 1 or "-" in extra[0]
            lines = f"line{'s' if several else ''} {' and '.join(extra)}"
            message = (f"{label}: quote is lines {first}-{last}, of which {lines} {'are' if several else 'is'} outside "
                       f"the symbol ({scope})")
            hint = (f"drop {lines} from the quote (`./dev.sh update` keeps lines {inner[0]}-{inner[1]}), or name the "
                    "symbol they belong to as well (`Symbol: a and b`)")
            kept = "\n".join(quote[inner[0] - first: inner[1] - first + 1])
            return Checked(block, problem=Problem(block.post, block.line, message, hint=hint), repair=kept,
                           similarity=1.0)
        hint = "name the symbol these lines belong to, or quote lines inside the named symbol"
        return Checked(block, problem=Problem(block.post, block.line, message, hint=hint))
    first, closest, similarity = _closest_run(file, quote, region)
    last = first + len(closest) - 1
    if _dedented(quote, closest):
        return Checked(block, problem=Problem(
            block.post, block.line, f"{label}: the quote is lines {first}-{last} of {name} without their indentation",
            hint="keep each line's indentation as in the file (copy the lines as they are): the card removes the "
                 "indentation the lines share, or shows it with `Dedent: no`"),
            repair="\n".join(closest), similarity=similarity)
    k = next((k for k, (a, b) in enumerate(zip(quote, closest)) if a != b), min(len(quote), len(closest)))
    where = f"{block.post}:{block.quote_line(k)}"
    message = f"{label}: {DIFFERS} (first difference at {where}, line {first + k} of the file)"
    diff = list(difflib.unified_diff(quote, closest, f"{block.post} (quote)", f"{name} lines {first}-{last}",
                                     n=2, lineterm=""))
    headers, hunks = diff[:2], diff[2:]
    detail = "\n".join(headers + [_visible(line) if line[:1] in "+-" else line for line in hunks]) + "\n"
    if block.kind.script:  # the script is the author's: either side may be the one to fix
        hint = (f"run `./dev.sh update` to take lines {first}-{last} from {name} into the post, or fix the quote "
                "(or the script) by hand")
    else:
        hint = f"run `./dev.sh update` to take lines {first}-{last} from the pinned file, or fix the quote by hand"
    problem = Problem(block.post, block.line, message, detail=detail, hint=hint)
    return Checked(block, problem=problem, repair="\n".join(closest), similarity=similarity)


OVERRUN = 2  # lines beyond its symbol that a quote may be trimmed of
DIFFERS = "quote differs from source"  # a quote that is no run of the file's lines: a slip, or another version


def _inside_part(first: int, last: int, inside: Callable[[int, int], bool]) -> tuple[int, int] | None:
    """The longest run of first..last that `inside` accepts and that reaches one end of it: a quote that only
    overruns its symbol at the start or the end."""
    for length in range(last - first, 0, -1):
        for start in (first, last - length + 1):
            if inside(start, start + length - 1):
                return start, start + length - 1
    return None


def _dedented(quote: list[str], lines: tuple[str, ...]) -> bool:
    """Whether the quote is these lines with the indentation they share taken off (by hand: a quote keeps it)."""
    if len(quote) != len(lines):
        return False
    kept = [line for line in lines if line.strip()]
    shared = min((len(line) - len(line.lstrip()) for line in kept), default=0)
    return shared > 0 and [q.rstrip() for q in quote] == [line[shared:].rstrip() if line.strip() else "" for line in lines]


def _runs(file: _File, quote: list[str]) -> list[int]:
    """1-based first lines of every place where the quote's lines stand, in order, in the file."""
    n = len(quote)
    return [
        start + 1
        for start in file.starts.get(quote[0], ())
        if file.lines[start : start + n] == tuple(quote)
    ]


_CROWDED = 64  # a line found more often than this in the file (blank, `return x`) cannot tell where a quote is


def _closest_run(file: _File, quote: list[str], region: Span) -> tuple[int, tuple[str, ...], float]:
    """The run of the region most like the quote, its first line and its similarity (see Checked): the most
    whole lines in common, then the most characters in common.

    Comparing the quote with every run of the region costs its length times the quote's, so only runs near
    the likely starts are compared: each quote line found verbatim in the region votes for the start its
    position implies, and the three starts with most votes (with no vote: where the three lines most like
    the first line stand) are tried a line either side, with the quote's length a line either side. Lines
    are compared in place (_pair_lines), in time linear in the quote; characters, the costly part, only for
    the first three runs (likeliest first) with most lines in common.
    """
    n, lo, hi = len(quote), region.first - 1, region.last  # lo:hi, the region as a slice of file.lines
    votes: Counter[int] = Counter()
    for k, line in enumerate(quote):
        places = file.starts.get(line, ())
        if len(places) <= _CROWDED:
            votes.update(i - k for i in places if lo <= i < hi)
    likely = [start for start, _ in votes.most_common(3)] or _close_starts(file, quote[0], lo, hi)
    lengths = [max(1, min(length, hi - lo)) for length in (n, n + 1, n - 1)]
    runs = {  # (start, length): lines, likeliest first; each within the region
        (first, length): file.lines[first : first + length]
        for start in likely for shift in (0, -1, 1) for length in lengths
        for first in [max(lo, min(start + shift, hi - length))]
    }
    pairs = {run: _pair_lines(quote, lines) for run, lines in runs.items()}
    in_common = {run: sum(a == b for a, b in pairs[run]) for run in runs}
    most = max(in_common.values())
    tied = [run for run in runs if in_common[run] == most][:3]
    similarity = {run: _similarity(quote, runs[run], pairs[run]) for run in tied}
    best = max(similarity, key=similarity.get)  # the first of equals: the likeliest
    return best[0] + 1, runs[best], similarity[best]


def _close_starts(file: _File, line: str, lo: int, hi: int) -> list[int]:
    """Where the three lines of lo:hi most like `line` stand (one difflib ratio per line of the region)."""
    region = list(file.lines[lo:hi])
    return [lo + region.index(text) for text in dict.fromkeys(difflib.get_close_matches(line, region, n=3, cutoff=0))]


def _pair_lines(quote: list[str], run: tuple[str, ...]) -> list[tuple[str, str]]:
    """The quote's lines paired with the run's in place: the first p with the run's first lines, the others
    with its last lines, p chosen for the most equal pairs. Exact for a run that differs from the quote by
    changed lines and at most one line left out or put in (a run is the quote's length give or take one)."""
    top = list(accumulate((a == b for a, b in zip(quote, run)), initial=0))  # top[p]: equal pairs of the first p
    bottom = list(accumulate((a == b for a, b in zip(reversed(quote), reversed(run))), initial=0))
    p = max(range(len(top)), key=lambda p: top[p] + bottom[-1 - p])
    q = len(top) - 1 - p  # lines paired from the bottom
    return list(zip(quote[:p], run[:p])) + list(zip(quote[len(quote) - q :], run[len(run) - q :]))


def _similarity(quote: list[str], run: tuple[str, ...], pairs: list[tuple[str, str]]) -> float:
    """difflib's ratio over characters, newlines included: twice those in common over those of both, counting
    all of equal paired lines and difflib's matches within the others."""
    common = sum(
        len(a) + 1 if a == b else sum(m.size for m in difflib.SequenceMatcher(None, a, b).get_matching_blocks())
        for a, b in pairs
    )
    return 2 * common / sum(len(line) + 1 for line in (*quote, *run))


def _visible(line: str) -> str:
    """A changed line of the diff with tabs, trailing spaces and look-alike characters spelled out."""
    body = line.rstrip(" ")
    return "".join(_visible_char(c) for c in body) + "·" * (len(line) - len(body))


def _visible_char(c: str) -> str:
    if c == "\t":
        return "→"
    if " " <= c <= "~" or (c.isprintable() and unicodedata.east_asian_width(c) in ("W", "F")):
        return c
    return f"<U+{ord(c):04X}>"
