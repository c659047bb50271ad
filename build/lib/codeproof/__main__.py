"""Command line: verify and repair the posts without building the site.

`python -m codeproof --help` lists the commands (check, update, lock, new, drift, rebase); `COMMAND --help` says
what each takes. `./dev.sh` runs them with the site's pinned packages.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from codeproof.common.errors import CodeproofError, UsageError
from codeproof.site import guard
from codeproof.series.blocks import read_post
from codeproof.series.config import VERSION_RE, SeriesConfigError, load_site
from codeproof.drift import (Release, as_json, citation_drifts, drifts_to, failed, output_changes, rebase,
                             release_differs, summary)
from codeproof.matrix import run_matrix, table as matrix_table
from codeproof.experiments.matrix import uv_command, write_lock
from codeproof.engine import Engine, own_scripts
from codeproof.common.filesystem import recover, shown_path, write_atomically
from codeproof.common.gitrun import run_git
from codeproof.series.rewrite import rewrite_post
from codeproof.series.scaffold import new_post
from codeproof.series.model import read_series
from codeproof.common import pagetree
from codeproof.common.inlinecode import read_code
from codeproof.common.yamledit import with_mapping
from codeproof.series.spans import MarkdownSetup, rendered_words
from codeproof.site.sourcepages import package_files
from codeproof.quotes.lock import SourceError, git_blob_sha1
from codeproof.quotes.providers import not_there, release_files
from codeproof.quotes.sources import default_store
from codeproof.common.structure import FileRef, Problem, report


def parser() -> argparse.ArgumentParser:
    """One subcommand each, with only the options it takes; --config and --docs on every one."""
    top = argparse.ArgumentParser(prog="codeproof", description=__doc__.splitlines()[0])
    site = argparse.ArgumentParser(add_help=False)
    site.add_argument("--config", default="mkdocs.yml", type=Path, help="the site's mkdocs.yml")
    site.add_argument("--docs", default=None, type=Path, help="posts folder (default: docs_dir of mkdocs.yml)")
    commands = top.add_subparsers(dest="command", required=True, metavar="{check,update,lock,new,drift,rebase}")

    def command(name: str, what: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, parents=[site], help=what, description=what)

    check = command("check", "verify every block and every citation in the posts' words; exit 1 on any problem")
    check.add_argument("--no-cache", action="store_true", help="run every experiment again")
    command("lock-matrix", "write the hashed lock of each environment of extra.series.experiments.matrix from its "
            "pins (./dev.sh lock-requirements runs it)")
    check.add_argument("--matrix", action="store_true", help="run the experiments again in each environment of "
                       "extra.series.experiments.matrix too, and say where their outputs hold")
    check.add_argument("--references", action="store_true",
                       help="list every code span of the posts' words and what it cites, or why it stays text")
    check.set_defaults(force=False)
    update = command("update", "rewrite drifted quotes and outputs in place")
    update.add_argument("--no-cache", action="store_true", help="run every experiment again")
    update.add_argument("--force", action="store_true", help="also replace quotes that share less than "
                                                             f"{SIMILARITY_FLOOR * 100:.0f}%% with the source")
    update.set_defaults(references=False)
    command("lock", "record blob SHA-1s of newly quoted or cited files")
    new_ = command("new", "scaffold post N in docs/posts/ and drop its announcement")
    new_.add_argument("number", type=int, help="the post's number in the series")
    new_.add_argument("title", help="its title, without the series name")
    new_.add_argument("--slug", help="its file name, docs/posts/<slug>.md (default: from the title)")
    drift_ = command("drift", "what a newer commit or release changes in the REAL SOURCE quotes")
    target = drift_.add_mutually_exclusive_group(required=True)
    target.add_argument("--to", help="a commit, tag or branch of the baseline repository")
    target.add_argument("--to-release", help="a release on PyPI, e.g. 1.9.2 (its source archive)")
    drift_.add_argument("--remote", help="fetch --to from this git URL or path (default: the configured remote)")
    drift_.add_argument("--format", choices=("text", "json"), default="text", help="the report's form")
    drift_.add_argument("--report", type=Path, help="write the report to this file instead of printing it")
    drift_.add_argument("--run", action="store_true", help="also run the experiments against that autograd")
    rebase_ = command("rebase", "move the baseline to REF: the changed quotes, mkdocs.yml, requirements.txt and the lock")
    rebase_.add_argument("--to", required=True, help="a commit, tag or branch of the baseline repository")
    rebase_.add_argument("--release", help="the PyPI version REF is (default: from a tag such as v1.9.2)")
    rebase_.add_argument("--remote", help="fetch --to from this git URL or path (default: the configured remote)")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        for line in recover(args.config.resolve().parent):  # a change of several files that was interrupted
            print(f"note: {line}", file=sys.stderr)
        site = load_site(args.config)
        series = site.series
        docs = args.docs or site.docs_dir
        if not docs.is_dir():
            raise SeriesConfigError([Problem(str(docs), 1, "is not a folder of posts")])
        pages = []
        for path in _markdown_files(docs):
            parsed, front = read_post(path, shown_path(path, series.root))
            src = path.relative_to(docs).as_posix()
            pages.append((front, parsed, src, src))  # no site here: the source path stands in for the URL
        posts = [parsed for _, parsed, _, _ in pages]
        model, problems, notes = read_series(pages, series.announced)
        setup = site.markdown
        worded = [parsed for _, parsed, src, _ in pages if model.post_at(src)]  # the posts whose words cite
        if args.command == "lock":
            return lock(series, posts, worded, setup)
        if args.command == "lock-matrix":
            return lock_matrix(series, args.config)
        if args.command == "new":
            return new(series, args.config, docs, model, args)
        if args.command == "drift":
            return drift(series, posts, args, worded, setup)
        if args.command == "rebase":
            return rebase_to(series, posts, args.config, args, worded, setup)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        return check(series, posts, repair=args.command == "update", use_cache=not args.no_cache, force=args.force,
                     known=guard.docs_problems(docs, series.root) + problems, cited=(worded, setup, args.references),
                     matrix=args.config.name if getattr(args, "matrix", False) else None)
    except KeyboardInterrupt:
        print("interrupted: the experiments were stopped; every file is whole (posts are only ever replaced "
              "whole)", file=sys.stderr)
        return 130
    except CodeproofError as error:
        return fail(error)
    except OSError as error:
        return fail(CodeproofError(str(error)))


def fail(error: CodeproofError, where: str = "error") -> int:
    """The one way the command line reports an error: its message and hint on stderr; its exit status."""
    print(error.shown(where), file=sys.stderr)
    return error.exit_code


# Below this similarity (Checked.similarity: the share of a quote's characters that its closest run
# of the source matches) a drifted quote is not a slip of the same code but other code: `update` would
# replace it with unrelated lines, so it leaves it to the author unless told --force.
SIMILARITY_FLOOR = 0.5


def check(series, posts, repair: bool, use_cache: bool, force: bool = False, known: list[Problem] = (),
          cited=((), MarkdownSetup(), False), matrix: str | None = None) -> int:
    """Verify (and with `repair`, update) every block; `known` are problems found before, reported with the rest.
    `cited`: the series' posts, whose words' citations are checked too, the site's Markdown setup, and whether to
    list each citation. `matrix`: the configuration file's name, to run the experiments in its matrix too."""
    engine = Engine(series, use_cache=use_cache)
    try:
        return _check(engine, posts, repair, force, list(known), *cited, matrix=matrix)
    except KeyboardInterrupt:  # stop the runs now, rather than wait for them
        engine.runner.cancel()
        raise


