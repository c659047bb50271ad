"""The matrix (extra.series.experiments.matrix): experiments run again in other environments, each made from its
hashed lock with uv, and each [OUTPUT] given a verdict there. One small extra environment, numpy 1.26.4 and autograd
1.9.1 on Python 3.11 (the Python every machine that runs the suite has: tests/matrix/), is made once for the whole
run."""

from __future__ import annotations

import dataclasses
import re
import shutil
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from codeproof.engine import Engine
from codeproof.common.filesystem import shown_path
from codeproof.experiments.matrix import (LOCK_HINT, MatrixError, find_python, hashes_digest, make, matrix_problem,
                                          read_lock, uv_command, uv_refusal)
from codeproof.experiments.runner import ExperimentRunner
from codeproof.matrix import DIFFERS, FAILS, SAME, WITHIN, run_matrix, table
from codeproof.series.blocks import parse_post, read_post
from codeproof.series.config import SeriesConfigError, load_series, series_from_extra
from conftest import ROOT, once_per_run
from codeproof.site.addresses import matrix_lock_url
from fixture_site import make_site, report

LOCK = ROOT / "tests" / "matrix" / "python3.11-numpy1.26.lock"
PINS = ["numpy==1.26.4", "autograd==1.9.1"]
BASELINE = {"repo": "HIPS/autograd", "commit": "0" * 40, "version": metadata.version("autograd"),
            "sdist": "autograd==1.9.1", "sdist_sha256": "7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc"}
# Three scripts: one prints the same everywhere, one prints numpy's scalar as numpy 2 does (numpy 1.26 prints 1.0),
# one fails on numpy 1.26 (np.trapezoid is numpy 2's). Their outputs are recorded as the build's environment prints.
SCRIPTS = {"experiments/same.py": ("print(sum(range(4)))\n", "6"),
           "experiments/scalar.py": ("import numpy as np\nprint(repr(np.float64(1.0)))\n", "np.float64(1.0)"),
           "experiments/newer.py": ("import numpy as np\nprint(np.trapezoid([1.0, 2.0]))\n", "1.5")}


def lock_record(lock_text: str) -> dict[str, str]:
    """What ./dev.sh lock-requirements records in mkdocs.yml of a lock (`locked`): each pin, with the SHA-256 of its
    hashes."""
    return {pin: hashes_digest(re.findall(r"sha256:([0-9a-f]{64})", hashes))
            for pin, hashes in re.findall(r"^(\S+==\S+) \\\n((?:[ \t]+--hash=\S+(?: \\)?\n?)+)", lock_text, re.M)}


LOCKED = lock_record(LOCK.read_text())


def series_with_matrix(root: Path, strict: bool = False, lock: Path = LOCK, locked: dict | None = None,
                       pins: list[str] = PINS):
    (root / "experiments").mkdir(parents=True, exist_ok=True)
    shutil.copy(lock, root / "env.lock")
    return series_from_extra({"name": "Test series", "baseline": BASELINE, "experiments": {"matrix": {
        "strict": strict, "environments": [{"python": "3.11", "packages": pins, "lock": "env.lock",
                                            "locked": LOCKED if locked is None else locked}]}}},
        root / "mkdocs.yml")


def refusal(environment, root: Path) -> str:
    """Why the environment's lock is refused, as the build says it (at the lock's line or the environment's)."""
    with pytest.raises(MatrixError) as raised:
        read_lock(environment)
    return str(matrix_problem(raised.value, root, "mkdocs.yml", environment.line)).split("\n  hint: ")[0]


@pytest.fixture(scope="session")
def environments(tmp_path_factory) -> Path:
    """A user cache holding the test environment, made once for the run."""
    assert uv_command(), "the matrix needs uv: run the tests through ./dev.sh test, which provides it"
    return once_per_run(tmp_path_factory, "matrix-environments",
                        lambda folder: make(series_with_matrix(folder / "root").matrix.environments[0], folder))


def post_of(script: str, recorded: str) -> str:
    return f"# A post\n\nProse.\n\n[OUTPUT]\nFile: {script}\n\n```text\n{recorded}\n```\n"


def verdicts(root: Path, environments: Path, scripts: dict[str, str] | None = None, bodies: list[str] | None = None):
    """The matrix's verdicts on posts of `bodies` (by default, an [OUTPUT] of each of SCRIPTS) quoting `scripts`."""
    series = dataclasses.replace(series_with_matrix(root), cache_dir=environments)
    if scripts is None:
        scripts = {script: text for script, (text, _) in SCRIPTS.items()}
        bodies = [post_of(script, recorded) for script, (_, recorded) in SCRIPTS.items()]
    for script, text in scripts.items():
        (root / script).write_text(text, encoding="utf-8")
    posts = [parse_post(f"docs/posts/p{i}.md", body) for i, body in enumerate(bodies)]
    runner = ExperimentRunner(root, root / ".state", 60, 1 << 20, use_cache=False, key_file=root / ".state" / "key")
    engine = Engine(series, runner=runner)
    engine.start_experiments(posts)
    built = {id(block): engine.check(block) for post in posts for block in post.blocks}
    runner.finish()
    assert all(checked.problem is None for checked in built.values())  # the build's own environment agrees
    return run_matrix(engine, posts, built, "mkdocs.yml")


