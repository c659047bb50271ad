"""Benchmark: the source pages (issue 13) on the real site, in this process.

Reports, from one run of each:
- a warm `mkdocs build` with and without the source pages (extra.series.source_pages), and their ratio: the
  build grows by the rendering of the added pages;
- the engine's share of the warm build, without them and with them: the time cProfile gives the hook's
  event handlers (hooks/series.py, cross-referencing included) over the whole build (goal: under 5%);
- a cold cross-reference of the package (jedi, an empty cache), once per pinned commit.

Run from the repository root:  .venv/bin/python bench/sourcepages.py
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

from codeproof.config import load_series
from codeproof.sources import default_store
from codeproof.xref import cross_references

ROOT = Path(__file__).resolve().parent.parent
HOOK = str(ROOT / "hooks" / "series.py")


def timed_build(site_dir: str, source_pages: bool, profile: cProfile.Profile | None = None) -> float:
    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=site_dir)
    config["extra"]["series"]["source_pages"] = source_pages
    config.plugins.on_startup(command="build", dirty=False)
    started = time.perf_counter()
    if profile:
        profile.enable()
    build(config)
    if profile:
        profile.disable()
    return time.perf_counter() - started


def hook_seconds(profile: cProfile.Profile) -> float:
    """Time in the hook's event handlers (they do not call one another, so their cumulative times add up)."""
    stats = pstats.Stats(profile).stats
    return sum(entry[3] for (file, _, name), entry in stats.items() if file == HOOK and name.startswith("on_"))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for source_pages in (True, False):  # warm both: caches filled, modules imported
            timed_build(tmp, source_pages)
        without = timed_build(tmp, False)
        with_pages = timed_build(tmp, True)
        shares = {}
        for source_pages in (False, True):
            profile = cProfile.Profile()
            profiled = timed_build(tmp, source_pages, profile)
            shares[source_pages] = (hook_seconds(profile), profiled)
        pages = len(list((Path(tmp) / "source").rglob("index.html")))
    series = load_series(ROOT / "mkdocs.yml")
    files = default_store(series).tree(series.baseline.repo, series.baseline.commit, "autograd")
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        cross_references(files, Path(cache))
        cold = time.perf_counter() - started
    print(f"warm build without source pages   {without:6.2f} s")
    print(f"warm build with them ({pages} pages) {with_pages:6.2f} s   ratio {with_pages / without:.2f}x")
    for source_pages, (engine, profiled) in shares.items():
        print(f"engine's share of the warm build, {'with' if source_pages else 'without'} them: {engine:5.2f} s of "
              f"{profiled:.2f} s (profiled) = {100 * engine / profiled:.1f}%  (goal < 5%)")
    print(f"cold cross-reference (jedi)       {cold:6.2f} s for {sum(p.endswith('.py') for p in files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
