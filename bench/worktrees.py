"""Two checkouts of this repository side by side, for a benchmark that compares a commit with HEAD."""

from __future__ import annotations

import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def before_and_after(before: str, prefix: str):
    """A temporary folder and in it two git worktrees, {"before": the commit `before`, "after": HEAD}; both are
    removed afterwards, the folder too."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        trees = {"before": Path(tmp) / "before", "after": Path(tmp) / "after"}
        for name, rev in (("before", before), ("after", "HEAD")):
            subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(trees[name]), rev], cwd=ROOT, check=True)
        try:
            yield Path(tmp), trees
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
