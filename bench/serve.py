"""Benchmark: `mkdocs serve` of the real site with the hook (./dev.sh serve) against plain MkDocs without it (mkdocs.yml
less its `hooks:`, in a copy of this tree), serving the author's pages alone ("plain"), and serving the same pages
the hook's site has ("same pages": the author's and every page the build adds, from the folder the engine stages
for Zensical, adapter/stage.py, as plain Markdown): start to first page, and edit to view (one word of a post's
prose changed, until the served post shows it). Alternating runs, medians, their ratios.

Run from the repository root:  .venv/bin/python bench/serve.py [--runs 5] [--edits 5] [--rev HEAD]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"
POST = "docs/posts/custom-primitive.md"
PAGE = "posts/custom-primitive/"
SOURCE_PAGE = "source/autograd/core.py/"  # a page of the package, which the hook's serve builds after the first page
STAGED = ".codeproof-stage/docs"  # the pages Zensical's adapter stages: the author's and every page the build adds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetched(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def until(url: str, holds, server) -> float:
    """Seconds until the page at `url` satisfies `holds` (polled every 20 ms)."""
    start = time.perf_counter()
    while True:
        if server.poll() is not None:
            sys.exit(f"the server stopped: {server.stderr.read()[-2000:]}")
        page = fetched(url)
        if page is not None and holds(page):
            return time.perf_counter() - start
        time.sleep(0.02)


def serve(tree: Path, config: str, port: int):
    return subprocess.Popen([str(MKDOCS), "serve", "-f", config, "--dev-addr", f"127.0.0.1:{port}"], cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def session(tree: Path, config: str, edits: int, docs: str = "docs") -> tuple[float, list[float]]:
    """(start to first page, [edit to view...]) of one server, whose pages are in `docs`. The edits begin once the
    whole site is served (the hook's serve builds the source pages after the first page)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/autograd-series/{PAGE}"
    post = tree / docs / POST.removeprefix("docs/")
    original = post.read_text(encoding="utf-8")
    server = serve(tree, config, port)
    try:
        start = until(url, lambda page: "</html>" in page, server)
        whole = f"http://127.0.0.1:{port}/autograd-series/{SOURCE_PAGE}" if config != "plain.yml" else url
        until(whole, lambda page: "</html>" in page, server)
        views = []
        for n in range(edits):
            word = f"benchword{n}x{time.monotonic_ns()}"
            post.write_text(original.replace("原函数能算出值", f"原函数能算出值 {word}", 1), encoding="utf-8")
            views.append(until(url, lambda page: word in page, server))
        return start, views
    finally:
        post.write_text(original, encoding="utf-8")
        server.terminate()
        server.wait(timeout=30)


def alternating(sessions: dict, runs: int, edits: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each server's starts and edit-to-view times: `sessions[name](edits)` runs one server (its start, its views);
    one session each to warm the caches, then `runs` rounds, each server in turn."""
    for session_of in sessions.values():
        session_of(1)
    starts: dict[str, list[float]] = {name: [] for name in sessions}
    views: dict[str, list[float]] = {name: [] for name in sessions}
    for _ in range(runs):
        for name, session_of in sessions.items():
            start, viewed = session_of(edits)
            starts[name].append(start)
            views[name] += viewed
    return starts, views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--rev", default="HEAD", help="the commit whose tree is served (HEAD; an earlier one, to compare)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), args.rev], cwd=ROOT, check=True)
        try:
            text = (tree / "mkdocs.yml").read_text(encoding="utf-8")
            plain = text.replace("hooks:\n  - hooks/series.py\n", "")
            assert plain != text, "mkdocs.yml's hooks: entry moved: update the benchmark"
            (tree / "plain.yml").write_text(plain, encoding="utf-8")
            # The same pages: the folder the engine stages (written by a Zensical build of the tree), served plainly.
            subprocess.run([sys.executable, "-m", "codeproof.adapter.zensical", "build"], cwd=tree, check=True,
                           capture_output=True)
            (tree / "same.yml").write_text(plain.replace("docs_dir: docs\n", f"docs_dir: {STAGED}\n"), encoding="utf-8")
            variants = {"hook": ("mkdocs.yml", "docs"), "plain": ("plain.yml", "docs"), "same pages": ("same.yml", STAGED)}
            starts, views = alternating({name: lambda edits, config=config, docs=docs: session(tree, config, edits, docs)
                                         for name, (config, docs) in variants.items()}, args.runs, args.edits)
            for name in variants:
                print(f"{name:10}: start to first page median {statistics.median(starts[name]):.2f} s "
                      f"({', '.join(f'{v:.2f}' for v in starts[name])}); edit to view median "
                      f"{statistics.median(views[name]):.2f} s")
            for base in ("plain", "same pages"):
                print(f"ratios hook/{base}: start "
                      f"{statistics.median(starts['hook']) / statistics.median(starts[base]):.2f}, edit to view "
                      f"{statistics.median(views['hook']) / statistics.median(views[base]):.2f}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
