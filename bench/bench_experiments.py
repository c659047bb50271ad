"""Benchmark: what [OUTPUT] verification costs a build: 16 experiments of about 1 s of CPU each.

Generates 16 experiments (`import autograd.numpy as np`, a loop of gradient steps calibrated
to about 1 s here, one deterministic printed line) and 16 posts, each with an [OUTPUT] block
recording what its experiment prints (taken from a run of it before any build), and measures:

  (a) a cold `mkdocs build` (no cached runs, CODEPROOF_NO_CACHE=1): experiments run in parallel;
  (b) the same, forced serial: mkdocs runs under a wrapper making os.cpu_count() return 1, the
      size of the engine's pool; the runs' own times (in the cache entries) show whether it was;
      the speed-up (b)/(a) has a goal of >= 1.7 on 2 cores;
  (c) a warm build (every output a cache hit, zero runs);
  (d) the same site with the outputs already rendered by the engine and the hook removed;
      the ratio (c)/(d) has a goal of <= 1.10. Each site is built once untimed, then (c) and (d)
      alternate --repeat times and the fastest of each is reported, with its CPU time;
  (e) what containment costs one run (a scratch copy, the supervisor, the sandbox): a script that only
      prints, run 20 times one after another, plainly (`python -B` in the folder) and by the engine in each
      sandbox available here; and the mean run of (a) over the mean run alone, for the 1 s experiments.

Run from the repository root:  .venv/bin/python bench/bench_experiments.py [--repeat N] [--keep]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import autograd.numpy as np
from codeproof.common.usercache import repository_cache
from autograd import grad

from common import (PROSE, best, build, count_in_html, front_matter, inline_site, make_site, parse_args, table, walls,
                    warm_builds, workdir, write_files)

COUNT, TARGET = 16, 1.0  # experiments, and seconds of gradient steps in each
SCRIPT = '''"""Benchmark experiment {n}: {loops} gradient steps (about {target:g} s of CPU); prints the final loss."""

import autograd.numpy as np
from autograd import grad


def loss(x):
    return np.sum(np.tanh(x) * np.sin({scale} * x) ** 2)


x = np.linspace(-1.0, 1.0, 50)
step = grad(loss)
for _ in range({loops}):
    x = x - 0.01 * step(x)
print("exp_{n:02d}: loss after {loops} steps = %.10f" % loss(x))
'''


def calibrate() -> int:
    """Gradient steps that take about TARGET seconds here, timed in this process on the experiments' loss."""
    step, x, calls = grad(lambda x: np.sum(np.tanh(x) * np.sin(1.5 * x) ** 2)), np.linspace(-1.0, 1.0, 50), 300
    started = time.perf_counter()
    for _ in range(calls):
        x = x - 0.01 * step(x)
    return round(TARGET * calls / (time.perf_counter() - started))


def run_scripts(site: Path, scripts: list[str]) -> dict[str, tuple[str, float]]:
    """Each script run as the engine runs it (its fixed environment), in parallel: script -> (stdout, seconds)."""
    from codeproof.experiments.sandbox import FIXED_ENV

    def one(script: str) -> tuple[str, float]:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-B", script], cwd=site, env={**os.environ, **FIXED_ENV},
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            sys.exit(f"{script} failed:\n{done.stderr}")
        return done.stdout, time.perf_counter() - started

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        return dict(zip(scripts, pool.map(one, scripts)))


def fixed_cost(tmp: Path, times: int = 20) -> list[tuple[str, float]]:
    """Mean wall seconds of a script that only prints: plainly, then by the engine in each available sandbox."""
    from codeproof.experiments.runner import ExperimentRunner
    from codeproof.experiments.sandbox import FIXED_ENV, bwrap_works

    root = tmp / "noop"
    write_files(root, {"experiments/noop.py": 'print("noop")\n'})
    started = time.perf_counter()
    for _ in range(times):
        subprocess.run([sys.executable, "-B", "experiments/noop.py"], cwd=root, env={**os.environ, **FIXED_ENV},
                       check=True, capture_output=True, stdin=subprocess.DEVNULL)
    means = [("plain", (time.perf_counter() - started) / times)]
    for sandbox in ["subreaper"] + (["bwrap"] if bwrap_works() else []):
        total = 0.0
        for _ in range(times):  # a runner runs a script once: one runner a run, its set-up not timed
            runner = ExperimentRunner(root, tmp / "noop-cache", 60, 1 << 20, use_cache=False, sandbox=sandbox,
                                      key_file=tmp / "noop-key")
            started = time.perf_counter()
            ok = runner.result("experiments/noop.py").ok
            total += time.perf_counter() - started
            runner.finish()
            if not ok:
                sys.exit(f"the noop experiment failed in the {sandbox} sandbox")
        means.append((sandbox, total / times))
    return means


