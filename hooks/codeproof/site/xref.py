"""Cross-references of the quoted package at the pin: where each name used in its files is defined.

jedi resolves every name as Python would (scopes, imports followed to the module that defines the name,
builtins to the builtins, not to a package function that shares their name). A name is linked when it is
defined in the package: a function, a class, a module, or a name assigned at module or class level (a
parameter or a local variable is not worth a link). Each link carries the definition's signature and the
first line of its docstring, shown on hover and focus.

The index is computed once per set of files (a key over their blob SHA-1s, the indexing's version and jedi's)
and kept, signed, under the clone's cache and the user's (so a new clone of the same pin reuses it); CI trusts no
cache and computes it afresh.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from codeproof.series.config import in_ci
from codeproof.common.signing import default_key_file, read_signed, secret_or_none, write_signed
from codeproof.quotes.lock import git_blob_sha1


@dataclass(frozen=True)
class Reference:
    """A name used at line:column (1-based line, 0-based column) of a file, defined at path:target_line."""

    line: int
    column: int
    length: int
    path: str
    target_line: int  # MODULE for a module (`anp` of `import autograd.numpy.numpy_wrapper as anp`): its page
    tip: str  # its signature and the first line of its docstring


@dataclass(frozen=True)
class Definition:
    """A function, class or name defined at the top of a module, and its lines."""

    name: str
    first: int
    last: int


@dataclass(frozen=True)
class XrefIndex:
    references: dict[str, list[Reference]]  # by the file that uses the name
    definitions: dict[str, list[Definition]]  # the top-level ones of each file
    key: str  # names what it is made of: the files, the indexing's version and jedi's (see site.xref.cross_references)


LINKED_TYPES = ("function", "class", "module")
MODULE = 0  # the target line of a name that is a module: its page, not a line of it
INDEXING = 6  # of _compute: a change of what it finds changes this, so no index is taken from an older cache
TIP_CHARS = 160  # of a signature and docstring line, shown in a tooltip
# (cache folder, key) -> index: read or computed once per process (serve builds again), as the folder keeps it
_INDEXES: dict[tuple[Path, str], XrefIndex] = {}


def cross_references(files: dict[str, bytes], cache_dir: Path, log=lambda message: None) -> XrefIndex:
    """The index of `files` (path -> bytes, Python files among them), from the cache when it holds it."""
    return source_references(files, {}, cache_dir, log)[0]


def source_references(files: dict[str, bytes], scripts: dict[str, bytes], cache_dir: Path, log=lambda message: None
                      ) -> tuple[XrefIndex, dict[str, list[Reference]]]:
    """The index of the package's `files` (path -> bytes, Python files among them), and the references of
    experiment `scripts` (path -> bytes) to it: `from autograd.extend import defvjp` and `defvjp(...)` lead to
    core.py's defvjp, through the re-export, as jedi follows it. Each is taken from its cache when that holds it
    (the package's in the clone's cache and the user's, by the files; the scripts' in the clone's, by the package
    and the scripts' bytes: an edited script is resolved again); CI reads no cache and computes both afresh. When
    both are computed (a first build, CI), the scripts are resolved by the workers that resolve the package,
    which have read it by then (in the build's own process, reading it again took two seconds)."""
    sources = {path: data for path, data in files.items() if path.endswith(".py")}
    key = hashlib.sha256(f"{INDEXING}\n{version('jedi')}\n".encode() + "".join(
        f"{p}\0{git_blob_sha1(d)}\n" for p, d in sorted(sources.items())).encode()).hexdigest()
    secret = secret_or_none()
    # The clone's cache, then the user's: every clone of the same pin shares the work. Signed, so an edited
    # entry is computed again; links only, never evidence; and CI reads neither.
    places = [cache_dir / "xref" / f"{key}.json", default_key_file().parent / "xref" / f"{key}.json"]
    index = _kept_index(cache_dir, places, key, secret)
    script_key = hashlib.sha256(f"{INDEXING}\n{key}\n".encode() + "".join(
        f"{p}\0{git_blob_sha1(d)}\n" for p, d in sorted(scripts.items())).encode()).hexdigest()
    kept_scripts = cache_dir / "xref" / f"scripts-{script_key}.json"
    found = _kept_scripts(kept_scripts, secret) if scripts else {}
    if index is not None and found is not None:
        return index, found
    unresolved = scripts if found is None else {}
    if index is None:
        along = f", and {len(unresolved)} experiment scripts" if unresolved else ""
        log(f"cross-referencing {len(sources)} files with jedi (once per pinned commit, kept for every clone){along}")
        index, resolved = _compute(sources, key, log, unresolved)
        _INDEXES[(cache_dir, key)] = index
        for cached in places:
            _keep(cached, secret, json.dumps(_to_json(index), ensure_ascii=False).encode("utf-8"))
    else:
        log(f"cross-referencing {len(unresolved)} experiment scripts with jedi")
        resolved = _resolved_here({**sources, **unresolved}, sorted(unresolved), sources)
    if unresolved:
        found = resolved
        _keep(kept_scripts, secret, json.dumps({p: [list(r.__dict__.values()) for r in refs] for p, refs in found.items()},
                                               ensure_ascii=False).encode("utf-8"))
    return index, found


def _kept_index(cache_dir: Path, places: list[Path], key: str, secret: bytes | None) -> XrefIndex | None:
    """The index as this process or a cache (of `places`, signed) keeps it; None when none does, or in CI."""
    kept = (cache_dir, key)
    if in_ci():
        return None
    if kept in _INDEXES:
        return _INDEXES[kept]
    for cached in places:
        data = read_signed(cached, secret)
        if data is not None:
            try:
                _INDEXES[kept] = _from_json(json.loads(data.decode("utf-8")), key)
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                continue  # a damaged cache is computed again
            for other in places:
                if other != cached and not other.exists():
                    _keep(other, secret, data)
            return _INDEXES[kept]
    return None


def _kept_scripts(kept: Path, secret: bytes | None) -> dict[str, list[Reference]] | None:
    """The scripts' references as the clone's cache keeps them (signed); None when it does not, or in CI."""
    data = None if in_ci() else read_signed(kept, secret)
    if data is not None:
        try:
            return {p: [_typed(Reference, r) for r in refs] for p, refs in json.loads(data.decode("utf-8")).items()}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            pass  # a damaged cache is computed again
    return None


def _resolved_here(tree: dict[str, bytes], paths: list[str], package: dict[str, bytes]) -> dict[str, list[Reference]]:
    """The references of `paths` among the files of `tree`, resolved in this process, kept to those that lead
    into the `package`'s files."""
    with tempfile.TemporaryDirectory(prefix="codeproof-xref-") as tmp:
        root = Path(tmp).resolve()
        _write_tree(root, tree)
        found = _references(root, paths, linkable_names(tree))
    return {path: [r for r in refs if r.path in package] for path, refs in found.items()}


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    """The files (path -> bytes) under root, as jedi reads a project."""
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def _keep(path: Path, secret: bytes | None, data: bytes) -> None:
    try:
        write_signed(path, secret, data)
    except OSError:  # a cache that cannot be written is no cache (the index is in hand)
        pass


PROGRESS_EVERY = 2.0  # seconds between the lines that say how far cross-referencing is


def _compute(sources: dict[str, bytes], key: str, log=lambda message: None, scripts: dict[str, bytes] | None = None
             ) -> tuple[XrefIndex, dict[str, list[Reference]]]:
    """The index, and the references of `scripts` (path -> bytes) into the package. jedi is pure Python, one core
    per process: the files are shared among worker processes (each resolves its files against the whole package,
    written out once), which report each file as they finish it; the scripts come last in the shares."""
    scripts = scripts or {}
    definitions = {path: top_level_definitions(data.decode("utf-8", "replace")) for path, data in sources.items()}
    tree = {**sources, **scripts}
    linkable = linkable_names(tree)
    with tempfile.TemporaryDirectory(prefix="codeproof-xref-") as tmp:
        root = Path(tmp).resolve()
        _write_tree(root, tree)
        paths = sorted(sources, key=lambda p: -len(sources[p]))  # the longest first: workers end together
        workers = max(1, min(os.cpu_count() or 1, MAX_WORKERS, len(paths)))
        shares = [paths[n::workers] + sorted(scripts)[n::workers] for n in range(workers)]
        small = sum(map(len, sources.values())) < IN_PROCESS_BYTES
        references = {} if small else _in_workers(root, shares, linkable, len(tree), log)
        # A small package, or the files of a worker that failed, are done here.
        references.update(_references(root, [path for share in shares for path in share if path not in references],
                                      linkable))
    index = XrefIndex({path: references[path] for path in sorted(sources)}, definitions, key)
    return index, {path: [r for r in references[path] if r.path in sources] for path in sorted(scripts)}


MAX_WORKERS = 4
# A worker's start (a Python process importing jedi) costs about a second: a package smaller than this is resolved
# faster in the build's own process (a few small files take jedi a fraction of that).
IN_PROCESS_BYTES = 32_000
# A worker: reads {"root", "paths", "linkable"} as JSON, prints each file's references as a JSON line once it has
# them. Its own process (not multiprocessing's spawn, which would import the build's main module again).
WORKER = "from codeproof.site.xref import serve_worker; serve_worker()"


def _in_workers(root: Path, shares: list[list[str]], linkable: frozenset[str] | None, total: int, log
                ) -> dict[str, list[Reference]]:
    found: dict[str, list[Reference]] = {}
    lock = threading.Lock()

    def read(process: subprocess.Popen) -> None:
        for line in process.stdout:
            path, refs = json.loads(line)
            with lock:
                found[path] = [Reference(*fields) for fields in refs]

    processes = [subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL) for _ in shares]
    readers = [threading.Thread(target=read, args=(process,), daemon=True) for process in processes]
    asked = {"root": str(root), "linkable": None if linkable is None else sorted(linkable)}
    for process, reader, share in zip(processes, readers, shares):
        reader.start()
        try:
            process.stdin.write(json.dumps({**asked, "paths": share}).encode())
            process.stdin.close()
        except BrokenPipeError:  # the worker ended already: its files are done by the build (see _compute)
            pass
    said = time.monotonic()
    while any(reader.is_alive() for reader in readers):
        for reader in readers:
            reader.join(0.1)
        if time.monotonic() - said >= PROGRESS_EVERY:
            with lock:
                log(f"cross-referencing: {len(found)}/{total} files")
            said = time.monotonic()
    for process in processes:
        process.wait()
    return found


def serve_worker() -> None:
    """The worker's side of _in_workers."""
    asked = json.loads(sys.stdin.read())
    root = Path(asked["root"])
    linkable = None if asked["linkable"] is None else frozenset(asked["linkable"])
    project = _project(root)
    tips: dict[tuple[str, int, int], str] = {}
    for path in asked["paths"]:
        refs = _references(root, [path], linkable, project, tips)[path]
        print(json.dumps([path, [list(r.__dict__.values()) for r in refs]], ensure_ascii=False), flush=True)


def _project(root: Path):
    """A jedi project of the package alone. jedi is imported here, where the index is computed (once per pinned
    commit): a build that takes the index from its cache never imports it (a tenth of a second of its start)."""
    import jedi

    # Only the package on the path: an installed copy of it must not take its names.
    # A parameter is not inferred from the calls that pass it (jedi's dynamic search of the package for them): a
    # link goes to where a name is defined, never through a parameter's value. On autograd at the pin the index
    # is the same without that search, and a cold cross-referencing takes a fifth less.
    jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = False
    jedi.settings.dynamic_array_additions = False
    return jedi.Project(root, sys_path=[str(root)], smart_sys_path=False, load_unsafe_extensions=False)


def _references(root: Path, paths: list[str], linkable: frozenset[str] | None, project=None,
                tips: dict | None = None) -> dict[str, list[Reference]]:
    """Every linked name of each file of `paths` (under `root`, among the package's files); jedi is asked where
    a name leads only when it is `linkable` (linkable_names; None: every name)."""
    import jedi  # as _project says

    project = project or _project(root)
    tips = {} if tips is None else tips
    found: dict[str, list[Reference]] = {}
    for path in paths:
        found[path] = []
        code = (root / path).read_bytes().decode("utf-8", "replace")
        script = jedi.Script(code=code, path=str(root / path), project=project)
        for name in script.get_names(all_scopes=True, definitions=True, references=True):
            if linkable is not None and name.name not in linkable:
                continue
            imported = name.get_line_code().lstrip().startswith(("from ", "import "))
            if name.is_definition() and not imported:  # an import is followed to what it names
                continue
            try:
                targets = name.goto(follow_imports=True)
            except Exception:  # jedi gives up on some constructs; the name is then not linked
                continue
            target = next((t for t in targets if t.module_path and _inside(t.module_path, root)), None)
            if target is None or target.line is None or not _worth_a_link(target):
                continue
            found[path].append(Reference(
                name.line, name.column, len(name.name), Path(target.module_path).resolve().relative_to(root).as_posix(),
                MODULE if target.type == "module" else target.line, _tip(target, tips)))
    return found


def linkable_names(files: dict[str, bytes]) -> frozenset[str] | None:
    """Every name that may lead to a link, as `ast` reads the files: what they define as a function or class at
    any depth, bind at module or class level or declare global, import (under any of its names) and their
    modules' names. A link goes to a function, a class, a module or a name bound at module or class level (see
    _worth_a_link), so jedi need not be asked of any other name (a local variable, a parameter, an attribute):
    on autograd at the pin it is asked of 4,334 names, not 9,780, and the index is the same. None (ask of every
    name) when a file is not Python that `ast` reads, which jedi still reads as well as it can."""
    collector = _Bindings()
    for path, data in files.items():
        if not path.endswith(".py"):
            continue
        try:
            collector.visit(ast.parse(data))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        collector.names.update(Path(path).with_suffix("").parts)
    return frozenset(collector.names)


class _Bindings(ast.NodeVisitor):
    """The names linkable_names gathers: inside a function (depth > 0), only those of functions, classes, imports
    and global declarations; a class's body is bound at class level wherever the class is."""

    def __init__(self):
        self.names: set[str] = set()
        self.depth = 0  # of functions and lambdas around the node, up to the nearest class

    def _inside_function(self, node) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_FunctionDef(self, node) -> None:
        self.names.add(node.name)
        self._inside_function(node)

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = _inside_function

    def visit_ClassDef(self, node) -> None:
        self.names.add(node.name)
        outer, self.depth = self.depth, 0
        self.generic_visit(node)
        self.depth = outer

    def _bound(self, name: str | None) -> None:
        if self.depth == 0 and name:
            self.names.add(name)

    def visit_Name(self, node) -> None:
        if not isinstance(node.ctx, ast.Load):
            self._bound(node.id)

    def visit_Attribute(self, node) -> None:
        if not isinstance(node.ctx, ast.Load):
            self._bound(node.attr)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node) -> None:
        self._bound(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node) -> None:
        self._bound(node.name)
        self.generic_visit(node)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node) -> None:
        self._bound(node.rest)
        self.generic_visit(node)

    def visit_Global(self, node) -> None:
        self.names.update(node.names)

    def visit_alias(self, node) -> None:
        self.names.update(node.name.split("."))
        if node.asname:
            self.names.add(node.asname)

    def visit_ImportFrom(self, node) -> None:
        self.names.update((node.module or "").split("."))
        self.generic_visit(node)


