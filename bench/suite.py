"""Benchmark: how long `./dev.sh test --fast` (every test that needs neither the browser nor the real site) and, with
--whole, the whole suite take in this tree, as an author runs them (the set-up environment already made).

Run from the repository root:  .venv/bin/python bench/suite.py [--whole]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(arguments: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(["./dev.sh", "test", "-q", *arguments], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"./dev.sh test {' '.join(arguments)} failed:\n{done.stdout[-3000:]}")
    summary = re.findall(r"^=*\s*(\d+ passed.*?)\s*=*$", done.stdout, flags=re.M)
    return time.perf_counter() - start, summary[-1] if summary else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whole", action="store_true", help="the whole suite too")
    args = parser.parse_args()
    for name, arguments in [("--fast", ["--fast"])] + ([("whole", [])] if args.whole else []):
        seconds, summary = timed(arguments)
        print(f"{name:6} {seconds:.1f} s ({summary})", flush=True)


if __name__ == "__main__":
    main()