def test_an_environment_is_configured_by_its_python_its_pins_and_its_lock(tmp_path):
    (environment,) = series_with_matrix(tmp_path).matrix.environments
    assert (environment.python, environment.packages, environment.lock, environment.name) == (
        "3.11", tuple(PINS), tmp_path / "env.lock", "Python 3.11 + numpy 1.26.4 + autograd 1.9.1")


def test_a_python_that_is_no_version_fails_at_its_line(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("extra:\n  series:\n    experiments:\n      matrix:\n        environments:\n"
                                         "          - python: three\n")
    with pytest.raises(SeriesConfigError) as raised:
        series_from_extra({"name": "T", "baseline": BASELINE, "experiments": {"matrix": {"environments": [
            {"python": "three", "packages": PINS, "lock": "env.lock"}]}}}, tmp_path / "mkdocs.yml")
    (problem,) = [p for p in raised.value.problems if "python" in p.message]
    assert (problem.line, problem.message) == (6, "extra.series.experiments.matrix.environments[0].python: 'three' is "
                                                  "not a Python version such as 3.12")


NAME = "matrix environment Python 3.11 + numpy 1.26.4 + autograd 1.9.1"
NUMPY_LINE = 1 + LOCK.read_text().splitlines().index("numpy==1.26.4 \\")


def test_the_fixture_lock_holds_its_pins_as_mkdocs_yml_records_them(tmp_path):
    (environment,) = series_with_matrix(tmp_path).matrix.environments
    lock = read_lock(environment)
    assert [(pin.pin, pin.line, len(pin.hashes)) for pin in lock.pins] == [("autograd==1.9.1", 3, 2),
                                                                           ("numpy==1.26.4", NUMPY_LINE, 36)]
    assert lock.data == LOCK.read_bytes()


@pytest.mark.kills("matrix_lock")  # tests/mutations.py
def test_a_pin_the_lock_adds_is_refused_at_its_line_before_anything_is_made(tmp_path):
    """Issue 50: one extra pin with its hash (a wheel holding a .pth) passed, was installed and ran on the host."""
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text(LOCK.read_text() + "evil==1.0 \\\n    --hash=sha256:" + "a" * 64 + "\n")
    line = len(LOCK.read_text().splitlines()) + 1
    assert refusal(environment, root) == (
        f"env.lock:{line}: {NAME}: its lock env.lock pins evil==1.0, which is not among what the environment's pins "
        "resolved to (`locked` in mkdocs.yml)")
    with pytest.raises(MatrixError):
        make(environment, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_a_pin_the_lock_lacks_is_refused(tmp_path):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text("".join(LOCK.read_text().splitlines(True)[:NUMPY_LINE - 1]).rstrip(" \\\n") + "\n")
    assert refusal(environment, root) == (f"env.lock:1: {NAME}: its lock env.lock does not hold numpy==1.26.4, which "
                                          "its pins resolved to (`locked` in mkdocs.yml)")


def test_another_version_of_a_pin_is_refused_at_its_line_naming_the_one_locked(tmp_path):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text(LOCK.read_text().replace("numpy==1.26.4", "numpy==1.26.3"))
    assert refusal(environment, root) == (
        f"env.lock:{NUMPY_LINE}: {NAME}: its lock env.lock pins numpy==1.26.3, which is not among what the "
        "environment's pins resolved to (`locked` in mkdocs.yml: numpy==1.26.4)")


@pytest.mark.parametrize("change", ["changed", "added", "removed"])
def test_a_pins_hashes_other_than_those_it_was_locked_with_are_refused_at_its_line(tmp_path, change):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    text = LOCK.read_text()
    first = re.search(r"--hash=sha256:([0-9a-f]{64})", text.split("numpy==", 1)[1])[1]
    text = {"changed": text.replace(first, "0" * 64),
            "added": text.replace(f"sha256:{first}", f"sha256:{'0' * 64} \\\n    --hash=sha256:{first}"),
            "removed": text.replace(f"    --hash=sha256:{first} \\\n", "")}[change]
    (root / "env.lock").write_text(text)
    hashes = re.findall(r"[0-9a-f]{64}", text.split("numpy==", 1)[1])
    assert refusal(environment, root) == (
        f"env.lock:{NUMPY_LINE}: {NAME}: its lock env.lock gives numpy==1.26.4 other hashes than it was locked with "
        f"(their SHA-256 is {hashes_digest(hashes)[:16]}…; `locked` in mkdocs.yml records "
        f"{LOCKED['numpy==1.26.4'][:16]}…)")


def test_a_pin_given_twice_is_refused_at_its_second_line(tmp_path):
    """Before, uv kept the second's hashes and dropped the first's without a word."""
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    text = LOCK.read_text()
    (root / "env.lock").write_text(text + "NumPy==1.26.4 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    line = len(text.splitlines()) + 1
    assert refusal(environment, root) == (f"env.lock:{line}: {NAME}: its lock env.lock pins NumPy==1.26.4 twice "
                                          f"(first at line {NUMPY_LINE})")


@pytest.mark.parametrize("text, line, why", [
    ("autograd==1.9.1 \\\n# a comment\n    --hash=sha256:" + "a" * 64 + "\n", 2,
     "holds what is no pin, hash or comment: '# a comment'"),
    ("autograd==1.9.1 \\\n", 1, "ends in the middle of a pin"),
    ("autograd==1.9.1\n", 1, "holds what is no pin, hash or comment: 'autograd==1.9.1'"),
    ("    --hash=sha256:" + "a" * 64 + "\n", 1, "holds what is no pin, hash or comment: '    --hash=sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"),
    ("autograd==1.9.1 \\\r\n    --hash=sha256:" + "a" * 64 + "\r\n", 1,
     "holds what is no pin, hash or comment: 'autograd==1.9.1 \\\\\\r'"),
])
def test_a_lock_is_read_as_pins_each_with_its_hashes_and_comments_and_nothing_else(tmp_path, text, line, why):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text(text, newline="")
    assert refusal(environment, root) == f"env.lock:{line}: {NAME}: its lock env.lock {why}"


def test_an_environment_whose_locked_set_mkdocs_yml_does_not_record_is_refused_at_its_line(tmp_path):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root, locked={}).matrix.environments
    assert refusal(environment, root) == (
        f"mkdocs.yml:{environment.line}: {NAME}: mkdocs.yml records no `locked` set for it (what its pins resolved to, "
        "each with the SHA-256 of its hashes), so its lock cannot be held to one")


def test_a_locked_set_that_does_not_hold_a_pin_of_the_environment_is_refused(tmp_path):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root, pins=[*PINS, "scipy==1.14.1"]).matrix.environments
    assert refusal(environment, root) == (f"mkdocs.yml:{environment.line}: matrix environment Python 3.11 + numpy 1.26.4 "
                                          "+ autograd 1.9.1 + scipy 1.14.1: its `locked` set in mkdocs.yml does not hold "
                                          "scipy==1.14.1, which it pins")


def test_a_locked_set_that_is_not_pins_and_digests_is_refused_by_the_schema(tmp_path):
    with pytest.raises(SeriesConfigError) as raised:
        series_with_matrix(tmp_path, locked={"numpy": "x"})
    assert [p.message for p in raised.value.problems] == [
        "extra.series.experiments.matrix.environments[0].locked: {'numpy': 'x'} is not a mapping of each pin its lock "
        "holds to the SHA-256 of that pin's hashes, as ./dev.sh lock-requirements writes it"]


def test_a_lock_that_is_a_link_is_refused_and_never_read(tmp_path):
    """A committed link in a lock's place could have the build read, and publish beside the archive, any file of
    the machine."""
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    host = tmp_path / "host.txt"
    host.write_text(LOCK.read_text())  # even a valid lock, when it is reached through a link
    (root / "env.lock").unlink()
    (root / "env.lock").symlink_to(host)
    assert refusal(environment, root) == f"mkdocs.yml:{environment.line}: {NAME}: its lock env.lock is missing or a link"


@pytest.mark.parametrize("comment, why", [
    ("# \u2713 \u8f93\u51fa\u5df2\u9a8c\u8bc1", "holds a byte that is not ASCII (0xe2)"),
    ("# \u202e", "holds a byte that is not ASCII (0xe2)"),
    ("# \x1b[2J", "holds what is no pin, hash or comment: '# \\x1b[2J'"),
    ("# [OUTPUT]", "shows a block marker"),
])
def test_a_lock_is_published_only_with_ascii_comments(tmp_path, comment, why):
    """Review of round five: a lock is published as it is, beside the archive; a comment held a stamp, a bidi
    control, an escape sequence."""
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text(LOCK.read_text() + comment + "\n", encoding="utf-8")
    n = len(LOCK.read_text().splitlines()) + 1
    assert refusal(environment, root) == f"env.lock:{n}: {NAME}: its lock env.lock {why}"


def test_a_lock_in_a_folder_that_is_a_link_is_refused(tmp_path):
    root = tmp_path / "root"
    series = series_from_extra({"name": "Test series", "baseline": BASELINE, "experiments": {"matrix": {
        "environments": [{"python": "3.11", "packages": PINS, "lock": "linked/env.lock", "locked": LOCKED}]}}},
        root / "mkdocs.yml")
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(LOCK, tmp_path / "elsewhere" / "env.lock")
    root.mkdir(exist_ok=True)
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    environment = series.matrix.environments[0]
    assert refusal(environment, root) == f"mkdocs.yml:{environment.line}: {NAME}: its lock env.lock is missing or a link"


@pytest.mark.parametrize("line", ["--extra-index-url https://example.org/simple", "-e git+https://example.org/x.git",
                                  "--find-links /tmp", "evil @ https://example.org/evil.tar.gz"])
def test_a_lock_holding_anything_but_pins_hashes_and_comments_is_refused_before_uv_reads_it(tmp_path, line):
    root = tmp_path / "root"
    (environment,) = series_with_matrix(root).matrix.environments
    (root / "env.lock").write_text(LOCK.read_text() + line + "\n")
    number = len(LOCK.read_text().splitlines()) + 1
    assert refusal(environment, root) == (f"env.lock:{number}: {NAME}: its lock env.lock holds what is no pin, hash or "
                                          f"comment: {line!r}")


@pytest.mark.slow  # asks uv (PyPI or its cache)
def test_a_lock_recorded_with_only_a_source_archives_hash_is_refused_by_uv_in_the_engines_words(tmp_path):
    """Issue 50: the only message was uv's last line (`uv could not make it: sha256:b788…`)."""
    root = tmp_path / "root"
    text = LOCK.read_text().replace("    --hash=sha256:7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc \\\n", "")
    text = text.replace("--hash=sha256:b788bae3fa010cbffb4cfb7b8ba2a3f0daa6072a8506da6164c779fe9cf3e05a",
                        "--hash=sha256:7818c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc")
    (tmp_path / "sdist-only.lock").write_text(text)
    (environment,) = series_with_matrix(root, lock=tmp_path / "sdist-only.lock", locked=lock_record(text)).matrix.environments
    with pytest.raises(MatrixError) as raised:
        make(environment, tmp_path / "cache")
    assert (str(raised.value), raised.value.hint) == (
        f"{NAME}: autograd==1.9.1: the file uv would install here has SHA-256 "
        "b788bae3fa010cbffb4cfb7b8ba2a3f0daa6072a8506da6164c779fe9cf3e05a, which the lock does not list (a lock that "
        "lists only a source archive's hash installs nothing: no archive is built)",
        "write the lock again (./dev.sh lock-requirements): it lists every file of each pin, wheels included")
    assert not list((tmp_path / "cache" / "matrix").iterdir())  # nothing half made is left


UV_SAID = {  # what uv 0.13.8 said, word for word, when it refused a lock
    "hash": ("Using Python 3.11.7 environment at: env\nResolved 1 package in 390ms\nerror: Failed to download "
             "`autograd==1.9.1`\n  cause: Hash mismatch for `autograd==1.9.1`\n\n         Expected:\n           "
             "sha256:0000c5c69ddf9efb7da74097bd741a4c7920133f41966f68537223a15ef798bc\n\n         Computed:\n"
             "           sha256:b788bae3fa010cbffb4cfb7b8ba2a3f0daa6072a8506da6164c779fe9cf3e05a\n"),
    "wheels": ("Using Python 3.13.0 environment at: env13\nerror: No solution found when resolving dependencies\n  cause: "
               "Because numpy==1.26.4 has no usable wheels and you require numpy==1.26.4, we can conclude that your "
               "requirements are unsatisfiable.\n\nhint: Wheels are required for `numpy` because building from "
               "source is disabled for all packages (i.e., with `--no-build`)\n"),
    "other": "error: something uv has never said\n  last line\n",
}


@pytest.mark.parametrize("said, message, hint", [
    ("hash", "autograd==1.9.1: the file uv would install here has SHA-256 b788bae3fa010cbffb4cfb7b8ba2a3f0daa6072a8506da61"
             "64c779fe9cf3e05a, which the lock does not list (a lock that lists only a source archive's hash installs "
             "nothing: no archive is built)",
     "write the lock again (./dev.sh lock-requirements): it lists every file of each pin, wheels included"),
    ("wheels", "numpy==1.26.4 has no wheel for Python 3.11 on this platform, and nothing is built from a source archive",
     "pin a release of it that publishes wheels for Python 3.11 in mkdocs.yml, then ./dev.sh lock-requirements"),
    ("other", "uv could not make it: last line", f"the lock env.lock may be changed by hand: {LOCK_HINT}"),
])
def test_uvs_refusals_are_said_in_the_engines_words(tmp_path, said, message, hint):
    (environment,) = series_with_matrix(tmp_path).matrix.environments
    assert uv_refusal(UV_SAID[said], environment) == (message, hint)


@pytest.mark.slow  # makes an environment (uv: PyPI or its cache)
def test_the_environment_is_made_once_and_runs_its_own_python_and_numpy(environments, tmp_path):
    (environment,) = series_with_matrix(tmp_path).matrix.environments
    interpreter = make(environment, environments)  # made already: found, not made again
    assert (interpreter.versions["python"].rsplit(".", 1)[0], interpreter.versions["numpy"]) == ("3.11", "1.26.4")
    assert str(environments) in interpreter.executable and not interpreter.executable.startswith(str(ROOT))


@pytest.mark.slow  # makes an environment (uv: PyPI or its cache)
def test_each_output_gets_its_verdict_in_each_environment_at_its_line(environments, tmp_path):
    found, problems = verdicts(tmp_path / "site", environments)
    assert problems == []
    assert [(v.block.fields["File"], v.said, v.environment.startswith("Python 3.11.") and v.environment.endswith(
        " + numpy 1.26.4")) for v in found] == [("experiments/same.py", SAME, True), ("experiments/scalar.py", DIFFERS, True),
                                                ("experiments/newer.py", FAILS, True)]
    same, scalar, newer = found
    assert same.problem is None
    assert (scalar.problem.post, scalar.problem.line) == ("docs/posts/p1.md", 5)
    assert scalar.problem.message == (f"OUTPUT experiments/scalar.py: differs in {scalar.environment}: output "
                                      "differs from the recorded output (first difference at docs/posts/p1.md:9)")
    assert "+1.0" in scalar.problem.detail and "-np.float64(1.0)" in scalar.problem.detail
    assert newer.problem.message.startswith(f"OUTPUT experiments/newer.py: fails in {newer.environment}: ")
    assert "AttributeError" in newer.problem.message + (newer.problem.detail or "")


SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
       '<text x="1" y="20">{}</text></svg>')
