"""What an author reads on every build: the log of a real `mkdocs build`, as `./dev.sh build` prints it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fixture_site import make_site

BROKEN_LINK = ("WARNING -  Doc file 'index.md' contains a link 'missing.md', but the target is not found among "
               "documentation files.")


@pytest.mark.slow
def test_a_build_log_has_no_jieba_chatter_but_still_shows_a_warning(tmp_path):
    site = make_site(tmp_path, material=True)  # Material's search segments Chinese with jieba on every build
    (site.root / "docs" / "index.md").write_text("# 系列\n\n中文的搜索 [a link to no page](missing.md)\n",
                                                  encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=site.root,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True)
    lines = done.stderr.splitlines()
    assert BROKEN_LINK in lines, done.stderr
    assert [line for line in lines if not line.startswith(("INFO", "WARNING", "Aborted"))] == [], done.stderr