def _check(engine: Engine, posts, repair: bool, force: bool, problems: list[Problem], worded=(),
           setup: MarkdownSetup = MarkdownSetup(), listed: bool = False, matrix: str | None = None) -> int:
    started = time.monotonic()
    series = engine.series
    engine.start_experiments(posts)
    problems += [p for post in posts for p in post.problems] + engine.runner.published()[1]
    if worded:
        problems += _citations(engine, worded, setup, listed)
    blocks, built = 0, {}
    for post in posts:
        results = [engine.check(block) for block in post.blocks]
        built.update((id(result.block), result) for result in results)
        blocks += len(results)
        repairs = [r for r in results if r.repair is not None and (r.problem or r.warning)] if repair else []
        unlike = [r for r in repairs if not force and r.similarity is not None and r.similarity < SIMILARITY_FLOOR]
        repairs = [r for r in repairs if r not in unlike]
        if repairs:
            print(rewrite_post(series.root / post.post, post, repairs), end="")
            for repaired in repairs:
                note = resized(repaired)
                if note:
                    print(f"note: {note}", file=sys.stderr)
        problems += [p for r in results if r not in repairs and r not in unlike for p in (r.problem, r.warning) if p]
        problems += [left_alone(r) for r in unlike]
    engine.runner.finish()
    seconds = time.monotonic() - started
    runs = engine.runner.runs
    print(f"{blocks} blocks in {len(posts)} pages checked in {seconds:.2f} s; "
          f"{runs} experiment{'' if runs == 1 else 's'} run", file=sys.stderr)
    if matrix is not None:
        problems += _matrix(engine, posts, built, matrix)
    if problems:
        print(report(problems), file=sys.stderr)
        return 1
    return 0