DRAW = ("import os\nimport numpy as np\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'f.svg'), 'w')"
        ".write({!r}.format({}))\n")


@pytest.mark.slow  # runs in the environment made for the run
def test_a_figure_is_compared_with_the_builds_and_a_number_within_its_tolerance_is_said_so(environments, tmp_path):
    scripts = {"experiments/near.py": "print(1.0000001)\n",
               "experiments/fixed.py": DRAW.format(SVG, "'a line'"),
               "experiments/versioned.py": DRAW.format(SVG, "'numpy ' + np.__version__.split('.')[0]")}
    bodies = ["# A\n\nProse.\n\n[OUTPUT]\nFile: experiments/near.py\nTolerance: 1e-3\n\n```text\n1.0\n```\n",
              *(f"# A\n\nProse.\n\n[FIGURE]\nFile: experiments/{name}.py\nFigure: f.svg\nAlt: a\n" for name in ("fixed", "versioned"))]
    found, problems = verdicts(tmp_path / "site", environments, scripts, bodies)
    assert problems == [] and [(v.block.fields["File"], v.said) for v in found] == [
        ("experiments/near.py", WITHIN), ("experiments/fixed.py", SAME), ("experiments/versioned.py", DIFFERS)]
    assert found[2].problem.message == (f"FIGURE experiments/versioned.py: differs in {found[2].environment}: it draws "
                                        "another figure than the build's run")


