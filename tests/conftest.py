"""Shared fixtures. The engine is the installed package `codeproof` (see pyproject.toml), as everywhere."""

from __future__ import annotations

import atexit
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

from codeproof.series.config import in_ci, load_series
from codeproof.experiments.cache import NO_CACHE_ENV
from codeproof.experiments.sandbox import bwrap_works

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["ci_skips", "mutations"]

# The user's cache (the experiment cache's key, the cross-references that clones share) is this test process's own:
# no test reads what the developer's builds left there, nor leaves anything there.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="codeproof-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)

# CI explores the same examples every run, so a submission's result does not depend on luck;
# locally each run explores new ones.
settings.register_profile("ci", derandomize=True)
settings.load_profile("ci" if in_ci() else "default")


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): a worker more than the machine has cores. The browser tests wait on
    Chromium, whose own processes do the work, for much of their time: a third worker keeps two cores busy
    (here the suite took 279 s so, 301 s with two)."""
    return (os.cpu_count() or 1) + 1


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite the golden files in tests/golden/ from what the code renders now (review the diff)")


@pytest.fixture
def golden(request):
    """golden(name, text): the text must equal tests/golden/<name>; with --update-golden it is written there."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = ROOT / "tests" / "golden" / name
        if update:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        assert path.is_file(), f"no golden file {path}: run `./dev.sh test --update-golden` and review it"
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), f"golden/{name}", "rendered"))
            pytest.fail(f"rendered output differs from tests/golden/{name}:\n{diff}\n"
                        "(if the change is meant, run `./dev.sh test --update-golden` and review the diff)", pytrace=False)

    return check


@pytest.fixture(autouse=True)
def local_build(monkeypatch):
    """Every test runs as a developer's build unless it says otherwise (no CI=true, no CODEPROOF_NO_CACHE),
    wherever the suite itself runs: tests of CI's behaviour set CI themselves."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)


def mkdocs(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """A real `mkdocs` run, as the README's commands do it."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", *args], cwd=cwd, capture_output=True, text=True, env=env)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout.strip()


def pytest_report_header(config):
    sandbox = "bubblewrap" if bwrap_works() else "the subreaper fallback (bubblewrap is missing or cannot make namespaces)"
    return f"experiments' sandbox on this machine: {sandbox}"


def once_per_run(tmp_path_factory, name: str, make) -> Path:
    """The folder `name`, made by make(folder) once for the whole run: by the first pytest-xdist worker to ask
    (the others wait on a lock and reuse it), written aside and renamed, so none sees it half made."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # every worker's basetemp's parent
    folder = shared / name
    with FileLock(str(shared / f"{name}.lock")):
        if not folder.is_dir():
            aside = shared / f"{name}.partial"
            shutil.rmtree(aside, ignore_errors=True)
            aside.mkdir()
            make(aside)
            aside.rename(folder)
    return folder


@pytest.fixture(scope="session")
def warm_cache(tmp_path_factory) -> Path:
    """The real pinned files, fetched once (from the cache, git or PyPI) for the whole run."""
    def fetch(_folder: Path) -> None:
        done = subprocess.run([sys.executable, "-m", "codeproof", "check"], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    once_per_run(tmp_path_factory, "warm-cache-checked", fetch)
    return ROOT / ".cache"


@pytest.fixture
def site(tmp_path: Path, warm_cache: Path) -> Path:
    """A copy of the real site (posts, experiments, config, lock, warm source cache) to change freely."""
    copy = tmp_path / "site-src"
    for name in ("docs", "experiments", "hooks", "overrides", "search"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "requirements.txt", "sources.lock.json"):
        shutil.copy2(ROOT / name, copy / name)
    for name in ("blobs", "sdist", "xref"):  # the verified upstream files (no network), their signed index
        if (warm_cache / name).is_dir():
            shutil.copytree(warm_cache / name, copy / ".cache" / name)
    return copy


@pytest.fixture
def series(site: Path):
    return load_series(site / "mkdocs.yml")


@pytest.fixture(scope="session")
def built(tmp_path_factory, warm_cache) -> Path:
    """The real site, built once with --strict for the whole run, as CI and readers get it."""
    def build(site_dir: Path) -> None:
        done = mkdocs(ROOT, "build", "--strict", "--site-dir", str(site_dir))
        assert done.returncode == 0, done.stderr
        assert "WARNING" not in done.stderr

    return once_per_run(tmp_path_factory, "built", build)


def pytest_terminal_summary(terminalreporter):
    """Tell people where the browser tests left their screenshots."""
    shots = ROOT / "test-artifacts" / "screenshots"
    if shots.is_dir():
        names = ", ".join(sorted(p.name for p in shots.glob("*.png")))
        terminalreporter.write_line(f"screenshots for people to look at: {shots} ({names})")
