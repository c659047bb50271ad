"""Resolve a block's `Symbol:` to line spans of a Python file, with `ast`.

Forms: `name` (function or class, nested ones too, or a name a statement of the
module assigns), `Class.method` and `Class.attr` (a name the class body assigns),
`outer.inner` (a def inside a def), and a module-level call statement written as
in the source with `...` for the rest, e.g. `defvjp(anp.add, ...)`. Several symbols
are joined by ` and `; free words after a comma describe the part quoted and are
not matched. A name assigned by several statements has a span for each.
"""

from __future__ import annotations

import ast
import difflib
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from codeproof.common.errors import CodeproofError

CALL_RE = re.compile(r"^\s*([A-Za-z_][\w.]*\s*\(.*\))\s*(?:,\s*(.*))?$")
NAME_RE = re.compile(r"^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s*(?:,\s*(.*))?$")
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign)
UNMATCHED = "check the Symbol line against the file"  # the hint when nothing in the file is close to a Symbol


@dataclass(frozen=True)
class Span:
    first: int  # 1-based, inclusive; a decorated def starts at its first decorator
    last: int

    def touches(self, first: int, last: int) -> bool:
        return first <= self.last and self.first <= last


@dataclass(frozen=True)
class SymbolSpec:
    text: str  # as written, e.g. "defvjp(anp.add, ...)"
    call: ast.Call | None  # set for the call-statement form
    description: str  # the free words after the comma, if any


class SymbolError(CodeproofError):
    """A Symbol: line that names nothing the file defines, or that cannot be read."""


MAX_SYMBOL = 300  # characters of one symbol: a call with its arguments fits on a line; past it, no symbol but a trap


def parse_symbols(field: str) -> list[SymbolSpec]:
    specs = []
    for part in field.split(" and "):
        if len(part) > MAX_SYMBOL:  # an argument nested a thousand deep would overflow ast's recursion
            raise SymbolError(f"symbol {part.strip()[:40]!r}… is {len(part)} characters long, more than a symbol is "
                              f"({MAX_SYMBOL} at most)", hint="write `name`, `Class.method` or a call such as "
                                                             "`defvjp(anp.add, ...)`")
        call = CALL_RE.match(part)
        if call:
            try:
                node = ast.parse(call.group(1).strip(), mode="eval").body
            except (SyntaxError, RecursionError, MemoryError):  # within the length, a parser may still give up
                node = None
            if isinstance(node, ast.Call):
                specs.append(SymbolSpec(call.group(1).strip(), node, call.group(2) or ""))
                continue
        name = NAME_RE.match(part)
        if not name:
            raise SymbolError(
                f"cannot read symbol {part.strip()!r}",
                hint="write `name`, `Class.method` or a call such as `defvjp(anp.add, ...)`, joined by ` and `",
            )
        specs.append(SymbolSpec(name.group(1), None, name.group(2) or ""))
    return specs


class SymbolIndex:
    """The symbols of one parsed file."""

    def __init__(self, source: str):
        self.tree = ast.parse(source)
        self._dumps: dict[int, str] = {}

    def spans(self, spec: SymbolSpec) -> list[Span]:
        found = self._calls(spec.call) if spec.call else self._named(spec.text.split("."))
        if not found:
            raise SymbolError(f"symbol {spec.text!r} is not in the file", hint=self._suggestion(spec))
        return found

    def _bodies(self) -> Iterator[list[ast.stmt]]:
        """The module's statements, in one or more runs (LargeSymbolIndex): every search below goes through them."""
        yield self.tree.body

    def _named(self, parts: list[str]) -> list[Span]:
        # The dotted path from module level first; otherwise a def of that path nested anywhere.
        spans = {_span(n) for body in self._bodies() for n in _walk_path(body, parts, assignments=True)}
        if not spans:
            spans = {_span(found) for body in self._bodies() for stmt in body for node in ast.walk(stmt)
                     if isinstance(node, DEFS) for found in _walk_path([node], parts, assignments=False)}
        return sorted(spans, key=lambda s: s.first)

    def _calls(self, call: ast.Call) -> list[Span]:
        """The call statements the symbol names: its arguments as written, then `...` for the rest, if any (without
        `...`, the statement has exactly those arguments, as the guide says)."""
        leading = [ast.dump(arg) for arg in _until_ellipsis(call.args)]
        whole = len(leading) == len(call.args)
        callee = ast.dump(call.func)
        return [_span(stmt) for calls in self._call_tables() for stmt in calls.get(callee, [])
                if [self._dumped(arg) for arg in stmt.value.args[:len(leading)]] == leading
                and not (whole and (len(stmt.value.args) > len(leading) or stmt.value.keywords))]

    def _call_tables(self) -> Iterator[dict[str, list[ast.Expr]]]:
        yield self._module_calls

    @functools.cached_property
    def _module_calls(self) -> dict[str, list[ast.Expr]]:
        """The call statements at module level by their callee, dumped: once per file, not once per statement
        and quote (a file holds hundreds of `defvjp(...)`)."""
        return _calls_by_callee(self.tree.body, self._dumped)

    def _dumped(self, node: ast.AST) -> str:
        """ast.dump of a node of this file, once (the quotes of a file compare the same calls' arguments)."""
        if id(node) not in self._dumps:  # the tree keeps its nodes, so an id names one node
            self._dumps[id(node)] = ast.dump(node)
        return self._dumps[id(node)]

    def _suggestion(self, spec: SymbolSpec) -> str:
        if spec.call is not None:  # a call is matched against the module's call statements, as they are written
            names = {f"{ast.unparse(stmt.value.func)}({ast.unparse(stmt.value.args[0])}, ...)"
                     for calls in self._call_tables() for stmts in calls.values() for stmt in stmts if stmt.value.args}
        else:
            names = set().union(*(_qualified_names(body) for body in self._bodies()))
        if spec.call is not None and f"{spec.text[:-1]}, ...)" in names:  # the call has more arguments than written
            return f"the file's call has more arguments: write `{spec.text[:-1]}, ...)` (without `...`, a call names " \
                   "exactly the arguments written)"
        # The closest first, and among as close ones, those that begin as written (`anp.ad`: add before pad).
        close = sorted(difflib.get_close_matches(spec.text, sorted(names), n=10),
                       key=lambda name: (-round(difflib.SequenceMatcher(None, spec.text, name).ratio(), 6),
                                         -len(os.path.commonprefix([spec.text, name]))))[:3]
        return f"did you mean {', '.join(close)}?" if close else UNMATCHED


