"""Citations: what an inline code span in a post's words names in the pinned tree.

A span's text is a citation in one of these forms (docs/authoring.md, 正文里的源码引用):
- a path of a Python file at the pin, or a path suffix that exactly one file ends with (`autograd/core.py`,
  `numpy_vjps.py`, `numpy/__init__.py`); any other file of the pin by its whole path (`README.md`);
- `file :: Symbol`, the Symbol written as a REAL SOURCE block's (`core.py :: translate_vjp`,
  `numpy_vjps.py :: defvjp(anp.add, ...)`); the file a path, a unique suffix or a dotted module
  (`autograd.extend :: defvjp`, followed through the module's imports to the definition);
- `file:N` or `file:N-M`;
- a bare dotted name, alone or followed by one subscript or one call (`primitive_vjps`, `VJPNode.__init__`,
  `primitive_vjps[fun]`, `grad(f)`): its name part is what links. A name NumPy prints values as, called with
  values (`array(1.)`, `float64(2.0)`), is a printout, and stays text.

The first three are explicit: they must resolve, and a Verdict that does not says what the pin holds instead.
A bare name is never guessed: it links when exactly one definition of it exists in the package's own source, or
else, when the package defines none, in the post's own experiments. Everything else (maths, commands,
expressions) is no citation, and stays text.

A definition is a module-level name, a class, a function or a method (by its dotted path: `VJPNode.__init__`),
or a name assigned inside exactly one function (`obj_to_wrapped`, at its first assignment): a local such as `g`,
assigned in many functions, names several definitions, so it is ambiguous.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import keyword
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from codeproof.common.errors import CodeproofError
from codeproof.quotes.symbols import DEFS, Span, SymbolError, parse_symbols
from codeproof.quotes.verify import symbols_of


class Form(Enum):
    PATH = "path"
    SYMBOL = "file :: Symbol"
    LINES = "file:N"
    NAME = "name"
    NONE = "text"  # not a citation


EXPLICIT = (Form.PATH, Form.SYMBOL, Form.LINES)

SYMBOL_RE = re.compile(r"^(?P<file>\S+)\s+::\s+(?P<symbol>\S.*)$")
LINES_RE = re.compile(r"^(?P<file>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.[A-Za-z0-9]+):(?P<first>\d+)(?:-(?P<last>\d+))?$")
PYTHON_PATH_RE = re.compile(r"^[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.py$")
MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
# What NumPy prints a value as (its repr): `array(1.)`, `float64(2.0)`, `dtype('float64')`. Called with values, such a
# name is a printout in the words, no citation; called with names (`array(x)`) it is a call; the explicit form
# (`numpy_wrapper.py :: array`) links it either way.
PRINTED_AS = frozenset({"array", "matrix", "masked_array", "recarray", "memmap", "dtype", "bool_", "str_", "bytes_",
                        "datetime64", "timedelta64", "float16", "float32", "float64", "float128", "longdouble",
                        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                        "complex64", "complex128", "complex256", "clongdouble"})
NAME_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\[[^\[\]]*\]|\((?P<call>[^()]*)\))?$")
ARGUMENTS_RE = re.compile(r"\s*(?:[*]{0,2}[A-Za-z_][A-Za-z0-9_.]*(?:=[A-Za-z_][A-Za-z0-9_.]*)?|\.\.\.)?"
                          r"(?:\s*,\s*(?:[*]{0,2}[A-Za-z_][A-Za-z0-9_.]*(?:=[A-Za-z_][A-Za-z0-9_.]*)?|\.\.\.))*\s*")
IDENTIFIER_RE = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![A-Za-z0-9_])")
SHOWN_PLACES = 4  # of an ambiguous name's definitions, in what check --references says
MAX_LINE_DIGITS = 9  # of a cited line number: a file of a billion lines is none the series quotes
MAX_IMPORTS = 8  # re-exports followed from a module to the definition (a cycle stops there)
KEPT = 16  # sets of files whose definitions a process keeps


@dataclass(frozen=True)
class Target:
    """Where a citation leads: lines first..last of a file (0, 0: the file itself); `script`: one of the
    series' experiments, not a file of the pin."""

    path: str
    first: int = 0
    last: int = 0
    script: bool = False

    def __str__(self) -> str:
        if not self.first:
            return self.path
        return f"{self.path}:{self.first}" + (f"-{self.last}" if self.last != self.first else "")


