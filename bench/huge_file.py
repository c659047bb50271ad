"""Benchmark: a huge upstream file. How long a strict build and `drift` take when the quoted package holds one.

Makes a git upstream (a file:// remote) whose pkg/mod.py is a small module followed by --lines generated
lines (a function every three lines), and a second commit that changes one line of the quoted symbol; and a
series site quoting a 3-line method of that file. Then times, each in a child process of its own, with its
peak resident memory (ru_maxrss):

  (a) the first strict build (`mkdocs build --strict`): fetch, verify, cross-reference, source pages;
  (b) `python -m codeproof drift --to <second commit>`.

Goal (issue 21): with 300,000 lines, (a) under 60 s and (b) under 60 s and 1 GB. --small gives the same
runs with a 3,000-line file, for the ratio.

Run from the repository root:  .venv/bin/python bench/huge_file.py [--lines N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from common import ROOT, table

HEAD = '''\
import math


class Node:
    def __init__(self, value):
        self.value = value
        self.parents = []
'''
POST = '''\
---
title: "Fixture post"
series: 1
date: 2026-01-01
---

Some prose.

[REAL SOURCE]
File: pkg/mod.py
Symbol: Node.__init__

```python
    def __init__(self, value):
        self.value = value
        self.parents = []
```
'''


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def module(lines: int) -> str:
    body = [f"\n\ndef f_{i}(x):\n    return math.sin(x) + {i}" for i in range(lines // 3)]
    return HEAD + "".join(body) + "\n"


def make(tmp: Path, lines: int) -> tuple[Path, str]:
    """The upstream's two commits and the site quoting the first; the site's folder and the second commit."""
    repo = tmp / "remote" / "fixture" / "upstream"
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    commits = []
    for text in (module(lines), module(lines).replace("self.parents = []", "self.parents = ()")):
        (repo / "pkg" / "mod.py").write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "change")
        commits.append(git(repo, "rev-parse", "HEAD"))
    site = tmp / "site"
    (site / "docs" / "posts").mkdir(parents=True)
    (site / "docs" / "posts" / "p.md").write_text(POST)
    (site / "docs" / "index.md").write_text("# Fixture\n")
    (site / "requirements.txt").write_text((ROOT / "requirements.txt").read_text())
    from importlib import metadata
    series = {"name": "Fixture series", "git_remote": f"file://{tmp / 'remote'}/{{repo}}",
              "baseline": {"repo": "fixture/upstream", "commit": commits[0], "version": metadata.version("autograd")}}
    config = {"site_name": "f", "extra": {"series": series}, "hooks": [str(ROOT / "hooks" / "series.py")],
              "markdown_extensions": ["attr_list", "md_in_html", "pymdownx.superfences",
                                      {"pymdownx.highlight": {"pygments_lang_class": True,
                                                              "linenums_style": "pymdownx-inline"}}]}
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    timed(site, [sys.executable, "-m", "codeproof", "lock"])
    return site, commits[1]


def timed(site: Path, argv: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MB, exit status) of one child process."""
    started = time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    child = subprocess.Popen(argv, cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(argv[1:3])} failed:\n{stderr.decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=300_000)
    args = parser.parse_args()
    rows = []
    for lines in (3_000, args.lines):
        with tempfile.TemporaryDirectory(prefix="bench-huge-") as tmp:
            site, other = make(Path(tmp), lines)
            build = timed(site, [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"])
            drift = timed(site, [sys.executable, "-m", "codeproof", "drift", "--to", other])
            rows += [(f"{lines:,} lines: strict build", f"{build[0]:.1f} s, peak {build[1]:.0f} MB"),
                     (f"{lines:,} lines: drift", f"{drift[0]:.1f} s, peak {drift[1]:.0f} MB (exit {drift[2]})")]
    table("A huge upstream file", rows)


if __name__ == "__main__":
    main()
