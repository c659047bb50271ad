"""The engine: verify each block of a post against its evidence, and render what was verified.

Used alike by the MkDocs hook and by the command line (`python -m codeproof`).
"""

from __future__ import annotations

import hashlib
import html
import itertools
import re
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

from codeproof.site import addresses, graphs, records, render
from codeproof.common.markers import STAMP_WORDS, UNSHOWN_RE, first_unshown, marker_kind, passes_for_a_card
from codeproof.experiments.compare import Reconciled, normalize, output_diff, reconcile
from codeproof.series.config import Series, in_ci
from codeproof.experiments.figures import FOLDER_FAULT, CleanFigure, clean_svg
from codeproof.experiments.runner import ExperimentRunner
from codeproof.experiments.sandbox import FIGURES_ENV, SANDBOX_HINT
from codeproof.experiments.tracing import read_graph
from codeproof.common.kinds.figure import traced_call
from codeproof.common.signing import read_signed, secret_or_none, write_signed
from codeproof.quotes.citations import (SHOWN_PLACES, Form, PinnedTree, Verdict, definitions_from_json,
                                        definitions_of, definitions_to_json, files_key)
from codeproof.quotes.lock import SourceError
from codeproof.quotes.sources import SourceStore, default_store
from codeproof.common.filesystem import write_atomically
from codeproof.common.inlinecode import InlineCode
from codeproof.series.spans import CodeSpan, code_spans
from codeproof.common.structure import Block, Checked, Excerpt, FileRef, ParsedPost, Problem, RunResult, Tolerance, number_text
from codeproof.quotes.symbols import UNMATCHED
from codeproof.quotes.verify import DIFFERS, verify_script_quote, verify_source_quote


@dataclass
class ProvedPage:
    markdown: str  # each block replaced by its card, or by an error box where it failed
    cards: int = 0  # blocks verified and rendered as cards: the page must show exactly these
    accounted: set[int] = field(default_factory=set)  # file lines of verified blocks and of reported problems
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # script -> what it printed, where an [OUTPUT] verified it
    quoted: list[tuple[FileRef, Excerpt]] = field(default_factory=list)  # each verified REAL SOURCE card, in order
    tried: list[tuple[str, Excerpt]] = field(default_factory=list)  # each verified EXPERIMENT card (script), in order
    # Each verified [OUTPUT] and [FIGURE], in order: the record of its run (which its stamp links to), its kind's
    # name, its line, and the numbers its run printed otherwise than it records, within its tolerance.
    stamped: list[tuple[records.RunRecord, str, int, tuple]] = field(default_factory=list)


