"""The record of a run (issue 56): what a stamp under an output or a figure stands for, which the stamp links to.

A `RunRecord` is made by the engine from the run's own data (`RunResult`): the command and the folder it ran in,
the environment, when it ran and how long it took, whether the build took it from its cache, and the SHA-256 of
what it printed and of each figure and graph it drew. Its anchor on the script's page (`run-` and the first 12 hex
digits of the SHA-256 of the record itself) names that run, and only it: every stamp of it links there. Each block
a record verified (`Stamped`) is listed under it: the post and line of its stamp, and, under a tolerance, each
number the run printed otherwise than the post records. The records are shown on the script's page
(templates/script_tail.html) and published as one JSON file (`RECORDS_URL`) beside the experiments' archive."""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import asdict, dataclass, field

from codeproof.common.kinds.registry import BlockKind
from codeproof.common.structure import Block, RunResult, number_text
from codeproof.experiments.compare import reconcile
from codeproof.site import addresses

RECORDS_URL = f"{addresses.DOWNLOADS}/runs.json"
WORKING_FOLDER = "资源目录（experiments.zip 解压后的文件夹）"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class RunRecord:
    """One run of a script, as its record shows it."""

    script: str
    command: str
    folder: str
    environment: tuple[tuple[str, str], ...]  # (what, version): python, numpy, autograd, the platform
    verified_on: str  # the UTC date of the run
    seconds: float
    cached: bool  # the build took it from its cache (the run was made on `verified_on`)
    printed: str  # SHA-256 of what it printed
    figures: tuple[tuple[str, str], ...]  # (the SVG's name, its SHA-256)
    traces: tuple[tuple[str, str], ...]  # (the traced call, the SHA-256 of its graph's record)

    @property
    def anchor(self) -> str:
        return "run-" + _sha256(json.dumps(asdict(self), sort_keys=True, ensure_ascii=False))[:12]


def run_record(run: RunResult) -> RunRecord:
    environment = (("python", run.versions.get("python", "")), ("numpy", run.versions.get("numpy", "")),
                   ("autograd", run.versions.get("autograd", "")), ("platform", f"{platform.system()} {platform.machine()}"))
    return RunRecord(run.script, addresses.script_command(run.script), WORKING_FOLDER, environment, run.verified_on,
                     round(run.seconds, 2), run.cached, _sha256(run.stdout),
                     tuple(sorted((name, _sha256(svg)) for name, svg in run.figures.items())),
                     tuple(sorted((call, _sha256(trace)) for call, trace in run.traces.items())))


@dataclass(frozen=True)
class Within:
    """A number an [OUTPUT]'s run printed otherwise than the block records it, within its tolerance (the card shows
    the recorded one): both as written, and how far apart they are."""

    line: int  # the file line of the recorded number
    recorded: str
    printed: str
    apart: str  # the absolute difference, as number_text writes it


def numbers_within(block: Block, run: RunResult) -> tuple[Within, ...]:
    if block.kind is not BlockKind.OUTPUT or block.tolerance is None or block.quote is None:
        return ()
    return tuple(Within(block.quote_line(n.line), n.recorded, n.printed, number_text(n.absolute, 2))
                 for n in reconcile(block.quote, run.stdout, block.tolerance).within)


@dataclass(frozen=True)
class Stamped:
    """A block whose stamp links to a record: its kind, its post's file and URL and label, the file line of its
    stamp's block, and the numbers printed otherwise than recorded, within the block's tolerance."""

    kind: str
    post: str
    url: str
    label: str
    line: int
    within: tuple[Within, ...] = ()


@dataclass
class ScriptRuns:
    """The records of one script's runs in this build, each with the blocks whose stamps link to it."""

    records: dict[str, RunRecord] = field(default_factory=dict)  # by anchor, in the order the build met them
    stamped: dict[str, list[Stamped]] = field(default_factory=dict)  # by anchor

    def add(self, record: RunRecord, stamped: Stamped) -> None:
        """A block's stamp, which links to `record` (once: a post proved again says the same)."""
        self.records.setdefault(record.anchor, record)
        listed = self.stamped.setdefault(record.anchor, [])
        if all((s.post, s.line) != (stamped.post, stamped.line) for s in listed):
            listed.append(stamped)


def records_json(runs: dict[str, ScriptRuns], matrix: dict[str, dict] | None = None) -> bytes:
    """Every record of the build, as published beside the archive: by script, each run with its anchor on the
    script's page and the posts' lines whose stamps link to it."""
    data = {"format": 1, "scripts": {
        script: [{"anchor": anchor, **asdict(record), "environment": dict(record.environment),
                  "figures": dict(record.figures), "traces": dict(record.traces),
                  "stamps": [{"post": s.post, "line": s.line, "kind": s.kind,
                              "within_tolerance": [asdict(n) for n in s.within]}
                             for s in script_runs.stamped[anchor]]}
                 for anchor, record in script_runs.records.items()]
        for script, script_runs in sorted(runs.items())}}
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
