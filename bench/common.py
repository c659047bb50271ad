"""Helpers shared by the benchmarks: build a generated site in a temp dir, time `mkdocs build`, print tables.

A site is a temp copy of the real one's machinery (mkdocs.yml, hooks/, overrides/,
requirements.txt, sources.lock.json, and in its cache the verified upstream files) plus generated
docs/ and experiments/. Its mkdocs.yml is the real one with a generated `nav`,
and, for the "plain" variant, without `hooks:` and `extra:` (the hook's config).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import posixpath
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from codeproof.common.usercache import repository_cache

ROOT = Path(__file__).resolve().parent.parent
COMMIT = "90dbeb8d23f0222b0124eaf961f1209db0cf4333"
PINNED_FILES = ("autograd/core.py", "autograd/numpy/numpy_vjps.py", "autograd/numpy/numpy_wrapper.py")
COPIED = ("mkdocs.yml", "hooks", "overrides", "requirements.txt", "sources.lock.json")
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
PROSE = "本文由基准脚本生成，用来测量构建时核对引用与输出的开销。\n\n"
SERIAL_MKDOCS = "import os; os.cpu_count = lambda: 1; from mkdocs.__main__ import cli; cli(['build'])"


def pinned_text(rel: str) -> str:
    """A pinned upstream file from the verified cache (run `./dev.sh check` once to fill it)."""
    blob = json.loads((ROOT / "sources.lock.json").read_text())["HIPS/autograd"][COMMIT][rel]
    return (repository_cache(ROOT) / "blobs" / blob[:2] / blob).read_text(encoding="utf-8")


def parse_args(doc: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (its path is printed)")
    parser.add_argument("--repeat", type=int, default=5, help="timed warm builds per variant; the fastest is reported")
    return parser.parse_args()


@contextmanager
def workdir(keep: bool):
    tmp = Path(tempfile.mkdtemp(prefix="codeproof-bench-"))
    try:
        yield tmp
    finally:
        if keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def front_matter(number: int, title: str) -> str:
    """Front matter like the real posts'. The description is given, so the hook (which sets it from the first
    paragraph when missing) and the plain site without the hook write the same <meta>."""
    date = datetime.date(2026, 1, 1) + datetime.timedelta(days=number)
    return (f'---\ntitle: "Autograd 源码学习（{number}）：{title} {number}"\nseries: {number}\ndate: {date}\n'
            f"description: {PROSE.strip()}\ncategories: [应用数学, Autograd 源码学习]\ntags: [autograd, benchmark]\n---\n\n")


def config_text(base: Path, nav: list[tuple[str, str]], hook: bool) -> str:
    """base/mkdocs.yml with `nav` replaced; without `hooks:` and `extra:` when hook is False."""
    text = (base / "mkdocs.yml").read_text(encoding="utf-8")
    sections = {p.split(":", 1)[0]: p for p in re.split(r"(?m)^(?=[A-Za-z_]\w*:)", text) if p}
    sections["nav"] = "nav:\n" + "".join(f'  - "{title}": {path}\n' for title, path in nav) + "\n"
    if not hook:
        del sections["hooks"], sections["extra"]
    return "".join(sections.values())


def write_files(dst: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        (dst / rel).write_text(text, encoding="utf-8")


def make_site(dst: Path, files: dict[str, str], nav: list[tuple[str, str]], hook: bool = True,
              base: Path = ROOT) -> Path:
    """A site in dst: the machinery copied from base, `files` (relative path -> text) and a generated mkdocs.yml.

    The plain variant copies from the hooked site rather than from the repository, which others may be editing.
    """
    for name in COPIED:
        src = base / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    if (repository_cache(base) / "blobs").is_dir():  # the verified upstream files: no fetching
        shutil.copytree(repository_cache(base) / "blobs", repository_cache(dst) / "blobs", dirs_exist_ok=True)
    write_files(dst, files)
    (dst / "mkdocs.yml").write_text(config_text(base, nav, hook), encoding="utf-8")
    return dst


@dataclass(frozen=True)
class Timing:
    wall: float  # time.perf_counter() around the subprocess
    cpu: float  # user + system CPU of the subprocess and the processes it waited for (e.g. experiments)
    stderr: str

    def __str__(self) -> str:
        return f"{self.wall:6.2f} s wall, {self.cpu:6.2f} s CPU"


def run(site: Path, argv: list[str], env: dict | None = None) -> Timing:
    """Run a command in the site; abort with its stderr unless it succeeds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=site, env={**ENV, **(env or {})}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}) in {site}: {' '.join(argv)}\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Timing(wall, cpu, done.stderr)


