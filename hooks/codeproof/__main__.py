"""Command line: verify and repair the posts without building the site.

    python -m codeproof check   [--no-cache]   verify every block; exit 1 on any problem
    python -m codeproof update  [--no-cache] [--force]   rewrite drifted quotes and outputs in place
    python -m codeproof lock                   record blob SHA-1s of newly quoted files
    python -m codeproof new N TITLE [--slug S] scaffold post N in docs/posts/ and drop its announcement
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

from . import guard
from .blocks import read_post
from .config import SeriesConfigError, load_config_file, series_from_extra
from .engine import Engine, source_ref
from .filesystem import shown_path
from .rewrite import rewrite_post
from .scaffold import new_post
from .series_model import read_series
from .sources import SourceError, default_store, git_blob_sha1
from .structure import BlockKind, Problem, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="codeproof", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("check", "update", "lock", "new"))
    parser.add_argument("number", nargs="?", type=int, help="new: the post's number in the series")
    parser.add_argument("title", nargs="?", help="new: its title, without the series name")
    parser.add_argument("--slug", help="new: its file name, docs/posts/<slug>.md (default: from the title)")
    parser.add_argument("--config", default="mkdocs.yml", type=Path, help="the site's mkdocs.yml")
    parser.add_argument("--docs", default=None, type=Path, help="posts folder (default: docs_dir of mkdocs.yml)")
    parser.add_argument("--no-cache", action="store_true", help="run every experiment again")
    parser.add_argument("--force", action="store_true",
                        help=f"update: also replace quotes that share less than {SIMILARITY_FLOOR * 100:.0f}%% with the source")
    args = parser.parse_args(argv)
    if (args.command == "new") != (args.title is not None):
        parser.error("new takes a number and a title (and only new does): new 5 \"Broadcasting 的反向传播\"")
    try:
        config = load_config_file(args.config)  # as the build reads it: MkDocs' loader, tags and checks
        series = series_from_extra(config.extra.get("series"), Path(config.config_file_path))
        docs = args.docs or Path(config.docs_dir)
        if not docs.is_dir():
            raise SeriesConfigError([Problem(str(docs), 1, "is not a folder of posts")])
        pages = []
        for path in _markdown_files(docs):
            parsed, front = read_post(path, shown_path(path, series.root))
            src = path.relative_to(docs).as_posix()
            pages.append((front, parsed, src, src))  # no site here: the source path stands in for the URL
        posts = [parsed for _, parsed, _, _ in pages]
        if args.command == "lock":
            return lock(series, posts)
        model, problems, notes = read_series(pages, series.announced)
        if args.command == "new":
            return new(series, Path(config.config_file_path), docs, model, args)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        return check(series, posts, repair=args.command == "update", use_cache=not args.no_cache, force=args.force,
                     known=guard.docs_problems(docs, series.root) + problems)
    except KeyboardInterrupt:
        print("interrupted: the experiments were stopped; every file is whole (posts are only ever replaced "
              "whole)", file=sys.stderr)
        return 130
    except (OSError, SeriesConfigError, SourceError) as error:
        hint = getattr(error, "hint", "")
        print(f"error: {error}" + (f"\n  hint: {hint}" if hint else ""), file=sys.stderr)
        return 2


# Below this similarity (Checked.similarity: the share of a quote's characters that its closest run
# of the source matches) a drifted quote is not a slip of the same code but other code: `update` would
# replace it with unrelated lines, so it leaves it to the author unless told --force.
SIMILARITY_FLOOR = 0.5


def check(series, posts, repair: bool, use_cache: bool, force: bool = False, known: list[Problem] = ()) -> int:
    """Verify (and with `repair`, update) every block; `known` are problems found before, reported with the rest."""
    engine = Engine(series, use_cache=use_cache)
    try:
        return _check(engine, posts, repair, force, list(known))
    except KeyboardInterrupt:  # stop the runs now, rather than wait for them
        engine.runner.cancel()
        raise


def _check(engine: Engine, posts, repair: bool, force: bool, problems: list[Problem]) -> int:
    started = time.monotonic()
    series = engine.series
    engine.start_experiments(posts)
    problems += [p for post in posts for p in post.problems] + engine.runner.published()[1]
    blocks = 0
    for post in posts:
        results = [engine.check(block) for block in post.blocks]
        blocks += len(results)
        repairs = [r for r in results if r.repair is not None and (r.problem or r.warning)] if repair else []
        unlike = [r for r in repairs if not force and r.similarity is not None and r.similarity < SIMILARITY_FLOOR]
        repairs = [r for r in repairs if r not in unlike]
        if repairs:
            print(rewrite_post(series.root / post.post, post, repairs), end="")
        problems += [p for r in results if r not in repairs and r not in unlike for p in (r.problem, r.warning) if p]
        problems += [left_alone(r) for r in unlike]
    engine.runner.finish()
    seconds = time.monotonic() - started
    runs = engine.runner.runs
    print(f"{blocks} blocks in {len(posts)} pages checked in {seconds:.2f} s; "
          f"{runs} experiment{'' if runs == 1 else 's'} run", file=sys.stderr)
    if problems:
        print(report(problems), file=sys.stderr)
        return 1
    return 0


def new(series, config_file: Path, docs: Path, model, args) -> int:
    done, problems = new_post(series, config_file, docs, model, args.number, args.title, args.slug, datetime.date.today())
    if problems:
        print(report(problems), file=sys.stderr)
        return 1
    print("\n".join(done) + "\nnext: write it, then ./dev.sh lock (for new source files) and ./dev.sh check")
    return 0


def _markdown_files(docs: Path) -> list[Path]:
    """The regular Markdown files under docs/, without following links (docs_problems reports the others)."""
    found = (Path(folder) / name for folder, _, names in os.walk(docs) for name in names if name.endswith(".md"))
    return sorted(path for path in found if path.is_file() and not path.is_symlink())


def left_alone(checked) -> Problem:
    drift = checked.problem
    return Problem(
        drift.post, drift.line,
        f"{drift.message}; update left it alone: it shares only {checked.similarity:.0%} with the closest lines "
        f"of the source (less than {SIMILARITY_FLOOR:.0%}), so they are not the same code",
        detail=drift.detail, hint="fix the quote or its Symbol by hand, or run `./dev.sh update --force` to take those lines",
    )


def lock(series, posts) -> int:
    """Record newly quoted files, hashing only bytes whose integrity their source proves: a fresh
    git fetch (git checks every object), or the release archive checked against its pinned SHA-256."""
    store = default_store(series, fresh=True)
    lock_file = store.lock
    refs = sorted({source_ref(b, series.baseline) for p in posts for b in p.blocks if b.kind is BlockKind.SOURCE})
    failures = 0
    for ref in refs:
        if lock_file.expected(ref):
            continue
        try:
            data, provider = store.fetch(ref)
        except SourceError as error:
            print(f"{ref}: {error}\n  hint: {error.hint}", file=sys.stderr)
            failures += 1
            continue
        sha = git_blob_sha1(data)
        lock_file.record(ref, sha)
        print(f"locked {ref} = {sha} (from {provider})")
    lock_file.save()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
