"""The series configuration: `extra.series` in mkdocs.yml, validated once.

Posts inherit the source baseline from here; nothing else repeats it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.config import base
from mkdocs.config import config_options as c

from .markers import MARKER, skeleton

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
MAX_TIMEOUT = 3600  # seconds an experiment may run


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


class _Baseline(base.Config):
    repo = c.Type(str)
    commit = c.Type(str)
    version = c.Type(str)
    # The release archive that holds the commit's files (pip requirement, e.g. autograd==1.9.1) and
    # its SHA-256, checked on every use; both or neither.
    sdist = c.Optional(c.Type(str))
    sdist_sha256 = c.Optional(c.Type(str))


class _Announced(base.Config):
    number = c.Type(int)
    title = c.Optional(c.Type(str))


class _Experiments(base.Config):
    timeout = c.Type((int, float), default=120)
    output_cap = c.Type(int, default=1024 * 1024)


class SeriesSchema(base.Config):
    name = c.Type(str)
    baseline = c.SubConfig(_Baseline)
    announced = c.ListOfItems(c.SubConfig(_Announced), default=[])
    git_remote = c.Type(str, default="https://github.com/{repo}.git")
    lock_file = c.Type(str, default="sources.lock.json")
    cache_dir = c.Type(str, default=".cache")
    experiments = c.SubConfig(_Experiments)


@dataclass(frozen=True)
class Baseline:
    repo: str
    commit: str
    version: str
    sdist: str | None
    sdist_sha256: str | None


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


class SeriesConfigError(ValueError):
    pass


def series_from_extra(extra_series: dict | None, root: Path) -> Series:
    """Validate the `extra.series` mapping; raise SeriesConfigError listing every problem."""
    if not isinstance(extra_series, (dict, type(None))):
        raise SeriesConfigError(f"mkdocs.yml: extra.series must be a mapping of settings, not {type(extra_series).__name__}")
    schema = SeriesSchema(config_file_path=str(root / "mkdocs.yml"))
    schema.load_dict(extra_series or {})
    errors, _warnings = schema.validate()
    problems = [f"extra.series.{key}: {err}" for key, err in errors]
    if not problems:
        problems = (_check_baseline(schema.baseline) + _check_experiments(schema.experiments)
                    + _check_announced(schema.announced))
    if problems:
        raise SeriesConfigError("mkdocs.yml: " + "; ".join(problems))
    return Series(
        name=schema.name,
        baseline=Baseline(**{k: schema.baseline[k] for k in ("repo", "commit", "version", "sdist", "sdist_sha256")}),
        announced={item.number: item.title for item in schema.announced},
        git_remote=schema.git_remote,
        root=root,
        lock_file=root / schema.lock_file,
        cache_dir=root / schema.cache_dir,
        experiment_timeout=float(schema.experiments.timeout),
        output_cap=schema.experiments.output_cap,
    )


def _check_baseline(baseline) -> list[str]:
    problems = []
    if not SHA_RE.match(baseline.commit):
        problems.append(f"extra.series.baseline.commit: {baseline.commit!r} is not a full 40-hex commit SHA")
    if not valid_repo(baseline.repo):
        problems.append(f"extra.series.baseline.repo: {baseline.repo!r} is not owner/name")
    if bool(baseline.sdist) != bool(baseline.sdist_sha256):
        problems.append("extra.series.baseline: sdist and sdist_sha256 go together (the archive is checked against its SHA-256)")
    elif baseline.sdist_sha256 and not SHA256_RE.match(baseline.sdist_sha256):
        problems.append(f"extra.series.baseline.sdist_sha256: {baseline.sdist_sha256!r} is not a 64-hex SHA-256")
    return problems


def _check_announced(announced) -> list[str]:
    """Announced titles are printed in every post's series navigation: plain text, naming no marker."""
    return [f"extra.series.announced: the title {item.title!r} of number {item.number} holds markup characters "
            "(<, > or &) or names a block marker"
            for item in announced if item.title and (set(item.title) & set("<>&") or re.search(MARKER, skeleton(item.title), re.I))]


def _check_experiments(experiments) -> list[str]:
    problems = []
    if not 0 < experiments.timeout <= MAX_TIMEOUT:  # also refuses nan and inf, which would never time out
        problems.append(f"extra.series.experiments.timeout: {experiments.timeout!r} is not a number of seconds "
                        f"between 0 and {MAX_TIMEOUT}")
    if not 0 < experiments.output_cap:
        problems.append(f"extra.series.experiments.output_cap: {experiments.output_cap!r} is not a positive number of bytes")
    return problems


class _LenientLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without importing the Python objects its `!!python/...` tags name."""


_LenientLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def load_series(mkdocs_yml: Path) -> Series:
    """For the command line: read extra.series straight from mkdocs.yml, without MkDocs' build."""
    try:
        data = yaml.load(mkdocs_yml.read_bytes().decode("utf-8"), Loader=_LenientLoader) or {}
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise SeriesConfigError(f"{mkdocs_yml.name}: cannot be read as YAML: {error}") from None
    if not isinstance(data, dict):
        raise SeriesConfigError(f"{mkdocs_yml.name}: must be a mapping of settings, not {type(data).__name__}")
    extra = data.get("extra")
    if not isinstance(extra or {}, dict):
        raise SeriesConfigError(f"{mkdocs_yml.name}: extra must be a mapping, not {type(extra).__name__}")
    return series_from_extra((extra or {}).get("series"), mkdocs_yml.resolve().parent)