@dataclass(frozen=True)
class Verdict:
    """What a span's text cites: its form, where it leads (None: it stays text), the part of the text a link
    covers, and why it does not lead anywhere (for an explicit form, what is wrong, with a hint)."""

    form: Form
    target: Target | None = None
    linked: str = ""
    why: str = ""
    hint: str = ""

    @property
    def failed(self) -> bool:
        """An explicit citation that resolves nowhere: the strict build fails on it."""
        return self.form in EXPLICIT and self.target is None


@dataclass(frozen=True)
class Definition:
    path: str
    line: int


class CitationError(CodeproofError):
    """A citation that names nothing at the pin (a value in a Verdict; never raised past this module)."""


_DEFINED: dict[str, dict[str, list[Definition]]] = {}  # files_key -> their definitions: serve builds again
DEFINING = 1  # of definitions_of: a change of what it finds changes this, so no cache keeps an older answer


def files_key(files: dict[str, str]) -> str:
    """What names a set of files (path -> text) and the way their definitions are found."""
    return hashlib.sha256(json.dumps([DEFINING, sorted(files.items())]).encode("utf-8", "surrogatepass")).hexdigest()


def definitions_of(files: dict[str, str]) -> dict[str, list[Definition]]:
    """The definitions of Python files (path -> text), by dotted name: each (file, name) once, at its first line.
    A name that a function assigns is a definition only if no other function assigns it. Kept in the process."""
    key = files_key(files)
    if key not in _DEFINED:
        if len(_DEFINED) >= KEPT:
            _DEFINED.clear()
        _DEFINED[key] = _definitions(files)
    return _DEFINED[key]


def definitions_to_json(definitions: dict[str, list[Definition]]) -> bytes:
    return json.dumps({name: [[d.path, d.line] for d in places] for name, places in definitions.items()},
                      ensure_ascii=False).encode("utf-8")


def definitions_from_json(data: bytes) -> dict[str, list[Definition]]:
    """The definitions a cache kept; ValueError if it holds anything else (a damaged cache is worked out again)."""
    table = json.loads(data.decode("utf-8"))
    if type(table) is not dict or not all(
            type(name) is str and type(places) is list and all(
                type(place) is list and len(place) == 2 and type(place[0]) is str and type(place[1]) is int
                for place in places) for name, places in table.items()):
        raise ValueError("not a table of definitions")
    return {name: [Definition(path, line) for path, line in places] for name, places in table.items()}


def _definitions(files: dict[str, str]) -> dict[str, list[Definition]]:
    found: dict[str, dict[str, Definition]] = {}
    locals_: dict[str, list[Definition]] = {}  # a name -> its first assignment in each function that assigns it
    for path, text in sorted(files.items()):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # a file Python cannot read defines nothing a citation could name
        for name, line in _named(tree.body, ""):
            found.setdefault(name, {}).setdefault(path, Definition(path, line))
        for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for name, line in _assigned(function).items():
                locals_.setdefault(name, []).append(Definition(path, line))
    table = {name: list(by_path.values()) for name, by_path in found.items()}
    for name, places in locals_.items():
        table.setdefault(name, []).extend(places if len(places) > 1 else places[:1])
    return table


def _named(body: list[ast.stmt], prefix: str, assignments: bool = True) -> Iterable[tuple[str, int]]:
    """(dotted name, first line) of what a body defines: its defs and classes, nested ones by their path, and the
    names a module's or a class's body assigns (a function's are its locals: see _assigned)."""
    for node in body:
        if isinstance(node, DEFS):
            yield prefix + node.name, min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield from _named(node.body, f"{prefix}{node.name}.", isinstance(node, ast.ClassDef))
        elif assignments and isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        yield prefix + name.id, node.lineno


def _assigned(function: ast.AST) -> dict[str, int]:
    """The names a function's own body assigns (not its nested functions'), at their first assignment."""
    found: dict[str, int] = {}
    pending = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found[node.id] = min(found.get(node.id, node.lineno), node.lineno)
        pending.extend(ast.iter_child_nodes(node))
    return found


