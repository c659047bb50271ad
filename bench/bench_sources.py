"""Benchmark: what [REAL SOURCE] verification costs a build of 100 posts with 10 quotes each.

Generates a series of 100 posts, each quoting 10 runs of 3-8 whole lines from symbols
(functions, classes, methods, found with ast) of the three pinned autograd files, and measures:

  (a) a warm `mkdocs build` with the hook;
  (b) the same site with the quotes already rendered by the engine and the hook removed
      (no `hooks:`, no `extra:`); the ratio (a)/(b) has a goal of <= 1.10;
  (c) `python -m codeproof check` over the 1,000 quotes.

Each site is built once untimed (warm caches), then (a) and (b) alternate --repeat times, so that
load from other processes falls on both alike; the fastest of each is reported, with its CPU time.

Run from the repository root:  .venv/bin/python bench/bench_sources.py [--repeat N] [--keep]
"""

from __future__ import annotations

import ast
import sys

from common import (PINNED_FILES, PROSE, best, count_in_html, front_matter, inline_site, make_site, parse_args, pinned_text,
                    run, table, walls, warm_builds, workdir)

POSTS, QUOTES = 100, 10


def symbols(rel: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of module-level defs and classes and of their methods, 3+ lines long."""
    found = []
    for node in ast.parse(pinned_text(rel)).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.append((node.name, node))
            if isinstance(node, ast.ClassDef):
                found += [(f"{node.name}.{m.name}", m) for m in node.body if isinstance(m, ast.FunctionDef)]
    spans = [(name, min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno) for name, n in found]
    return [s for s in spans if s[2] - s[1] >= 2]


def quote(lines: list[str], first: int, last: int, i: int) -> str:
    """A run of 3-8 whole lines inside first..last (1-based), varied by i, not starting or ending blank."""
    length = min(3 + i % 6, last - first + 1)
    starts = [s for s in range(first, last - length + 2) if lines[s - 1].strip() and lines[s + length - 2].strip()]
    start = starts[(i * 5) % len(starts)] if starts else first
    return "\n".join(lines[start - 1 : start - 1 + length])


def generate() -> tuple[dict[str, str], list[tuple[str, str]]]:
    texts = {rel: pinned_text(rel).split("\n") for rel in PINNED_FILES}
    picks = [(rel, *span) for rel in PINNED_FILES for span in symbols(rel)]
    files = {"docs/index.md": "---\ntitle: 系列总览\n---\n\n# 基准站点\n\n由 bench/bench_sources.py 生成。\n"}
    nav = [("系列总览", "index.md")]
    for n in range(1, POSTS + 1):  # a series numbers its posts from 1
        parts = []
        for j in range(QUOTES):
            i = n * QUOTES + j
            rel, name, first, last = picks[i % len(picks)]
            parts.append(f"## 引用 {j + 1}：`{name}`\n\n这一段源码说明 `{name}` 的实现细节，供基准测试使用。\n\n"
                         f"[REAL SOURCE]\nFile: {rel}\nSymbol: {name}\n\n```python\n{quote(texts[rel], first, last, i)}\n```\n")
        files[f"docs/posts/bench-{n:03d}.md"] = front_matter(n, "生成的文章") + PROSE + "\n".join(parts)
        nav.append((f"生成的文章 {n}", f"posts/bench-{n:03d}.md"))
    return files, nav


def main() -> None:
    args = parse_args(__doc__)
    files, nav = generate()
    with workdir(args.keep) as tmp:
        hooked = make_site(tmp / "hooked", files, nav)
        plain = inline_site(hooked, tmp / "plain", nav)
        a_all, b_all = warm_builds([hooked, plain], args.repeat)
        a, b = best(a_all), best(b_all)
        cards = (count_in_html(hooked, "proof-card--source"), count_in_html(plain, "proof-card--source"))
        if cards != (POSTS * QUOTES,) * 2:
            sys.exit(f"expected {POSTS * QUOTES} source cards in each site, found {cards}")
        checks = [run(hooked, [sys.executable, "-m", "codeproof", "check"]) for _ in range(args.repeat)]
        table(f"{POSTS} posts x {QUOTES} REAL SOURCE quotes (fastest of {args.repeat})", [
            ("(a) warm build, hook", f"{a}   {walls(a_all)}"),
            ("(b) warm build, inlined, no hook", f"{b}   {walls(b_all)}"),
            ("(c) codeproof check", f"{best(checks)}   {walls(checks)}"),
            ("    its own report", checks[0].stderr.strip()),
            ("ratio (a)/(b)", f"{a.wall / b.wall:6.3f} wall, {a.cpu / b.cpu:6.3f} CPU   goal <= 1.10 (wall): "
                              + ("met" if a.wall / b.wall <= 1.10 else "NOT met")),
        ])


if __name__ == "__main__":
    main()