def test_a_missing_interpreter_is_a_problem_at_the_environments_line(tmp_path, monkeypatch):
    root = tmp_path / "root"
    series = series_with_matrix(root)
    environment = dataclasses.replace(series.matrix.environments[0], python="3.99")
    series = dataclasses.replace(series, matrix=dataclasses.replace(series.matrix, environments=(environment,)))
    engine = Engine(series, runner=ExperimentRunner(root, root / ".state", 60, 1 << 20, key_file=root / "key"))
    found, problems = run_matrix(engine, [], {}, "mkdocs.yml")
    engine.runner.finish()
    assert found == [] and [(p.post, p.message) for p in problems] == [
        ("mkdocs.yml", "matrix environment Python 3.99 + numpy 1.26.4 + autograd 1.9.1: no Python 3.99 on this machine")]
    assert problems[0].hint.startswith("install Python 3.99")


@pytest.mark.slow  # makes an environment (uv: PyPI or its cache)
def test_check_matrix_prints_the_verdicts_and_fails_only_when_strict(environments, tmp_path, monkeypatch, capsys):
    from codeproof.__main__ import main

    for strict in (False, True):
        root = tmp_path / f"site-{strict}"
        series_with_matrix(root, strict)
        (root / "docs" / "posts").mkdir(parents=True)
        (root / "mkdocs.yml").write_text(textwrap.dedent(f"""\
            site_name: T
            extra:
              series:
                name: T
                baseline: {{repo: HIPS/autograd, commit: "{'0' * 40}", version: "{BASELINE['version']}"}}
                experiments:
                  matrix:
                    strict: {str(strict).lower()}
                    environments:
                      - {{python: "3.11", packages: [numpy==1.26.4, autograd==1.9.1], lock: env.lock, locked: {LOCKED}}}
            """))
        script, (text, recorded) = "experiments/scalar.py", SCRIPTS["experiments/scalar.py"]
        (root / script).write_text(text)
        (root / "docs" / "posts" / "p.md").write_text("---\ntitle: T\nseries: 1\ndate: 2026-01-01\n---\n" + post_of(script, recorded))
        monkeypatch.setattr("codeproof.matrix.make", lambda environment, cache_dir: make(environment, environments))
        status = main(["check", "--matrix", "--config", str(root / "mkdocs.yml")])
        out, err = capsys.readouterr()
        assert out.startswith("docs/posts/p.md:10: OUTPUT experiments/scalar.py: Python 3.11."), out
        assert out.rstrip().endswith(" + numpy 1.26.4: differs")
        assert status == (1 if strict else 0), err
        assert "docs/posts/p.md:10: OUTPUT experiments/scalar.py: differs in Python 3.11." in err
        assert ("strict: true makes them fail" in err) == (not strict)


