"""A fixture upstream: a git repository with two commits, and a small series site quoting it."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from conftest import git

MODULE_V1 = '''\
import math


def helper(x):
    return x + 1


class Node:
    def __init__(self, value):
        self.value = value
        self.parents = []

    def scaled(self, k):
        return Node(self.value * k)


register(math.sin, lambda g: g)
register(math.cos, lambda g: -g)

primitive_vjps = {}
box_types = {
    "array": Node,
}
'''
MODULE_V2 = MODULE_V1.replace("return x + 1", "return x + 2")

# The fixture post's front matter and its quote of Node.__init__ (fixture_site.py's post starts so too).
FRONT_MATTER = '''\
---
title: "Fixture post"
series: 1
date: 2026-01-01
---
'''
NODE_INIT = '''\
[REAL SOURCE]
File: pkg/mod.py
Symbol: Node.__init__

```python
    def __init__(self, value):
        self.value = value
        self.parents = []
```
'''
POST = f'''\
{FRONT_MATTER}
Some prose.

{NODE_INIT}
More prose.

[REAL SOURCE]
File: pkg/mod.py
Symbol: register(math.cos, ...)

```python
register(math.cos, lambda g: -g)
```
'''


@dataclass
class Upstream:
    remote: Path  # holds fixture/upstream, the repository
    commits: list[str]  # the two commits, oldest first
    site: Path  # a series site whose baseline is commits[0]

    @property
    def post(self) -> Path:
        return self.site / "docs" / "posts" / "p.md"

    def config(self) -> Path:
        return self.site / "mkdocs.yml"


def module_history(repo: Path, versions: tuple[str | dict[str, str], ...]) -> list[str]:
    """A git repository at `repo` whose pkg/mod.py is each text in turn (or whose files are each {path: text}, the
    others removed), a commit each; the commits, oldest first. Made once a process for each history and copied
    (a copy is the same repository, commits included): about a dozen git processes fewer for each fixture site."""
    key = tuple(version if isinstance(version, str) else tuple(sorted(version.items())) for version in versions)
    if key not in _HISTORIES:
        made = Path(tempfile.mkdtemp(prefix="codeproof-upstream-"))
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        _HISTORIES[key] = (made / "repo", _make_history(made / "repo", versions))
    template, commits = _HISTORIES[key]
    shutil.copytree(template, repo, symlinks=True)
    return list(commits)


_HISTORIES: dict[tuple, tuple[Path, list[str]]] = {}  # each history -> its repository, made once a process


def _make_history(repo: Path, versions: tuple[str | dict[str, str], ...]) -> list[str]:
    (repo / "pkg").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "fixture@example.invalid")
    git(repo, "config", "user.name", "fixture")
    commits = []
    for version in versions:
        files = {"pkg/mod.py": version} if isinstance(version, str) else version
        git(repo, "rm", "-rq", "--ignore-unmatch", ".")
        for path, text in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "change")
        commits.append(git(repo, "rev-parse", "HEAD"))
    return commits


def make_upstream(tmp_path: Path, versions: tuple[str | dict[str, str], ...] = (MODULE_V1, MODULE_V2)) -> Upstream:
    commits = module_history(tmp_path / "remote" / "fixture" / "upstream", versions)
    site = tmp_path / "site"
    (site / "docs" / "posts").mkdir(parents=True)
    (site / "docs" / "posts" / "p.md").write_text(POST)
    series = {
        "name": "Fixture series",
        "baseline": {"repo": "fixture/upstream", "commit": commits[0], "version": "1.9.1"},
        "git_remote": f"file://{tmp_path / 'remote'}/{{repo}}",
    }
    (site / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "f", "extra": {"series": series}}))
    return Upstream(tmp_path / "remote", commits, site)
