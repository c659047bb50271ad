"""./dev.sh check is a faithful pre-commit check: what a strict build rejects, it rejects."""

from __future__ import annotations

import shutil
import subprocess

from conftest import ROOT, git


def copy_of_the_repository(tmp_path):
    """The repository's tracked files in a temp folder, sharing the set-up .venv (no reinstall)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    copy = tmp_path / "repo"
    for name in filter(None, (f.decode() for f in files)):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    return copy


def test_check_fails_on_a_broken_link_that_only_mkdocs_sees(tmp_path):
    copy = copy_of_the_repository(tmp_path)
    (copy / "docs" / "notes.md").write_text("# 笔记\n\n见[不存在的页](missing.md)。\n", encoding="utf-8")
    done = subprocess.run(["./dev.sh", "check"], cwd=copy, capture_output=True, text=True, timeout=600)
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