def _matrix(engine: Engine, posts, built, config_name: str) -> list[Problem]:
    """Run the matrix, print its verdicts, and give what fails the check: an environment that cannot be had, and
    under `strict` each difference (else printed as warnings)."""
    started = time.monotonic()
    verdicts, problems = run_matrix(engine, posts, built, config_name)
    print(matrix_table(verdicts), end="")
    differences = [verdict.problem for verdict in verdicts if verdict.problem]
    environments = len(engine.series.matrix.environments)
    print(f"matrix: {len(verdicts)} verdicts in {environments} environment{'' if environments == 1 else 's'} in "
          f"{time.monotonic() - started:.2f} s", file=sys.stderr)
    if engine.series.matrix.strict:
        return problems + differences
    if differences:
        print("warnings (extra.series.experiments.matrix.strict: true makes them fail):\n" + report(differences),
              file=sys.stderr)
    return problems


def _citations(engine: Engine, posts, setup: MarkdownSetup, listed: bool) -> list[Problem]:
    """The problems of the posts' citations; with `listed`, every code span and its verdict printed, then a count
    per post."""
    try:
        package = package_files(engine.store, engine.series, posts)
    except SourceError as error:
        return [Problem(engine.series.lock_file.name, 1, f"the package the posts quote: {error}", hint=error.hint)]
    tree, problems = engine.pinned_tree(package, _scripts(engine)), []
    for post in posts:
        found = engine.citations(post, words_of(post, setup), tree)
        problems += [problem for _, _, problem in found if problem]
        if listed:
            for span, verdict, _ in found:
                said = f"-> {verdict.target}" if verdict.target else f"text: {verdict.why}"
                print(f"{post.post}:{span.line}: `{span.text}` {said}")
            linked = sum(1 for _, verdict, _ in found if verdict.target)
            print(f"{post.post}: {len(found)} code spans, {linked} linked, {len(found) - linked} text")
    return problems


def new(series, config_file: Path, docs: Path, model, args) -> int:
    done, problems = new_post(series, config_file, docs, model, args.number, args.title, args.slug, datetime.date.today())
    if problems:
        print(report(problems), file=sys.stderr)
        return 1
    print("\n".join(done) + "\nnext: write it, then ./dev.sh lock (for new source files) and ./dev.sh check")
    return 0


def words_of(post, setup: MarkdownSetup) -> list:
    """The inline code of a post's words, as the site's Markdown renders them (the build reads its own pages')."""
    return read_code(pagetree.read(rendered_words(post, setup)))[0]


