"""Shared fixtures. The engine is the installed package `codeproof` (see pyproject.toml), as everywhere."""

from __future__ import annotations

import atexit
import difflib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

from codeproof.common.usercache import repository_cache
from codeproof.common import filesystem
from codeproof.common.signing import default_key_file, machine_secret
from codeproof.common.structure import Budgets, Limits
from codeproof.series.config import in_ci, load_series
from codeproof.experiments.cache import NO_CACHE_ENV
from codeproof.experiments.runner import ExperimentRunner
from codeproof.experiments.sandbox import bwrap_works

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["ci_skips", "mutations"]

# The user's cache (the cache's signing key, the cross-references that clones share) is the run's own: no test reads
# what the developer's builds left there, nor leaves anything there. The pytest process makes it and its key; the
# xdist workers, started from it, inherit both, so what one worker's build signs (the warm cache, the real site's
# build) is valid in every other. Each test then gets a folder of its own holding that key (own_user_cache).
if not os.environ.get("PYTEST_XDIST_WORKER"):
    from site_server import AXE  # where ./dev.sh installed it: in the user's cache before the run's replaces it
    os.environ["CODEPROOF_AXE"] = str(AXE)
    # Hypothesis keeps the examples that failed (to try them first next time) and its own caches: tool state, in
    # the user's cache, never in .hypothesis/ of the repository, which a branch could fill.
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(repository_cache(ROOT) / "hypothesis")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="codeproof-test-cache-")
    atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)
    machine_secret(default_key_file())
RUN_KEY = default_key_file()