def test_each_environment_of_the_series_has_a_lock_that_holds_its_pins():
    """As requirements.lock is held to requirements.txt: a pin changed without ./dev.sh lock-requirements fails."""
    from codeproof.series.config import load_series

    environments = load_series(ROOT / "mkdocs.yml").matrix.environments
    assert environments, "the series' matrix lists no environment"
    assert {environment.name: [pin.pin for pin in read_lock(environment).pins] for environment in environments} == \
        {environment.name: [pin for pin, _ in environment.locked] for environment in environments}



def site_with_matrix(tmp_path: Path, environments: Path, monkeypatch):
    """The fixture site (Material), whose post also records what scalar.py prints on numpy 2, with the test
    environment as its matrix (made already, for the run)."""
    site = make_site(tmp_path, material=True)
    script, (text, recorded) = "experiments/scalar.py", SCRIPTS["experiments/scalar.py"]
    (site.root / script).write_text(text, encoding="utf-8")
    site.edit("The end.", f"And numpy's scalar:\n\n[OUTPUT]\nFile: {script}\n\n```text\n{recorded}\n```\n\nThe end.")
    shutil.copy(LOCK, site.root / "env.lock")
    data = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    data["extra"]["series"]["experiments"] = {"matrix": {"environments": [
        {"python": "3.11", "packages": PINS, "lock": "env.lock", "locked": LOCKED}]}}
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    monkeypatch.setattr("codeproof.matrix.make", lambda environment, cache_dir: make(environment, environments))
    return site


