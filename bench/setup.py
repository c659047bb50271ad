"""Benchmark: a new author's first `./dev.sh build`, from a fresh clone to a built site, and where its time goes.

Each run clones the repository's committed HEAD into a temp dir and runs `./dev.sh build` there with every
cache empty (uv's, pip's, the user cache with the engine's state, the temp dir where jieba keeps its
dictionary), as on a fresh machine: the run creates .venv, installs the hashed lock, fetches the pinned
upstream files, cross-references them, runs the experiments and builds the site. The uv run lets dev.sh
bootstrap uv from PyPI; with --pip, a run sets DEV_SH_NO_UV=1 too, the fallback of a machine without uv.

The parts are read from when each line of the build's log arrives: the install (to dev.sh's "installed in"),
then MkDocs: the release archive's download (beside MkDocs' own set-up), the cross-referencing (from its first
line to the first of another), and the
rest of the build. With uv, .venv is byte-compiled beside the build (dev.sh), not in the install: the site is
built before that ends; the bench times its end too, and waits for it before the next run. The goal: the median
of the runs (3 by default) <= 20 s with uv, on a quiet machine.

Run from the repository root:  .venv/bin/python bench/setup.py [--repeat N] [--pip] [--keep]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import ENV, ROOT, table, workdir

GOAL = 20.0  # seconds to a built site with uv (the median of the runs)
VARIANTS = {"uv": {}, "pip": {"DEV_SH_NO_UV": "1"}}
# Where a part starts and ends in the log: (part, the line that starts it, the line that ends it; None: the next line).
PARTS = [("install", None, r"^dev\.sh: installed in "),
         ("archive download (beside MkDocs' set-up)", r"downloading \S+ from the package index", r"downloaded \S+ in "),
         ("cross-referencing", r"cross-referencing \d+ files with jedi", r"^INFO(?!.*cross-referencing)"),
         ("MkDocs build, all of it", r"^dev\.sh: installed in ", r"Documentation built in ")]


@dataclass
class Run:
    wall: float
    lines: list[tuple[float, str]]  # (seconds since the start, line) of the build's log
    compiled: float  # seconds from the start until .venv's byte-compiling ended (beside the build, with uv)

    def part(self, starts: str | None, ends: str | None) -> float | None:
        """Seconds from the line matching `starts` (None: the start) to the line matching `ends` (None: the line
        after it); None when the log has no such line."""
        begin = 0.0 if starts is None else next((i for i, (_, line) in enumerate(self.lines) if re.search(starts, line)), None)
        if begin is None:
            return None
        first = 0 if starts is None else begin + 1
        at = 0.0 if starts is None else self.lines[begin][0]
        if ends is None:
            return self.lines[first][0] - at if first < len(self.lines) else None
        end = next((t for t, line in self.lines[first:] if re.search(ends, line)), None)
        return None if end is None else end - at


def first_build(tmp: Path, name: str, env: dict) -> Run:
    """Clone HEAD into tmp/name and time its first `./dev.sh build`, every cache in tmp/name-caches."""
    clone, caches = tmp / name, tmp / f"{name}-caches"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for cache in ("uv", "pip", "xdg", "tmp"):
        (caches / cache).mkdir(parents=True)
    started, lines = time.perf_counter(), []
    with subprocess.Popen(["./dev.sh", "build"], cwd=clone, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**ENV, **env, "UV_CACHE_DIR": str(caches / "uv"), "PIP_CACHE_DIR": str(caches / "pip"),
                               "XDG_CACHE_HOME": str(caches / "xdg"), "TMPDIR": str(caches / "tmp")}) as build:
        for line in build.stderr:
            lines.append((time.perf_counter() - started, line.rstrip("\n")))
    wall = time.perf_counter() - started
    if build.returncode != 0 or not (clone / "site" / "index.html").is_file():
        sys.exit(f"no site was built in {clone}:\n" + "\n".join(line for _, line in lines))
    used_uv = any((caches / "xdg" / "codeproof" / "uv").glob("*/bin/uv"))
    if used_uv != ("DEV_SH_NO_UV" not in env):
        sys.exit(f"the {name} run {'used' if used_uv else 'did not use'} uv")
    # The byte-compiling dev.sh left running beside the build: its end is timed, and the next run waits for it,
    # so that no run is slowed by the one before.
    state = caches / "xdg" / "codeproof" / "repositories" / hashlib.sha256(str(clone.resolve()).encode()).hexdigest()[:32]
    subprocess.run(["flock", str(state / ".venv.compiling"), "true"], check=True)
    return Run(wall, lines, time.perf_counter() - started)


def median(values: list[float | None]) -> str:
    known = [value for value in values if value is not None]
    return f"{statistics.median(known):5.1f} s   runs: [{', '.join(f'{v:.1f}' for v in known)}]" if known else "  -"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (its path is printed)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each variant; the median is reported")
    parser.add_argument("--pip", action="store_true", help="time pip's fallback too (DEV_SH_NO_UV=1)")
    args = parser.parse_args()
    variants = VARIANTS if args.pip else {"uv": VARIANTS["uv"]}
    runs = {name: [] for name in variants}
    with workdir(args.keep) as tmp:
        for round_ in range(args.repeat):  # the variants alternate, so that load falls on each alike
            for name, env in variants.items():
                runs[name].append(first_build(tmp, f"{name}-{round_}", env))
    for name, done in runs.items():
        wall = statistics.median(run.wall for run in done)
        table(f"First `./dev.sh build` from a fresh clone with {name}, caches empty: median of {len(done)} runs", [
            ("to a built site", median([run.wall for run in done])),
            *((part, median([run.part(starts, ends) for run in done])) for part, starts, ends in PARTS),
            ("until .venv is byte-compiled too", median([run.compiled for run in done])),
            ("goal", f"<= {GOAL:.0f} s: {'met' if wall <= GOAL else 'NOT met'}") if name == "uv" else ("", ""),
        ])


if __name__ == "__main__":
    main()
