"""Benchmark: what figures cost. A warm build of the real site with its [FIGURE] blocks against the same site
without them (the ratio is what figures add to a build an author waits for), and a figure's run: the traced
graph's script run with and without its trace, the drawing of the graph, and a matplotlib plot's run (its first
import in a fresh config folder, as every run has).

Run from the repository root:  .venv/bin/python bench/figures.py [--repeat N] [--keep]
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ENV, ROOT, parse_args, workdir

sys.path.insert(0, str(ROOT / "hooks"))
from codeproof.common.usercache import repository_cache  # noqa: E402
from codeproof.experiments.runner import ExperimentRunner  # noqa: E402
from codeproof.experiments.tracing import read_graph  # noqa: E402
from codeproof.site import graphs  # noqa: E402

FIGURE_RE = re.compile(r"^\[FIGURE\]\n(?:[A-Za-z]+:.*\n)+\n?", re.M)
PLOT = """import os
import matplotlib.pyplot as plt
figure, axes = plt.subplots(figsize=(5, 3))
axes.plot(range(50), [x * x for x in range(50)], label="x²")
axes.legend()
figure.savefig(os.path.join(os.environ["CODEPROOF_FIGURES"], "plot.svg"))
"""


def copy_site(to: Path, figures: bool) -> int:
    """The repository's tracked files and its warm cache, with or without the posts' figures; how many there are."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, to / name)
    shutil.copytree(repository_cache(ROOT), repository_cache(to), symlinks=True)
    found = 0
    for post in (to / "docs" / "posts").glob("*.md"):
        text = post.read_text(encoding="utf-8")
        found += len(FIGURE_RE.findall(text))
        if not figures:
            post.write_text(FIGURE_RE.sub("", text), encoding="utf-8")
    return found


def warm_build(site: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(ROOT / ".venv" / "bin" / "mkdocs"), "build", "-q", "--strict"], cwd=site, env=ENV,
                   check=True, capture_output=True)
    return time.perf_counter() - started


def runs(folder: Path, script: str, calls: tuple[str, ...], times: int, caches: Path) -> list:
    """`times` cold runs of the script in `folder`, each with an empty cache folder under `caches` (never the
    repository's: a bench writes nothing there)."""
    results = []
    for n in range(times):
        runner = ExperimentRunner(folder, caches / f"cache-{n}", timeout=120, output_cap=1 << 20, use_cache=False)
        runner.start(script, calls)
        results.append(runner.result(script))
        runner.finish()
    return results


def main() -> None:
    args = parse_args(__doc__)
    with workdir(args.keep) as tmp:
        sites = {"with figures": tmp / "with", "without": tmp / "without"}
        for (name, site), figures in zip(sites.items(), (True, False)):
            count = copy_site(site, figures)
            warm_build(site)  # fills the caches of this copy
        best = {name: min(warm_build(site) for _ in range(args.repeat)) for name, site in sites.items()}
        print(f"warm build, fastest of {args.repeat}: with {count} figure(s) {best['with figures']:.2f} s, without "
              f"{best['without']:.2f} s, ratio {best['with figures'] / best['without']:.3f}")

        script, call = "experiments/numpy_primitives.py", "f(onp.array([0.5, 1.5, 2.0]))"
        plain = runs(ROOT, script, (), args.repeat, tmp / "plain")
        traced = runs(ROOT, script, (call,), args.repeat, tmp / "traced")
        mean = lambda results: sum(r.seconds for r in results) / len(results)
        print(f"{script} run (mean of {args.repeat}, cold): {mean(plain):.3f} s plain, {mean(traced):.3f} s with "
              f"the trace of {call} (+{mean(traced) - mean(plain):.3f} s)")
        graph = read_graph(traced[0].traces[call])
        package = ROOT / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
        read = lambda path: (package / path).read_text(encoding="utf-8") if (package / path).is_file() else None
        started = time.perf_counter()
        for _ in range(20):
            graphs.draw(graphs.LaidOut(graph, graphs.lay_out(graph, call)), "alt", "p-", lambda found: "#", read)
        print(f"drawing its graph ({len(graph.nodes)} nodes, layout and SVG): {(time.perf_counter() - started) / 20 * 1000:.1f} ms")

        (tmp / "plot" / "experiments").mkdir(parents=True)
        (tmp / "plot" / "experiments" / "plot.py").write_text(PLOT, encoding="utf-8")
        plots = runs(tmp / "plot", "experiments/plot.py", (), args.repeat, tmp / "plots")
        assert all(r.ok and "plot.svg" in r.figures for r in plots), plots[0].stderr
        print(f"a matplotlib plot's run (mean of {args.repeat}, cold, fresh font cache each): {mean(plots):.3f} s, "
              f"{len(plots[0].figures['plot.svg'])} bytes of SVG, the same bytes every run: "
              f"{len({r.figures['plot.svg'] for r in plots}) == 1}")


if __name__ == "__main__":
    main()