class LargeSymbolIndex(SymbolIndex):
    """The symbols of a long file, whose whole parse would hold too much (a 300,000-line file's holds 900 MB):
    the file is cut where its top-level statements start, and each run of them is parsed when a search needs it,
    never all at once. Top-level statements are independent for every search here, so the answers are
    SymbolIndex's. SyntaxError when the file does not parse, as ast.parse."""

    def __init__(self, source: str):
        self.runs = list(_top_level_runs(source))  # (first line, text)

    def _bodies(self) -> Iterator[list[ast.stmt]]:
        for first, text in self.runs:
            yield ast.increment_lineno(ast.parse(text), first - 1).body

    def _call_tables(self) -> Iterator[dict[str, list[ast.Expr]]]:
        for body in self._bodies():
            yield _calls_by_callee(body, self._dumped)

    def _dumped(self, node: ast.AST) -> str:
        return ast.dump(node)  # (no cache by id: the nodes of a run are gone once it is searched)


CONTINUATION_RE = re.compile(r"(else|elif|except|finally)\b|[\s#)\]}]|$")  # never where a statement starts
MAX_RETRIES = 100  # cuts tried in a row that did not parse (a long string): then the rest is one run


def _top_level_runs(text: str) -> Iterator[tuple[int, str]]:
    """Runs of whole top-level statements, each (its first line, its text), cut at lines that start at column 0
    where the text before parses: a cut inside a string or brackets leaves text that does not."""
    lines = text.split("\n")
    start, retries = 0, 0
    for n in range(1, len(lines)):
        if CONTINUATION_RE.match(lines[n]) or retries > MAX_RETRIES:
            continue
        run = "\n".join(lines[start:n]) + "\n"
        try:
            ast.parse(run)
        except SyntaxError:
            retries += 1
            continue
        yield start + 1, run
        start, retries = n, 0
    run = "\n".join(lines[start:])
    ast.parse(run)  # the last run, as the others: SyntaxError if the file does not parse
    yield start + 1, run


def _calls_by_callee(body: list[ast.stmt], dumped) -> dict[str, list[ast.Expr]]:
    calls: dict[str, list[ast.Expr]] = {}
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            calls.setdefault(dumped(stmt.value.func), []).append(stmt)
    return calls


def _qualified_names(body: list[ast.stmt], prefix: str = "", assignments: bool = True) -> set[str]:
    names = set()
    for node in body:
        names |= {prefix + name for name in _names(node, assignments)}
        if isinstance(node, DEFS):
            names |= _qualified_names(node.body, f"{prefix}{node.name}.", isinstance(node, ast.ClassDef))
    return names


def _walk_path(body: list[ast.stmt], parts: list[str], assignments: bool) -> list[ast.AST]:
    """The statements of `body` the dotted path names. Assignments count in the body of the module and of
    a class (`assignments`), where they define what an author quotes; a function's are its local variables."""
    matches = [n for n in body if parts[0] in _names(n, assignments)]
    if len(parts) == 1:
        return matches
    return [found for n in matches if isinstance(n, DEFS)
            for found in _walk_path(n.body, parts[1:], isinstance(n, ast.ClassDef))]


def _names(stmt: ast.stmt, assignments: bool) -> set[str]:
    """The names a statement defines: a def's or class's, or (if `assignments`) those an assignment binds."""
    if isinstance(stmt, DEFS):
        return {stmt.name}
    if not assignments or not isinstance(stmt, ASSIGNMENTS):
        return set()
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return {node.id for target in targets for node in ast.walk(target)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _until_ellipsis(args: list[ast.expr]) -> list[ast.expr]:
    leading = []
    for arg in args:
        if isinstance(arg, ast.Constant) and arg.value is Ellipsis:
            break
        leading.append(arg)
    return leading


def _span(node: ast.AST) -> Span:
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno] + [d.lineno for d in decorators])
    return Span(first, node.end_lineno)


def holds(groups: list[list[Span]], first: int, last: int) -> bool:
    """Whether lines first..last lie within the named symbols, one place of each (a name assigned twice
    stands in two places, and a quote is of one of them): inside the lines from the first place chosen to
    the last, and touching every place chosen."""
    touching = [[s for s in group if s.touches(first, last)] for group in groups]
    if not all(touching):
        return False
    if any(s.first <= first and last <= s.last for group in touching for s in group):
        return True
    # Otherwise one place must reach up to `first` and a place of another symbol down to `last`.
    reach_first = {n for n, group in enumerate(touching) if any(s.first <= first for s in group)}
    reach_last = {n for n, group in enumerate(touching) if any(s.last >= last for s in group)}
    return bool(reach_first and reach_last and len(reach_first | reach_last) > 1)