def top_level_definitions(text: str) -> list[Definition]:
    """Each function, class and assigned name at the top of a module, with its lines: what the map lists."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(Definition(node.name, node.lineno, node.end_lineno))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [Definition(target.id, node.lineno, node.end_lineno) for target in targets
                      if isinstance(target, ast.Name)]
    return found


def _worth_a_link(name) -> bool:
    if name.type in LINKED_TYPES:
        return True
    if name.type != "statement":
        return False
    scope = name.parent()
    return scope is not None and scope.type in ("module", "class")


def _inside(path, root: Path) -> bool:
    try:
        Path(path).resolve().relative_to(root)
        return True
    except ValueError:
        return False


def _tip(name, tips: dict) -> str:
    """The definition's own line as written (`def vjp(g):`, `class Box(object):`, `primitive_vjps = {}`) and
    the first line of its docstring. (jedi's inferred signatures cost seconds each.)"""
    key = (str(name.module_path), name.line or 0, name.column or 0)
    if key not in tips:
        try:
            head = name.get_line_code().strip() if name.type != "module" else f"module {name.name}"
            doc = name.docstring(raw=True).strip().splitlines() if name.type != "module" else []
        except Exception:
            head, doc = f"{name.type} {name.name}", []
        tips[key] = (head + (f" — {doc[0].strip()}" if doc else ""))[:TIP_CHARS]
    return tips[key]


def _to_json(index: XrefIndex) -> dict:
    return {"references": {p: [list(r.__dict__.values()) for r in refs] for p, refs in index.references.items()},
            "definitions": {p: [list(d.__dict__.values()) for d in defs] for p, defs in index.definitions.items()}}


def _from_json(data: dict, key: str) -> XrefIndex:
    return XrefIndex({p: [_typed(Reference, r) for r in refs] for p, refs in data["references"].items()},
                     {p: [_typed(Definition, d) for d in defs] for p, defs in data["definitions"].items()}, key)


def _typed(kind, fields: list):
    """A Reference or Definition of the fields as the cache holds them; TypeError if they are not of its fields'
    types (a damaged cache): a string where a line goes would fail far from the cache, in a later comparison."""
    if type(fields) is not list or list(map(type, fields)) != list(_FIELD_TYPES[kind]):
        raise TypeError(f"not a {kind.__name__}: {fields!r}"[:200])
    return kind(*fields)


_FIELD_TYPES = {Reference: (int, int, int, str, int, str), Definition: (str, int, int)}
