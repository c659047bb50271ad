"""Benchmark: a new author's first `./dev.sh build`, from a fresh clone to a built site, with uv and with pip.

Each run clones the repository's committed HEAD into a temp dir and runs `./dev.sh build` there with every
cache empty (uv's, pip's, the engine's experiment key, the temp dir where jieba keeps its dictionary), as on
a fresh machine: the run creates .venv, installs the hashed lock, fetches the pinned upstream files, runs the
experiments and builds the site. The uv run lets dev.sh bootstrap uv from PyPI; the pip run sets
DEV_SH_NO_UV=1, the fallback of a machine where uv cannot be had. The goal: <= 20 s to a built site with uv.
With --repeat N the two alternate N times, so that load from other processes falls on both alike; the
fastest of each is reported, with the part of it that MkDocs itself reports for the build.

Run from the repository root:  python3 bench/setup.py [--repeat N] [--keep]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from common import ROOT, Timing, run, table, walls, workdir

GOAL = 20.0  # seconds to a built site with uv
VARIANTS = {"uv": {}, "pip": {"DEV_SH_NO_UV": "1"}}


def first_build(tmp: Path, name: str, env: dict) -> Timing:
    """Clone HEAD into tmp/name and time its first `./dev.sh build`, every cache in tmp/name-caches."""
    clone, caches = tmp / name, tmp / f"{name}-caches"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for cache in ("uv", "pip", "xdg", "tmp"):
        (caches / cache).mkdir(parents=True)
    timing = run(clone, ["./dev.sh", "build"], env={
        **env, "UV_CACHE_DIR": str(caches / "uv"), "PIP_CACHE_DIR": str(caches / "pip"),
        "XDG_CACHE_HOME": str(caches / "xdg"), "TMPDIR": str(caches / "tmp")})
    if not (clone / "site" / "index.html").is_file():
        sys.exit(f"no site was built in {clone}:\n{timing.stderr}")
    used_uv = any((caches / "xdg" / "codeproof" / "uv").glob("*/bin/uv"))
    if used_uv != ("DEV_SH_NO_UV" not in env):
        sys.exit(f"the {name} run {'used' if used_uv else 'did not use'} uv:\n{timing.stderr}")
    return timing


def mkdocs_seconds(timing: Timing) -> str:
    found = re.search(r"Documentation built in ([\d.]+) seconds", timing.stderr)
    return f"{float(found[1]):.1f} s" if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (its path is printed)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each variant; the fastest is reported")
    args = parser.parse_args()
    times = {name: [] for name in VARIANTS}
    with workdir(args.keep) as tmp:
        for round_ in range(args.repeat):
            for name, env in VARIANTS.items():
                times[name].append(first_build(tmp, f"{name}-{round_}", env))
    fastest = {name: min(runs, key=lambda timing: timing.wall) for name, runs in times.items()}
    table("First `./dev.sh build` from a fresh clone, caches empty: wall (of which MkDocs' build)", [
        *((f"{name}", f"{fastest[name].wall:5.1f} s  ({mkdocs_seconds(fastest[name])})   runs: {walls(times[name])}")
          for name in VARIANTS),
        ("pip / uv", f"{fastest['pip'].wall / fastest['uv'].wall:5.2f}x"),
        ("goal", f"uv <= {GOAL:.0f} s: {'met' if fastest['uv'].wall <= GOAL else 'NOT met'}"),
    ])


if __name__ == "__main__":
    main()
