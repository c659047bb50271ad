"""Benchmark: how long a drifted quote takes to report, against verifying the same quote unchanged.

Generates a Python file of 10,010 lines (one class of 7-line methods: a def and two lines of its own,
four lines found all through the file, as blank lines and `return` are in real code) and verifies
a [REAL SOURCE] quote of all of it (`Symbol: Big`) with `verify_source_quote`:

  (a) the quote unchanged: verified, nothing to report (the baseline, without the drift report);
  (b) one character changed in the middle of the quote;
  (c) a trailing space added in the middle of the quote (a whitespace-only change).

Each is verified once untimed (the file's parse is cached, as for the second quote of a file in a
build), then --repeat times; the fastest is reported, with its ratio to (a). Goal: (b), (c) < 2 s.

With --before REV, also times one call of hooks/codeproof/quotes/verify.py as of git revision REV, and of the
current one, on a 1,001-line quote with one changed character, each in a child process stopped after
--timeout seconds.

Run from the repository root:  .venv/bin/python bench/bench_drift.py [--repeat N] [--before REV [--timeout S]]
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, table

from codeproof.quotes import verify
from codeproof.series.blocks import parse_post
from codeproof.common.structure import Block, FileRef

REF = FileRef("bench/upstream", "0" * 40, "big.py")


def module(methods: int) -> list[str]:
    """The lines of a class of `methods` 7-line methods (7 × methods lines)."""
    lines = ["class Big:"]
    for i in range(methods):
        lines += [f"    def f_{i}(self, x, y):", f'        """Return combination number {i}."""',
                  f"        total = x * {i} + y", f"        if total > {i % 7}:", "            total -= 1",
                  "        return total", ""]
    return lines[:-1]


def quote_block(lines: list[str]) -> Block:
    text = "[REAL SOURCE]\nFile: big.py\nSymbol: Big\n\n```python\n" + "\n".join(lines) + "\n```\n"
    (block,) = parse_post("docs/posts/bench.md", text).blocks
    return block


def changed(lines: list[str], edit) -> list[str]:
    """The lines with the first `return total` past the middle edited."""
    middle = lines.index("        return total", len(lines) // 2)
    return lines[:middle] + [edit(lines[middle])] + lines[middle + 1 :]


def fastest(lines: list[str], quote: list[str], repeat: int) -> tuple[float, verify.Checked]:
    text, block = "\n".join(lines) + "\n", quote_block(quote)
    verify.verify_source_quote(block, REF, text)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        checked = verify.verify_source_quote(block, REF, text)
        times.append(time.perf_counter() - started)
    return min(times), checked


def one_call(path: str | None, send) -> None:
    """In a child process: time one verification of a 1,001-line quote with one changed character, by
    the verify.py at `path` (imported into the codeproof package) or, with None, by the current one."""
    module_ = verify
    if path:
        spec = importlib.util.spec_from_file_location("codeproof.verify_before", path)
        module_ = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look it up there
        spec.loader.exec_module(module_)
    lines = module(143)
    block = quote_block(changed(lines, lambda line: line.replace("t", "T", 1)))
    started = time.perf_counter()
    module_.verify_source_quote(block, REF, "\n".join(lines) + "\n")
    send.send(time.perf_counter() - started)


def timed_child(path: str | None, timeout: float) -> str:
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.Process(target=one_call, args=(path, send))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.terminate()
        child.join()
        return f"did not finish in {timeout:.0f} s (stopped)"
    return f"{receive.recv() * 1000:8.1f} ms" if receive.poll() else f"failed (exit code {child.exitcode})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per quote; the fastest is reported")
    parser.add_argument("--before", metavar="REV", help="also time verify.py as of this git revision")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a --before timing may take")
    args = parser.parse_args()

    lines = module(1430)
    base, verified = fastest(lines, lines, args.repeat)
    rows = [("(a) unchanged quote, verified", f"{base * 1000:8.1f} ms")]
    for label, edit, shown in [("(b) one character changed", lambda line: line.replace("t", "T", 1), "-    "),
                               ("(c) a trailing space added", lambda line: line + " ", "·\n")]:
        took, checked = fastest(lines, changed(lines, edit), args.repeat)
        if verified.problem or not checked.problem or shown not in checked.problem.detail:
            sys.exit(f"unexpected result for {label}: {verified.problem or checked.problem}")
        rows.append((label, f"{took * 1000:8.1f} ms   {took / base:6.1f} × (a)   goal < 2 s: "
                            + ("met" if took < 2 else "NOT met")))
    rows.append(("    its message", checked.problem.message))
    if args.before:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.before}:hooks/codeproof/quotes/verify.py"],
                                check=True, capture_output=True, text=True).stdout
        with tempfile.TemporaryDirectory() as tmp:
            before = Path(tmp) / "verify_before.py"
            before.write_text(source, encoding="utf-8")
            label = f"1,001 lines, one character: verify.py at {args.before}"
            rows.append((label, timed_child(str(before), args.timeout)))
        rows.append(("1,001 lines, one character: current verify.py", timed_child(None, args.timeout)))
    table(f"a quote of all {len(lines):,} lines of a file (fastest of {args.repeat})", rows)


if __name__ == "__main__":
    main()