class Engine:
    """Verifies each block of a post and renders what was verified, each as its kind (codeproof.common.kinds) says:
    the engine is the Proofs a kind checks its blocks with (ref_of, quote_upstream, script_text, quote_script, run,
    compare_output, draw_figure, printed), and gives it the Page it renders into."""

    def __init__(
        self, series: Series, store: SourceStore | None = None, runner: ExperimentRunner | None = None,
        use_cache: bool = True,
    ):
        self.series = series
        self.seal = render.new_seal()  # marks what this build's engine rendered (see guard)
        self.store = store or default_store(series)
        self.runner = runner or ExperimentRunner(
            series.root, series.cache_dir, series.experiment_timeout, series.output_cap, use_cache,
            limits=series.limits, budgets=series.budgets,
        )

    def pinned_tree(self, package: dict[str, bytes], scripts: dict[str, str], read: Callable[[str], str] | None = None,
                    paths: list[str] | None = None) -> PinnedTree:
        """What the posts' citations resolve in: every file at the pin (`paths`, by default the store's; `read(path)`
        gives a file's text, proven: by default from the store, so against the lock), the package's own source
        among `package` (the files of its source pages, less those too long to cross-reference: tests/ and
        examples/ name nothing a bare name means), and the series' scripts. Drift gives another commit's paths and
        files."""
        baseline = self.series.baseline
        read = read or (lambda path: self.store.read(FileRef(baseline.repo, baseline.commit, path)))
        own = {path: data.decode("utf-8", "replace") for path, data in package.items()  # as jedi, no file too long
               if path.endswith(".py") and path.split("/", 1)[0] not in NOT_THE_PACKAGE  # to parse whole
               and data.count(b"\n") <= self.series.source_page_max_lines}
        if paths is None:
            try:
                paths = self.store.paths(baseline.repo, baseline.commit)
            except SourceError:  # a damaged archive: the source pages say so, and the citations cannot be resolved
                paths = None
        return PinnedTree(paths, read, own, scripts, self._definitions(own))

    def _definitions(self, package: dict[str, str]) -> dict:
        """The package's definitions, kept signed under the cache by the files they are made of (a new process
        reads them in milliseconds instead of parsing the package); CI reads no cache."""
        kept = self.series.cache_dir / "citations" / f"definitions-{files_key(package)}.json"
        secret = secret_or_none()
        data = None if in_ci() else read_signed(kept, secret)
        if data is not None:
            try:
                return definitions_from_json(data)
            except ValueError:
                pass  # a damaged cache is worked out again
        definitions = definitions_of(package)
        try:
            write_signed(kept, secret, definitions_to_json(definitions))
        except OSError:  # a cache that cannot be written is no cache
            pass
        return definitions

    def citations(self, parsed: ParsedPost, codes: list[InlineCode], tree: PinnedTree
                  ) -> list[tuple[CodeSpan, Verdict, Problem | None]]:
        """Each inline code element of the post's rendered words (`codes`, in order) as a span at its line, with
        what it cites and its problem, if any: an explicit citation that resolves nowhere, or one that resolves in a
        file the lock does not record (CI proves every cited file)."""
        own, baseline, found = own_scripts(parsed), self.series.baseline, []
        for span in code_spans(parsed, codes):
            verdict = BY_CHOICE if span.plain else HIGHLIGHTED if not span.bare else tree.verdict(span.text, own)
            target, problem, said = verdict.target, None, _shown(span.text)  # the author's text, as a terminal shows it
            if verdict.failed:
                problem = Problem(parsed.post, span.line, f"`{said}` cites nothing at the pin: {_shown(verdict.why)}",
                                  hint="; ".join(filter(None, [_shown(verdict.hint), "or, if it is not a citation, "
                                                               f"write `{said}`{{.plain}}"])))
            elif target and not target.script and \
                    self.store.lock.expected(FileRef(baseline.repo, baseline.commit, target.path)) is None:
                problem = Problem(parsed.post, span.line,
                                  f"`{said}` cites {target.path}, which {self.series.lock_file.name} does not record",
                                  hint="run `./dev.sh lock` to record it, and commit the lock: CI proves every cited "
                                       "file against it")
            elif target and not target.script and (error := tree.unproven(target.path)):  # as a quoted file is
                problem = Problem(parsed.post, span.line, f"`{said}` cites {target.path}: {error}", hint=error.hint)
            found.append((span, verdict, problem))
        return found

    def ref_of(self, block: Block) -> FileRef:
        return self.series.baseline.ref_of(block)

    def start_experiments(self, posts: Iterable[ParsedPost]) -> None:
        """Start every experiment the posts' [OUTPUT] and [FIGURE] blocks need, before any page renders: each
        script once, with every graph the posts ask it to trace."""
        if self._version_problem() is None:
            calls: dict[str, list[str]] = {}
            for block in (b for post in posts for b in post.blocks if b.kind.runs):
                wanted = calls.setdefault(block.fields["File"], [])
                if "Graph" in block.fields:
                    wanted.append(traced_call(block.fields))
            for script, wanted in calls.items():
                if self._script(script)[0] is not None:
                    self.runner.start(script, tuple(wanted))

    def prove_page(self, parsed: ParsedPost, link: Callable[[str], str], sources: dict[str, bytes] | None = None,
                   checked_before: Mapping[int, Checked] | None = None,
                   elsewhere: Mapping[tuple[str, int], tuple[str, ...]] | None = None) -> ProvedPage:
        """The post's Markdown with every block verified and rendered; failures shown in place. `sources` are the
        package's files the site publishes as source pages (path -> bytes): what a traced graph's nodes link to.
        `checked_before`: blocks of this post this engine has checked already (by their id), each taken as it is rather
        than checked (and its figure drawn) again. `elsewhere`: each [OUTPUT] and [FIGURE] (by its post and line)
        -> the environments of the series' matrix that gave the same in this build, as its stamp names them."""
        checked_before = checked_before or {}
        lines = list(parsed.lines)
        proved = ProvedPage("", problems=list(parsed.problems), accounted={p.line for p in parsed.problems})
        replacements = []  # (start, end, markdown), applied bottom-up so indexes stay valid
        boxes: dict[int, list[Problem]] = {}  # each problem shown below the line it is about
        for problem in parsed.problems:
            boxes.setdefault(min(max(problem.line - parsed.first_line, 0), len(lines) - 1), []).append(problem)
        for index, problems in boxes.items():
            # A line that announces a block is replaced by its box: shown as text, it would be published unverified.
            kept = [] if marker_kind(lines[index]) else lines[index:index + 1]
            replacements.append((index, index + 1, "\n".join(kept + [render.problem_box(p, self.seal) for p in problems])))
        for checked in (checked_before.get(id(block)) or self.check(block) for block in parsed.blocks):
            proved.problems += [checked.problem] if checked.problem else []
            proved.warnings += [checked.warning] if checked.warning else []
            shown = render.problem_box(checked.problem, self.seal) if checked.problem \
                else self.render(checked, link, sources, elsewhere)
            proved.cards += checked.problem is None
            proved.accounted.add(checked.block.line)
            if checked.problem is None:
                checked.block.kind.add_to(proved, checked, self)
                if checked.block.kind.runs:
                    proved.stamped.append((records.run_record(checked.run), checked.block.kind.name,
                                           checked.block.line, records.numbers_within(checked.block, checked.run)))
            replacements.append((checked.block.start, checked.block.end, shown))
        for start, end, text in sorted(replacements, reverse=True):
            lines[start:end] = [text]
        proved.markdown = "\n".join(lines)
        return proved

    def check(self, block: Block) -> Checked:
        """The block against its evidence, as its kind checks it: the engine is its Proofs
        (codeproof.common.kinds.proofs)."""
        return block.kind.check(block, self)

    def render(self, checked: Checked, link: Callable[[str], str], sources: dict[str, bytes] | None = None,
               elsewhere: Mapping[tuple[str, int], tuple[str, ...]] | None = None) -> str:
        """Markdown for a verified block, as its kind renders it; `link` turns a site URL into one relative to the
        page; `sources` and `elsewhere` as for prove_page."""
        return checked.block.kind.render(checked, _Page(self, link, sources or {}, elsewhere or {}))

    def script_text(self, block: Block) -> str | Checked:
        text, why, hint = self._script(block.fields["File"])
        return self._problem(block, why, hint) if text is None else text

    @staticmethod
    def quote_script(block: Block, text: str) -> Checked:
        return verify_script_quote(block, text)

    @staticmethod
    def printed(run: RunResult) -> str:
        return "\n".join(normalize(run.stdout))

    def _script(self, name: str) -> tuple[str | None, str, str]:
        """(text, "", "") of a script a block names, as the build publishes and runs it; or (None, why, hint)."""
        files, refused = self.runner.resources()
        if name in refused:
            return None, f"{name}: {refused[name].message}", refused[name].hint
        if name not in files:
            what = "is a directory" if (self.series.root / name).is_dir() else "does not exist"
            return None, f"{name} {what}", "create it, or fix the File line"
        return files[name].decode("utf-8"), "", ""  # read_resources refuses scripts that are not UTF-8

    def quote_upstream(self, block: Block) -> Checked:
        ref = self.ref_of(block)
        try:
            text = self.store.read(ref)
        except SourceError as error:
            return self._problem(block, f"REAL SOURCE: {error}", error.hint)
        checked = verify_source_quote(block, ref, text)
        if checked.problem and DIFFERS in checked.problem.message:  # a quote unlike the pin: copied from elsewhere?
            checked = replace(checked, problem=replace(checked.problem, hint=self._copied_from(block, ref, checked)))
        if checked.problem and checked.problem.hint == UNMATCHED:  # nothing like it in the file: in another one?
            checked = replace(checked, problem=replace(checked.problem, hint=self._defined_elsewhere(block, ref)))
        return checked

    def _defined_elsewhere(self, block: Block, ref: FileRef) -> str:
        """The hint for a Symbol that nothing in its file is close to: the package's other files that define its
        name (`metadata` is in numpy_wrapper.py, not numpy_vjps.py), else to check the line against the file."""
        name = block.fields["Symbol"].split(" and ")[0].split(",")[0].strip()
        try:
            files = self.store.tree(ref.repo, ref.commit, ref.path.split("/")[0]) if "(" not in name else {}
        except SourceError:
            files = {}
        texts = {path: data.decode("utf-8", "replace") for path, data in files.items()
                 if path.endswith(".py") and path != ref.path}
        places = definitions_of(texts).get(name, []) if texts else []
        if not places:
            return UNMATCHED
        shown = ", ".join(f"{place.path} (line {place.line})" for place in places[:SHOWN_PLACES])
        return f"{name} is defined in {shown}: write `File: {places[0].path}`"

    def _copied_from(self, block: Block, ref: FileRef, checked: Checked) -> str:
        """The hint for a quote that differs from the pin: the version of the file it matches, where one at hand
        does (a quote copied from GitHub's default branch), else that it may be another version."""
        quote = "\n" + block.quote + "\n"
        versions = self.store.versions_at_hand(ref)
        matched = [name for name, text in versions if quote in "\n" + text.replace("\r\n", "\n") + "\n"]
        pin = f"the pin ({ref.commit[:7]}, {self.series.baseline.version})"
        if matched:
            return (f"the quote matches {ref.path} at {matched[0]}, not at {pin}: it was copied from another version. "
                    "Copy it from the pinned file (its source page, or the installed package), or run `./dev.sh update`")
        return f"{checked.problem.hint} (a quote copied from GitHub's default branch may be another version than {pin})"

    def run(self, block: Block) -> RunResult | Checked:
        """The run of the block's script, or the Checked problem that there is no such script, or that its run failed
        (or cannot run at all)."""
        text = self.script_text(block)
        if isinstance(text, Checked):
            return text
        script, kind = block.fields["File"], block.kind
        version = self._version_problem()
        if version:
            return self._problem(block, f"{kind} {script}: {version}",
                                 "requirements.txt must pin the baseline's autograd (then ./dev.sh installs it), and "
                                 "extra.series.baseline.version in mkdocs.yml must name the release the posts quote")
        run = self.runner.result(script)
        failure = run_failure(run, self.series.experiment_timeout)
        if failure:
            hint = SANDBOX_HINT if run.not_run else (
                f"run it by hand from the repository's root, `.venv/bin/python -B {script}`, and fix it"
                + (f"; or, if it needs longer, raise extra.series.experiments.timeout in mkdocs.yml (now "
                   f"{self.series.experiment_timeout:g} s)" if run.timed_out else ""))
            # Said without the block's kind: every block of a failed script has the same problem, which the report
            # says once, at the first, with the others as `also at`.
            return self._problem(block, f"{script}: {failure}", hint, run)
        return run

    def draw_figure(self, block: Block, run: RunResult) -> Checked:
        """A figure the run drew: the SVG the script wrote, as an image, or the graph autograd traced; the same as
        the record, where the post keeps one (Digest: the SHA-256 of what the run produced)."""
        drawn = self._traced(block, run) if "Graph" in block.fields else self._written(block, run)
        if isinstance(drawn, Checked):
            return drawn
        produced, figure = drawn
        script = block.fields["File"]
        digest = "sha256:" + hashlib.sha256(produced.encode("utf-8")).hexdigest()
        if block.fields.get("Digest", digest) != digest:
            return Checked(block, problem=Problem(
                block.post, block.line, f"FIGURE {script}: the run drew another figure than the one recorded: "
                                        f"Digest {block.fields['Digest']}, drawn {digest}",
                hint=f"if the new figure is right, run `./dev.sh update` to record it (`Digest: {digest}`)"),
                repair=digest, run=run)
        return Checked(block, run=run, figure=figure, digest=digest)

    def _traced(self, block: Block, run: RunResult) -> tuple[str, graphs.LaidOut] | Checked:
        """(what the run produced, what the card draws) of a Graph: the trace's record, and the graph it holds laid
        out (within the budget draw_seconds)."""
        script, call = block.fields["File"], traced_call(block.fields)
        produced = run.traces.get(call)
        graph = read_graph(produced, self.series.budgets) if produced is not None \
            else "the run traced nothing (it did not reach its end)"
        if isinstance(graph, str):
            return self._problem(block, f"FIGURE {script}: cannot trace {call}: {_shown(graph)[:MAX_REASON]}",
                                 "the call runs after the script, with its globals: name a function it defines "
                                 "and an input autograd can trace", run, line=block.line_of("Graph"))
        layout = _LAYOUTS.get((produced, call))
        if layout is None:
            try:
                layout = graphs.lay_out(graph, call, time.monotonic() + self.series.budgets.draw_seconds)
            except graphs.PastDeadline:
                return self._problem(block, f"FIGURE {script}: laying out the graph of {call} took longer than "
                                            f"{self.series.budgets.phrase('draw_seconds')}",
                                     "trace a smaller computation (fewer operations), or raise the budget", run,
                                     line=block.line_of("Graph"))
            if len(_LAYOUTS) >= KEPT_LAYOUTS:
                _LAYOUTS.clear()
            _LAYOUTS[(produced, call)] = layout
        return produced, graphs.LaidOut(graph, layout)

    def _written(self, block: Block, run: RunResult) -> tuple[str, CleanFigure] | Checked:
        """(what the run produced, what the card keeps) of a Figure: the SVG the script wrote, and that SVG cleaned."""
        script, name = block.fields["File"], block.fields["Figure"]
        if name not in run.figures:
            wrote = _shown(", ".join(sorted({*run.figures, *run.figure_faults}))) or "nothing"  # names are the script's
            why = run.figure_faults.get(FOLDER_FAULT) or (f"{name} {run.figure_faults[name]}" if name in run.figure_faults
                                                          else f"it did not write {name}")
            return self._problem(block, f"FIGURE {script}: {why} (its figure folder holds {wrote})",
                                 f"write the figure to os.path.join(os.environ['{FIGURES_ENV}'], '{name}'): "
                                 "the build gives each run that folder", run)
        clean = clean_svg(run.figures[name], self.series.budgets)
        if clean.problems:
            return Checked(block, problem=Problem(
                block.post, block.line, f"FIGURE {script}: {name} cannot be shown as it is",
                detail="".join(f"  {_shown(problem)}\n" for problem in clean.problems[:MAX_SAID])
                + (f"  and {len(clean.problems) - MAX_SAID} more\n" if len(clean.problems) > MAX_SAID else ""),
                hint="draw with drawing elements only (matplotlib's savefig writes nothing else); embed pictures as "
                     "PNG or JPEG"), run=run)
        return run.figures[name], clean

    def drawing(self, checked: Checked, link: Callable[[str], str], sources: dict[str, bytes]) -> str:
        """A verified figure as its card shows it: the SVG the script wrote, as an image of its own size (so that
        nothing moves as it loads), or the traced graph drawn inline with its nodes linked to the published files
        (the scripts, and the package's `sources`)."""
        block = checked.block
        if isinstance(checked.figure, CleanFigure):
            image = checked.figure
            return (f'<img class="proof-figure__image" src="{image.src}" alt="{html.escape(block.fields["Alt"])}" '
                    f'width="{image.width}" height="{image.height}" decoding="async">')
        published = {**sources, **self.runner.resources()[0]}

        def read(path: str) -> str | None:
            return published[path].decode("utf-8", "replace") if path in published else None

        def address(found: graphs.Registration) -> str | None:
            page = addresses.script_page_url(found.path) if found.path.startswith("experiments/") else \
                addresses.source_page_url(found.path)
            return link(page) + f"#L{found.first}-L{found.last}" if found.path in published else None

        return graphs.draw(checked.figure, block.fields["Alt"], self._prefix(block), address, read)

    @staticmethod
    def _prefix(block: Block) -> str:
        """What starts each id of a figure: two figures on a page never share one, nor one the page has."""
        return "fig" + hashlib.sha256(f"{block.post}:{block.line}".encode()).hexdigest()[:8] + "-"

    def compare_output(self, block: Block, run: RunResult) -> Checked:
        script = block.fields["File"]
        if block.quote is None:
            actual = "\n".join(normalize(run.stdout))
            warning = Problem(block.post, block.line, f"OUTPUT {script}: no output is recorded; the build inserted what it printed",
                              detail=actual, hint="run `./dev.sh update` to record it in the post")
            return Checked(block, excerpt=_whole(actual), warning=warning, repair=actual, run=run)
        reconciled, recorded = reconcile(block.quote, run.stdout, block.tolerance), normalize(block.quote)
        if reconciled.lines == recorded:
            # The card shows the recorded text: the author's numbers, which agree with the run within the
            # tolerance (the stamp says so); without one, it is exactly what the run printed.
            return Checked(block, excerpt=_whole("\n".join(recorded)), run=run, repair="\n".join(recorded))
        return Checked(block, problem=self._mismatch(block, reconciled), repair="\n".join(reconciled.lines), run=run)

    def _mismatch(self, block: Block, reconciled: Reconciled) -> Problem:
        """The output differs: each number out of tolerance at its post line, then the diff."""
        script, tolerance = block.fields["File"], block.tolerance
        recorded = normalize(block.quote)
        first = next(n for n, (want, got) in enumerate(itertools.zip_longest(recorded, reconciled.lines)) if want != got)
        at = block.quote_line(min(first, max(len(recorded) - 1, 0)))  # a line printed past the end: the last one
        message = f"OUTPUT {script}: output differs from the recorded output (first difference at {block.post}:{at})"
        numbers = []
        for number in reconciled.out:
            differences = f"relative difference {number_text(number.relative, 2)}"
            if tolerance.abs:
                differences += f", absolute difference {number_text(number.absolute, 2)}"
            numbers.append(f"{block.post}:{block.quote_line(number.line)}: recorded {number.recorded}, "
                           f"printed {number.printed}: {differences}, tolerance {tolerance}\n")
        if numbers:
            count = len(numbers)
            message += f"; {count} {'number is' if count == 1 else 'numbers are'} out of tolerance"
        kept = " (numbers within tolerance keep their recorded text)" if tolerance else ""
        hint = f"run `./dev.sh update` to record the new output{kept}, or fix the experiment"
        detail = "".join(numbers) + output_diff(block.quote, reconciled, script, tolerance)
        return Problem(block.post, block.line, message, hint=hint, detail=self._within_budget(detail, block))

    def _within_budget(self, detail: str, block: Block) -> str:
        """A problem's detail as the log shows it: past the budget's lines, its start, and the whole of it in a
        file (in the repository's cache) that the log names, so a long mismatch neither floods the log nor is lost."""
        budget = self.series.budgets.diff_lines
        lines = detail.splitlines(keepends=True)
        if len(lines) <= budget:
            return detail
        whole = self.series.cache_dir / "reports" / f"{block.post.replace('/', '__')}-{block.line}.diff"
        try:
            whole.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(whole, detail.encode("utf-8", "surrogateescape"))
            where = f"the whole of it is in {whole}"
        except OSError as error:
            where = f"the whole of it could not be written to {whole}: {error.strerror}"
        return "".join(lines[:budget]) + (f"… and {len(lines) - budget} more lines, past "
                                           f"{self.series.budgets.phrase('diff_lines')}: {where}\n")

    def _version_problem(self) -> str | None:
        installed, pinned = self.runner.versions["autograd"], self.series.baseline.version
        if installed != pinned:
            return f"installed autograd is {installed}, the series baseline is {pinned}: experiments would not run the quoted code"
        return None

    @staticmethod
    def _problem(block: Block, message: str, hint: str, run: RunResult | None = None, line: int | None = None
                 ) -> Checked:
        """A problem of the block, at its marker's line, or at the `line` of the field it is about."""
        return Checked(block, problem=Problem(block.post, line or block.line, message, hint=hint), run=run)