class PinnedTree:
    """The files citations resolve in: every path at the pin, the text of any of them on demand (`read`, which
    proves it, or raises CodeproofError saying why not), the package's definitions and the series' scripts."""

    def __init__(self, paths: Iterable[str] | None, read: Callable[[str], str], package: dict[str, str],
                 scripts: dict[str, str], definitions: dict[str, list[Definition]] | None = None):
        """`definitions`: the package's, where they are at hand (else worked out here)."""
        self.listed = paths is not None  # whether the pin's files could be listed here
        self.paths = sorted(set(paths or ()))
        self._read = read
        self.package = definitions_of(package) if definitions is None else definitions
        self.package_paths = sorted(package)
        self.scripts = scripts
        self._script_definitions = {path: definitions_of({path: text}) for path, text in scripts.items()}
        self._verdicts: dict[tuple[str, frozenset[str]], Verdict] = {}
        self._texts: dict[str, str | CitationError] = {}  # each file read once, or why it cannot be

    def verdict(self, text: str, own_scripts: Iterable[str] = ()) -> Verdict:
        """What `text` cites; `own_scripts`: the experiments of the post it stands in (their names count)."""
        key = (text, frozenset(own_scripts))
        if key not in self._verdicts:
            self._verdicts[key] = self._verdict(text, key[1])
        return self._verdicts[key]

    def _verdict(self, text: str, own: frozenset[str]) -> Verdict:
        symbol, lines = SYMBOL_RE.match(text), LINES_RE.match(text)
        try:
            if symbol:
                path, first, last = self._symbol(self._file(symbol["file"]), symbol["symbol"].strip())
                return Verdict(Form.SYMBOL, Target(path, first, last, path in self.scripts), text)
            if lines:
                path = self._file(lines["file"])
                numbers = [lines["first"], lines["last"] or lines["first"]]
                too_long = next((n for n in numbers if len(n) > MAX_LINE_DIGITS), None)
                if too_long:  # int() of thousands of digits is refused by Python, and no file has such a line
                    raise CitationError(f"{too_long[:12]}… ({len(too_long)} digits) is no line of {path}",
                                        hint="cite a line number the file has")
                return Verdict(Form.LINES, self._lines(path, *map(int, numbers)), text)
            if PYTHON_PATH_RE.match(text) or text in self.paths:
                path = self._file(text)
                return Verdict(Form.PATH, Target(path, script=path in self.scripts), text)
        except CitationError as error:
            form = Form.SYMBOL if symbol else Form.LINES if lines else Form.PATH
            return Verdict(form, why=str(error), hint=error.hint)
        name = NAME_RE.match(text)
        if not name or keyword.iskeyword(name["name"].split(".")[0]):
            return Verdict(Form.NONE, why="not a citation")
        if name["call"] is not None and name["name"].split(".")[-1] in PRINTED_AS \
                and not ARGUMENTS_RE.fullmatch(name["call"]):
            return Verdict(Form.NONE, why=f"a value as NumPy prints it, not a citation (cite "
                                          f"`file :: {name['name'].split('.')[-1]}` to link its definition)")
        return self._name(name["name"], own)

    def name_verdict(self, name: str, own_scripts: Iterable[str] = ()) -> Verdict:
        """What a bare dotted name cites (as in a `text` fence, where only whole identifiers are read)."""
        return self.verdict(name, own_scripts) if MODULE_RE.match(name) else Verdict(Form.NONE, why="not a citation")

    def _name(self, name: str, own: frozenset[str]) -> Verdict:
        package = self.package.get(name, [])
        scripts = [d for path in sorted(own & set(self._script_definitions))
                   for d in self._script_definitions[path].get(name, [])]
        places = package + scripts
        if len(places) == 1:
            place = places[0]
            return Verdict(Form.NAME, Target(place.path, place.line, place.line, bool(scripts)), name)
        if places:
            shown = ", ".join(f"{d.path}:{d.line}" for d in places[:SHOWN_PLACES])
            more = f" and {len(places) - SHOWN_PLACES} more" if len(places) > SHOWN_PLACES else ""
            return Verdict(Form.NAME, why=f"ambiguous: {len(places)} definitions ({shown}{more})",
                           hint=f"cite one as `file :: {name}`")
        return Verdict(Form.NAME, why="unknown: defined nowhere in the package or the post's experiments")

    def _file(self, name: str) -> str:
        """The one file `name` names: a script of the series, a path at the pin, a path suffix, or a module."""
        if name in self.scripts or name in self.paths:
            return name
        if not self.listed:
            raise CitationError(f"{name}: the files at the pin cannot be listed here (no cached copy, no network)",
                                hint="build once on a machine that reaches GitHub or PyPI (it fills the cache in ~/.cache/codeproof/)")
        wanted = [name]
        if MODULE_RE.match(name) and not name.endswith(".py"):
            wanted = [name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"]
        found = sorted({p for p in self.paths for w in wanted if p == w or p.endswith("/" + w)})
        if len(found) == 1:
            return found[0]
        if found:
            raise CitationError(f"{name} names {len(found)} files at the pin: {', '.join(found[:SHOWN_PLACES])}",
                                hint="write more of the path, e.g. " + found[0])
        base = name.rsplit("/", 1)[-1]  # as for a File line that names no file (providers.not_there)
        close = difflib.get_close_matches(name, self.paths, n=3, cutoff=0.8) + \
            difflib.get_close_matches(base, [p.rsplit("/", 1)[-1] for p in self.paths], n=3, cutoff=0.8)
        close = [p for p in self.paths if p in close or p.rsplit("/", 1)[-1] in close][:3]
        raise CitationError(f"{name} is no file at the pin",
                            hint=f"did you mean {', '.join(close)}?" if close else "check the path against the pin's files")

    def _text(self, path: str) -> str:
        if path in self.scripts:
            return self.scripts[path]
        if path not in self._texts:
            try:
                self._texts[path] = self._read(path)
            except CodeproofError as error:
                self._texts[path] = CitationError(str(error), hint=error.hint)
            except UnicodeDecodeError as error:
                self._texts[path] = CitationError(f"{path} is not UTF-8 text (byte {error.start})",
                                                  hint="cite a source file")
        if isinstance(self._texts[path], CitationError):
            raise self._texts[path]
        return self._texts[path]

    def _symbol(self, path: str, written: str, followed: int = 0) -> tuple[str, int, int]:
        """(file, first line, last line) of the one Symbol `written` names in the file at `path`; a name the file
        imports is followed to the module that defines it."""
        try:
            specs = parse_symbols(written)
        except SymbolError as error:
            raise CitationError(f"{error}", hint=error.hint) from None
        if len(specs) != 1 or specs[0].description:
            raise CitationError(f"cite one symbol, not {written!r}", hint="write `file :: Symbol`, one name or call")
        spec = specs[0]
        text = self._text(path)
        try:
            index = symbols_of(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise CitationError(f"{path} does not parse as Python", hint="cite its lines as `file:N`") from None
        try:
            span: Span = index.spans(spec)[0]
            return path, span.first, span.last
        except SymbolError as error:
            imported = None if spec.call or followed >= MAX_IMPORTS else _imported(getattr(index, "tree", None), path, spec.text, self.paths)
            if imported is None:
                raise CitationError(f"{path} defines no {spec.text}", hint=error.hint) from None
            return self._symbol(*imported, followed + 1)

    def read_paths(self) -> list[str]:
        """The files of the pin read so far: each cited file, and each a citation was followed through."""
        return sorted(path for path, text in self._texts.items() if isinstance(text, str))

    def text_or_none(self, path: str) -> str | None:
        """The text of a file a citation resolved in (read and proven once), or None if it cannot be had."""
        return None if self.unproven(path) else self._text(path)

    def unproven(self, path: str) -> CitationError | None:
        """Why the file cannot be had as the pin's (read and proven once), or None when it can."""
        try:
            self._text(path)
        except CitationError as error:
            return error
        return None

    def _lines(self, path: str, first: int, last: int) -> Target:
        count = len(self._text(path).splitlines())
        if not 1 <= first <= last <= count:
            raise CitationError(f"{path} has {count} lines: there are no lines {first}-{last}" if last != first else
                                f"{path} has {count} lines: there is no line {first}",
                                hint=f"cite lines between 1 and {count}")
        return Target(path, first, last, path in self.scripts)


def _imported(tree: ast.Module | None, path: str, dotted: str, paths: list[str]) -> tuple[str, str] | None:
    """(module file, name there) where the file's top level imports the first part of `dotted` from."""
    if tree is None:
        return None
    head, _, rest = dotted.partition(".")
    package = path.rsplit("/", 1)[0].split("/") if "/" in path else []
    if path.endswith("/__init__.py") or path == "__init__.py":
        package = path.split("/")[:-1]
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != head:
                continue
            base = package[:len(package) - node.level + 1] if node.level else []
            module = "/".join(base + (node.module.split(".") if node.module else []))
            for candidate in (f"{module}.py", f"{module}/__init__.py"):
                if candidate in paths:
                    return candidate, alias.name + (f".{rest}" if rest else "")
    return None
