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
from pathlib import Path

import jedi

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
INDEXING = 5  # of _compute: a change of what it finds changes this, so no index is taken from an older cache
TIP_CHARS = 160  # of a signature and docstring line, shown in a tooltip
# (cache folder, key) -> index: read or computed once per process (serve builds again), as the folder keeps it
_INDEXES: dict[tuple[Path, str], XrefIndex] = {}


def cross_references(files: dict[str, bytes], cache_dir: Path, log=lambda message: None) -> XrefIndex:
    """The index of `files` (path -> bytes, Python files among them), from the cache when it holds it."""
    sources = {path: data for path, data in files.items() if path.endswith(".py")}
    key = hashlib.sha256(f"{INDEXING}\n{jedi.__version__}\n".encode() + "".join(
        f"{p}\0{git_blob_sha1(d)}\n" for p, d in sorted(sources.items())).encode()).hexdigest()
    kept = (cache_dir, key)
    if kept in _INDEXES and not in_ci():
        return _INDEXES[kept]
    secret = secret_or_none()
    # The clone's cache, then the user's: every clone of the same pin shares the work. Signed, so an edited
    # entry is computed again; links only, never evidence; and CI reads neither.
    places = [cache_dir / "xref" / f"{key}.json", default_key_file().parent / "xref" / f"{key}.json"]
    for cached in [] if in_ci() else places:
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
    log(f"cross-referencing {len(sources)} files with jedi (once per pinned commit, kept for every clone)")
    index = _INDEXES[kept] = _compute(sources, key, log)
    for cached in places:
        _keep(cached, secret, json.dumps(_to_json(index), ensure_ascii=False).encode("utf-8"))
    return index


def script_references(scripts: dict[str, bytes], package: XrefIndex, files: dict[str, bytes], cache_dir: Path,
                      log=lambda message: None) -> dict[str, list[Reference]]:
    """The references of experiment scripts (path -> bytes) to the package (`files`, indexed as `package`):
    `from autograd.extend import defvjp` and `defvjp(...)` lead to core.py's defvjp, through the re-export, as
    jedi follows it. Kept, signed, under the clone's cache by the package's key and the scripts' bytes (an edited
    script is resolved again); CI computes them afresh."""
    if not scripts:
        return {}
    key = hashlib.sha256(f"{INDEXING}\n{package.key}\n".encode() + "".join(
        f"{p}\0{git_blob_sha1(d)}\n" for p, d in sorted(scripts.items())).encode()).hexdigest()
    kept, secret = cache_dir / "xref" / f"scripts-{key}.json", secret_or_none()
    data = None if in_ci() else read_signed(kept, secret)
    if data is not None:
        try:
            return {p: [_typed(Reference, r) for r in refs] for p, refs in json.loads(data.decode("utf-8")).items()}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            pass  # a damaged cache is computed again
    log(f"cross-referencing {len(scripts)} experiment scripts with jedi")
    sources = {path: data for path, data in files.items() if path.endswith(".py")}
    with tempfile.TemporaryDirectory(prefix="codeproof-xref-") as tmp:
        root = Path(tmp).resolve()
        _write_tree(root, {**sources, **scripts})
        found = _references(root, sorted(scripts))
    references = {path: [r for r in refs if r.path in sources] for path, refs in found.items()}  # the package's
    _keep(kept, secret, json.dumps({p: [list(r.__dict__.values()) for r in refs] for p, refs in references.items()},
                                   ensure_ascii=False).encode("utf-8"))
    return references


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


def _compute(sources: dict[str, bytes], key: str, log=lambda message: None) -> XrefIndex:
    """The index. jedi is pure Python, one core per process: the files are shared among worker processes (each
    resolves its files against the whole package, written out once), which report each file as they finish it."""
    definitions = {path: top_level_definitions(data.decode("utf-8", "replace")) for path, data in sources.items()}
    with tempfile.TemporaryDirectory(prefix="codeproof-xref-") as tmp:
        root = Path(tmp).resolve()
        _write_tree(root, sources)
        paths = sorted(sources, key=lambda p: -len(sources[p]))  # the longest first: workers end together
        workers = max(1, min(os.cpu_count() or 1, MAX_WORKERS, len(paths)))
        small = sum(map(len, sources.values())) < IN_PROCESS_BYTES
        references = {} if small else _in_workers(root, [paths[n::workers] for n in range(workers)], len(paths), log)
        # A small package, or the files of a worker that failed, are done here.
        references.update(_references(root, [path for path in paths if path not in references]))
    return XrefIndex({path: references[path] for path in sorted(sources)}, definitions, key)


MAX_WORKERS = 4
# A worker's start (a Python process importing jedi) costs about a second: a package smaller than this is resolved
# faster in the build's own process (a few small files take jedi a fraction of that).
IN_PROCESS_BYTES = 32_000
# A worker: reads {"root", "paths"} as JSON, prints each file's references as a JSON line once it has them. Its
# own process (not multiprocessing's spawn, which would import the build's main module again).
WORKER = "from codeproof.site.xref import serve_worker; serve_worker()"


def _in_workers(root: Path, shares: list[list[str]], total: int, log) -> dict[str, list[Reference]]:
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
    for process, reader, share in zip(processes, readers, shares):
        reader.start()
        try:
            process.stdin.write(json.dumps({"root": str(root), "paths": share}).encode())
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
    project = _project(root)
    tips: dict[tuple[str, int, int], str] = {}
    for path in asked["paths"]:
        refs = _references(root, [path], project, tips)[path]
        print(json.dumps([path, [list(r.__dict__.values()) for r in refs]], ensure_ascii=False), flush=True)


def _project(root: Path) -> jedi.Project:
    # Only the package on the path: an installed copy of it must not take its names.
    # A parameter is not inferred from the calls that pass it (jedi's dynamic search of the package for them): a
    # link goes to where a name is defined, never through a parameter's value. On autograd at the pin the index
    # is the same without that search, and a cold cross-referencing takes a fifth less.
    jedi.settings.dynamic_params = jedi.settings.dynamic_params_for_other_modules = False
    jedi.settings.dynamic_array_additions = False
    return jedi.Project(root, sys_path=[str(root)], smart_sys_path=False, load_unsafe_extensions=False)


def _references(root: Path, paths: list[str], project: jedi.Project | None = None,
                tips: dict | None = None) -> dict[str, list[Reference]]:
    """Every linked name of each file of `paths` (under `root`, among the package's files)."""
    project = project or _project(root)
    tips = {} if tips is None else tips
    found: dict[str, list[Reference]] = {}
    for path in paths:
        found[path] = []
        code = (root / path).read_bytes().decode("utf-8", "replace")
        script = jedi.Script(code=code, path=str(root / path), project=project)
        for name in script.get_names(all_scopes=True, definitions=True, references=True):
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