def _pinned_citations(engine: Engine, posts, setup: MarkdownSetup):
    """(the tree at the pin, each citation of the posts' words: (post, span, verdict, the post's own scripts))."""
    scripts = _scripts(engine)
    pinned = engine.pinned_tree(package_files(engine.store, engine.series, posts), scripts)
    return pinned, [(post.post, span, verdict, own_scripts(post)) for post in posts
                    for span, verdict, _ in engine.citations(post, words_of(post, setup), pinned)]


def _tree_there(engine: Engine, pinned, paths: list[str], read: Callable[[str], bytes]):
    """The tree citations resolve in at another commit: its `paths`, its files by `read(path)`, its package in the
    folders of the pin's."""
    folders = {path.split("/", 1)[0] for path in pinned.package_paths}
    package = {path: read(path) for path in paths if path.split("/", 1)[0] in folders and path.endswith(".py")}
    return engine.pinned_tree(package, pinned.scripts, read=lambda path: read(path).decode("utf-8"), paths=paths)


def _scripts(engine: Engine) -> dict[str, str]:
    return {path: data.decode("utf-8", "replace") for path, data in engine.runner.resources()[0].items()
            if path.endswith(".py")}


def drift(series, posts, args, worded=(), setup: MarkdownSetup = MarkdownSetup()) -> int:
    """The drift report; 1 when a quote changed or is gone, a citation is gone (or an output would change), 2 when
    REF cannot be fetched."""
    if args.to_release and not VERSION_RE.match(args.to_release):
        raise UsageError(f"{args.to_release!r} is not a version", hint="e.g. --to-release 1.9.2")
    if args.report and (args.report.is_dir() or not args.report.resolve().parent.is_dir()):
        raise UsageError(f"--report {args.report} is not a file in an existing folder")
    engine = Engine(series)
    git = engine.store.git
    if args.to_release:
        files, sha256 = release_files(f"{series.baseline.sdist.partition('==')[0] or 'autograd'}=={args.to_release}",
                                      series.cache_dir)
        there = f"release {args.to_release} (sdist SHA-256 {sha256})"

        def read(ref):
            if ref.path not in files:
                raise not_there(ref, f"the release archive of {args.to_release}", sorted(files))
            return files[ref.path]
    else:
        there = git.resolve(series.baseline.repo, args.to, args.remote)
        read = git.fetch  # git has checked every object it received
        files = None
    drifts = drifts_to(engine, posts, there, read)
    pinned, cited = _pinned_citations(engine, worded, setup)
    paths = sorted(files) if files is not None else git.paths(series.baseline.repo, there) or []
    at = _tree_there(engine, pinned, paths, lambda path: read(FileRef(series.baseline.repo, there, path)))
    moved = citation_drifts(cited, pinned, at, (args.to or args.to_release)[:40])
    ran, outputs_change = [], False
    if args.run:
        with tempfile.TemporaryDirectory(prefix="codeproof-drift-") as tree:
            os.chmod(tree, 0o755)  # a root build's sandbox reads it as another user (runner.bwrap_command)
            if args.to_release:
                for path, data in files.items():
                    (Path(tree) / path).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tree) / path).write_bytes(data)
            else:
                git.export(series.baseline.repo, there, Path(tree))
            ran, outputs_change = output_changes(engine, posts, Path(tree))
    if args.format == "json":
        text = as_json(drifts, args.to or args.to_release, there, ran, moved) + "\n"
    else:
        text = "".join(f"{line}\n" for line in [*map(str, drifts), *map(str, moved), *ran, summary(drifts, moved)])
    if args.report:
        write_atomically(args.report, text.encode("utf-8"))
    else:
        print(text, end="")
    return 1 if failed(drifts, moved) or outputs_change else 0


