"""Benchmark: a post of many lines of raw <code> (issue 52: 16,000 lines took 96 s, the post without them 26 s),
built at another commit and at HEAD: each side's time with the lines and without them.

The lines are added to the first post of docs/posts/ in each side's worktree; each build is warm (one build of each
side first fills its caches). Run from the repository root:
  .venv/bin/python bench/long_post.py --before 1b88f2f [--lines 16000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from warm_build import build
from worktrees import before_and_after


def with_lines(post: Path, lines: int) -> None:
    text = post.read_text(encoding="utf-8")
    post.write_text(text.rstrip("\n") + "\n\n" + "".join(f"第 {n} 行 <code>value{n}</code>\n" for n in range(lines)),
                    encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--lines", type=int, default=16000)
    args = parser.parse_args()
    with before_and_after(args.before, "long-post-") as (tmp, trees):
        for name, tree in trees.items():
            build(tree, tmp / f"site-{name}")  # fills its caches
            plain = build(tree, tmp / f"site-{name}")
            post = sorted((tree / "docs" / "posts").glob("*.md"))[0]
            with_lines(post, args.lines)
            long = build(tree, tmp / f"site-{name}")
            print(f"{name:6} without the lines {plain:.2f} s, with {args.lines} lines {long:.2f} s "
                  f"(ratio {long / plain:.2f})", flush=True)


if __name__ == "__main__":
    main()