@dataclass(frozen=True)
class _Page:
    """The page a block is rendered into, as a kind renders it (codeproof.common.kinds.proofs.Page)."""

    engine: Engine
    link: Callable[[str], str]  # a site URL -> one relative to the page
    sources: dict[str, bytes]  # the package's files the site publishes as source pages (see Engine.prove_page)
    elsewhere: Mapping[tuple[str, int], tuple[str, ...]]  # where else each run's block held (see Engine.prove_page)
    cards = render

    @property
    def seal(self) -> str:
        return self.engine.seal

    def ref_of(self, block: Block) -> FileRef:
        return self.engine.ref_of(block)

    def onsite(self, ref: FileRef, excerpt: Excerpt) -> str | None:
        series = self.engine.series
        if not (series.source_pages and series.baseline.holds(ref)):
            return None
        return self.link(addresses.source_page_url(ref.path)) + f"#L{excerpt.first}-L{excerpt.last}"

    def script_page(self, script: str) -> str:
        return self.link(addresses.script_page_url(script))

    def stamp(self, block: Block, run: RunResult) -> str:
        return stamp(run, block.tolerance, self.elsewhere.get((block.post, block.line), ()))

    def record(self, run: RunResult) -> str:
        """Where the record of the run is: its section of the script's page."""
        return self.link(addresses.script_page_url(run.script)) + "#" + records.run_record(run).anchor

    def figure(self, checked: Checked) -> str:
        return self.engine.drawing(checked, self.link, self.sources)


