"""Under CI=true a skipped test fails, saying why it skipped; elsewhere it skips (tests/ci_skips.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

SKIPPING = '''\
import pytest

def test_needs_a_tool():
    pytest.skip("the tool is missing: apt-get install tool")

@pytest.mark.skipif(True, reason="no second CPU")
def test_needs_two_cpus():
    pass

def test_runs():
    pass
'''


@pytest.fixture
def run(tmp_path):
    (tmp_path / "test_skipping.py").write_text(SKIPPING)

    def pytest_with(ci: str | None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
        if ci is not None:
            env["CI"] = ci
        env["PYTHONPATH"] = str(ROOT / "tests")
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "ci_skips", "-rA", "-q", "-p", "no:cacheprovider",
                               "test_skipping.py"], cwd=tmp_path, env=env, capture_output=True, text=True)

    return pytest_with


@pytest.mark.slow
def test_under_ci_a_skip_is_a_failure_that_says_why(run):
    done = run("true")
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed, 1 error" in done.stdout  # a skipif skips in setup: an error there
    assert "skipped under CI=true, where every check must run: the tool is missing: apt-get install tool" in done.stdout
    assert "skipped under CI=true, where every check must run: no second CPU" in done.stdout


@pytest.mark.slow
def test_elsewhere_a_skip_stays_a_skip(run):
    done = run(None)
    assert done.returncode == 0, done.stdout
    assert "1 passed, 2 skipped" in done.stdout
