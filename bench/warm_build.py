"""Benchmark: a warm build of the real site at another commit against this tree's, alternating, so that load from
other processes falls on both alike: the median of each, and their ratio (what a change costs an author who waits
for `./dev.sh build`).

Each side is a git worktree (this tree's committed HEAD, and --before), built with this .venv's MkDocs into a temp
folder; one build of each first fills its caches (each worktree is a repository of its own), then --repeat builds
of each alternate.

Run from the repository root:  .venv/bin/python bench/warm_build.py --before a46e007 [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from worktrees import before_and_after

MKDOCS = Path(sys.executable).parent / "mkdocs"


def build(tree: Path, site: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(site)], cwd=tree, capture_output=True,
                          text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
                                          **{k: v for k, v in __import__("os").environ.items() if k in ("HOME", "XDG_CACHE_HOME")}})
    if done.returncode != 0:
        sys.exit(f"the build of {tree} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare with (a46e007, main~1…)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with before_and_after(args.before, "warm-build-") as (tmp, trees):
        times: dict[str, list[float]] = {name: [] for name in trees}
        for name, tree in trees.items():
            build(tree, tmp / f"site-{name}")  # fills its caches
        for _ in range(args.repeat):
            for name, tree in trees.items():
                times[name].append(build(tree, tmp / f"site-{name}"))
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            print(f"{name:6} median {medians[name]:.2f} s  ({', '.join(f'{v:.2f}' for v in values)})")
        print(f"ratio after/before: {medians['after'] / medians['before']:.3f}")

if __name__ == "__main__":
    main()