BY_CHOICE = Verdict(Form.NONE, why="text by the author's choice ({.plain})")
HIGHLIGHTED = Verdict(Form.NONE, why="highlighted code, not a citation")
NOT_THE_PACKAGE = ("tests", "examples")  # top folders of the pin whose names a bare citation never means


def own_scripts(parsed: ParsedPost) -> frozenset[str]:
    """The experiments a post's blocks name: the names they define are the post's own."""
    return frozenset(b.fields["File"] for b in parsed.blocks if b.kind.script and "File" in b.fields)


MAX_SAID = 8  # of a figure's problems; the rest are counted
MAX_REASON = 300  # characters of why a graph was not traced (the error is the script's, of any length)


# A graph's layout (frozen), by the trace it lays out and the call: each rebuild of `serve` draws the same graph, and
# laying it out is a fifth of a second of it.
_LAYOUTS: dict[tuple[str, str], graphs.Layout] = {}
KEPT_LAYOUTS = 64


def run_failure(run: RunResult, timeout: float) -> str | None:
    if run.not_run:
        return run.not_run
    if run.out_of_memory:
        return (f"held more memory than {run.out_of_memory}: the kernel ended one of its processes "
                "(memory no file holds counts too: shared memory, memfd, pipes and sockets, every process)")
    if run.over_budget:
        return f"left in its folder {run.over_budget}"
    if run.timed_out:
        last = _shown("\n".join((run.stdout + run.stderr).rstrip("\n").splitlines()[-TAIL_LINES:]))
        return f"timed out after {timeout:g} s; the run was killed" + (f"; its last output:\n{last}" if last else "")
    if run.overflow:
        return "printed more than the output cap; the run was killed"
    if run.returncode != 0:
        limit = f": it passed {run.limit}" if run.limit else ""
        return f"exited with status {run.returncode}{limit}\n{_shown(error_report(run.stderr))}"
    if run.undecodable:  # never replaced silently: what is published must be what it printed
        return f"printed output that is not UTF-8 ({run.undecodable}); only UTF-8 text is published"
    if first_unshown(run.stdout):  # a card would show other text than it printed, or a terminal run it
        return (f"printed {first_unshown(run.stdout)}, a control character that a card would not show as printed; "
                "print such characters escaped (repr or ascii())")
    shown = passes_for_a_card(run.stdout.split("\n"))
    if shown:  # what it printed is quoted outside a card too: on its page, in the matrix's differences
        return (f"printed {shown[1]} on line {shown[0] + 1} of its output, which the script's page shows outside any "
                "card, where it would pass for a verified card; print it otherwise")
    return None


