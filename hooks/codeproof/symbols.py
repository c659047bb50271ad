"""Resolve a block's `Symbol:` to line spans of a Python file, with `ast`.

Forms: `name` (function or class, nested ones too), `Class.method`, and a
module-level call statement written as in the source with `...` for the rest,
e.g. `defvjp(anp.add, ...)`. Several symbols are joined by ` and `; free words
after a comma describe the part quoted and are not matched.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

CALL_RE = re.compile(r"^\s*([A-Za-z_][\w.]*\s*\(.*\))\s*(?:,\s*(.*))?$")
NAME_RE = re.compile(r"^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s*(?:,\s*(.*))?$")
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


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


class SymbolError(ValueError):
    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


def parse_symbols(field: str) -> list[SymbolSpec]:
    specs = []
    for part in field.split(" and "):
        call = CALL_RE.match(part)
        if call:
            try:
                node = ast.parse(call.group(1).strip(), mode="eval").body
            except SyntaxError:
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

    def spans(self, spec: SymbolSpec) -> list[Span]:
        found = self._calls(spec.call) if spec.call else self._defs(spec.text.split("."))
        if not found:
            raise SymbolError(f"symbol {spec.text!r} is not in the file", hint=self._suggestion(spec))
        return found

    def _defs(self, parts: list[str]) -> list[Span]:
        # The dotted path from module level first; otherwise a def of that path nested anywhere.
        nodes = _walk_path(self.tree.body, parts)
        if not nodes:
            nodes = [
                found for node in ast.walk(self.tree) if isinstance(node, DEFS) for found in _walk_path([node], parts)
            ]
        return sorted({_span(n) for n in nodes}, key=lambda s: s.first)

    def _calls(self, call: ast.Call) -> list[Span]:
        leading = _until_ellipsis(call.args)
        spans = []
        for stmt in self.tree.body:
            value = stmt.value if isinstance(stmt, ast.Expr) else None
            if not isinstance(value, ast.Call) or ast.dump(value.func) != ast.dump(call.func):
                continue
            if len(value.args) >= len(leading) and all(
                ast.dump(a) == ast.dump(b) for a, b in zip(value.args, leading)
            ):
                spans.append(_span(stmt))
        return spans

    def _suggestion(self, spec: SymbolSpec) -> str:
        close = difflib.get_close_matches(spec.text, sorted(_qualified_names(self.tree.body)), n=3)
        return f"did you mean {', '.join(close)}?" if close else "check the Symbol line against the file"


def _qualified_names(body: list[ast.stmt], prefix: str = "") -> set[str]:
    names = set()
    for node in body:
        if isinstance(node, DEFS):
            names |= {prefix + node.name} | _qualified_names(node.body, f"{prefix}{node.name}.")
    return names


def _walk_path(body: list[ast.stmt], parts: list[str]) -> list[ast.AST]:
    matches = [n for n in body if isinstance(n, DEFS) and n.name == parts[0]]
    if len(parts) == 1:
        return matches
    return [found for n in matches for found in _walk_path(n.body, parts[1:])]


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
