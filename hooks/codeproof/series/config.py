"""The series configuration: `extra.series` in mkdocs.yml, validated once, every mistake reported.

Posts inherit the source baseline from here; nothing else repeats it. The site and the command line read
mkdocs.yml alike, with MkDocs' own loader (so `!ENV` and every other tag mean the same to both); the
values are checked by MkDocs option classes and the checks below, as Material's blog checks its own.
A setting that is not in the schema is a mistake (a misspelt `timout:` would leave the default in force).
"""

from __future__ import annotations

import difflib
import functools
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.config import base, load_config
from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError
from mkdocs.exceptions import Abort, ConfigurationError

from codeproof.common.errors import CodeproofError
from codeproof.common.filesystem import JOURNAL
from codeproof.common.markers import plain_text
from codeproof.common.structure import Block, FileRef, Limits, Problem, report

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
VERSION_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+!_-]*$")
PIN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[0-9A-Za-z][0-9A-Za-z.+!_-]*$")
MAX_TIMEOUT = 3600  # seconds an experiment may run
MAX_NUMBER = 9999  # posts are numbered 第一篇 to 第九千九百九十九篇


def in_ci() -> bool:
    """A build with CI=true (the publishing workflow, .ci/run) trusts no cache: what it publishes is
    proven from the pinned hashes and fresh runs."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def valid_repo(repo: str) -> bool:
    """owner/name as GitHub spells it, never with `..` (a repo name is also part of a cache folder's name)."""
    return bool(REPO_RE.match(repo)) and ".." not in repo and "." not in repo.split("/")


def normal_path(path: str) -> str | None:
    """The path in the one form a repository file is named by, or None if it cannot name one:
    relative, POSIX, no empty, '.' or '..' parts (so `a//b` and `./a` name `a/b` and `a`)."""
    if not path or path.startswith("/") or "\\" in path or not path.isprintable():
        return None
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return "/".join(parts) if parts and ".." not in parts else None


# --- option classes -----------------------------------------------------------------------------


class _Text(c.Type):
    """A string that must pass `test`; `what` says what it must be."""

    def __init__(self, test, what: str, **kwargs):
        super().__init__(str, **kwargs)
        self.test, self.what = test, what

    def run_validation(self, value):
        value = super().run_validation(value)
        if not self.test(value):
            raise ValidationError(f"{value!r} is not {self.what}")
        return value


def CommitSha() -> _Text:
    return _Text(SHA_RE.match, "a full 40-hex commit SHA")


def Repository() -> _Text:
    return _Text(valid_repo, "owner/name")


def Sha256() -> _Text:
    return _Text(SHA256_RE.match, "a 64-hex SHA-256")


def Version() -> _Text:
    return _Text(VERSION_RE.match, "a release version, such as 1.9.1")


def Pin() -> _Text:
    return _Text(PIN_RE.match, "a pinned requirement, such as autograd==1.9.1")


def RemoteTemplate(**kwargs) -> _Text:
    """A git URL with `{repo}` where the owner/name goes, and no other replacement field."""
    def fits(template: str) -> bool:
        try:
            return "{repo}" in template and template.format(repo="o/n") != template
        except (IndexError, KeyError, ValueError):
            return False
    return _Text(fits, "a git URL template holding {repo} and no other {…} field", **kwargs)


def RepositoryPath(what: str, **kwargs) -> _Text:
    """A path relative to the repository root, in normal form, outside what the site publishes."""
    return _Text(lambda path: normal_path(path) == path and path.split("/")[0] not in ("docs", "experiments"),
                 f"a relative path in the repository for {what}, outside docs/ and experiments/", **kwargs)


def PlainTitle() -> _Text:
    """Announced titles are printed in every post's series navigation and the overview: plain text,
    naming no marker."""
    return _Text(plain_text,
                 "plain text: it holds markup characters (<, > or &) or names a block marker")


class Number(c.Type):
    """A number (not a bool) with lo < value <= hi."""

    def __init__(self, kind, lo: float, hi: float, what: str, **kwargs):
        super().__init__(kind, **kwargs)
        self.lo, self.hi, self.what = lo, hi, what

    def run_validation(self, value):
        value = super().run_validation(value)
        if isinstance(value, bool) or not self.lo < value <= self.hi:  # also refuses nan; inf passes no finite hi
            raise ValidationError(f"{value!r} is not {self.what}")
        return value


# --- the schema ---------------------------------------------------------------------------------


class _Baseline(base.Config):
    repo = Repository()
    commit = CommitSha()
    version = Version()
    # The release archive that holds the commit's files (pip requirement, e.g. autograd==1.9.1) and
    # its SHA-256, checked on every use; both or neither.
    sdist = c.Optional(Pin())
    sdist_sha256 = c.Optional(Sha256())


class _Announced(base.Config):
    number = Number(int, 0, MAX_NUMBER, f"a whole number from 1 to {MAX_NUMBER}")
    title = c.Optional(PlainTitle())


class _Limits(base.Config):
    memory_mib = Number(int, 255, 1 << 30, "a whole number of MiB from 256", default=Limits.memory_mib)
    processes = Number(int, 7, 1 << 22, "a whole number from 8", default=Limits.processes)
    file_size_mib = Number(int, 0, 1 << 30, "a positive whole number of MiB", default=Limits.file_size_mib)
    cpu_seconds = Number(int, 0, MAX_TIMEOUT, f"a whole number of seconds from 1 to {MAX_TIMEOUT}",
                         default=Limits.cpu_seconds)


class _Experiments(base.Config):
    timeout = Number((int, float), 0, MAX_TIMEOUT, f"a number of seconds between 0 and {MAX_TIMEOUT}", default=120)
    output_cap = Number(int, 0, float("inf"), "a positive number of bytes", default=1024 * 1024)
    limits = c.SubConfig(_Limits)


class SeriesSchema(base.Config):
    name = PlainTitle()
    baseline = c.SubConfig(_Baseline)
    announced = c.ListOfItems(c.SubConfig(_Announced), default=[])
    git_remote = RemoteTemplate(default="https://github.com/{repo}.git")
    lock_file = RepositoryPath("the lock file", default="sources.lock.json")
    cache_dir = RepositoryPath("the cache folder", default=".cache")
    experiments = c.SubConfig(_Experiments)
    source_pages = c.Type(bool, default=True)  # publish the quoted package's files, cross-referenced (source/)
    # Over this many lines a source page is plain text, neither highlighted nor cross-referenced: the work on a
    # file stays bounded whatever upstream holds.
    source_page_max_lines = Number(int, 0, 10_000_000, "a positive whole number of lines", default=20_000)


@dataclass(frozen=True)
class Baseline:
    repo: str
    commit: str
    version: str
    sdist: str | None
    sdist_sha256: str | None

    def ref_of(self, block: Block) -> FileRef:
        """The file a REAL SOURCE block quotes: its File at its own Repo and Commit, else the baseline's."""
        return FileRef(block.fields.get("Repo", self.repo), block.fields.get("Commit", self.commit), block.fields["File"])

    def holds(self, ref: FileRef) -> bool:
        """Whether `ref` is a file of the baseline (its repository at the pinned commit): the files the source
        pages publish and the cards link to."""
        return (ref.repo, ref.commit) == (self.repo, self.commit)


@dataclass(frozen=True)
class Series:
    name: str
    baseline: Baseline
    announced: dict[int, str | None]
    git_remote: str
    root: Path  # the repository root: posts, experiments, lock and cache are found from here
    lock_file: Path
    cache_dir: Path
    experiment_timeout: float
    output_cap: int
    source_pages: bool = True
    limits: Limits = Limits()
    source_page_max_lines: int = 20_000


class SeriesConfigError(CodeproofError):
    """mkdocs.yml cannot configure the series; `problems` says every reason, each at its line."""

    def __init__(self, problems: list[Problem]):
        super().__init__(report(problems))
        self.problems = problems


def series_from_extra(extra_series: object, config_file: Path) -> Series:
    """Validate the `extra.series` mapping of the mkdocs.yml at `config_file`; raise SeriesConfigError
    listing every problem, each at the line of mkdocs.yml it is about."""
    if (config_file.resolve().parent / JOURNAL).exists():  # the files may be half old, half new: build none of them
        raise SeriesConfigError([Problem(JOURNAL, 1, "a change of several files (rebase) was interrupted and is "
                                         "not finished", hint="run ./dev.sh check: it finishes the change first")])
    lines, repeated = _key_lines(config_file)
    found: list[tuple[tuple, str]] = [  # (key path, message)
        (path, f"is given twice (lines {first} and {second}): YAML keeps the second and drops the first")
        for path, first, second in repeated if path[:2] == ("extra", "series")]
    values = _validate(SeriesSchema, extra_series, ("extra", "series"), found)
    if not found:
        found += _check_together(values, config_file.resolve().parent)
    if found:
        name = config_file.name
        raise SeriesConfigError([Problem(name, _line(lines, path), f"{_dotted(path)}: {message}") for path, message in found])
    root = config_file.resolve().parent
    baseline = values["baseline"]
    return Series(
        name=values["name"],
        baseline=Baseline(**{k: baseline[k] for k in ("repo", "commit", "version", "sdist", "sdist_sha256")}),
        announced={item["number"]: item["title"] for item in values["announced"]},
        git_remote=values["git_remote"],
        root=root,
        lock_file=root / values["lock_file"],
        cache_dir=root / values["cache_dir"],
        experiment_timeout=float(values["experiments"]["timeout"]),
        output_cap=values["experiments"]["output_cap"],
        limits=Limits(**values["experiments"]["limits"]),
        source_pages=values["source_pages"],
        source_page_max_lines=values["source_page_max_lines"],
    )


def _validate(schema: type[base.Config], data: object, path: tuple, found: list) -> dict:
    """Each option of `schema` validated by its own class, nested configs and lists of them entered, and
    every failure kept (MkDocs' Config.validate stops at the first)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        found.append((path, f"must be a mapping of settings, not {type(data).__name__}"))
        return {}
    options = dict(base.get_schema(schema))
    for key in sorted(map(str, data.keys() - options.keys())):
        found.append((path + (key,), "is not a setting" + _suggestion(schema, key)))
    values = {}
    for key, option in options.items():
        value = data.get(key)
        if isinstance(option, c.SubConfig):
            values[key] = _validate(option.config_class, value, path + (key,), found)
        elif isinstance(option, c.ListOfItems) and isinstance(option.option_type, c.SubConfig):
            if not isinstance(value if value is not None else [], list):
                found.append((path + (key,), f"must be a list, not {type(value).__name__}"))
                continue
            values[key] = [_validate(option.option_type.config_class, item, path + (key, i), found)
                           for i, item in enumerate(value or [])]
        else:
            try:
                values[key] = option.validate(value)
            except ValidationError as error:
                found.append((path + (key,), str(error)))
    return values


def _suggestion(schema: type[base.Config], key: str) -> str:
    """'; did you mean X?' naming the setting most like `key`, here or in a nested config (`timout` in
    extra.series may be experiments.timeout), or the settings there are."""
    names = {}  # last part -> the name as written from here
    for name, option in base.get_schema(schema):
        names.setdefault(name, name)
        if isinstance(option, c.SubConfig):
            for inner, _ in base.get_schema(option.config_class):
                names.setdefault(inner, f"{name}.{inner}")
    close = difflib.get_close_matches(key, [n for n in names if n != key], n=1) or ([key] if key in names else [])
    if close:
        return f"; did you mean {names[close[0]]}?"
    return f" (the settings here are {', '.join(name for name, _ in base.get_schema(schema))})"


def _dotted(path: tuple) -> str:
    """extra.series.announced[0].title"""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def _check_together(values: dict, root: Path) -> list[tuple[tuple, str]]:
    """What no single setting shows: settings that go together, numbers announced twice, a folder that is a file."""
    found = []
    baseline, series = values["baseline"], ("extra", "series")
    if bool(baseline["sdist"]) != bool(baseline["sdist_sha256"]):
        found.append((series + ("baseline",), "sdist and sdist_sha256 go together (the archive is checked against "
                                              "its SHA-256)"))
    numbers = [item["number"] for item in values["announced"]]
    found += [(series + ("announced", index), f"number {number} is announced twice")
              for index, number in enumerate(numbers) if number in numbers[:index]]
    if (root / values["cache_dir"]).exists() and not (root / values["cache_dir"]).is_dir():
        found.append((series + ("cache_dir",), f"{values['cache_dir']!r} is a file, not a folder"))
    return found


def _key_lines(config_file: Path) -> tuple[dict[tuple, int], list[tuple[tuple, int, int]]]:
    """Key path (keys and list indexes) -> line in the file, from its YAML nodes (no tag is constructed); and
    the keys given twice in one mapping, with both lines (YAML loaders keep the second without a word)."""
    try:
        text = config_file.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}, []
    lines, repeated = _text_key_lines(text)
    return dict(lines), list(repeated)


@functools.lru_cache(maxsize=8)
def _text_key_lines(text: str) -> tuple[dict[tuple, int], list[tuple[tuple, int, int]]]:
    """_key_lines of a file's text: composed once per text (PyYAML, in Python, takes milliseconds), so a process
    that builds again (serve) reads the file every time but composes it only when it changed."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}, []
    lines: dict[tuple, int] = {}
    repeated: list[tuple[tuple, int, int]] = []
    walked: set[int] = set()  # an alias is the node it names: walked once, so nested aliases cost no more than
    # MkDocs' own loader, which shares them (a key under an alias takes its nearest walked ancestor's line)

    def walk(node, path: tuple) -> None:
        lines.setdefault(path, node.start_mark.line + 1)  # a key's own line, if it has one, comes first
        if id(node) in walked:
            return
        walked.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if path + (key.value,) in lines and key.value != "<<":
                    repeated.append((path + (key.value,), lines[path + (key.value,)], key.start_mark.line + 1))
                lines[path + (key.value,)] = key.start_mark.line + 1
                walk(value, path + (key.value,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, path + (index,))

    if root is not None:
        walk(root, ())
    return lines, repeated


def _line(lines: dict[tuple, int], path: tuple) -> int:
    """The line of the key path, or of its nearest ancestor in the file."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)


def load_config_file(mkdocs_yml: Path):
    """mkdocs.yml as MkDocs reads it for a strict build (its loader, tags and validation), for the command
    line. Raises SeriesConfigError with MkDocs' own messages when such a build would refuse it."""
    errors: list[str] = []
    handler = logging.Handler(logging.WARNING)  # a strict build stops on a warning about the configuration too
    handler.emit = lambda record: errors.append(record.getMessage())
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        return load_config(str(mkdocs_yml), strict=True)
    except (ConfigurationError, Abort, OSError) as error:
        messages = [m for m in errors if not m.startswith("Aborted")] or [str(error)]
        raise SeriesConfigError([Problem(mkdocs_yml.name, 1, message) for message in messages]) from None
    finally:
        logger.removeHandler(handler)


def load_series(mkdocs_yml: Path) -> Series:
    """The series configured by mkdocs.yml, read as a build reads it."""
    config = load_config_file(mkdocs_yml)
    return series_from_extra(config.extra.get("series"), Path(config.config_file_path))
