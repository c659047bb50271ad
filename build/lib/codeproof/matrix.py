"""The matrix's verdicts: each [OUTPUT] and [FIGURE] checked again in each environment of
extra.series.experiments.matrix (experiments/matrix.py makes them), by the engine's own checks on a runner of
that environment's interpreter, against what the post records and what the build's own run drew.

A verdict is `same`, `same within its tolerance`, `differs` (the check's diff) or `fails` (the run's error). A
difference is a warning at the block's line, or a problem when the matrix is strict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from codeproof.common.structure import Block, Checked, ParsedPost, Problem
from codeproof.engine import Engine
from codeproof.experiments.compare import normalize
from codeproof.experiments.matrix import MatrixError, label, make, matrix_problem
from codeproof.experiments.runner import ExperimentRunner

SAME, WITHIN, DIFFERS, FAILS = "same", "same within its tolerance", "differs", "fails"


@dataclass(frozen=True)
class Verdict:
    block: Block
    environment: str  # as a reader names it: "Python 3.12.1 + numpy 1.26.4"
    said: str  # SAME, WITHIN, DIFFERS or FAILS
    problem: Problem | None = None  # a difference or a failure, at the block's line


def run_matrix(engine: Engine, posts: list[ParsedPost], built: dict[int, Checked], config_name: str) \
        -> tuple[list[Verdict], list[Problem]]:
    """Every [OUTPUT] and [FIGURE] of the posts in every environment of the series' matrix, against `built` (the
    build's own checks of them, by the id of their block); and the problems of environments that cannot be had, at their line of the
    configuration file (`config_name`)."""
    series, verdicts, problems = engine.series, [], []
    blocks = [block for post in posts for block in post.blocks if block.kind.runs]
    for environment in series.matrix.environments:
        try:
            interpreter = make(environment, series.cache_dir)
        except MatrixError as error:
            problems.append(matrix_problem(error, series.root, config_name, environment.line))
            continue
        runner = ExperimentRunner(series.root, series.cache_dir, series.experiment_timeout, series.output_cap,
                                  use_cache=False, limits=series.limits, budgets=series.budgets, interpreter=interpreter)
        there = Engine(series, store=engine.store, runner=runner)
        try:
            there.start_experiments(posts)
            verdicts += [_verdict(block, there.check(block), built.get(id(block)), label(interpreter)) for block in blocks]
        finally:
            runner.finish()
    return verdicts, problems


def _verdict(block: Block, checked: Checked, built: Checked | None, environment: str) -> Verdict:
    kind, script = block.kind.name, block.fields["File"]
    run = checked.run
    if checked.problem is not None:
        said = FAILS if run is None or not run.ok else DIFFERS
        return Verdict(block, environment, said, Problem(
            block.post, block.line, f"{kind} {script}: {said} in {environment}: "
                                    f"{checked.problem.message.removeprefix(f'{kind} {script}: ')}",
            detail=checked.problem.detail, hint=HINT))
    if block.kind.name == "FIGURE" and built is not None and checked.digest != built.digest:
        return Verdict(block, environment, DIFFERS, Problem(
            block.post, block.line, f"{kind} {script}: {DIFFERS} in {environment}: it draws another figure than the "
                                    "build's run", hint=HINT))
    exact = block.quote is None or normalize(run.stdout) == normalize(block.quote)
    return Verdict(block, environment, SAME if exact else WITHIN)


HINT = ("the post records what the build's environment printed; readers with this one get the above: make the script "
        "print the same everywhere, or say so in the post (strict: true under extra.series.experiments.matrix makes "
        "this fail the build)")


def held(verdicts: Iterable[Verdict]) -> dict[tuple[str, int], tuple[str, ...]]:
    """Each block (by its post and line) -> the environments that gave the same, as its stamp names them: one
    that agreed only to within the block's tolerance is marked so."""
    found: dict[tuple[str, int], tuple[str, ...]] = {}
    for v in verdicts:
        if v.said in (SAME, WITHIN):
            key = (v.block.post, v.block.line)
            found[key] = found.get(key, ()) + (v.environment + ("（容差内）" if v.said == WITHIN else ""),)
    return found


def table(verdicts: Iterable[Verdict]) -> str:
    """The verdicts as the command line prints them: one line a block and environment."""
    return "".join(f"{v.block.post}:{v.block.line}: {v.block.kind.name} {v.block.fields['File']}: {v.environment}: "
                   f"{v.said}\n" for v in verdicts)
