"""The series configuration: `extra.series` in mkdocs.yml, validated once, every mistake reported.

Posts inherit the source baseline from here; nothing else repeats it. The build hands in the mapping its
generator read; the command line reads mkdocs.yml with the core's own loader (`load_site`: `!ENV` resolved as
MkDocs resolves it, other tags kept opaque), so the core needs no MkDocs. The values are checked against one
schema (common.schema) and the checks below; a setting that is not in the schema is a mistake.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
import yaml_env_tag

from codeproof.common.errors import CodeproofError
from codeproof.common.filesystem import journal_file
from codeproof.common.markers import plain_text
from codeproof.common.schema import REQUIRED, Finding, ListOf, Section, Value, dotted, validate
from codeproof.common.structure import Block, Budgets, FileRef, Limits, Matrix, MatrixEnvironment, Problem, report
from codeproof.common.usercache import repository_cache
from codeproof.series.spans import MarkdownSetup

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
VERSION_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+!_-]*$")
PIN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[0-9A-Za-z][0-9A-Za-z.+!_-]*$")
PYTHON_RE = re.compile(r"^3\.[0-9]{1,2}$")
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


# --- the schema ---------------------------------------------------------------------------------


def _text(test, what: str, default: object = REQUIRED) -> Value:
    return Value(str, what, test, default)


def _number(kinds, lo: float, hi: float, what: str, default: object = REQUIRED) -> Value:
    """A number (not a bool) with lo < value <= hi; refuses nan, and inf passes no finite hi."""
    return Value(kinds, what, lambda value: lo < value <= hi, default)


def _fits_template(template: str) -> bool:
    """A git URL with `{repo}` where the owner/name goes, and no other replacement field."""
    try:
        return "{repo}" in template and template.format(repo="o/n") != template
    except (IndexError, KeyError, ValueError):
        return False


def _repository_path(what: str, default: str) -> Value:
    """A path relative to the repository root, in normal form, outside what the site publishes."""
    return _text(lambda path: normal_path(path) == path and path.split("/")[0] not in ("docs", "experiments"),
                 f"a relative path in the repository for {what}, outside docs/ and experiments/", default)


# Announced titles are printed in every post's series navigation and the overview: plain text, naming no marker.
_PLAIN_TITLE = "plain text: it holds markup characters (<, > or &) or names a block marker"

SERIES_SCHEMA = Section({
    "name": _text(plain_text, _PLAIN_TITLE),
    "baseline": Section({
        "repo": _text(valid_repo, "owner/name"),
        "commit": _text(SHA_RE.match, "a full 40-hex commit SHA"),
        "version": _text(VERSION_RE.match, "a release version, such as 1.9.1"),
        # The release archive that holds the commit's files (pip requirement, e.g. autograd==1.9.1) and
        # its SHA-256, checked on every use; both or neither.
        "sdist": _text(PIN_RE.match, "a pinned requirement, such as autograd==1.9.1", default=None),
        "sdist_sha256": _text(SHA256_RE.match, "a 64-hex SHA-256", default=None),
    }),
    "announced": ListOf(Section({
        "number": _number(int, 0, MAX_NUMBER, f"a whole number from 1 to {MAX_NUMBER}"),
        "title": _text(plain_text, _PLAIN_TITLE, default=None),
    })),
    "git_remote": _text(_fits_template, "a git URL template holding {repo} and no other {…} field",
                        default="https://github.com/{repo}.git"),
    "lock_file": _repository_path("the lock file", "sources.lock.json"),
    "experiments": Section({
        "timeout": _number((int, float), 0, MAX_TIMEOUT, f"a number of seconds between 0 and {MAX_TIMEOUT}", 120),
        "output_cap": _number(int, 0, float("inf"), "a positive number of bytes", 1024 * 1024),
        "limits": Section({
            "memory_mib": _number(int, 255, 1 << 30, "a whole number of MiB from 256", Limits.memory_mib),
            "processes": _number(int, 7, 1 << 22, "a whole number from 8", Limits.processes),
            "run_memory_mib": _number(int, 255, 1 << 30, "a whole number of MiB from 256", Limits.run_memory_mib),
            "file_size_mib": _number(int, 0, 1 << 30, "a positive whole number of MiB", Limits.file_size_mib),
            "cpu_seconds": _number(int, 0, MAX_TIMEOUT, f"a whole number of seconds from 1 to {MAX_TIMEOUT}",
                                   Limits.cpu_seconds),
        }),
        "budgets": Section({name: _number(int, 0, 1 << 30, "a positive whole number", getattr(Budgets, name))
                            for name in Budgets.__dataclass_fields__}),
        # Where readers run the experiments too (experiments/matrix.py): each a Python version and pinned packages,
        # locked with hashes at `lock` (./dev.sh lock-requirements); `strict` makes a difference fail the build.
        "matrix": Section({
            "strict": Value(bool, "true or false", default=False),
            "environments": ListOf(Section({
                "python": _text(PYTHON_RE.match, "a Python version such as 3.12"),
                "packages": ListOf(_text(PIN_RE.match, "a pinned requirement, such as numpy==1.26.4")),
                "lock": _repository_path("the environment's lock", REQUIRED),
                # What the pins resolved to when ./dev.sh lock-requirements wrote the lock: each pin it holds, with
                # the SHA-256 of that pin's hashes (experiments/matrix.py). The lock is held to it, line by line.
                "locked": Value(dict, "a mapping of each pin its lock holds to the SHA-256 of that pin's hashes, as "
                                      "./dev.sh lock-requirements writes it",
                                lambda locked: all(isinstance(k, str) and PIN_RE.match(k) and isinstance(v, str)
                                                   and SHA256_RE.match(v) for k, v in locked.items()), default=None),
            })),
        }),
    }),
    # Publish the quoted package's files, cross-referenced (source/).
    "source_pages": Value(bool, "true or false", default=True),
    # Over this many lines a source page is plain text, neither highlighted nor cross-referenced: the work on a
    # file stays bounded whatever upstream holds.
    "source_page_max_lines": _number(int, 0, 10_000_000, "a positive whole number of lines", 20_000),
})


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
    root: Path  # the repository root: posts, experiments and lock are found from here
    lock_file: Path
    cache_dir: Path  # the repository's state in the user's cache (common/usercache.py), never in the repository
    experiment_timeout: float
    output_cap: int
    source_pages: bool = True
    limits: Limits = Limits()
    budgets: Budgets = Budgets()
    source_page_max_lines: int = 20_000
    matrix: Matrix = Matrix()


class SeriesConfigError(CodeproofError):
    """mkdocs.yml cannot configure the series; `problems` says every reason, each at its line."""

    def __init__(self, problems: list[Problem]):
        super().__init__(report(problems))
        self.problems = problems


def series_from_extra(extra_series: object, config_file: Path, text: str | None = None) -> Series:
    """Validate the `extra.series` mapping of the mkdocs.yml at `config_file`; raise SeriesConfigError
    listing every problem, each at the line of mkdocs.yml it is about (`text`: the file's, if read already)."""
    journal = journal_file(config_file.resolve().parent)
    if journal.exists():  # the files may be half old, half new: build none of them
        raise SeriesConfigError([Problem(str(journal), 1, "a change of several files (rebase) was interrupted and is "
                                         "not finished", hint="run ./dev.sh check: it finishes the change first")])
    lines, repeated = _key_lines(config_file, text)
    found = [Finding(path, f"is given twice (lines {first} and {second}): YAML keeps the second and drops the first")
             for path, first, second in repeated if path[:2] == ("extra", "series")]
    values = validate(SERIES_SCHEMA, extra_series, ("extra", "series"), found)
    if not found:
        found += _check_together(values, config_file.resolve().parent)
    if found:
        name = config_file.name
        raise SeriesConfigError([Problem(name, _line(lines, path), f"{dotted(path)}: {message}", hint=hint)
                                 for path, message, hint in found])
    root = config_file.resolve().parent
    baseline = values["baseline"]
    return Series(
        name=values["name"],
        baseline=Baseline(**{k: baseline[k] for k in ("repo", "commit", "version", "sdist", "sdist_sha256")}),
        announced={item["number"]: item["title"] for item in values["announced"]},
        git_remote=values["git_remote"],
        root=root,
        lock_file=root / values["lock_file"],
        cache_dir=repository_cache(root),
        experiment_timeout=float(values["experiments"]["timeout"]),
        output_cap=values["experiments"]["output_cap"],
        limits=Limits(**values["experiments"]["limits"]),
        budgets=Budgets(**values["experiments"]["budgets"]),
        matrix=Matrix(tuple(MatrixEnvironment(item["python"], tuple(item["packages"]), root / item["lock"],
                                              _line(lines, ("extra", "series", "experiments", "matrix", "environments", i)),
                                              tuple(sorted((item["locked"] or {}).items())))
                            for i, item in enumerate(values["experiments"]["matrix"]["environments"])),
                      values["experiments"]["matrix"]["strict"]),
        source_pages=values["source_pages"],
        source_page_max_lines=values["source_page_max_lines"],
    )


def _check_together(values: dict, root: Path) -> list[Finding]:
    """What no single setting shows: settings that go together, numbers announced twice, a folder that is a file."""
    found = []
    baseline, series = values["baseline"], ("extra", "series")
    if bool(baseline["sdist"]) != bool(baseline["sdist_sha256"]):
        found.append(Finding(series + ("baseline",), "sdist and sdist_sha256 go together (the archive is checked "
                                                     "against its SHA-256)"))
    numbers = [item["number"] for item in values["announced"]]
    found += [Finding(series + ("announced", index), f"number {number} is announced twice")
              for index, number in enumerate(numbers) if number in numbers[:index]]
    return found


def _key_lines(config_file: Path, text: str | None = None) -> tuple[dict[tuple, int], list[tuple[tuple, int, int]]]:
    """Key path (keys and list indexes) -> line in the file (whose `text` may be given), from its YAML nodes (no
    tag is constructed); and the keys given twice in one mapping, with both lines (YAML loaders keep the second
    without a word)."""
    try:
        text = config_file.read_bytes().decode("utf-8") if text is None else text
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


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's YAML as MkDocs reads it, constructing nothing it would import: `!ENV` is resolved as MkDocs
    resolves it (its own package, yaml_env_tag), and a Python tag (`!!python/name:…`) or another of MkDocs' tags
    (`!relative`) is kept as an `Opaque` value, which only the generator constructs."""


@dataclass(frozen=True)
class Opaque:
    """A value mkdocs.yml gives with a tag that only the generator constructs."""

    tag: str


_Loader.add_constructor("!ENV", yaml_env_tag.construct_env_tag)
_Loader.add_constructor(None, lambda loader, node: Opaque(node.tag))  # any other tag


@dataclass(frozen=True)
class SiteConfig:
    """What the command line needs of mkdocs.yml: the series, the folder of pages, and the site's Markdown."""

    series: Series
    docs_dir: Path
    markdown: MarkdownSetup


# MkDocs renders every page with these before the extensions mkdocs.yml lists.
BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")


def read_settings(mkdocs_yml: Path) -> dict:
    """mkdocs.yml's settings as the core reads them (no MkDocs; `!ENV` resolved, other tags kept `Opaque`), or
    SeriesConfigError at the line that cannot be read."""
    return _read_settings(mkdocs_yml)[0]


def _read_settings(mkdocs_yml: Path) -> tuple[dict, str]:
    name = mkdocs_yml.name
    try:
        text = mkdocs_yml.read_bytes().decode("utf-8")
        config = yaml.load(text, Loader=_Loader)
    except (OSError, UnicodeDecodeError) as error:
        raise SeriesConfigError([Problem(name, 1, f"cannot be read: {error}")]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise SeriesConfigError([Problem(name, mark.line + 1 if mark else 1, f"is not YAML: {error.problem}")]) from None
    except yaml.YAMLError as error:
        raise SeriesConfigError([Problem(name, 1, f"is not YAML: {error}")]) from None
    if not isinstance(config, dict):
        raise SeriesConfigError([Problem(name, 1, f"must be a mapping of settings, not {type(config).__name__}")])
    return config, text


def load_site(mkdocs_yml: Path) -> SiteConfig:
    """mkdocs.yml read for the command line with the core's own loader (no MkDocs): the series checked, every
    problem at its line; MkDocs' own settings are the strict build's to check (`./dev.sh check` runs one)."""
    name, (config, text) = mkdocs_yml.name, _read_settings(mkdocs_yml)
    found = [(key, f"must be {what}") for key, kind, what in (("extra", dict, "a mapping of settings"),
                                                               ("docs_dir", str, "a folder's path"),
                                                               ("markdown_extensions", list, "a list of extensions"))
             if config.get(key) is not None and not isinstance(config[key], kind)]
    if "INHERIT" in config:
        found.append(("INHERIT", "is not read by the command line, which reads one mkdocs.yml: write the settings here"))
    if found:
        lines, _ = _key_lines(mkdocs_yml, text)
        raise SeriesConfigError([Problem(name, _line(lines, (key,)), f"{key}: {message}") for key, message in found])
    series = series_from_extra((config.get("extra") or {}).get("series"), mkdocs_yml, text)
    return SiteConfig(series, mkdocs_yml.resolve().parent / config.get("docs_dir", "docs"),
                      _markdown_setup(config.get("markdown_extensions") or []))


def _markdown_setup(listed: list) -> MarkdownSetup:
    """The extensions as MkDocs hands them to Markdown: its built-ins first, each name once, a name's settings
    as given. A setting given with an opaque tag is left out: the command line renders words only to read their
    inline code, which no such setting (toc's slugify) changes."""
    names, configs = list(BUILTIN_EXTENSIONS), {}
    for item in listed:
        name, settings = next(iter(item.items())) if isinstance(item, dict) and len(item) == 1 else (item, None)
        if not isinstance(name, str):
            continue
        names.append(name)
        if isinstance(settings, dict):
            configs[name] = {key: value for key, value in settings.items() if not isinstance(value, Opaque)}
    return MarkdownSetup.of(list(dict.fromkeys(names)), configs)


def load_series(mkdocs_yml: Path) -> Series:
    """The series configured by mkdocs.yml, read as the command line reads it."""
    return load_site(mkdocs_yml).series
