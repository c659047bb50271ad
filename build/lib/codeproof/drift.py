"""Drift watch: what a newer commit of the baseline repository changes in the posts' REAL SOURCE quotes.

Each quote is verified at the pin first (its lines there are the evidence), then looked for at the other
commit, which is fetched with git (git checks every object it receives; no lock entry is needed):
- unchanged: the same lines at the same numbers;
- moved: the same text, inside the symbol, at other numbers;
- changed: the symbol is there but the text differs (a diff against its closest run);
- gone: the file or the symbol is not there.
`drifts_to` writes nothing; `rebase` moves the baseline there, rewriting the posts' changed quotes, mkdocs.yml,
requirements.txt and the lock.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.experiments.compare import outputs_match
from codeproof.engine import Engine, run_failure
from codeproof.experiments.matrix import MatrixError, label, make
from codeproof.experiments.runner import ExperimentRunner
from codeproof.common.filesystem import journal_file, read_text, write_together
from codeproof.series.rewrite import rewritten_post
from codeproof.quotes.lock import SourceError, git_blob_sha1
from codeproof.common.kinds.base import Drifts
from codeproof.common.structure import Block, Checked, FileRef, ParsedPost
from codeproof.quotes.symbols import SymbolError, parse_symbols
from codeproof.quotes.verify import symbols_of, verify_source_quote
from codeproof.common.yamledit import with_values
from codeproof.quotes.citations import Form, PinnedTree, Target, Verdict
from codeproof.series.spans import CodeSpan


class Status(Enum):
    UNCHANGED = "unchanged"
    MOVED = "moved"
    CHANGED = "changed"
    GONE = "gone"


@dataclass(frozen=True)
class Drift:
    """What became of one quote at the other commit."""

    post: str
    line: int
    status: Status
    file: str
    symbol: str
    lines: tuple[int, int] | None  # at the pin
    moved_to: tuple[int, int] | None = None  # at the other commit, when moved
    diff: str = ""  # when changed: the quote against its closest run there
    why: str = ""  # when gone, or not verified at the pin
    repair: str | None = None  # when changed: the lines `rebase` writes (as `update` would)
    block: Block | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        where = f"{self.post}:{self.line}: {self.status.value} {self.file} {self.symbol}"
        span = f" {self.lines[0]}-{self.lines[1]}" if self.lines else ""
        if self.status is Status.MOVED:
            return f"{where}{span} -> {self.moved_to[0]}-{self.moved_to[1]}"
        if self.status is Status.CHANGED:
            return f"{where}{span}" + (f": {self.why}" if self.why else "") + ("\n" + self.diff.rstrip("\n") if self.diff else "")
        if self.status is Status.GONE:
            return f"{where}: {self.why}"
        return f"{where}{span}"


def drifts_to(engine: Engine, posts: list[ParsedPost], there: str, read: Callable[[FileRef], bytes]) -> list[Drift]:
    """The drift of every REAL SOURCE block of the baseline repository from the pin to `there` (a commit, or a
    release's name), whose files `read` gives (SourceError when one is not there). A block that names its own
    Commit (or Repo) does not move with the baseline, and is left out."""
    baseline = engine.series.baseline
    found = []
    for post in posts:
        for block in post.blocks:
            if block.kind.drifts is Drifts.QUOTE and block.follows_baseline:
                drift = _drift(engine, block, replace(baseline.ref_of(block), commit=there), read)
                found.append(replace(drift, block=block))
    return found


def _drift(engine: Engine, block: Block, there: FileRef, read: Callable[[FileRef], bytes]) -> Drift:
    file, symbol = block.fields["File"], block.fields["Symbol"]
    pinned = engine.check(block)
    if pinned.problem:  # no evidence to compare: the post fails at the pin already
        return Drift(block.post, block.line, Status.CHANGED, file, symbol, None,
                     why=f"not verified at the pin ({pinned.problem.message}); run ./dev.sh check")
    was = (pinned.excerpt.first, pinned.excerpt.last)
    try:
        text = read(there).decode("utf-8")
    except (SourceError, UnicodeDecodeError) as error:
        return Drift(block.post, block.line, Status.GONE, file, symbol, was, why=f"the file: {error}")
    try:
        index = symbols_of(text)
        for spec in parse_symbols(symbol):
            index.spans(spec)
    except SymbolError as error:
        return Drift(block.post, block.line, Status.GONE, file, symbol, was, why=f"the symbol: {error}")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:  # as verify: ast gives up on the file
        return Drift(block.post, block.line, Status.GONE, file, symbol, was,
                     why=f"the file does not parse there: {type(error).__name__}")
    found = verify_source_quote(block, there, text)  # as the build would read the block there
    if found.excerpt and (block.quote is not None or found.excerpt.text == pinned.excerpt.text):
        now = (found.excerpt.first, found.excerpt.last)
        if now == was:
            return Drift(block.post, block.line, Status.UNCHANGED, file, symbol, was)
        return Drift(block.post, block.line, Status.MOVED, file, symbol, was, moved_to=now)
    if found.excerpt:  # a header alone: the whole symbol, whose text changed (the build shows the new one)
        now = found.excerpt
        diff = "".join(difflib.unified_diff(pinned.excerpt.text.splitlines(True), now.text.splitlines(True),
                                            f"{file}@pin lines {was[0]}-{was[1]}",
                                            f"{file}@{there.commit[:7]} lines {now.first}-{now.last}", n=2))
        return Drift(block.post, block.line, Status.CHANGED, file, symbol, was, diff=diff)
    return Drift(block.post, block.line, Status.CHANGED, file, symbol, was, why=found.problem.message.split(": ", 1)[-1],
                 diff=found.problem.detail, repair=found.repair)


@dataclass(frozen=True)
class CitationDrift:
    """What became of one citation in a post's words at the other commit: unchanged, moved (the same definition,
    or a `file:N`'s same text, at other lines) or gone (it cites nothing there, or a `file:N`'s text is not there)."""

    post: str
    line: int
    status: Status
    text: str
    was: Target
    now: Target | None = None
    why: str = ""

    def __str__(self) -> str:
        where = f"{self.post}:{self.line}: {self.status.value} `{self.text}`"
        if self.status is Status.MOVED:
            return f"{where} {self.was} -> {self.now}"
        if self.status is Status.GONE:
            return f"{where} ({self.why})"
        return f"{where} {self.was}"


def citation_drifts(cited: list[tuple[str, CodeSpan, Verdict, frozenset[str]]], pinned: PinnedTree, there: PinnedTree,
                    name: str) -> list[CitationDrift]:
    """The drift of each citation that resolves at the pin (post, span, its verdict in `pinned`, the post's own
    scripts) to the tree `there` (named `name`). A citation of the series' own scripts does not move with the
    baseline, and is left out."""
    found = []
    for post, span, verdict, own in cited:
        was = verdict.target
        if was is None or was.script:
            continue
        there_verdict = there.verdict(span.text, own)
        now = there_verdict.target
        if now is None:
            found.append(CitationDrift(post, span.line, Status.GONE, span.text, was, why=f"{there_verdict.why} at {name}"))
        elif verdict.form is Form.LINES:
            found.append(_lines_drift(post, span, was, now, _lines(pinned, was), there, name))
        else:
            status = Status.UNCHANGED if (now.path, now.first) == (was.path, was.first) else Status.MOVED
            found.append(CitationDrift(post, span.line, status, span.text, was, now))
    return found


def _lines(tree: PinnedTree, target: Target) -> list[str]:
    return (tree.text_or_none(target.path) or "").split("\n")[target.first - 1:target.last]


def _lines_drift(post: str, span: CodeSpan, was: Target, now: Target, cited: list[str], there: PinnedTree,
                 name: str) -> CitationDrift:
    """A `file:N` citation: the cited text at the same lines there, at others, or nowhere."""
    if _lines(there, now) == cited:
        return CitationDrift(post, span.line, Status.UNCHANGED, span.text, was, now)
    lines = (there.text_or_none(now.path) or "").split("\n")
    for start in range(len(lines) - len(cited) + 1):
        if lines[start:start + len(cited)] == cited:
            return CitationDrift(post, span.line, Status.MOVED, span.text, was,
                                 Target(now.path, start + 1, start + len(cited)))
    return CitationDrift(post, span.line, Status.GONE, span.text, was,
                         why=f"{now} holds other text at {name}, and the cited lines stand nowhere in {now.path}")


def summary(drifts: list[Drift], cited: list[CitationDrift] = ()) -> str:
    count = {status: sum(d.status is status for d in drifts) for status in Status}
    said = (f"drift: {count[Status.CHANGED]} changed, {count[Status.MOVED]} moved, "
            f"{count[Status.UNCHANGED]} unchanged, {count[Status.GONE]} gone")
    counted = {status: sum(c.status is status for c in cited) for status in Status}
    return said + (f"; citations: {counted[Status.MOVED]} moved, {counted[Status.UNCHANGED]} unchanged, "
                   f"{counted[Status.GONE]} gone")


def failed(drifts: list[Drift], cited: list[CitationDrift] = ()) -> bool:
    return any(d.status in (Status.CHANGED, Status.GONE) for d in drifts) or any(c.status is Status.GONE for c in cited)


def as_json(drifts: list[Drift], to: str, commit: str, outputs: list[str] = (), cited: list[CitationDrift] = ()) -> str:
    blocks = [{**asdict(replace(d, block=None)), "status": d.status.value} for d in drifts]
    for entry in blocks:
        del entry["repair"], entry["block"]
    citations = [{"post": c.post, "line": c.line, "status": c.status.value, "text": c.text, "was": str(c.was),
                  "now": str(c.now) if c.now else None, "why": c.why} for c in cited]
    return json.dumps({"to": to, "commit": commit, "blocks": blocks, "citations": citations, "outputs": list(outputs),
                       "summary": summary(drifts, cited)}, ensure_ascii=False, indent=2)


def output_changes(engine: Engine, posts: list[ParsedPost], package_tree: Path) -> tuple[list[str], bool]:
    """Run every experiment an [OUTPUT] block records with the package tree first on the path (autograd at
    the other commit), in the build's sandbox and not cached, in the build's environment and in each of the
    series' matrix (extra.series.experiments.matrix); a line per block and environment, and whether any would
    change (or an environment cannot be had)."""
    series = engine.series
    blocks = [block for post in posts for block in post.blocks if block.kind.drifts is Drifts.OUTPUT]
    lines, changed = [], False
    for environment in (None, *series.matrix.environments):
        try:
            interpreter = make(environment, series.cache_dir) if environment is not None else None
        except MatrixError as error:
            lines.append(f"{error} ({error.hint})")
            changed = True
            continue
        there = f" in {label(interpreter)}" if interpreter is not None else ""
        runner = ExperimentRunner(series.root, series.cache_dir, series.experiment_timeout, series.output_cap,
                                  use_cache=False, python_path=package_tree, limits=series.limits,
                                  budgets=series.budgets, interpreter=interpreter)
        try:
            for script in dict.fromkeys(block.fields["File"] for block in blocks):
                runner.start(script)
            for block in blocks:
                said, differs = _output_change(block, runner.result(block.fields["File"]), series.experiment_timeout)
                lines.append(f"{block.post}:{block.line}: output of {block.fields['File']}{there} {said}")
                changed = changed or differs
        finally:
            runner.finish()
    return lines, changed


def _output_change(block: Block, run, timeout: float) -> tuple[str, bool]:
    """What a block's run there says of its recorded output, and whether it would change."""
    if not run.ok:
        return f"would fail: {run_failure(run, timeout)}", True
    if block.quote is None or outputs_match(block.quote, run.stdout, block.tolerance):
        return "unchanged", False
    diff = difflib.unified_diff(block.quote.splitlines(), run.stdout.splitlines(), "recorded", "printed there", n=1,
                                lineterm="")
    return "would change\n" + "\n".join(diff), True


