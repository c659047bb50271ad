"""Benchmark: a huge upstream file. How long a strict build and `drift` take when the quoted package holds one.

Makes the tests' fixture upstream (a file:// git remote, tests/upstream.py) whose pkg/mod.py is followed by
--lines generated lines (a function every four lines), and a second commit that changes one line of a quoted
symbol; and the fixture post's site quoting it. Then times, each in a child process of its own, with its
peak resident memory (ru_maxrss):

  (a) the first strict build (`mkdocs build --strict`): fetch, verify, cross-reference, source pages;
  (b) `python -m codeproof drift --to <second commit>`.

Goal (issue 21): with 300,000 lines, (a) under 60 s and (b) under 60 s and 1 GB. --small gives the same
runs with a 3,000-line file, for the ratio.

Run from the repository root:  .venv/bin/python bench/huge_file.py [--lines N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from common import ROOT, table

sys.path.insert(0, str(ROOT / "tests"))  # the fixture upstream the tests use
from upstream import MODULE_V1, POST, module_history  # noqa: E402

def module(lines: int) -> str:
    """The fixture upstream's module (tests/upstream.py, which the post quotes), then `lines` generated lines."""
    return MODULE_V1 + "".join(f"\n\ndef f_{i}(x):\n    return math.sin(x) + {i}\n" for i in range(lines // 4))


def make(tmp: Path, lines: int) -> tuple[Path, str]:
    """The upstream's two commits (the second changes a quoted line) and the fixture post's site quoting the
    first; the site's folder and the second commit."""
    text = module(lines)
    commits = module_history(tmp / "remote" / "fixture" / "upstream",
                             (text, text.replace("self.parents = []", "self.parents = ()")))
    site = tmp / "site"
    (site / "docs" / "posts").mkdir(parents=True)
    (site / "docs" / "posts" / "p.md").write_text(POST)
    (site / "docs" / "index.md").write_text("# Fixture\n")
    (site / "requirements.txt").write_text((ROOT / "requirements.txt").read_text())
    from importlib import metadata
    series = {"name": "Fixture series", "git_remote": f"file://{tmp / 'remote'}/{{repo}}",
              "baseline": {"repo": "fixture/upstream", "commit": commits[0], "version": metadata.version("autograd")}}
    config = {"site_name": "f", "extra": {"series": series}, "hooks": [str(ROOT / "hooks" / "series.py")],
              "markdown_extensions": ["attr_list", "md_in_html", "pymdownx.superfences",
                                      {"pymdownx.highlight": {"pygments_lang_class": True,
                                                              "linenums_style": "pymdownx-inline"}}]}
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))
    timed(site, [sys.executable, "-m", "codeproof", "lock"])
    return site, commits[1]


def timed(site: Path, argv: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MB, exit status) of one child process."""
    started = time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    child = subprocess.Popen(argv, cwd=site, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(argv[1:3])} failed:\n{stderr.decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=300_000)
    args = parser.parse_args()
    rows = []
    for lines in (3_000, args.lines):
        with tempfile.TemporaryDirectory(prefix="bench-huge-") as tmp:
            site, other = make(Path(tmp), lines)
            build = timed(site, [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"])
            if build[2] != 0:
                sys.exit(f"the strict build of the {lines:,}-line fixture failed")
            drift = timed(site, [sys.executable, "-m", "codeproof", "drift", "--to", other])
            rows += [(f"{lines:,} lines: strict build", f"{build[0]:.1f} s, peak {build[1]:.0f} MB"),
                     (f"{lines:,} lines: drift", f"{drift[0]:.1f} s, peak {drift[1]:.0f} MB (exit {drift[2]})")]
    table("A huge upstream file", rows)


if __name__ == "__main__":
    main()
