"""Benchmark: what citations in the posts' words (issue 32) add to a warm build of the real site.

Alternates ROUNDS warm `mkdocs build`s with citations and ROUNDS without (the build's citation step replaced by
nothing), in one process, after one build that fills the caches; the package's definitions are worked out afresh
in every build (a new process would), and reports the median of each and their ratio (goal: at most 1.05).

Run from the repository root:  .venv/bin/python bench/citations.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from mkdocs.commands.build import build
from mkdocs.config import load_config

from codeproof.build import SiteBuild
from codeproof.quotes import citations

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 7


def timed_build(site_dir: str, cited: bool) -> float:
    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=site_dir)
    config.plugins.on_startup(command="build", dirty=False)
    citations._DEFINED.clear()  # what a new process would work out again
    with mock.patch.object(SiteBuild, "_link_citations",
                           SiteBuild._link_citations if cited else lambda self, html, *a: html):
        started = time.perf_counter()
        build(config)
        return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as site_dir:
        timed_build(site_dir, True)  # fills the caches on disk
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(ROUNDS):
            for cited in (False, True):
                times[cited].append(timed_build(site_dir, cited))
    without, with_ = statistics.median(times[False]), statistics.median(times[True])
    print(f"warm build without citations: median {without:.3f} s of {ROUNDS} ({', '.join(f'{t:.2f}' for t in times[False])})")
    print(f"warm build with citations:    median {with_:.3f} s of {ROUNDS} ({', '.join(f'{t:.2f}' for t in times[True])})")
    print(f"ratio: {with_ / without:.3f} (goal: at most 1.05)")


if __name__ == "__main__":
    main()
