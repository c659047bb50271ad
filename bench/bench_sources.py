"""Benchmark: what [REAL SOURCE] verification costs a build of 100 posts with 10 quotes each.

Generates a series of 100 posts, each quoting 10 runs of 3-8 whole lines from symbols
(functions, classes, methods, found with ast) of the three pinned autograd files, and measures:

  (a) a warm `mkdocs build` with the hook (one untimed build first, then the best of --repeat);
  (b) the same site with the quotes already rendered by the engine and the hook removed
      (no `hooks:`, no `extra:`), warm likewise; the ratio (a)/(b) has a goal of <= 1.10;
  (c) `python -m hooks.codeproof check` over the 1,000 quotes.

Run from the repository root:  .venv/bin/python bench/bench_sources.py [--repeat N] [--keep]
"""

from __future__ import annotations

import ast
import datetime
import sys

from common import (PINNED, PINNED_FILES, best_warm_build, count_in_html, inline_site, make_site, parse_args, run,
                    seconds_list, table, workdir)

POSTS, QUOTES = 100, 10


def symbols(rel: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of module-level defs and classes and of their methods, 3+ lines long."""
    found = []
    for node in ast.parse((PINNED / rel).read_text(encoding="utf-8")).body:
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
    texts = {rel: (PINNED / rel).read_text(encoding="utf-8").split("\n") for rel in PINNED_FILES}
    picks = [(rel, *span) for rel in PINNED_FILES for span in symbols(rel)]
    files = {"docs/index.md": "---\ntitle: 系列总览\n---\n\n# 基准站点\n\n由 bench/bench_sources.py 生成。\n"}
    nav = [("系列总览", "index.md")]
    for n in range(POSTS):  # numbered 0-99: chinese_number() of the engine fails on 100 and above
        parts = []
        for j in range(QUOTES):
            i = n * QUOTES + j
            rel, name, first, last = picks[i % len(picks)]
            parts.append(f"## 引用 {j + 1}：`{name}`\n\n这一段源码说明 `{name}` 的实现细节，供基准测试使用。\n\n"
                         f"[REAL SOURCE]\nFile: {rel}\nSymbol: {name}\n\n```python\n{quote(texts[rel], first, last, i)}\n```\n")
        date = datetime.date(2026, 1, 1) + datetime.timedelta(days=n)
        front = (f'---\ntitle: "Autograd 源码学习（基准 {n}）：生成的文章 {n}"\nseries: {n}\ndate: {date}\n'
                 f"categories: [应用数学, Autograd 源码学习]\ntags: [autograd, benchmark]\n---\n\n")
        files[f"docs/posts/bench-{n:03d}.md"] = front + "本文由基准脚本生成，逐段引用固定 commit 上的源码。\n\n" + "\n".join(parts)
        nav.append((f"生成的文章 {n}", f"posts/bench-{n:03d}.md"))
    return files, nav


def main() -> None:
    args = parse_args(__doc__)
    files, nav = generate()
    with workdir(args.keep) as tmp:
        hooked = make_site(tmp / "hooked", files, nav)
        a, a_all = best_warm_build(hooked, args.repeat)
        plain = inline_site(hooked, tmp / "plain", nav)
        b, b_all = best_warm_build(plain, args.repeat)
        cards = (count_in_html(hooked, "proof-card--source"), count_in_html(plain, "proof-card--source"))
        if cards != (POSTS * QUOTES,) * 2:
            sys.exit(f"expected {POSTS * QUOTES} source cards in each site, found {cards}")
        checks = [run(hooked, [sys.executable, "-m", "hooks.codeproof", "check"]) for _ in range(args.repeat)]
        c = min(t for t, _ in checks)
        table(f"{POSTS} posts x {QUOTES} REAL SOURCE quotes (best of {args.repeat})", [
            ("(a) warm build, hook", f"{a:6.2f} s   [{seconds_list(a_all)}]"),
            ("(b) warm build, inlined, no hook", f"{b:6.2f} s   [{seconds_list(b_all)}]"),
            ("(c) codeproof check", f"{c:6.2f} s   [{seconds_list([t for t, _ in checks])}]  {checks[0][1].strip()}"),
            ("ratio (a)/(b)", f"{a / b:6.3f}     goal <= 1.10: {'met' if a / b <= 1.10 else 'NOT met'}"),
        ])


if __name__ == "__main__":
    main()
