"""The engine is one installed package with one import name, wherever it is used from."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, git
from fixture_site import make_site

ENGINE = ROOT / "hooks" / "codeproof"

# Loads the engine every way the project does: the MkDocs hook (through MkDocs' own loader), the command
# line's module, and a plain import; then lists the engine modules the process holds.
PROBE = """
import sys
from mkdocs.config import load_config
load_config({config!r})
import codeproof.__main__, codeproof.quotes.sources
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
    done = subprocess.run([Path(sys.executable).parent / "codeproof", "update", "--help"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: codeproof update [-h]")
    assert "share less than 50% with the source" in " ".join(done.stdout.split())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The engine built as a wheel from a copy of its source (setuptools leaves build/ and an egg-info there)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(ROOT / "hooks" / "codeproof", source / "hooks" / "codeproof",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", source)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--wheel-dir", str(tmp), str(source)], cwd=tmp, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    [built] = tmp.glob("codeproof-*.whl")
    return built


@pytest.mark.slow
def test_a_wheel_of_the_package_carries_every_module_and_template(wheel):
    with zipfile.ZipFile(wheel) as archive:
        packed = {name for name in archive.namelist() if name.startswith("codeproof/")}
    files = {f"codeproof/{path.relative_to(ENGINE).as_posix()}" for path in ENGINE.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts}
    assert packed == files


@pytest.mark.slow
def test_the_installed_wheel_checks_a_site(wheel, tmp_path):
    """Installed as a wheel (not editable, ahead of the editable one on the path), the engine checks a fixture
    site: a subpackage left out of pyproject.toml fails here."""
    target = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)  # a pure-Python wheel, installed as pip would lay it out
    site = make_site(tmp_path / "fixture")
    # -S: site-packages only as a plain path, so no .pth file installs the editable engine's finder.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), sysconfig.get_paths()["purelib"]])}
    probe = subprocess.run([sys.executable, "-S", "-c", "import codeproof.site.guard as m; print(m.__file__)"],
                           env=env, cwd=tmp_path, capture_output=True, text=True)
    assert Path(probe.stdout.strip()) == target / "codeproof" / "site" / "guard.py", probe.stderr
    done = subprocess.run([sys.executable, "-S", "-m", "codeproof", "check", "--config", str(site.root / "mkdocs.yml")],
                          env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def engine_modules() -> dict[str, Path]:
    """Every engine module by its dotted name under codeproof ("engine", "series.config", "site" for a package)."""
    modules = {}
    for path in sorted(ENGINE.rglob("*.py")):
        parts = path.relative_to(ENGINE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name or "__init__"] = path
    return modules


def engine_imports() -> dict[str, set[str]]:
    """module -> the engine modules it imports (`from codeproof.x import y`, `from codeproof.x import module`),
    read with ast. The engine imports itself by absolute names only."""
    import ast

    modules = engine_modules()
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: a relative import (the engine imports itself as codeproof.…)"
                if node.module and (node.module + ".").startswith("codeproof."):
                    base = node.module.removeprefix("codeproof").lstrip(".")
                    for alias in node.names:
                        imported = f"{base}.{alias.name}".lstrip(".")
                        found.add(imported if imported in modules else base)
        graph[name] = found - {""}
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


# The engine's parts, bottom up, as ARCHITECTURE.md's code map lists them: its packages, then the modules that
# drive them. A module imports modules of its own package (no cycle) and of the parts below its own, never above.
LAYERS = ["common", "series", "quotes", "experiments", "site", "engine", "matrix", "build", "cards", "drift", "fetch", "__main__", "adapter"]


def layer_of(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def test_every_engine_module_imports_only_its_own_package_and_the_parts_below():
    graph = engine_imports()
    assert {module.split(".")[0] for module in graph} - {"__init__", "templates"} == set(LAYERS)
    upward = [(module, imported) for module, imports in graph.items() if module != "__init__" for imported in imports
              if layer_of(imported) > layer_of(module)
              or (layer_of(imported) == layer_of(module) and "." not in module and imported != module)]
    assert upward == []


def test_each_package_says_what_it_may_import_and_imports_no_more():
    graph = engine_imports()
    for package in LAYERS[:5]:
        doc = ast_docstring(ENGINE / package / "__init__.py")
        said = set(re.findall(r"`codeproof\.(\w+)`", doc.split("It imports")[-1]))
        used = {imported.split(".")[0] for module, imports in graph.items() if module.split(".")[0] == package
                for imported in imports} - {package}
        assert used <= said, f"{package} imports {sorted(used - said)}, which its docstring does not name"
        assert said <= set(LAYERS[:LAYERS.index(package)]), package


def test_each_package_names_every_module_it_holds():
    for package in LAYERS[:5]:
        doc = ast_docstring(ENGINE / package / "__init__.py")
        held = {path.stem for path in (ENGINE / package).glob("*.py")} - {"__init__"}
        named = set(re.findall(r"`(\w+)`", doc))
        assert held <= named, f"{package}'s docstring does not name {sorted(held - named)}"


ARCHITECTURE = ROOT / "ARCHITECTURE.md"


def code_map() -> str:
    """ARCHITECTURE.md's code map: its section, up to the next one."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text.split("\n## Code map\n", 1)[1].split("\n## ", 1)[0]


def test_the_architecture_lists_the_engines_parts_in_their_order():
    """Each part is a heading of the code map (`### `hooks/codeproof/common/``), bottom up."""
    headed = re.findall(r"^### `hooks/codeproof/([^`/]+?)(?:/|\.py)`$", code_map(), re.M)
    assert headed == LAYERS, f"ARCHITECTURE.md's code map heads the parts {headed}; LAYERS orders them {LAYERS}"


def test_the_architecture_names_every_engine_module_in_its_code_map():
    """Every package (by its folder) and module of the engine, and the hook, by its path: a module added or
    split is named there, with what it does."""
    named = set(re.findall(r"`([^`\s]+)`", code_map()))
    paths = [ENGINE.parent / "series.py"] + [path.parent if path.name == "__init__.py" else path
                                             for path in engine_modules().values()]
    wanted = [path.relative_to(ROOT).as_posix() + ("/" if path.is_dir() else "") for path in paths]
    missing = [path for path in wanted if path not in named]
    assert missing == [], f"ARCHITECTURE.md's code map does not name {', '.join(missing)}: add each under its part"


def test_every_path_the_architecture_names_exists():
    """A path in backticks under a folder the repository holds (hooks/, tests/, bench/, docs/...), anywhere in
    ARCHITECTURE.md, names a file or folder that is there: a module renamed or removed is not left behind."""
    folders = {path.split("/")[0] for path in git(ROOT, "ls-files").splitlines() if "/" in path}
    named = re.findall(r"`([^`\s<>*]+)`", ARCHITECTURE.read_text(encoding="utf-8"))
    stale = sorted({path for path in named if path.split("/")[0] in folders and "/" in path
                    and not (ROOT / path).exists()})
    assert stale == [], f"ARCHITECTURE.md names {', '.join(stale)}, which the repository does not hold: rename or remove"


def ast_docstring(path: Path) -> str:
    import ast

    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_the_engine_the_hook_and_the_benchmarks_hold_no_unused_import_or_name():
    done = subprocess.run([sys.executable, "-m", "pyflakes", "hooks", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# Every engine module below the adapter imported, then the command line's check run on a fixture site, in one fresh process: what
# the process then holds is what the core needs, and a generator outlives neither.
CORE_PROBE = """
import importlib, pkgutil, sys
import codeproof
from codeproof.__main__ import main
for module in pkgutil.walk_packages(codeproof.__path__, "codeproof."):
    if not module.name.startswith("codeproof.adapter"):  # MkDocs' own side
        importlib.import_module(module.name)
code = main(["check", "--config", {config!r}])
print(code, sorted({{name.split(".")[0] for name in sys.modules}} & {{"mkdocs", "material", "mkdocs_rss_plugin"}}))
"""


def test_the_engine_and_its_command_line_need_no_mkdocs_nor_material(tmp_path: Path):
    """MkDocs 1.x is unmaintained and Material's end of life is May 2027: the engine works on plain values and
    reads mkdocs.yml with its own loader; only the adapter (codeproof.adapter, bound by hooks/series.py) knows
    MkDocs' events and objects."""
    site = make_site(tmp_path / "fixture")
    done = subprocess.run([sys.executable, "-c", CORE_PROBE.format(config=str(site.root / "mkdocs.yml"))], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr


def test_the_hook_stays_an_adapter():
    lines = (ROOT / "hooks" / "series.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"hooks/series.py has {len(lines)} lines: move what is not MkDocs glue into codeproof"


def pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins(lines: list[str]) -> dict[str, str]:
    """{normalised name: version} of each `name==version` line (a lock's, a requirements file's, pyproject's)."""
    found = {}
    for line in lines:
        match = re.match(r"([A-Za-z0-9._-]+)==([^\s;\\]+)", line.strip())
        if match:
            found[re.sub(r"[-_.]+", "-", match[1]).lower()] = match[2]
    return found


def test_the_core_and_its_extras_pin_each_package_exactly_as_the_site_and_the_tests_do():
    """Issue 54: pyproject.toml names the core's dependencies and the extras `mkdocs` and `zensical`, each pinned
    exactly; requirements(-test).txt pin the same versions (one version of each package across every set)."""
    project = pyproject()["project"]
    named = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    assert all("==" in dependency for dependency in named), named
    site = pins((ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
                + (ROOT / "requirements-test.txt").read_text(encoding="utf-8").splitlines())
    assert {name: version for name, version in pins(named).items() if site.get(name) != version} == {}


@pytest.mark.parametrize("lock, extra", [("requirements-core.lock", None), ("requirements-zensical.lock", "zensical")])
def test_each_locked_set_of_the_engine_holds_its_pins_hashed_and_no_other_generator(lock, extra):
    project = pyproject()["project"]
    text = (ROOT / lock).read_text(encoding="utf-8")
    locked = pins(text.splitlines())
    wanted = pins(project["dependencies"] + (project["optional-dependencies"][extra] if extra else []))
    assert {name: locked.get(name) for name in wanted} == wanted
    entries = re.split(r"\n(?=[a-z])", text)  # a pinned package's line and its hashes' continuation lines
    assert all("--hash=sha256:" in entry for entry in entries if "==" in entry.split("\n")[0])
    assert {"mkdocs", "mkdocs-material", "mkdocs-rss-plugin", "jieba"} & set(locked) == set()
    assert ("zensical" in locked) == (extra == "zensical")


NOT_IN_THE_CORE = ("mkdocs", "material", "mkdocs_rss_plugin", "jieba", "zensical")


@pytest.mark.heavy
@pytest.mark.real_site
def test_the_core_installed_alone_checks_the_real_posts_and_runs_their_experiments(wheel, tmp_path):
    """Issue 54: the engine's core, installed alone into a fresh environment from requirements-core.lock (hashed)
    and its wheel, has no generator in it, imports every module outside the MkDocs adapter, and checks the real
    posts with their experiments run anew (`check --no-cache`)."""
    from codeproof.experiments.matrix import uv_command

    uv = uv_command()
    assert uv, "the test installs with uv: run the tests through ./dev.sh test, which provides it"
    venv = tmp_path / "core"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    for args in (["--require-hashes", "-r", str(ROOT / "requirements-core.lock")], [str(wheel)]):
        done = subprocess.run([uv, "pip", "install", "--quiet", "--python", str(python), "--no-deps", *args],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    absent = subprocess.run([python, "-c", "import importlib.util as u, sys; "
                             f"print([m for m in {NOT_IN_THE_CORE!r} if u.find_spec(m)])"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert absent.stdout.strip() == "[]", absent.stderr
    core = sorted(f"codeproof.{name}" if name != "__init__" else "codeproof" for name in engine_modules()
                  if not name.startswith("adapter") and name != "__main__")
    imported = subprocess.run([python, "-c", f"import importlib\nfor m in {core!r}: importlib.import_module(m)"],
                              capture_output=True, text=True, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    site = tmp_path / "site"
    site.mkdir()
    for entry in ("mkdocs.yml", "sources.lock.json", "docs", "experiments", "matrix"):
        (shutil.copytree if (ROOT / entry).is_dir() else shutil.copy)(ROOT / entry, site / entry)
    done = subprocess.run([python, "-m", "codeproof", "check", "--no-cache"], cwd=site, capture_output=True,
                          text=True, env={**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stdout + done.stderr
    posts = sorted((ROOT / "docs" / "posts").glob("*.md"))
    assert posts
    said = done.stdout + done.stderr
    counted = re.search(r"(\d+) blocks in (\d+) pages checked in [\d.]+ s; (\d+) experiments run", said)
    assert counted and int(counted[2]) >= len(posts) and int(counted[3]) > 0, said