TAIL_LINES = 12  # of a failed run's error report, or of a timed-out run's output
FRAME_RE = re.compile(r'^  File "(?P<path>[^"]*)", line \d+')
CARETS_RE = re.compile(r"^\s*[\^~]+\s*$")  # the markers under a frame's line: where, not what


def error_report(stderr: str) -> str:
    """What a failed run's standard error shows an author, in at most TAIL_LINES lines: a traceback's frames in the
    script's own files (experiments/, named as in the repository) first, then the innermost frames and the error;
    other output, its last lines."""
    lines = stderr.strip().splitlines()
    start = max((n for n, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")),
                default=None)
    if start is None:
        return "\n".join(lines[-TAIL_LINES:])
    frames, n = [], start + 1  # each frame: its File line and the lines below it, up to the next frame
    while n < len(lines) and lines[n].startswith("  "):
        end = n + 1
        while end < len(lines) and lines[end].startswith("    "):
            end += 1
        frames.append([_repository_path(line) for line in lines[n:end] if not CARETS_RE.match(line)])
        n = end
    error = lines[n:]
    own = [f for f in frames if "experiments/" in FRAME_RE.match(f[0])["path"]] if frames and FRAME_RE.match(frames[0][0]) else []
    room = TAIL_LINES - 1 - len(error)
    shown = [line for f in own for line in f][:max(room, 0)]
    innermost = []  # whole frames, from the innermost out, while they fit
    for frame in reversed([f for f in frames if f not in own]):
        if len(shown) + 1 + len(innermost) + len(frame) > room:
            break
        innermost[:0] = frame
    if innermost:
        shown += ["  (then, innermost:)", *innermost]
    return "\n".join([lines[start], *shown, *error])


def _repository_path(line: str) -> str:
    """A frame's file as the repository names it (experiments/x.py), not by the run's scratch copy."""
    return re.sub(r'"[^"]*/codeproof-run[^/"]*/work/resources/', '"', line)


def _shown(text: str) -> str:
    return UNSHOWN_RE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def stamp(run: RunResult, tolerance: Tolerance | None, elsewhere: tuple[str, ...] = ()) -> str:
    """What verified a run's output or drawing; `elsewhere`: the other environments where the same came out."""
    v = run.versions
    when = f"缓存，验证于 {run.verified_on}" if run.cached else f"验证于 {run.verified_on}"
    also = f" · 另在 {'、'.join(elsewhere)} 上一致" if elsewhere else ""
    return (f"✓ {STAMP_WORDS}{agreement(tolerance)} · Python {v['python']} · numpy {v['numpy']} · autograd {v['autograd']}"
            f" · 运行 {run.seconds:.2f} s · {when}{also}")


def agreement(tolerance: Tolerance | None) -> str:
    """What the stamp adds under a tolerance: the card shows the recorded output, which agrees with the run
    only to within it."""
    if tolerance is None:
        return ""
    rel, absolute = number_text(tolerance.rel), number_text(tolerance.abs)
    if tolerance.rel and tolerance.abs:
        return f" · 与运行结果在相对误差 {rel}、绝对误差 {absolute} 内一致"
    return f" · 与运行结果在 {rel} 相对误差内一致" if tolerance.rel else f" · 与运行结果在 {absolute} 绝对误差内一致"


def _whole(output: str) -> Excerpt:
    return Excerpt(1, output.count("\n") + 1, output)