# CI explores the same examples every run, so a submission's result does not depend on luck;
# locally each run explores new ones.
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile("ci" if in_ci() else "default")


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): a worker more than the machine has cores. The browser tests wait on
    Chromium, whose own processes do the work, for much of their time: a third worker keeps two cores busy
    (here the suite took 279 s so, 301 s with two)."""
    return (os.cpu_count() or 1) + 1


# What a test of the real site uses: the pinned files fetched for it, its strict build (both below).
REAL_SITE_FIXTURES = {"warm_cache", "built"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items):
    """Every test that uses the real site is marked real_site (pyproject's markers): `./dev.sh test --fast` leaves
    it out, and so every test added with those fixtures. Then the heavy tests are put first."""
    for item in items:
        if REAL_SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real_site)
    # The heavy tests go first (pyproject's addopts hand out one test at a time as workers free up):
    # started last, one would run on alone while the other workers sat idle.
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


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
def own_user_cache(tmp_path_factory, monkeypatch):
    """Each test's user cache is empty but for the run's key: what a test leaves there (a cross-reference index
    that clones share) never reaches another test, so none depends on which ran before it in its worker."""
    folder = tmp_path_factory.mktemp("user-cache")
    (folder / RUN_KEY.parent.name).mkdir()
    (folder / RUN_KEY.parent.name / RUN_KEY.name).symlink_to(RUN_KEY)
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))


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
def warm_cache(built) -> Path:
    """The real pinned files (from the cache, git or PyPI) and their cross-references, signed with the run's key:
    the real site's build (below) fetches and computes them once for the whole run, into the repository's cache
    (in the run's user cache: a session fixture is made before a test's own user cache is set)."""
    return repository_cache(ROOT)


@pytest.fixture
def site(tmp_path: Path, warm_cache: Path) -> Path:
    """A copy of the real site (posts, experiments, config, locks, warm source cache) to change freely."""
    return copy_real_site(tmp_path / "site-src", warm_cache)


def copy_real_site(copy: Path, warm_cache: Path) -> Path:
    for name in ("docs", "experiments", "hooks", "matrix", "overrides", "search"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "requirements.txt", "sources.lock.json"):
        shutil.copy2(ROOT / name, copy / name)
    copy_warm_cache(warm_cache, copy)
    return copy


@pytest.fixture(scope="session")
def built_zensical(tmp_path_factory, warm_cache: Path) -> Path:
    """The real site built once by Zensical for the whole run (its adapter, strict, from the staging folder), in a
    copy of the repository's site, its hook and all."""
    def build(folder: Path) -> None:
        copy = copy_real_site(folder / "src", warm_cache)
        done = subprocess.run([sys.executable, "-m", "codeproof.adapter.zensical", "build", "--strict"], cwd=copy,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        shutil.move(copy / "site", folder / "site")

    return once_per_run(tmp_path_factory, "built-zensical", build) / "site"


def copy_warm_cache(warm_cache: Path, root: Path) -> None:
    """The verified upstream files (no network) and their signed index, into the cache of the repository at root."""
    for name in ("blobs", "sdist", "xref"):
        if (warm_cache / name).is_dir():
            shutil.copytree(warm_cache / name, repository_cache(root) / name)


@pytest.fixture
def series(site: Path):
    return load_series(site / "mkdocs.yml")


CHROMIUM = "/usr/bin/chromium"  # Debian's, driven by Playwright: no browser is ever downloaded
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, one for a module's tests."""
    from playwright import sync_api as playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """The real site, built once with --strict for the whole run, as CI and readers get it."""
    def build(site_dir: Path) -> None:
        done = mkdocs(ROOT, "build", "--strict", "--site-dir", str(site_dir))
        assert done.returncode == 0, done.stderr
        assert "WARNING" not in done.stderr

    return once_per_run(tmp_path_factory, "built", build)


# --- processes --------------------------------------------------------------------------------


def processes_with(marker: str) -> list[int]:
    """Running processes (not zombies) whose command line holds marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    found += [int(entry.name)] if state not in ("Z", "X") else []
            except OSError:
                pass  # ended meanwhile
    return found


def wait_for_processes_with(*markers: str, within: float = 120) -> None:
    """Return once, for each marker, a process whose command line holds it runs (all at one moment): a test waits
    for the state it needs, however long a loaded machine takes to get there (`within` only ends a test whose
    processes never come)."""
    deadline = time.monotonic() + within
    while not all(processes_with(marker) for marker in markers):
        assert time.monotonic() < deadline, f"no processes with {markers!r} in their command lines at once"
        time.sleep(0.05)


def ctrl_c_as_at_a_terminal() -> None:
    """preexec_fn of a child that a test interrupts: Ctrl-C does what it does at a terminal. A shell starts a
    background job (`./dev.sh test ... &`) with SIGINT ignored, which every child inherits: the test's SIGINT
    would never reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_only(monkeypatch, name: str) -> None:
    """Writing beside the file `name` fails as on a read-only file system (root ignores file modes)."""
    write_aside = filesystem._write_aside

    def refusing(path, data, made, **how):
        if path.name == name:
            raise OSError(30, "Read-only file system", str(path))
        write_aside(path, data, made, **how)

    monkeypatch.setattr(filesystem, "_write_aside", refusing)


# --- experiments' runs (test_experiments.py, test_containment.py, test_hook.py) -------------------------------

REQUIREMENTS = "autograd==1.9.1\nnumpy==2.2.6\nmkdocs==1.6.1\n"
SCRIPT = "experiments/x.py"
SDIST_SHA256 = "7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc"  # of autograd-1.9.1.tar.gz


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def printing(*lines: str) -> str:
    """A script that prints these lines."""
    return "".join(f"print({line!r})\n" for line in lines)


def archive_entries(data: bytes) -> list[zipfile.ZipInfo]:
    return zipfile.ZipFile(io.BytesIO(data)).infolist()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A fake resource root: experiments/ and a requirements.txt."""
    root = tmp_path / "resources"
    (root / "experiments").mkdir(parents=True)
    (root / "requirements.txt").write_text(REQUIREMENTS, encoding="utf-8")
    return root


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / ".cache"


@pytest.fixture
def make_runner(root: Path, cache_dir: Path, tmp_path: Path):
    """Runners over `root`, keyed by a test's own secret; every one is finished at the end of the test."""
    runners: list[ExperimentRunner] = []

    def make(timeout: float = 20, output_cap: int = 1024 * 1024, sandbox: str | None = None,
             limits: Limits = Limits(), budgets: Budgets = Budgets()) -> ExperimentRunner:
        runner = ExperimentRunner(root, cache_dir=cache_dir, timeout=timeout, output_cap=output_cap,
                                  sandbox=sandbox, key_file=tmp_path / "secret" / "cache.key", limits=limits,
                                  budgets=budgets)
        runners.append(runner)
        return runner

    yield make
    for runner in runners:
        runner.finish()


def pytest_terminal_summary(terminalreporter):
    """Tell people where the browser tests left their screenshots."""
    shots = ROOT / "test-artifacts" / "screenshots"
    if shots.is_dir():
        names = ", ".join(sorted(p.name for p in shots.glob("*.png")))
        terminalreporter.write_line(f"screenshots for people to look at: {shots} ({names})")