def build(site: Path, env: dict | None = None, serial: bool = False) -> Timing:
    """`mkdocs build` in the site; serial=True makes os.cpu_count() return 1: the engine's pool gets one worker."""
    argv = [sys.executable, "-c", SERIAL_MKDOCS] if serial else [sys.executable, "-m", "mkdocs", "build"]
    return run(site, argv, env)


def warm_builds(sites: list[Path], repeat: int) -> list[list[Timing]]:
    """One untimed build of each site to warm every cache, then `repeat` rounds of one timed build of each,
    interleaved so that load from other processes falls on all the sites alike."""
    for site in sites:
        build(site)
    rounds = [[build(site) for site in sites] for _ in range(repeat)]
    return [list(times) for times in zip(*rounds)]


def best(times: list[Timing]) -> Timing:
    """The fastest of several runs (the least disturbed), with the least CPU of them."""
    return Timing(min(t.wall for t in times), min(t.cpu for t in times), "")


def walls(times: list[Timing]) -> str:
    return "[" + ", ".join(f"{t.wall:.2f}" for t in times) + "]"


def inline_site(site: Path, dst: Path, nav: list[tuple[str, str]]) -> Path:
    """The same site in dst with every block already rendered by the engine, for MkDocs without the hook.

    Each post goes through parse_post, Engine.check and Engine.render, and the block's lines are
    replaced as hooks/series.py does; experiment scripts become plain pages, as the hook publishes them.
    """
    from codeproof.experiments import resources
    from codeproof.site import addresses
    from codeproof.series.blocks import parse_post
    from codeproof.series.frontmatter import split_front_matter
    from codeproof.series.config import load_series
    from codeproof.engine import Engine

    engine = Engine(load_series(site / "mkdocs.yml"))
    posts = {}
    for path in sorted((site / "docs").rglob("*.md")):
        raw = path.read_text(encoding="utf-8")
        first_line, body = split_front_matter(raw)
        posts[path] = (raw[: len(raw) - len(body)], parse_post(path.relative_to(site).as_posix(), body, first_line))
    engine.start_experiments(post for _, post in posts.values())
    files = {}
    for path, (front, parsed) in posts.items():
        page_url = path.relative_to(site / "docs").with_suffix("").as_posix() + "/"
        lines = parsed.lines
        for block in reversed(parsed.blocks):  # bottom-up, so indexes stay valid
            checked = engine.check(block)
            if checked.problem or checked.warning or parsed.problems:
                sys.exit(f"inlining {path}: {checked.problem or checked.warning or parsed.problems[0]}")
            lines[block.start : block.end] = [engine.render(checked, lambda url: _relative(url, page_url))]
        files[path.relative_to(site).as_posix()] = front + "\n".join(lines)
    engine.runner.finish()
    for script in resources.experiment_scripts(site):
        rel = script.relative_to(site).as_posix()
        files["docs/" + rel] = script.read_text(encoding="utf-8")
        files["docs/" + addresses.script_page_src(rel)] = addresses.script_page(files["docs/" + rel])
    return make_site(dst, files, nav, hook=False, base=site)


def _relative(url: str, page_url: str) -> str:
    """A page's site URL (e.g. experiments/x/) as a link from the page at page_url, as the hook makes it."""
    return posixpath.relpath(url, posixpath.dirname(page_url)) + "/"


def count_in_html(site: Path, needle: str) -> int:
    """Occurrences of needle in the built site's HTML: a check that a build made what it should."""
    return sum(p.read_text(encoding="utf-8").count(needle) for p in (site / "site").rglob("*.html"))


def table(title: str, rows: list[tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in rows)
    print(f"\n{title}  (nproc {os.cpu_count()}, {sys.executable})")
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
