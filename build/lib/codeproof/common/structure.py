"""The plain values every part of the engine passes along: what a post holds and what checking it finds. (The
series model lives in series.model, the cross-reference index in site.xref: each with the part that owns it.)

Parse into these, verify, then render: every module passes them along and none of them does anything
but describe. Modules name a block's kind with its Kind (codeproof.common.kinds.registry.BlockKind), never with
its header's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

from codeproof.common.kinds.base import Kind

# --- problems --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """Something wrong at a line of a file; collected over a whole build and reported together."""

    post: str  # the post's path, e.g. docs/posts/x.md (or another file the problem is about)
    line: int
    message: str
    detail: str = ""  # e.g. a unified diff
    hint: str = ""  # what to do about it

    def __str__(self) -> str:
        text = f"{self.post}:{self.line}: {self.message}"
        if self.detail:
            text += "\n" + self.detail.rstrip("\n")
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


ALSO_NAMED = 10  # places named for a problem found at many; the rest are counted


def report(problems: list[Problem]) -> str:
    """All problems of a build, in file and line order, ready to print. One problem found at several places
    (every quote of a file that is not in the lock) is said once, at the first, naming the others."""
    places: dict[tuple[str, str, str], list[Problem]] = {}
    for problem in sorted(set(problems), key=lambda p: (p.post, p.line, p.message)):
        places.setdefault((problem.message, problem.detail, problem.hint), []).append(problem)
    said = []
    for first, *others in places.values():
        also = ", ".join(f"{p.post}:{p.line}" for p in others[:ALSO_NAMED])
        also += f" and {len(others) - ALSO_NAMED} more" if len(others) > ALSO_NAMED else ""
        said.append(str(replace(first, message=f"{first.message}\n  also at {also}") if others else first))
    noun = "problem" if len(said) == 1 else "problems"
    return f"{len(said)} {noun}:\n\n" + "\n\n".join(said)


# --- blocks ----------------------------------------------------------------------------------------


def number_text(x: float | Decimal, digits: int | None = None) -> str:
    """A number as an author writes it (1e-7, not Python's 1e-07): exactly, or to `digits` significant digits (a
    Decimal past a double's range too: 1e400)."""
    shown = f"{x:.{digits}g}" if digits else str(x).lower() if isinstance(x, Decimal) else repr(x)
    mantissa, _, exponent = shown.partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


@dataclass(frozen=True)
class Tolerance:
    """How far a number printed may be from the number an [OUTPUT] block records in its place, as
    math.isclose measures it: |recorded - printed| <= max(rel * the larger magnitude, abs). `abs` is for
    values near zero, where no relative tolerance helps."""

    rel: float = 0.0
    abs: float = 0.0

    def __str__(self) -> str:
        """As the author writes it in the header, e.g. rel=1e-7, abs=1e-12."""
        given = (("rel", self.rel), ("abs", self.abs))
        return ", ".join(f"{key}={number_text(value)}" for key, value in given if value)


@dataclass(frozen=True)
class Block:
    kind: Kind
    fields: dict[str, str]
    quote: str | None  # the fenced text without its fences, or None when the header stands alone
    post: str  # the post's path as shown in messages, e.g. docs/posts/x.md
    line: int  # 1-based line of the `[KIND]` line in the post file
    start: int  # index of the header line in the parsed text
    end: int  # index just past the block (past the closing fence, or the header paragraph)
    quote_start: int | None = None  # index of the first quoted line, when there is a fence
    tolerance: Tolerance | None = None  # of an [OUTPUT] block's numbers, from its Tolerance line
    field_lines: dict[str, int] = field(default_factory=dict)  # each header key -> the file line it is given on

    def where(self) -> str:
        return f"{self.post}:{self.line}"

    def line_of(self, key: str) -> int:
        """The file line of a header field (`Symbol:`), where a problem with its value is reported."""
        return self.field_lines.get(key, self.line)

    def quote_line(self, k: int) -> int:
        """The file line of the quote's line k (0-based)."""
        return self.line + self.quote_start - self.start + k

    @property
    def follows_baseline(self) -> bool:
        """Whether the block moves with the baseline: it names neither its own Commit nor its own Repo (even
        one equal to the baseline's, which pins it there), so drift and rebase carry it to another commit."""
        return "Commit" not in self.fields and "Repo" not in self.fields

    @property
    def dedent(self) -> bool:
        """Whether its card shows the quote without the indentation its lines share (`Dedent: yes`, the default)."""
        return self.fields.get("Dedent", "yes") == "yes"


@dataclass
class FrontMatter:
    """A page's front matter as MkDocs reads it, with the file line of each key and why it cannot be read."""

    meta: dict = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def unreadable(self) -> bool:
        return not self.meta and bool(self.problems)

    def line_of(self, key: str) -> int:
        """The file line of a key, or 1 (where front matter starts) when it has none."""
        return self.lines.get(key, 1)


@dataclass
class ParsedPost:
    post: str
    lines: list[str]
    first_line: int  # file line number of lines[0]
    blocks: list[Block] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    @property
    def unreadable(self) -> bool:
        """The file could not be read as text (its problem says why), so it has no lines at all."""
        return not self.lines


# --- evidence and results --------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class FileRef:
    """A file of an upstream repository at a commit."""

    repo: str
    commit: str
    path: str

    def __str__(self) -> str:
        return f"{self.repo}@{self.commit[:7]}:{self.path}"


@dataclass(frozen=True)
class Excerpt:
    """A verified quote: the lines first..last of the file (1-based, inclusive)."""

    first: int
    last: int
    text: str


@dataclass(frozen=True)
class Limits:
    """What one experiment run may use; each is settable in extra.series.experiments.limits under its name here."""

    memory_mib: int = 2048  # address space of each process (RLIMIT_AS)
    processes: int = 256  # processes and threads of the run at once, in its own user namespace (RLIMIT_NPROC)
    file_size_mib: int = 64  # the largest file it may write (RLIMIT_FSIZE)
    cpu_seconds: int = 60  # processor time of each process (RLIMIT_CPU)
    # memory all the run's processes hold together, memory no file holds included (a memory cgroup, where the
    # machine lets the build make one: experiments.memorygroup); the sandbox's /tmp, run_mib, counts in it too
    run_memory_mib: int = 3072

    def phrase(self, name: str) -> str:
        """The limit `name` as a run's failure names it: what, how much, and where it is set."""
        value, unit = getattr(self, name), {"memory_mib": "MiB", "file_size_mib": "MiB", "cpu_seconds": "s",
                                            "run_memory_mib": "MiB"}.get(name)
        what = {"memory_mib": "memory", "processes": "process", "file_size_mib": "file size", "cpu_seconds": "CPU time",
                "run_memory_mib": "run's memory"}
        return (f"the {what[name]} limit ({value}{' ' + unit if unit else ''}; "
                f"extra.series.experiments.limits.{name} in mkdocs.yml)")


@dataclass(frozen=True)
class Budgets:
    """What the build spends on what a run leaves it (a traced graph, drawings, a mismatch's diff), so that no script
    makes a build that never ends, a cache entry without end or a figure that stops a reader's browser; each is
    settable in extra.series.experiments.budgets under its name here."""

    graph_edges: int = 200  # edges of a traced graph (its nodes: at most tracing.MAX_NODES)
    trace_kib: int = 256  # the record of one traced graph
    svg_elements: int = 20_000  # a figure's elements, each reference counted as the elements it copies
    svg_reference_depth: int = 2  # references through references (<use>, patterns, masks, clips, markers)
    run_files: int = 2000  # files one run leaves in its folder (its scratch copy, home, tmp and figures)
    run_mib: int = 512  # bytes one run leaves in its folder, all files together
    figure_files: int = 16  # files in one run's figure folder
    figure_mib: int = 8  # bytes of one run's figure folder, all files together
    figure_kib: int = 2048  # bytes of one figure file: more is no drawing a page should carry
    diff_lines: int = 200  # lines of a diff shown in the log; the whole diff goes to a file the message names
    draw_seconds: int = 10  # laying out one traced graph (within the edge budget it takes well under one)

    def phrase(self, name: str) -> str:
        """The budget `name` as a problem names it: how much, and where it is set."""
        unit = {"trace_kib": " KiB", "figure_kib": " KiB", "figure_mib": " MiB", "run_mib": " MiB", "draw_seconds": " s"}.get(name, "")
        return f"the budget {name} ({getattr(self, name)}{unit}; extra.series.experiments.budgets.{name} in mkdocs.yml)"


@dataclass(frozen=True)
class MatrixEnvironment:
    """One environment readers run the experiments in (extra.series.experiments.matrix.environments): a Python
    version and pinned packages, locked with hashes in the repository."""

    python: str  # a version, "3.12"
    packages: tuple[str, ...]  # pins, "numpy==1.26.4"
    lock: Path  # its hashed lock (./dev.sh lock-requirements writes it)
    line: int = 1  # where mkdocs.yml lists it
    # What the pins resolved to when the lock was written (`locked` in mkdocs.yml): (pin, the SHA-256 of its
    # hashes), each pin the lock holds; the lock must hold exactly these.
    locked: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return " + ".join([f"Python {self.python}", *(pin.replace("==", " ") for pin in self.packages)])


@dataclass(frozen=True)
class Matrix:
    """The environments the experiments are run in again (`check --matrix`), and whether a difference fails."""

    environments: tuple[MatrixEnvironment, ...] = ()
    strict: bool = False


@dataclass(frozen=True)
class RunResult:
    """One run of an experiment script (or its cached record)."""

    script: str
    returncode: int | None  # None when the run was killed
    stdout: str
    stderr: str
    seconds: float
    verified_on: str  # UTC date of the run
    versions: dict[str, str]
    timed_out: bool = False
    overflow: bool = False  # output passed the cap and the run was killed
    cached: bool = False
    undecodable: str = ""  # where standard output stopped being UTF-8, e.g. "byte 0xff on line 2"
    not_run: str = ""  # why the build refused to run it at all (no full sandbox under CI)
    limit: str = ""  # the limit the run hit, as Limits.phrase names it
    over_budget: str = ""  # what the run left past a budget (Budgets.phrase), read no further
    out_of_memory: str = ""  # the kernel ended a process of the run past this limit (Limits.phrase of run_memory_mib)
    # The figures the run wrote into its figure folder: name -> the SVG's text; and name -> why one it wrote
    # cannot be a figure (a link, too large, not UTF-8).
    figures: dict[str, str] = field(default_factory=dict)
    figure_faults: dict[str, str] = field(default_factory=dict)
    # The graphs autograd traced for [FIGURE] blocks' Graph lines: the call -> its nodes as JSON (see tracing).
    traces: dict[str, str] = field(default_factory=dict)
    # What the run read of the resources: "experiments/x.py" (a file opened or imported) or
    # "experiments/" (a folder listed) -> SHA-256 of the bytes, or of the sorted names, it was given.
    inputs: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and not self.timed_out and not self.overflow and not self.undecodable
                and not self.not_run and not self.over_budget and not self.out_of_memory)


@dataclass(frozen=True)
class Checked:
    """What checking one block found: a verified excerpt, or a problem; and what `update` would write."""

    block: Block
    excerpt: Excerpt | None = None
    problem: Problem | None = None  # fails every build
    warning: Problem | None = None  # fails a strict build only
    repair: str | None = None  # what `update` writes in place of the fenced text
    run: RunResult | None = None  # the experiment run behind an [OUTPUT] or [FIGURE] block
    # A [FIGURE]'s drawing: the SVG the script wrote as an image (experiments.figures.CleanFigure), or the traced
    # graph laid out (site.graphs.LaidOut) to draw; and the SHA-256 of what the run produced (`Digest:`).
    figure: object = None
    digest: str | None = None
    # On drift, how much of the quote the repair keeps, 0..1: difflib's ratio over characters (2 × characters
    # in common / characters of both), lines that differ compared one to one. `update` refuses a low one.
    similarity: float | None = None


# --- the source pages ------------------------------------------------------------------------------

# A carriage return not followed by a line feed: a line break to Python (ast, jedi, Pygments), but not a
# line of the file as the series numbers them (split at LF; CRLF ends a line alike for both).
LONE_CR = re.compile("\r(?!\n)")