@dataclass(frozen=True)
class Release:
    """A release the baseline moves to: its version, the pip pin of its sdist, the archive's SHA-256 and files."""

    version: str
    pin: str
    sha256: str
    files: dict[str, bytes]


def release_differs(release: Release, read: Callable[[str], bytes | None]) -> str | None:
    """The first file the release archive holds otherwise than the commit (`read` gives the commit's bytes,
    None for a file it lacks), or None: the offline build may then read the commit's files from the archive."""
    for path, data in sorted(release.files.items()):
        there = read(path)
        if there is not None and there != data:
            return path
    return None


class RebaseRefused(CodeproofError):
    """The baseline cannot be moved whole: nothing was written."""


def rebase(engine: Engine, posts: list[ParsedPost], commit: str, release: Release, config_file: Path,
           cited: list[CitationDrift] = (), cited_files: set[str] = frozenset()) -> list[str]:
    """Move the series to the release at `commit`: the baseline in mkdocs.yml, autograd's pin in
    requirements.txt, the lock's entries for the quoted and cited files (`cited_files`, at `commit`), and the
    changed quotes rewritten from there as `update` would (moved quotes need nothing: their numbers come from the
    file). Everything that may fail is done before anything is written. Returns what was done, each change as a
    diff; a gone quote is left to the author, and so is every citation in the words (`cited`: each is listed).
    RebaseRefused when it cannot be done whole."""
    series, git = engine.series, engine.store.git
    if commit == series.baseline.commit:
        return [f"the baseline is {commit[:7]} already: nothing to do"]
    drifts = drifts_to(engine, posts, commit, git.fetch)
    unverified = [d for d in drifts if d.lines is None]
    if unverified:
        raise RebaseRefused(f"{unverified[0].post}:{unverified[0].line}: does not verify at the pin, so there is "
                            "nothing to move from", "run ./dev.sh check and mend the posts first")
    entries = {path: git_blob_sha1(git.fetch(FileRef(series.baseline.repo, commit, path)))  # git checked them
               for path in sorted({d.file for d in drifts if d.status is not Status.GONE} | set(cited_files))}
    config_text = config_file.read_bytes().decode("utf-8")  # edited as it is: each line keeps its own break
    try:
        new_config = with_values(config_text, ("extra", "series", "baseline"), {
            "commit": commit, "version": release.version, "sdist": release.pin, "sdist_sha256": release.sha256})
    except ValueError as error:
        raise RebaseRefused(f"{config_file.name}: {error}", "write extra.series.baseline as one `key: value` "
                            "per line, then run rebase again") from None
    requirements = series.root / "requirements.txt"
    pins, pins_newline = read_text(requirements) if requirements.is_file() else ("", "\n")
    package = release.pin.partition("==")[0]
    new_pins = re.sub(rf"(?m)^{re.escape(package)}==\S+$", release.pin, pins)

    said, changes = [], {}  # what is said, and every file's new bytes: written together, all or none
    by_post = {post.post: post for post in posts}
    for name, post_drifts in _by_post(drifts).items():
        repairs = [Checked(d.block, repair=d.repair) for d in post_drifts if d.status is Status.CHANGED and d.repair]
        if repairs:
            changes[series.root / name], diff = rewritten_post(series.root / name, by_post[name], repairs)
            said.append(diff.rstrip("\n"))
    changes[config_file] = new_config.encode("utf-8")
    said.append("".join(difflib.unified_diff(config_text.splitlines(True), new_config.splitlines(True),
                                             config_file.name, config_file.name)).rstrip("\n"))
    if new_pins != pins:
        changes[requirements] = new_pins.replace("\n", pins_newline).encode("utf-8")
        said.append(f"requirements.txt: {release.pin} (run ./dev.sh lock-requirements to lock it with its hashes)")
    lock = engine.store.lock
    for path, blob in entries.items():
        lock.record(FileRef(series.baseline.repo, commit, path), blob)
        said.append(f"locked {series.baseline.repo}@{commit[:7]}:{path} = {blob} (from git)")
    if series.baseline.commit not in {b.fields.get("Commit") for post in posts for b in post.blocks}:
        lock.entries.get(series.baseline.repo, {}).pop(series.baseline.commit, None)  # no block quotes it now
    changes[lock.path] = lock.data()
    try:
        write_together(series.root, changes)
    except OSError as error:
        if journal_file(series.root).exists():  # past the point of no return: the next command finishes it
            raise RebaseRefused(f"cannot write {error.filename or 'a file'}: {error.strerror}; the change is recorded "
                                f"in {journal_file(series.root)}", "make the files writable: the next ./dev.sh command finishes it") from None
        raise RebaseRefused(f"cannot write {error.filename or 'a file'}: {error.strerror}; nothing was changed",
                            "make the files writable, then run rebase again") from None
    said += [f"rewrite by hand: {d}" for d in drifts if d.status is Status.GONE or (
        d.status is Status.CHANGED and d.block.quote is not None and not d.repair)]  # a header alone shows the new symbol
    said += [f"the words, by hand: {c}" for c in cited if c.status is not Status.UNCHANGED]  # never rewritten
    said.append(summary(drifts, cited))
    return said


def _by_post(drifts: list[Drift]) -> dict[str, list[Drift]]:
    grouped: dict[str, list[Drift]] = {}
    for drift in drifts:
        grouped.setdefault(drift.post, []).append(drift)
    return grouped
