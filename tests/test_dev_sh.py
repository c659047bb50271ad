"""./dev.sh check is a faithful pre-commit check: what a strict build rejects, it rejects."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from codeproof.common.usercache import repository_cache
from conftest import ROOT, copy_warm_cache, git


def copy_of_the_repository(tmp_path, warm_cache):
    """The repository's tracked files in a temp folder, sharing the set-up environment (no reinstall: see
    with_this_environment) and the run's verified upstream files (no fetching)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    copy = tmp_path / "repo"
    for name in filter(None, (f.decode() for f in files)):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    copy_warm_cache(warm_cache, copy)
    return copy


def with_this_environment() -> dict[str, str]:
    """The environment of a dev.sh that uses the tests' own Python environment: dev.sh trusts only a .venv whose
    record is in the user's cache, and the tests have a user cache of their own."""
    return {**os.environ, "CODEPROOF_VENV": sys.prefix}


def test_check_fails_on_a_broken_link_that_only_mkdocs_sees(tmp_path, warm_cache):
    copy = copy_of_the_repository(tmp_path, warm_cache)
    (copy / "docs" / "notes.md").write_text("# 笔记\n\n见[不存在的页](missing.md)。\n", encoding="utf-8")
    done = subprocess.run(["./dev.sh", "check"], cwd=copy, capture_output=True, text=True, timeout=600,
                          env=with_this_environment())
    assert done.returncode != 0
    assert "Doc file 'notes.md' contains a link 'missing.md', but the target is not found among documentation files." \
        in done.stderr


def test_the_repository_tracks_no_tool_state():
    """Caches, environments, installed tools and built sites are made on each machine: a committed one would be
    read as if this machine had made it (a bench once committed twelve .cache-N folders)."""
    tracked = git(ROOT, "ls-files").splitlines()
    assert "README.md" in tracked
    made_here = (".venv", "node_modules", "site", "test-artifacts", ".hypothesis", ".pytest_cache")
    assert [path for path in tracked if path.split("/")[0] in made_here or path.startswith(".cache")] == []


def test_fast_deselects_exactly_the_browsers_the_real_sites_and_the_slow_tests_and_pytests_cache_is_not_in_the_tree():
    """`./dev.sh test --fast` over a module of each mark and this one: only this module's unmarked tests are
    collected, the others deselected (not skipped, which CI=true would fail); the other arguments reach pytest.
    And pytest keeps its cache in the user's cache, so a .pytest_cache/ a branch commits is never read (one run
    for both: each run of dev.sh costs the suite two CPU-seconds)."""
    modules = ["tests/test_browser.py", "tests/test_site.py", "tests/test_mutations.py", "tests/test_dev_sh.py"]
    done = subprocess.run(["./dev.sh", "test", "--fast", "--collect-only", "-n", "0", *modules], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=with_this_environment())
    assert done.returncode == 0, done.stdout + done.stderr
    collected, module = [], None
    for line in done.stdout.splitlines():  # the collected tree: <Module x.py>, then its <Function y>
        found = re.fullmatch(r"\s*<(Module|Function) (\S+)>", line)
        if found and found[1] == "Module":
            module = found[2]
        elif found:
            collected.append(f"{module}::{found[2]}")
    assert sorted(collected) == [
        "test_dev_sh.py::test_a_dev_sh_that_waits_for_the_byte_compiling_says_which_command_started_it",
        "test_dev_sh.py::test_fast_deselects_exactly_the_browsers_the_real_sites_and_the_slow_tests_and_pytests_cache_is_"
        "not_in_the_tree",
        "test_dev_sh.py::test_the_repository_tracks_no_tool_state", "test_mutations.py::test_every_switch_has_its_files"]
    assert re.search(r"\b4/\d+ tests collected \((\d+) deselected\)", done.stdout), done.stdout
    assert f"cachedir: {repository_cache(ROOT) / 'pytest'}" in done.stdout.splitlines(), done.stdout


def test_a_dev_sh_that_waits_for_the_byte_compiling_says_which_command_started_it(tmp_path):
    """Issue 53: `./dev.sh new` said it waited for the byte-compiling "which the first build started", after only a
    bare `./dev.sh`."""
    import fcntl

    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ["dev.sh", "pyproject.toml", *(path.name for path in ROOT.glob("requirements*"))]:  # what it reads first
        shutil.copy2(ROOT / name, copy / name)
    state = repository_cache(copy)
    state.mkdir(parents=True)
    (state / ".venv.compiling.by").write_text("./dev.sh\n")
    with open(state / ".venv.compiling", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen(["./dev.sh", "new", "5", "x"], cwd=copy, stderr=subprocess.PIPE, text=True,
                                   env=with_this_environment())
        said = waiting.stderr.readline()  # said before it waits on the lock this test holds
        waiting.kill()
        waiting.wait()
    assert said == ("dev.sh: waiting for .venv's byte-compiling to end: `./dev.sh` started it after installing .venv "
                    "(one process, at the lowest priority; it takes about a minute)...\n")
