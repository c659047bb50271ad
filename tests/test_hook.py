"""The hook frees what a build holds: a failed build, or MkDocs shutting down (Ctrl-C in `serve`), stops
the experiment runs it started, at once, and a failed build leaves no page behind."""

from __future__ import annotations

import importlib.util
import os

import pytest

from codeproof.build import SiteBuild
from codeproof.series.config import series_from_extra
from codeproof.engine import Engine
from codeproof.experiments.runner import RUN_PREFIX, ExperimentRunner
from conftest import ROOT, SDIST_SHA256, wait_for_processes_with

SLOW = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"


def load_hook():
    """hooks/series.py as MkDocs loads it: a module of its own, with fresh state."""
    spec = importlib.util.spec_from_file_location("series_hook_under_test", ROOT / "hooks" / "series.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def slow_build(tmp_path):
    """The hook's state for a build whose one experiment runs for a minute, started."""
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "slow.py").write_text(SLOW, encoding="utf-8")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("unverified", encoding="utf-8")
    series = series_from_extra({"name": "s", "baseline": {"repo": "a/b", "commit": "0" * 40, "version": "1",
                                                          "sdist": "autograd==1", "sdist_sha256": SDIST_SHA256}},
                               tmp_path / "mkdocs.yml")
    runner = ExperimentRunner(tmp_path, tmp_path / ".cache", timeout=120, output_cap=1024,
                              key_file=tmp_path / "cache.key")
    hook = load_hook()
    hook.hooks.build, hook.hooks.site_dir = SiteBuild(Engine(series, runner=runner)), str(tmp_path / "site")
    runner.start("experiments/slow.py")
    wait_for_processes_with(f"{RUN_PREFIX}{os.getpid()}-")  # under way: a process in this build's run folder
    yield hook, runner, tmp_path
    runner.finish()


@pytest.mark.parametrize("event", ["on_build_error", "on_shutdown"])
def test_a_failed_or_stopped_build_stops_its_experiments_at_once(slow_build, event):
    """Stopped, not waited for: left to itself, the script would end well (after a minute)."""
    hook, runner, _ = slow_build
    getattr(hook, event)(*(["error"] if event == "on_build_error" else []))
    result = runner.result("experiments/slow.py")
    assert not result.ok and result.returncode != 0 and not result.timed_out


def test_a_failed_build_empties_the_site_folder(slow_build):
    hook, _, root = slow_build
    hook.on_build_error("error")
    assert list((root / "site").iterdir()) == []
