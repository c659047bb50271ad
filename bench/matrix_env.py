"""Benchmark: the time to make a matrix environment (experiments/matrix.py `make`) at another commit against this
tree's, for each environment of the real series: cold (no uv cache, no engine cache: uv downloads), made again
from uv's warm cache into an empty engine cache, and warm (made already: what every `check --matrix` pays).

Each side is a git worktree (this tree's committed HEAD, and --before); `make` is timed in a process of its own
that imports that side's engine, alone (not the imports). The sides alternate, so that load from other processes
falls on both alike; the medians of each, and their ratio.

Run from the repository root:  .venv/bin/python bench/matrix_env.py --before a46379c [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from worktrees import before_and_after

TIMED = """
import json, sys, time
from pathlib import Path
from codeproof.series.config import load_series
from codeproof.experiments.matrix import make
environment = load_series(Path("mkdocs.yml")).matrix.environments[int(sys.argv[2])]
start = time.perf_counter()
make(environment, Path(sys.argv[1]))
print(json.dumps(time.perf_counter() - start))
"""
CASES = ("cold", "remade", "warm")


def timed(tree: Path, cache: Path, uv_cache: Path, index: int) -> float:
    done = subprocess.run([sys.executable, "-c", TIMED, str(cache), str(index)], cwd=tree, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tree / "hooks"), "UV_CACHE_DIR": str(uv_cache)})
    if done.returncode != 0:
        sys.exit(f"make at {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def environments(tree: Path) -> int:
    """How many environments the series' matrix lists at `tree`."""
    said = subprocess.run([sys.executable, "-c", "from pathlib import Path; from codeproof.series.config import "
                           "load_series; print(len(load_series(Path('mkdocs.yml')).matrix.environments))"],
                          cwd=tree, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(tree / "hooks")})
    return int(said.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare with (a46379c, main~1…)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with before_and_after(args.before, "bench-matrix-") as (tmp, trees):
        count = environments(trees["after"])
        times = {(side, index, case): [] for side in trees for index in range(count) for case in CASES}
        for run in range(args.repeat):
            for index in range(count):
                for side, tree in trees.items():
                    uv_cache, cache = tmp / f"uv-{side}-{index}-{run}", tmp / f"cache-{side}-{index}-{run}"
                    times[side, index, "cold"].append(timed(tree, cache, uv_cache, index))
                    times[side, index, "remade"].append(timed(tree, Path(f"{cache}-again"), uv_cache, index))
                    times[side, index, "warm"].append(timed(tree, cache, uv_cache, index))
        print(f"make(), medians of {args.repeat} (s): before {args.before}, after HEAD")
        for index in range(count):
            for case in CASES:
                before = statistics.median(times["before", index, case])
                after = statistics.median(times["after", index, case])
                print(f"  environment {index} {case:6}  before {before:6.2f}  after {after:6.2f}  ratio "
                      f"{after / before:5.2f}   (runs: {', '.join(f'{t:.2f}' for t in times['after', index, case])})")

if __name__ == "__main__":
    main()