def rebase_to(series, posts, config_file: Path, args, worded=(), setup: MarkdownSetup = MarkdownSetup()) -> int:
    """Move the baseline to --to in one reviewable step (a clean working tree, so `git diff` shows all of it)."""
    status = run_git("status", "--porcelain", work_tree=series.root)
    if status.returncode != 0 or status.stdout.strip():
        raise UsageError("rebase needs a clean git working tree, so that `git diff` shows what it changed",
                         hint="commit or stash your changes first")
    engine = Engine(series, store=default_store(series, fresh=True))  # every file fetched and checked anew
    git = engine.store.git
    version = args.release or (RELEASE_TAG.match(args.to).group(1) if RELEASE_TAG.match(args.to) else None)
    if not version or not VERSION_RE.match(version):
        raise UsageError(f"{args.to!r} does not name a release: the baseline is a release, whose autograd the "
                         "experiments run (requirements.txt pins it from PyPI)",
                         hint="name its tag (v1.9.2), or --release VERSION; to see what a commit changes, use drift")
    commit = git.resolve(series.baseline.repo, args.to, args.remote)
    pin = f"{(series.baseline.sdist or 'autograd==').partition('==')[0]}=={version}"
    files, sha256 = release_files(pin, series.cache_dir)
    release = Release(version, pin, sha256, files)
    differs = release_differs(release, lambda path: _blob_or_none(git, FileRef(series.baseline.repo, commit, path)))
    if differs:
        raise SourceError(f"the release archive {pin} holds {differs} otherwise than {args.to} ({commit[:7]})",
                          hint="name the release's own tag, or --release the version that REF is")
    pinned, cited = _pinned_citations(engine, worded, setup)
    at = _tree_there(engine, pinned, git.paths(series.baseline.repo, commit) or [],
                     lambda path: git.fetch(FileRef(series.baseline.repo, commit, path)))
    moved = citation_drifts(cited, pinned, at, commit[:7])
    said = rebase(engine, posts, commit, release, config_file, moved, {c.now.path for c in moved if c.now}
                  | set(at.read_paths()))
    print("\n".join(line for line in said if line))
    print("next: ./dev.sh check (it runs the experiments against the new baseline), then commit", file=sys.stderr)
    return 0


RELEASE_TAG = re.compile(r"^v?(\d+(?:\.\d+)+)$")  # a tag that names a release: v1.9.2 or 1.9.2


def _blob_or_none(git, ref: FileRef) -> bytes | None:
    try:
        return git.fetch(ref)
    except SourceError:
        return None


def _markdown_files(docs: Path) -> list[Path]:
    """The regular Markdown files under docs/, without following links (docs_problems reports the others)."""
    found = (Path(folder) / name for folder, _, names in os.walk(docs) for name in names if name.endswith(".md"))
    return sorted(path for path in found if path.is_file() and not path.is_symlink())


def resized(checked) -> str:
    """What `update` says when it gave a quote another number of lines than it had: never silently."""
    block = checked.block
    if not block.kind.upstream or block.quote is None:
        return ""
    had, took = len(block.quote.split("\n")), len(checked.repair.split("\n"))
    if had == took:
        return ""
    return (f"{block.post}:{block.line}: the quote had {had} lines and now has {took}: the closest lines of the file "
            f"are {'shorter' if took < had else 'longer'}, so check its {'end' if took < had else 'ends'} (and whether "
            "it was copied from another version)")


def left_alone(checked) -> Problem:
    drift = checked.problem
    return Problem(
        drift.post, drift.line,
        f"{drift.message}; update left it alone: it shares only {checked.similarity:.0%} with the closest lines "
        f"of the source (less than {SIMILARITY_FLOOR:.0%}), so they are not the same code",
        detail=drift.detail, hint="fix the quote or its Symbol by hand, or run `./dev.sh update --force` to take those lines",
    )


