"""Every named safeguard has a test that catches it switched off (tests/mutations.py): with the mutation on,
the tests marked for it fail; the whole suite (mutation off) passes them. All six in well under a minute."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from mutations import SWITCHES

# Where each switch's marked tests live: only these files are collected for it, to stay fast.
FILES = {"tables": ["tests/test_tables.py"], "guard": ["tests/test_guard.py"],
         "tolerance": ["tests/test_tolerance.py"], "sandbox": ["tests/test_containment.py"],
         "matrix_lock": ["tests/test_matrix.py"], "matrix_host": ["tests/test_matrix_containment.py"]}


def test_every_switch_has_its_files():
    assert set(FILES) == set(SWITCHES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_switching_a_safeguard_off_fails_a_test_marked_for_it(name):
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    done = subprocess.run([sys.executable, "-m", "pytest", "--mutate", name, "-n0", "-q", "-x",
                           "-p", "no:cacheprovider", "-o", "addopts=", *FILES[name]],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 1 and " failed" in summary, done.stdout[-3000:] + done.stderr[-2000:]