def cold_build(site: Path, serial: bool):
    """A build with no cached run: (its Timing, the sum of the runs' own seconds as the engine recorded them)."""
    shutil.rmtree(repository_cache(site) / "experiments", ignore_errors=True)
    timing = build(site, env={"CODEPROOF_NO_CACHE": "1"}, serial=serial)
    runs = [json.loads(p.read_text(encoding="utf-8"))["entry"] for p in (repository_cache(site) / "experiments").glob("*.json")]
    if len(runs) != COUNT or any(r["cached"] for r in runs):
        sys.exit(f"expected {COUNT} fresh runs in the cache, found {len(runs)}")
    return timing, sum(r["seconds"] for r in runs)


def main() -> None:
    args = parse_args(__doc__)
    loops = calibrate()
    scripts = [f"experiments/exp_{n:02d}.py" for n in range(1, COUNT + 1)]
    files = {s: SCRIPT.format(n=n, loops=loops, target=TARGET, scale=1 + n / COUNT) for n, s in enumerate(scripts, 1)}
    files["docs/index.md"] = "---\ntitle: 系列总览\n---\n\n# 基准站点\n\n由 bench/bench_experiments.py 生成。\n"
    nav = [("系列总览", "index.md")] + [(f"实验 {n}", f"posts/exp-{n:02d}.md") for n in range(1, COUNT + 1)]
    with workdir(args.keep) as tmp:
        hooked = make_site(tmp / "hooked", files, nav)
        outputs = run_scripts(hooked, scripts)
        write_files(hooked, {f"docs/posts/exp-{n:02d}.md": front_matter(n, "实验") + PROSE + f"[OUTPUT]\nFile: {script}"
                             f"\n\n```text\n{outputs[script][0].rstrip()}\n```\n" for n, script in enumerate(scripts, 1)})
        alone = [seconds for _, seconds in outputs.values()]

        a, a_runs = cold_build(hooked, serial=False)
        b, b_runs = cold_build(hooked, serial=True)
        if b_runs > b.wall * 1.02:
            sys.exit(f"the serial build overlapped its runs: {b_runs:.2f} s of runs in {b.wall:.2f} s")
        plain = inline_site(hooked, tmp / "plain", nav)  # from the cache of the serial build's runs
        c_all, d_all = warm_builds([hooked, plain], args.repeat)
        c, d = best(c_all), best(d_all)
        noop = fixed_cost(tmp)
        if count_in_html(hooked, "缓存，验证于") != COUNT:
            sys.exit("the warm build did not take every output from the cache")
        if (count_in_html(hooked, "proof-card--output"), count_in_html(plain, "proof-card--output")) != (COUNT,) * 2:
            sys.exit("a site lacks some of the output cards")

        table(f"{COUNT} experiments of {loops} gradient steps each", [
            (f"one run alone ({os.cpu_count()} at a time)",
             f"{sum(alone) / COUNT:6.2f} s mean   [{min(alone):.2f}-{max(alone):.2f}]"),
            ("(a) cold build, parallel", f"{a}   runs {a_runs:.2f} s in all: concurrency {a_runs / a.wall:.2f}"),
            ("(b) cold build, serial", f"{b}   runs {b_runs:.2f} s in all: concurrency {b_runs / b.wall:.2f}"),
            ("speed-up (b)/(a)", f"{b.wall / a.wall:6.3f}   goal >= 1.7: {'met' if b.wall / a.wall >= 1.7 else 'NOT met'}"),
            (f"(c) warm build, hook (fastest of {args.repeat})", f"{c}   {walls(c_all)}"),
            ("(d) warm build, inlined, no hook", f"{d}   {walls(d_all)}"),
            ("ratio (c)/(d)", f"{c.wall / d.wall:6.3f} wall, {c.cpu / d.cpu:6.3f} CPU   goal <= 1.10 (wall): "
                              + ("met" if c.wall / d.wall <= 1.10 else "NOT met")),
            ("(e) mean run in (a) / mean run alone", f"{a_runs / COUNT / (sum(alone) / COUNT):6.3f}"),
            *((f"(e) a print-only run, {how} (mean of 20)",
               f"{seconds * 1000:6.1f} ms" + ("" if how == "plain" else f"   {seconds / noop[0][1]:.2f} x plain"))
              for how, seconds in noop),
        ])


if __name__ == "__main__":
    main()