def lock(series, posts, worded=(), setup: MarkdownSetup = MarkdownSetup()) -> int:
    """Record newly quoted and cited files, hashing only bytes whose integrity their source proves: a fresh
    git fetch (git checks every object), or the release archive checked against its pinned SHA-256."""
    store = default_store(series, fresh=True)
    lock_file = store.lock
    why: dict[FileRef, list[str]] = {}  # each file's reasons to be in the lock, said as it is locked
    for post in posts:
        for block in post.blocks:
            if block.kind.upstream:
                why.setdefault(series.baseline.ref_of(block), []).append(f"quoted at {block.post}:{block.line}")
    if worded:
        for ref, reasons in _cited_files(series, store, worded, setup).items():
            why.setdefault(ref, []).extend(reasons)
    refs = sorted(why)
    failures = locked = 0
    for ref in refs:
        if lock_file.expected(ref):
            continue
        try:
            data, provider = store.fetch(ref)
        except SourceError as error:
            fail(error, where=str(ref))
            failures += 1
            continue
        sha = git_blob_sha1(data)
        lock_file.record(ref, sha)
        reasons = why[ref][:SHOWN_REASONS] + ([f"{len(why[ref]) - SHOWN_REASONS} more"]
                                              if len(why[ref]) > SHOWN_REASONS else [])
        print(f"locked {ref} = {sha} (from {provider}): {', '.join(reasons)}")
        locked += 1
    if not locked and not failures:
        print(f"nothing to lock: every file the posts quote and cite ({len(refs)}) is in {lock_file.path.name} already")
    lock_file.save()
    return 1 if failures else 0


def lock_matrix(series, config_file: Path) -> int:
    """Write each matrix environment's hashed lock from its pins, and record in mkdocs.yml what it holds (`locked`:
    each pin with the SHA-256 of its hashes), which the lock is then held to."""
    uv = uv_command()
    if uv is None:
        raise CodeproofError("lock-matrix needs uv", "run it through ./dev.sh lock-requirements")
    text = config_file.read_bytes().decode("utf-8")  # edited as it is: each line keeps its own break
    for index, environment in enumerate(series.matrix.environments):
        locked = write_lock(environment, uv)
        try:
            text = with_mapping(text, ("extra", "series", "experiments", "matrix", "environments", index, "locked"),
                                locked)
        except ValueError as error:
            raise CodeproofError(f"{config_file.name}: {error}", "write each environment of "
                                 "extra.series.experiments.matrix as one `key: value` per line, then lock again") from None
        print(f"locked {environment.name} in {environment.lock.relative_to(series.root)}: "
              f"{', '.join(locked)} (recorded in {config_file.name})")
    write_atomically(config_file, text.encode("utf-8"))
    return 0


SHOWN_REASONS = 3


def _cited_files(series, store, posts, setup: MarkdownSetup) -> dict[FileRef, list[str]]:
    """The upstream files the posts' words cite, read from the store's own proven sources (no lock needed), each
    with why: the citations (at their lines), or that a cited name's module imports it from there."""
    baseline = series.baseline
    scripts = {b.fields["File"]: (series.root / b.fields["File"]).read_bytes().decode("utf-8", "replace")
               for post in posts for b in post.blocks
               if b.kind.script and "File" in b.fields and (series.root / b.fields["File"]).is_file()}
    try:
        package = package_files(store, series, posts)
    except SourceError as error:
        fail(error, where="the package the posts quote")
        package = {}
    engine = Engine(series, store=store)
    tree = engine.pinned_tree(package, scripts,
                              read=lambda path: store.fetch(FileRef(baseline.repo, baseline.commit, path))[0].decode("utf-8"))
    cited: dict[FileRef, list[str]] = {}
    for post in posts:
        for span, verdict, _ in engine.citations(post, words_of(post, setup), tree):
            if verdict.target and not verdict.target.script:
                cited.setdefault(FileRef(baseline.repo, baseline.commit, verdict.target.path), []).append(
                    f"cited at {post.post}:{span.line} (`{span.text}`)")
    for path in tree.read_paths():
        cited.setdefault(FileRef(baseline.repo, baseline.commit, path), []).append("read to follow a citation's import")
    return cited

if __name__ == "__main__":
    sys.exit(main())
