"""Benchmark: the series built by each host, warm (the caches as the last build left them): `./dev.sh build`
(MkDocs) against `./dev.sh build --host zensical` (Zensical, from the staging folder), alternating, medians, ratio.
Each build writes into site/ and leaves it as its host made it.

Run from the repository root:  .venv/bin/python bench/hosts.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTS = {"mkdocs": ["./dev.sh", "build"], "zensical": ["./dev.sh", "build", "--host", "zensical"]}


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for command in HOSTS.values():  # warm: each host's caches as a build leaves them
        timed(command)
    times: dict[str, list[float]] = {name: [] for name in HOSTS}
    for _ in range(args.runs):
        for name, command in HOSTS.items():
            times[name].append(timed(command))
    for name, taken in times.items():
        print(f"{name:8}: median {statistics.median(taken):.2f} s ({', '.join(f'{t:.2f}' for t in taken)})")
    print(f"ratio zensical/mkdocs: {statistics.median(times['zensical']) / statistics.median(times['mkdocs']):.2f}")


if __name__ == "__main__":
    main()
