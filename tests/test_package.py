"""The engine is one installed package with one import name, wherever it is used from."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT

# Loads the engine every way the project does: the MkDocs hook (through MkDocs' own loader), the command
# line's module, and a plain import; then lists the engine modules the process holds.
PROBE = """
import sys
from mkdocs.config import load_config
load_config({config!r})
import codeproof.__main__, codeproof.sources
print(codeproof.__file__)
print(sorted(name for name in sys.modules if "codeproof" in name.split(".")[:2] and not name.startswith("codeproof")))
"""


def test_the_hook_the_command_line_and_a_plain_import_share_one_engine(tmp_path: Path):
    done = subprocess.run([sys.executable, "-c", PROBE.format(config=str(ROOT / "mkdocs.yml"))], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    path, others = done.stdout.splitlines()
    assert Path(path) == ROOT / "hooks" / "codeproof" / "__init__.py"
    assert others == "[]"  # no `hooks.codeproof`, no second copy of a module under another name


def test_the_command_line_is_installed_and_runs_from_any_folder(tmp_path: Path):
    done = subprocess.run([Path(sys.executable).parent / "codeproof", "--help"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: codeproof [-h]")
    assert "share less than 50% with the source" in " ".join(done.stdout.split())


def test_a_wheel_of_the_package_carries_every_template(tmp_path: Path):
    source = tmp_path / "source"  # a copy: setuptools leaves build/ and an egg-info beside pyproject.toml
    shutil.copytree(ROOT / "hooks" / "codeproof", source / "hooks" / "codeproof",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", source)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--wheel-dir", str(tmp_path), str(source)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("codeproof-*.whl")
    templates = ROOT / "hooks" / "codeproof" / "templates"
    with zipfile.ZipFile(wheel) as archive:
        packed = {name for name in archive.namelist() if name.startswith("codeproof/templates/")}
    assert packed == {f"codeproof/templates/{path.relative_to(templates).as_posix()}"
                      for path in templates.rglob("*") if path.is_file()}


def engine_imports() -> dict[str, set[str]]:
    """module -> the engine modules it imports (`from . import x`, `from .x import y`), read with ast."""
    import ast

    graph = {}
    for path in sorted((ROOT / "hooks" / "codeproof").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module} if node.module else {alias.name for alias in node.names}
        graph[path.stem] = found
    return graph


def test_the_engine_has_no_import_cycle():
    graph, done, path = engine_imports(), set(), []

    def visit(module: str) -> None:
        assert module not in path, "import cycle: " + " -> ".join(path[path.index(module):] + [module])
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph[module]):
            visit(imported)
        path.pop()
        done.add(module)

    for module in graph:
        visit(module)


# The engine's layers, top down, as the README's layout table lists them: a module imports only modules of
# the layers below its own.
LAYERS = [
    {"__main__"},
    {"drift"},
    {"engine", "sourcepages"},
    {"verify", "experiments", "rewrite", "guard", "overview", "scaffold", "xref"},
    {"blocks", "sources", "resources", "render", "series_model", "symbols", "compare", "namelinks"},
    {"config", "frontmatter", "prose"},
    {"markers", "signing"},
    {"structure", "filesystem", "fences", "tables", "yamledit"},
]


def test_every_engine_module_imports_only_modules_of_lower_layers():
    layer = {module: n for n, modules in enumerate(LAYERS) for module in modules}
    graph = engine_imports()
    assert set(graph) - {"__init__"} == set(layer)  # a new module takes its place in LAYERS
    upward = [(module, imported) for module, imports in graph.items() for imported in imports
              if module != "__init__" and layer[imported] <= layer[module]]
    assert upward == []


def test_the_engine_the_hook_and_the_benchmarks_hold_no_unused_import_or_name():
    done = subprocess.run([sys.executable, "-m", "pyflakes", "hooks", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
