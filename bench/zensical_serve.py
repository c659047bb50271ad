"""Benchmark: edit to view of a post under Zensical's preview (`python -m codeproof.adapter.zensical serve`, the
cards proved by the extension, problems shown in place) and under `mkdocs serve` with the hook (./dev.sh serve),
on the same fixture site (tests/fixture_site.py: one post, three blocks, one experiment). One word of the post's
prose changed, until the served post shows it; medians of alternating servers, and the start to the first page.

With --series: the same, on this series (a worktree of HEAD): Zensical's preview of a site the adapter stages
(the whole staged build again on every change) against `./dev.sh serve`.

Run from the repository root:  .venv/bin/python bench/zensical_serve.py [--runs 3] [--edits 5] [--series]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve import PAGE, POST, alternating, fetched, free_port, until  # noqa: E402  (bench/serve.py's polling)
from fixture_site import make_site  # noqa: E402
from test_zensical import zensical_site  # noqa: E402


def server(site: Path, host: str, port: int) -> subprocess.Popen:
    argv = ([sys.executable, "-m", "codeproof.adapter.zensical", "serve", "-a", f"127.0.0.1:{port}"]
            if host == "zensical" else
            [str(Path(sys.executable).parent / "mkdocs"), "serve", "--dev-addr", f"127.0.0.1:{port}"])
    return subprocess.Popen(argv, cwd=site, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1:{port}/"})


def session(site: Path, host: str, edits: int) -> tuple[float, list[float]]:
    """(start to first page, [edit to view...]) of one server."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/posts/p/"
    post = site / "docs" / "posts" / "p.md"
    original = post.read_text(encoding="utf-8")
    running = server(site, host, port)
    try:
        start = until(url, lambda page: page.count('<div class="proof-card ') == 3, running)
        views = []
        for n in range(edits):
            word = f"benchword{n}x{time.monotonic_ns()}"
            post.write_text(original.replace("Some prose", f"Some prose {word}", 1), encoding="utf-8")
            views.append(until(url, lambda page: word in page, running))
        assert fetched(url).count('<div class="proof-card ') == 3  # every guarantee kept: each card proved
        return start, views
    finally:
        post.write_text(original, encoding="utf-8")
        running.terminate()
        running.wait(timeout=30)


def series_session(tree: Path, host: str, edits: int) -> tuple[float, list[float]]:
    """(start to first page, [edit to view...]) of one server of the series, as bench/serve.py edits it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/{PAGE}"  # both at the root: server() gives MkDocs' SITE_URL
    post = tree / POST
    original = post.read_text(encoding="utf-8")
    running = server(tree, host, port)
    try:
        start = until(url, lambda page: "</html>" in page, running)
        cards = fetched(url).count('<div class="proof-card ')
        views = []
        for n in range(edits):
            word = f"benchword{n}x{time.monotonic_ns()}"
            post.write_text(original.replace("原函数能算出值", f"原函数能算出值 {word}", 1), encoding="utf-8")
            views.append(until(url, lambda page: word in page, running))
        assert cards > 0 and fetched(url).count('<div class="proof-card ') == cards  # each card proved, each time
        return start, views
    finally:
        post.write_text(original, encoding="utf-8")
        running.terminate()
        running.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--series", action="store_true", help="this series, not the fixture site")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="zensical-bench-") as tmp:
        if args.series:
            tree = Path(tmp) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), "HEAD"], cwd=ROOT, check=True)
            sites = {"zensical": tree, "mkdocs": tree}
            of = series_session
        else:
            sites = {"zensical": zensical_site(Path(tmp) / "z").root, "mkdocs": make_site(Path(tmp) / "m").root}
            of = session
        try:
            starts, views = alternating({host: lambda edits, host=host, site=site: of(site, host, edits)
                                         for host, site in sites.items()}, args.runs, args.edits)
        finally:
            if args.series:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)
        for host in sites:
            print(f"{host:8}: edit to view median {statistics.median(views[host]):.2f} s "
                  f"({', '.join(f'{v:.2f}' for v in views[host])}); start to first page median "
                  f"{statistics.median(starts[host]):.2f} s")


if __name__ == "__main__":
    main()
