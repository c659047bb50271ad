"""Benchmark: the source pages (issue 13) on the real site.

Reports:
- a warm `mkdocs build` with and without the source pages (extra.series.source_pages), and their ratio: the
  build grows by the rendering of the added pages;
- the engine's share of the warm build, without them and with them: the time cProfile gives the hook's
  event handlers (hooks/series.py, cross-referencing included) over the whole build (goal: under 5%), the
  median of ROUNDS builds (one varies by half a point on a shared machine); and the same share without the
  profiler, timed with perf_counter around each handler (cProfile slows MkDocs' Python more than the
  engine's C-backed parsing, so the two differ). Those builds run in one process, as `mkdocs serve` rebuilds;
- the same unprofiled share of a warm build in a new process, as `./dev.sh build` runs one (the caches on
  disk filled, nothing kept in the process): it pays once what a process keeps (parsing, templates, the archive);
- a cold cross-reference of the package (jedi, the clone's and the user's caches empty), once per pinned commit.

Run from the repository root:  .venv/bin/python bench/sourcepages.py
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

from codeproof.series.config import load_series
from codeproof.quotes.sources import default_store
from codeproof.site import xref
from codeproof.site.xref import cross_references

ROOT = Path(__file__).resolve().parent.parent
HOOK = str(ROOT / "hooks" / "series.py")


ROUNDS = 5


def timed_build(site_dir: str, source_pages: bool, profile: cProfile.Profile | None = None,
                handlers: list[float] | None = None) -> float:
    """Seconds of one build; `handlers` gets the seconds spent in each call of the hook's handlers."""
    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=site_dir)
    config["extra"]["series"]["source_pages"] = source_pages
    config.plugins.on_startup(command="build", dirty=False)
    if handlers is not None:
        for methods in config.plugins.events.values():
            methods[:] = [_timed(method, handlers) if getattr(method, "__code__", None)
                          and method.__code__.co_filename == HOOK else method for method in methods]
    started = time.perf_counter()
    if profile:
        profile.enable()
    build(config)
    if profile:
        profile.disable()
    return time.perf_counter() - started


def _timed(handler, seconds: list[float]):
    """The handler, adding the seconds of each call to `seconds`."""
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return handler(*args, **kwargs)
        finally:
            seconds.append(time.perf_counter() - started)
    return timed


def hook_seconds(profile: cProfile.Profile) -> float:
    """Time in the hook's event handlers (they do not call one another, so their cumulative times add up)."""
    stats = pstats.Stats(profile).stats
    return sum(entry[3] for (file, _, name), entry in stats.items() if file == HOOK and name.startswith("on_"))


def fresh_process(site_dir: str, source_pages: bool) -> tuple[float, float]:
    """(hook seconds, build seconds) of a build in a new process, as `./dev.sh build` runs one: the caches on
    disk are filled, but nothing is kept in the process from a build before."""
    done = subprocess.run([sys.executable, __file__, "--once", site_dir, str(source_pages)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT / "hooks")})
    return tuple(json.loads(done.stdout.splitlines()[-1]))


def once(site_dir: str, source_pages: bool) -> None:
    handlers: list[float] = []
    total = timed_build(site_dir, source_pages, handlers=handlers)
    print(json.dumps([sum(handlers), total]))


def main() -> int:
    if sys.argv[1:2] == ["--once"]:
        once(sys.argv[2], sys.argv[3] == "True")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for source_pages in (True, False):  # warm both: caches filled, modules imported
            timed_build(tmp, source_pages)
        without = statistics.median(timed_build(tmp, False) for _ in range(ROUNDS))
        with_pages = statistics.median(timed_build(tmp, True) for _ in range(ROUNDS))
        shares, unprofiled = {}, {}
        for source_pages in (False, True):
            profiled, timed = [], []
            for _ in range(ROUNDS):
                profile = cProfile.Profile()
                total = timed_build(tmp, source_pages, profile)
                engine = hook_seconds(profile)
                profiled.append((engine / total, engine, total))
                handlers: list[float] = []
                total = timed_build(tmp, source_pages, handlers=handlers)
                timed.append(sum(handlers) / total)
            shares[source_pages] = statistics.median(profiled)
            unprofiled[source_pages] = statistics.median(timed)
        fresh = {source_pages: statistics.median(fresh_process(tmp, source_pages) for _ in range(ROUNDS))
                 for source_pages in (False, True)}
        pages = len(list((Path(tmp) / "source").rglob("index.html")))
    series = load_series(ROOT / "mkdocs.yml")
    files = default_store(series).tree(series.baseline.repo, series.baseline.commit, "autograd")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache  # the user's cache too: cold means no clone has done it
        xref._INDEXES.clear()
        started = time.perf_counter()
        cross_references(files, Path(cache))
        cold = time.perf_counter() - started
    print(f"warm build without source pages   {without:6.2f} s (median of {ROUNDS})")
    print(f"warm build with them ({pages} pages) {with_pages:6.2f} s (median of {ROUNDS})   ratio {with_pages / without:.2f}x")
    for source_pages, (share, engine, profiled) in shares.items():
        print(f"engine's share of the warm build, {'with' if source_pages else 'without'} them: {engine:5.2f} s of "
              f"{profiled:.2f} s (profiled, median of {ROUNDS}) = {100 * share:.1f}%  (goal < 5%); "
              f"unprofiled {100 * unprofiled[source_pages]:.1f}%")
    for source_pages, (engine, total) in fresh.items():
        print(f"engine's share of a warm build in a new process (./dev.sh build), {'with' if source_pages else 'without'}"
              f" them: {engine:5.2f} s of {total:.2f} s (median of {ROUNDS}) = {100 * engine / total:.1f}%")
    print(f"cold cross-reference (jedi)       {cold:6.2f} s for {sum(p.endswith('.py') for p in files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