def stamps(page: Path) -> list[str]:
    return re.findall(r"✓ 输出已验证[^<]*", page.read_text(encoding="utf-8"))


@pytest.mark.slow  # runs in the environment made for the run
def test_a_build_with_the_matrix_says_where_each_output_holds_on_its_stamp_and_each_verdict_on_its_scripts_page(
        environments, tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, environments, monkeypatch)
    monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    built, log = site.build()
    assert built is not None, log
    show, scalar = stamps(built / "posts" / "p" / "index.html")
    elsewhere = re.search(r" · 另在 (Python 3\.11\.\d+ \+ numpy 1\.26\.4) 上一致$", show)
    assert elsewhere, show
    assert "另在" not in scalar  # numpy 1.26.4 prints 1.0
    show_page = (built / "experiments" / "show" / "index.html").read_text(encoding="utf-8")
    assert re.search(rf"<li>[^<]*OUTPUT（第 \d+ 行）<ul><li>{re.escape(elsewhere[1])}：一致</li></ul></li>", show_page)
    scalar_page = (built / "experiments" / "scalar" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<li>Python 3\.11\.\d+ \+ numpy 1\.26\.4：不同</li>", scalar_page)
    assert "-np.float64(1.0)" in scalar_page and "+1.0" in scalar_page  # the diff, escaped


@pytest.mark.slow  # runs in the environment made for the run
def test_a_build_with_the_matrix_checks_each_block_once_in_each_environment(environments, tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, environments, monkeypatch)
    checks: dict[tuple[int, str, int], int] = {}  # (engine, post, line) -> times checked
    real_check = Engine.check

    def counted(self, block):
        key = (id(self), block.post, block.line)
        checks[key] = checks.get(key, 0) + 1
        return real_check(self, block)

    monkeypatch.setattr(Engine, "check", counted)
    monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    built, log = site.build()
    assert built is not None, log
    engines = {engine for engine, _, _ in checks}
    assert len(engines) == 2, checks  # the build's, and the matrix environment's
    assert set(checks.values()) == {1}, checks


# A face, written escaped (the script's text passes), that the script shows only under numpy 1.x: in its error, or
# as the last output of a run that times out (review of round five: the script page published it).
FACE = r"\x5bOUTPUT]\n\u2713 \u8f93\u51fa\u5df2\u9a8c\u8bc1 \u00b7 Python 3.13"
FACE_ON_NUMPY_1 = {
    "error": f"import sys, numpy as np\nif np.__version__.startswith('1.'):\n    sys.stderr.write('{FACE}\\n')\n"
             "    sys.exit(1)\nprint(repr(np.float64(1.0)))\n",
    "timeout": f"import time, numpy as np\nif np.__version__.startswith('1.'):\n    print('{FACE}', flush=True)\n"
               "    time.sleep(1000)\nprint(repr(np.float64(1.0)))\n"}


@pytest.mark.slow  # runs in the environment made for the run
@pytest.mark.parametrize("how", sorted(FACE_ON_NUMPY_1))
def test_a_difference_that_would_pass_for_a_card_is_withheld_from_the_script_page(environments, tmp_path, monkeypatch,
                                                                                  how):
    site = site_with_matrix(tmp_path, environments, monkeypatch)
    data = yaml.safe_load((site.root / "mkdocs.yml").read_text(encoding="utf-8"))
    data["extra"]["series"]["experiments"]["timeout"] = 5
    (site.root / "mkdocs.yml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    (site.root / "experiments" / "scalar.py").write_text(FACE_ON_NUMPY_1[how], encoding="utf-8")
    monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    built, log = site.build()
    assert built is not None, log
    page = (built / "experiments" / "scalar" / "index.html").read_text(encoding="utf-8")
    assert "输出已验证" not in page and "[OUTPUT]" not in page
    assert "（这段差异中有看似卡片标记或验证戳的文字，页面不显示它；请看构建日志）" in page
    assert re.search(r"<li>Python 3\.11\.\d+ \+ numpy 1\.26\.4：运行失败</li>", page)


@pytest.mark.slow  # runs in the environment made for the run
def test_under_strict_a_difference_fails_the_build_at_its_line(environments, tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, environments, monkeypatch)
    config = site.root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("matrix:\n", "matrix:\n        strict: true\n"),
                      encoding="utf-8")
    monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    built, log = site.build()
    assert built is None
    assert re.search(r"^docs/posts/p\.md:\d+: OUTPUT experiments/scalar\.py: differs in Python 3\.11\.\d+ \+ numpy "
                     r"1\.26\.4: output differs from the recorded output \(first difference at docs/posts/p\.md:\d+\)$", log, re.M), log


@pytest.mark.parametrize("command, asked", [("build", False), ("serve", True)])
def test_without_the_matrix_the_stamps_name_only_the_builds_environment_and_the_script_page_says_so(
        tmp_path, monkeypatch, command, asked):
    site = site_with_matrix(tmp_path, tmp_path / "no-environments", monkeypatch)
    monkeypatch.setattr("codeproof.matrix.make", lambda environment, cache_dir: pytest.fail("the matrix ran"))
    if asked:  # serve never runs it, asked or not
        monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    else:
        monkeypatch.delenv("CODEPROOF_MATRIX", raising=False)
    built, log = site.build(command)
    assert built is not None, log
    found = stamps(built / "posts" / "p" / "index.html")
    assert len(found) == 2 and not any("另在" in stamp for stamp in found)
    assert "本次构建没有在环境矩阵中运行它" in (built / "experiments" / "show" / "index.html").read_text(encoding="utf-8")


MATRIX_OVERVIEW = "# Fixture series\n\n<!-- experiment-environment -->\n\n<!-- series-experiments -->\n"


def overview_rows(built: Path) -> dict[str, list[str]]:
    """The overview's table rows, by their first cell's text: each row's cells' text."""
    html = (built / "index.html").read_text(encoding="utf-8")
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


@pytest.mark.slow  # runs in the environment made for the run
def test_the_overview_lists_each_environment_with_its_published_lock_and_how_many_gave_each_scripts_output(
        environments, tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, environments, monkeypatch)
    (site.root / "docs" / "index.md").write_text(MATRIX_OVERVIEW, encoding="utf-8")
    monkeypatch.setenv("CODEPROOF_MATRIX", "1")
    built, log = site.build()
    assert built is not None, log
    rows = overview_rows(built)
    assert rows["Python 3.11 + numpy 1.26.4 + autograd 1.9.1"] == ["env.lock.txt"]
    assert '<a href="downloads/env.lock.txt">env.lock.txt</a>' in (built / "index.html").read_text(encoding="utf-8")
    assert (built / "downloads" / "env.lock.txt").read_bytes() == LOCK.read_bytes()
    assert rows["show.py"][-1] == "1 个环境中一致"
    assert rows["scalar.py"][-1] == "1 个环境不同"  # numpy 1.26.4 prints 1.0
    assert "本次构建运行了环境矩阵" in (built / "index.html").read_text(encoding="utf-8")


def test_without_the_matrix_the_overview_says_it_did_not_run(tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, tmp_path / "no-environments", monkeypatch)
    (site.root / "docs" / "index.md").write_text(MATRIX_OVERVIEW, encoding="utf-8")
    monkeypatch.delenv("CODEPROOF_MATRIX", raising=False)
    built, log = site.build()
    assert built is not None, log
    rows = overview_rows(built)
    assert rows["show.py"][-1] == rows["scalar.py"][-1] == "本次构建未运行"
    assert "本次构建没有运行环境矩阵。" in (built / "index.html").read_text(encoding="utf-8")
    assert (built / "downloads" / "env.lock.txt").read_bytes() == LOCK.read_bytes()  # published all the same


def test_a_lock_that_is_not_what_its_pins_resolved_to_fails_the_build_at_its_line_and_is_not_published(
        tmp_path, monkeypatch):
    site = site_with_matrix(tmp_path, tmp_path / "no-environments", monkeypatch)
    lock = site.root / "env.lock"
    lock.write_text(lock.read_text(encoding="utf-8").replace("numpy==1.26.4", "numpy==1.26.3"), encoding="utf-8")
    monkeypatch.delenv("CODEPROOF_MATRIX", raising=False)
    built, log = site.build()
    assert built is None
    assert report(log) == (
        f"1 problem:\n\nenv.lock:{NUMPY_LINE}: matrix environment Python 3.11 + numpy 1.26.4 + autograd 1.9.1: its lock "
        "env.lock pins numpy==1.26.3, which is not among what the environment's pins resolved to (`locked` in "
        "mkdocs.yml: numpy==1.26.4)\n  hint: run ./dev.sh lock-requirements, which writes each environment's lock "
        "from its pins, and commit it")


@pytest.mark.parametrize("name, url", [("python3.12.lock", "downloads/python3.12.lock.txt"),
                                       ("x.html", "downloads/x.html.txt"), ("reqs.txt", "downloads/reqs.txt"),
                                       ("../..évil name.svg", "downloads/_.._vil_name.svg.txt")])
def test_a_lock_is_published_under_a_name_a_browser_shows_as_text(name, url):
    assert matrix_lock_url(name) == url


@pytest.mark.real_site
def test_every_environment_of_the_real_series_is_had_and_gives_each_experiments_block_a_verdict(tmp_path, capsys):
    """The series' own matrix on its posts, as `./dev.sh build --matrix` runs it: each environment found on this
    machine (PATH, pyenv; skipped, saying how to provide it, where one is missing, which fails under CI=true) and
    made from its lock, each [OUTPUT] and [FIGURE] given a verdict in each; a difference fails only under strict.
    The verdicts are printed (pytest -s shows them)."""
    series = load_series(ROOT / "mkdocs.yml")
    assert series.matrix.environments, "the series lists no matrix environment"
    missing = [e.python for e in series.matrix.environments if find_python(e.python, uv_command()) is None]
    if missing:
        pytest.skip(f"no Python {', '.join(missing)} on this machine: install it (pyenv install {missing[0]}; the "
                    "workflow's jobs run .ci/pythons)")
    posts = [read_post(path, shown_path(path, ROOT))[0] for path in sorted((ROOT / "docs" / "posts").glob("*.md"))]
    blocks = [block for post in posts for block in post.blocks if block.kind.runs]
    assert blocks, "no [OUTPUT] or [FIGURE] in docs/posts/"
    runner = ExperimentRunner(ROOT, tmp_path / "state", series.experiment_timeout, series.output_cap, use_cache=False,
                              key_file=tmp_path / "state" / "key")
    engine = Engine(series, runner=runner)
    engine.start_experiments(posts)
    built = {id(block): engine.check(block) for block in blocks}
    runner.finish()
    assert [checked.problem for checked in built.values() if checked.problem] == []
    found, problems = run_matrix(engine, posts, built, "mkdocs.yml")
    with capsys.disabled():
        print("\n" + table(found), end="")
    assert problems == []
    labels = list(dict.fromkeys(verdict.environment for verdict in found))  # as readers name them: Python 3.12.1 …
    assert len(labels) == len(series.matrix.environments)
    assert sorted((v.block.post, v.block.line, v.environment) for v in found) == \
        sorted((block.post, block.line, label) for block in blocks for label in labels)
    if series.matrix.strict:
        assert [v.problem for v in found if v.problem] == []

