"""Running experiments: capture, failures, output cap, cache (inputs recorded by the run, integrity,
CI), parallelism, fixed environment; comparing outputs; the reproducible resource archive.

Containment (scratch copy, environment, descendants, links, file names) is in test_containment.py."""

from __future__ import annotations

import io
import json
import logging
import os
import time
import uuid
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from codeproof.series.blocks import parse_post
from codeproof.experiments.compare import outputs_match
from codeproof.series.config import series_from_extra
from codeproof.engine import Engine, run_failure
from codeproof.experiments.cache import NO_CACHE_ENV
from codeproof.experiments.runner import ExperimentRunner
from codeproof.experiments.sandbox import FIXED_ENV, NO_SANDBOX_IN_CI, SANDBOX_HINT, SANDBOX_NOTES
from codeproof.experiments.resources import ZIP_EPOCH, build_archive, read_resources
from codeproof.common.structure import Problem, Tolerance
from conftest import SCRIPT, SDIST_SHA256, archive_entries, printing, processes_with, wait_for_processes_with, write
from fixture_site import SCRIPT as FIXTURE_SCRIPT, make_site, report

POST = "docs/posts/x.md"


# --- helpers -------------------------------------------------------------------------------


def output_post(recorded: str, tolerance: str | None = None) -> str:
    header = f"[OUTPUT]\nFile: {SCRIPT}\n" + (f"Tolerance: {tolerance}\n" if tolerance else "")
    return f"# A post\n\nSome prose.\n\n{header}\n```text\n{recorded}\n```\n"


def output_block(post_text: str):
    (block,) = parse_post(POST, post_text, first_line=1).blocks
    return block


def line_of(text: str, line: str) -> int:
    return text.split("\n").index(line) + 1


def edit_cache_entry(runner: ExperimentRunner, script: str, **changes) -> None:
    """Change a cached run as someone with write access to the working tree could."""
    entry = runner.cache_entry(script)
    stored = json.loads(entry.read_text(encoding="utf-8"))
    stored["entry"].update(changes)
    entry.write_text(json.dumps(stored), encoding="utf-8")


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def build(make_runner):
    """One build running one script: returns (runner, result), the runner already finished."""

    def run(script: str = SCRIPT, **options):
        runner = make_runner(**options)
        result = runner.result(script)
        runner.finish()
        return runner, result

    return run


@pytest.fixture
def engine(engine_with_timeout) -> Engine:
    return engine_with_timeout(20)


@pytest.fixture
def engine_with_timeout(root: Path, make_runner):
    """Engines over `root` whose experiments time out after the seconds given."""
    return lambda timeout: _engine(root, make_runner, timeout)


def _engine(root: Path, make_runner, timeout: float) -> Engine:
    series = series_from_extra(
        {
            "name": "Test series",
            "baseline": {
                "repo": "HIPS/autograd",
                "commit": "0" * 40,
                "version": metadata.version("autograd"),
                "sdist": "autograd==1.9.1",
                "sdist_sha256": SDIST_SHA256,
            },
            "experiments": {"timeout": timeout},
        },
        root / "mkdocs.yml",
    )
    return Engine(series, runner=make_runner(timeout=series.experiment_timeout))


# --- running -------------------------------------------------------------------------------


def test_stdout_is_captured_and_exit_zero_is_ok(root, build):
    write(root, SCRIPT, printing("hello", "world"))
    _, result = build()
    assert result.stdout == "hello\nworld\n"
    assert result.returncode == 0
    assert result.ok
    assert not result.cached


def test_output_differing_from_the_recorded_one_fails_with_a_unified_diff(root, engine):
    write(root, SCRIPT, printing("same line", "actual line"))
    text = output_post("same line\nrecorded line")
    checked = engine.check(output_block(text))
    assert checked.problem is not None
    assert str(checked.problem) == f"""\
{POST}:{line_of(text, "[OUTPUT]")}: OUTPUT {SCRIPT}: output differs from the recorded output (first difference at \
{POST}:{line_of(text, "recorded line")})
--- recorded in the post
+++ printed by python -B {SCRIPT}
@@ -1,2 +1,2 @@
 same line
-recorded line
+actual line
  hint: run `./dev.sh update` to record the new output, or fix the experiment"""


def test_output_matching_the_recorded_one_passes(root, engine):
    write(root, SCRIPT, printing("a = 1  ", "b = 2", ""))
    checked = engine.check(output_block(output_post("a = 1\nb = 2")))
    assert checked.problem is None and checked.warning is None
    assert checked.excerpt.text == "a = 1\nb = 2"


def test_a_script_exiting_with_status_1_is_reported_with_its_stderr(root, engine):
    write(root, SCRIPT, """\
        import sys
        print("first stderr line", file=sys.stderr)
        print("boom: the reason it failed", file=sys.stderr)
        sys.exit(1)
    """)
    text = output_post("anything")
    checked = engine.check(output_block(text))
    assert checked.problem == Problem(  # the message ends with the script's standard error
        POST, line_of(text, "[OUTPUT]"), f"{SCRIPT}: exited with status 1\nfirst stderr line\nboom: the reason it failed",
        hint=f"run it by hand from the repository's root, `.venv/bin/python -B {SCRIPT}`, and fix it",
    )
    assert not checked.run.ok


def test_a_script_past_the_timeout_is_killed_and_reported(root, build):
    write(root, SCRIPT, "import time\ntime.sleep(60)\n")
    _, result = build(timeout=2)
    assert result.timed_out
    assert result.returncode is None
    assert not result.ok
    assert run_failure(result, 2) == "timed out after 2 s; the run was killed"


def test_output_that_is_not_utf8_is_an_error_naming_the_script(root, engine):
    write(root, SCRIPT, 'import sys\nprint("fine")\nsys.stdout.flush()\nsys.stdout.buffer.write(b"caf\\xe9\\n")\n')
    text = output_post("fine\ncafe")
    checked = engine.check(output_block(text))
    assert str(checked.problem) == (
        f"{POST}:{line_of(text, '[OUTPUT]')}: {SCRIPT}: printed output that is not UTF-8 (byte 0xe9 on line 2);"
        f" only UTF-8 text is published\n  hint: run it by hand from the repository's root, `.venv/bin/python -B {SCRIPT}`,"
        " and fix it"
    )
    assert not checked.run.ok


def test_output_past_the_cap_kills_the_run_and_is_reported(root, build):
    write(root, SCRIPT, """\
        for _ in range(1000):
            print("x" * 99)
    """)
    _, result = build(output_cap=1000)
    assert result.overflow
    assert not result.ok
    assert len(result.stdout) <= 1000
    assert run_failure(result, 20) == "printed more than the output cap; the run was killed"


def test_two_experiments_run_at_the_same_time(root, make_runner, monkeypatch):
    """Each run has its own scratch folder, so they cannot meet there: both are under way at one moment (each
    would run for a minute). The runner runs as many scripts at once as there are CPUs: two here, whatever this
    machine has."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    scripts = [f"experiments/{me}_{uuid.uuid4().hex}.py" for me in ("a", "b")]  # in their runs' command lines
    for script in scripts:
        write(root, script, "import time\ntime.sleep(60)\n")
    runner = make_runner()
    for script in scripts:
        runner.start(script)
    wait_for_processes_with(*scripts)
    runner.cancel()


@pytest.mark.parametrize("after", [0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05])
def test_a_run_cancelled_in_its_first_moments_is_stopped_with_nothing_of_it_left(root, make_runner, monkeypatch,
                                                                                 after):
    """Ctrl-C may come as a run's supervisor (or the sandbox around it) is still starting, before the runner has
    listed it: it is stopped all the same, and nothing of it runs on (left alone, it would sleep a minute; a signal
    to bubblewrap in its first milliseconds once left the sandbox running, orphaned)."""
    from codeproof.experiments import runner as running

    script = f"experiments/first_moments_{uuid.uuid4().hex}.py"  # in its run's command lines
    write(root, script, "import time\ntime.sleep(60)\n")
    runner = make_runner()

    class CancelledAsItStarts(running.subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            time.sleep(after)
            runner.cancel()  # before _supervised lists this process

    monkeypatch.setattr(running.subprocess, "Popen", CancelledAsItStarts)
    result = runner.result(script)
    assert (result.ok, result.timed_out, processes_with(script)) == (False, False, [])


def test_the_fixed_environment_reaches_the_script_and_stdin_is_empty(root, build, monkeypatch):
    names = ("PYTHONHASHSEED", "TZ", "OMP_NUM_THREADS")
    for name, outside in zip(names, ("random", "Asia/Shanghai", "8")):
        monkeypatch.setenv(name, outside)
    write(root, SCRIPT, """\
        import os, sys
        for name in ("PYTHONHASHSEED", "TZ", "OMP_NUM_THREADS"):
            print(name, os.environ.get(name))
        print("stdin", repr(sys.stdin.read()))
    """)
    _, result = build(timeout=10)
    assert result.ok, result.stderr
    expected = [f"{name} {FIXED_ENV[name]}" for name in names] + ["stdin ''"]
    assert result.stdout.splitlines() == expected


# --- cache ---------------------------------------------------------------------------------


def test_an_unchanged_script_is_not_run_again(root, build):
    write(root, SCRIPT, printing("result 42"))
    first, _ = build()
    second, result = build()
    assert first.runs == 1
    assert second.runs == 0
    assert result.cached
    assert result.ok and result.stdout == "result 42\n"


def test_a_failed_run_is_not_cached(root, build):
    write(root, SCRIPT, "import sys\nsys.exit(1)\n")
    build()
    second, result = build()
    assert second.runs == 1
    assert not result.cached


@pytest.mark.parametrize("import_line", [
    "import helper\nx = helper.x",
    "from helper import x",
    "import importlib\nx = importlib.import_module('helper').x",
])
def test_changing_an_imported_local_module_runs_the_script_again(root, build, import_line):
    write(root, "experiments/helper.py", "x = 'old'\n")
    write(root, SCRIPT, f"{import_line}\nprint(x)\n")
    build()
    write(root, "experiments/helper.py", "x = 'new'\n")
    runner, result = build()
    assert runner.runs == 1
    assert result.stdout == "new\n"


def test_a_module_loaded_with_importlib_is_a_recorded_input(root, build):
    write(root, "experiments/pkg/__init__.py", "")
    write(root, "experiments/pkg/mod.py", "x = 1\n")
    write(root, SCRIPT, "import importlib\nprint(importlib.import_module('pkg.mod').x)\n")
    _, result = build()
    assert {"experiments/pkg/__init__.py", "experiments/pkg/mod.py", SCRIPT} <= set(result.inputs)


def test_a_data_file_opened_with_open_is_a_recorded_input(root, build):
    write(root, "experiments/data/values.txt", "1 2 3\n")
    write(root, SCRIPT, "print(open('experiments/data/values.txt').read().split())\n")
    _, result = build()
    assert set(result.inputs) == {"experiments/data/values.txt", SCRIPT}


def test_changing_a_file_opened_as_data_runs_the_script_again(root, build):
    write(root, "experiments/data.txt", "first data\n")
    write(root, SCRIPT, "print(open('experiments/data.txt').read().strip())\n")
    build()
    write(root, "experiments/data.txt", "second data\n")
    runner, result = build()
    assert runner.runs == 1
    assert result.stdout == "second data\n"


def test_a_new_file_in_a_listed_folder_runs_the_script_again(root, build):
    write(root, "experiments/data/a.txt", "")
    write(root, SCRIPT, "import glob\nprint(sorted(glob.glob('experiments/data/*.txt')))\n")
    build()
    write(root, "experiments/data/b.txt", "")
    runner, result = build()
    assert runner.runs == 1
    assert result.stdout == "['experiments/data/a.txt', 'experiments/data/b.txt']\n"


def test_changing_a_file_the_run_did_not_read_keeps_its_cache(root, build):
    write(root, "experiments/unused.txt", "before\n")
    write(root, SCRIPT, printing("result"))
    build()
    write(root, "experiments/unused.txt", "after\n")
    runner, result = build()
    assert runner.runs == 0
    assert result.cached


def test_the_no_cache_variable_forces_a_run(root, build, monkeypatch):
    write(root, SCRIPT, printing("result"))
    build()
    monkeypatch.setenv(NO_CACHE_ENV, "1")
    runner, result = build()
    assert runner.runs == 1
    assert not result.cached


def test_finish_removes_cache_entries_this_build_did_not_use(root, build, cache_dir):
    stale = cache_dir / "experiments" / f"{'0' * 64}.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}", encoding="utf-8")
    write(root, SCRIPT, printing("result"))
    runner, _ = build()
    assert not stale.exists()
    assert runner.cache_entry(SCRIPT).is_file()


def test_ci_true_ignores_an_edited_cache_entry_and_runs_the_script(root, build, monkeypatch):
    write(root, SCRIPT, printing("real output"))
    first, _ = build()
    edit_cache_entry(first, SCRIPT, stdout="fake output\n")
    monkeypatch.setenv("CI", "true")
    runner, result = build()
    assert runner.runs == 1
    assert not result.cached
    assert result.stdout == "real output\n"


def test_ci_true_runs_every_experiment_even_with_an_intact_cache_entry(root, build, monkeypatch):
    write(root, SCRIPT, printing("result"))
    build()
    monkeypatch.setenv("CI", "true")
    runner, result = build()
    assert runner.runs == 1
    assert not result.cached


def test_an_edited_cache_entry_fails_its_checksum_and_the_script_runs_again(root, build, caplog):
    caplog.set_level(logging.INFO, logger="mkdocs.codeproof.experiments")
    write(root, SCRIPT, printing("real output"))
    first, _ = build()
    edit_cache_entry(first, SCRIPT, stdout="fake output\n")
    runner, result = build()
    assert runner.runs == 1
    assert not result.cached
    assert result.stdout == "real output\n"
    entry = runner.cache_entry(SCRIPT)
    assert [message for message in caplog.messages if message not in SANDBOX_NOTES.values()] == [
        f"{SCRIPT}: discarded the damaged cache entry {entry} (its checksum does not match its content); "
        f"the experiment runs again. Delete the folder {entry.parent} to clear the experiment cache"
    ]


def test_an_entry_checksummed_with_another_key_is_discarded(root, build, tmp_path):
    write(root, SCRIPT, printing("result"))
    first, _ = build()
    (tmp_path / "secret" / "cache.key").write_bytes(b"k" * 32)  # another machine's secret
    runner, result = build()
    assert runner.runs == 1
    assert not result.cached


def test_the_cache_key_is_kept_outside_the_repository_readable_only_by_its_owner(root, build, tmp_path):
    write(root, SCRIPT, printing("result"))
    build()
    key = tmp_path / "secret" / "cache.key"
    assert len(key.read_bytes()) == 32
    assert key.stat().st_mode & 0o777 == 0o600
    assert not any(p.name == "cache.key" for p in root.rglob("*"))


# --- comparing outputs ---------------------------------------------------------------------


def test_trailing_spaces_and_trailing_blank_lines_do_not_count():
    assert outputs_match("a = 1\nb = 2", "a = 1   \nb = 2\t\n\n\n")


def test_a_changed_line_is_a_mismatch():
    assert not outputs_match("a = 1\nb = 2", "a = 1\nb = 3")


def test_tolerance_accepts_numbers_within_it():
    assert outputs_match("x=2.5322186", "x=2.53221860000001", tolerance=Tolerance(rel=1e-7))


def test_without_tolerance_close_numbers_must_match_exactly():
    assert not outputs_match("x=2.5322186", "x=2.53221860000001")


def test_tolerance_rejects_numbers_beyond_it():
    assert not outputs_match("x=2.5322186", "x=2.5323", tolerance=Tolerance(rel=1e-7))


def test_tolerance_still_requires_the_text_to_match_exactly():
    assert not outputs_match("x=2.5322186", "y=2.5322186", tolerance=Tolerance(rel=1e-7))
    assert not outputs_match("x=2.5322186", "x= 2.5322186", tolerance=Tolerance(rel=1e-7))


@pytest.mark.parametrize("tolerance", [None, Tolerance(rel=1e-7)])
def test_a_different_number_of_lines_is_a_mismatch(tolerance):
    assert not outputs_match("x=1\ny=2", "x=1", tolerance=tolerance)
    assert not outputs_match("x=1", "x=1\ny=2", tolerance=tolerance)


# --- the resource archive ------------------------------------------------------------------


@pytest.fixture
def archive_root(root: Path) -> Path:
    write(root, "experiments/b.py", printing("b"))
    write(root, "experiments/a.py", printing("a"))
    write(root, "experiments/data/values.txt", "1 2 3\n")
    return root


def archive(root: Path, name: str = "S"):
    files, problems = read_resources(root)
    assert problems == []
    return build_archive(root, name, files)


def archive_text(data: bytes, name: str) -> str:
    return zipfile.ZipFile(io.BytesIO(data)).read(name).decode("utf-8")


def test_the_archive_is_byte_identical_across_builds(archive_root):
    assert archive(archive_root).data == archive(archive_root).data


def test_the_archive_changes_when_a_script_changes(archive_root):
    before = archive(archive_root)
    write(archive_root, "experiments/a.py", printing("a changed"))
    after = archive(archive_root)
    assert after.data != before.data
    assert after.sha256 != before.sha256


def test_archive_entries_are_sorted_with_fixed_timestamps(archive_root):
    entries = archive_entries(archive(archive_root).data)
    names = [entry.filename for entry in entries]
    assert names == sorted(names)
    assert {"experiments/a.py", "experiments/b.py", "experiments/data/values.txt"} <= set(names)
    assert {entry.date_time for entry in entries} == {(1980, 1, 1, 0, 0, 0)} == {ZIP_EPOCH}


def test_the_archive_pins_only_the_experiment_packages_and_has_a_readme(archive_root):
    data = archive(archive_root, "Test series").data
    assert archive_text(data, "requirements.txt").splitlines() == ["autograd==1.9.1", "numpy==2.2.6"]
    assert "Test series" in archive_text(data, "README.md")
    assert archive_text(data, "experiments/a.py") == (archive_root / "experiments/a.py").read_text(encoding="utf-8")


def test_an_autograd_other_than_the_baseline_version_fails_every_output_block(tmp_path):
    """Experiments must run the code the posts quote: the installed autograd must be the baseline's."""
    from codeproof.series.config import series_from_extra
    from codeproof.engine import Engine

    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "x.py").write_text("print('hi')\n")
    series = series_from_extra({"name": "s", "baseline": {"repo": "HIPS/autograd", "commit": "a" * 40,
                                "version": "0.0", "sdist": "autograd==0.0",
                                "sdist_sha256": SDIST_SHA256}}, tmp_path / "mkdocs.yml")
    (block,) = parse_post("docs/posts/x.md", "[OUTPUT]\nFile: experiments/x.py\n\n```text\nhi\n```\n").blocks
    engine = Engine(series)
    try:
        checked = engine.check(block)
    finally:
        engine.runner.finish()
    assert str(checked.problem) == (
        "docs/posts/x.md:1: OUTPUT experiments/x.py: installed autograd is 1.9.1, the series baseline is 0.0: "
        "experiments would not run the quoted code\n  hint: requirements.txt must pin the baseline's autograd (then "
        "./dev.sh installs it), and extra.series.baseline.version in mkdocs.yml must name the release the posts quote"
    )
    assert engine.runner.runs == 0


def test_the_output_cap_counts_stdout_and_stderr_together(root, make_runner):
    write(root, SCRIPT, "import sys\nprint('o' * 700)\nprint('e' * 700, file=sys.stderr)\n")
    result = make_runner(output_cap=1000).result(SCRIPT)
    assert result.overflow and len(result.stdout) + len(result.stderr) <= 1000


@pytest.mark.parametrize("works, note", [(True, "experiments run in bubblewrap's sandbox"),
                                         (False, "experiments run in the fallback containment (a child subreaper, "
                                                 "not a sandbox, whose process limit counts all of the user's "
                                                 "processes and none of root's, and in which System V shared memory a "
                                                 "script leaves outlives its run unless the build runs as root): "
                                                 "bubblewrap is missing or cannot make "
                                                 "namespaces here; install it (apt-get install bubblewrap) for the "
                                                 "full sandbox")])
def test_the_log_names_the_sandbox_once_when_the_first_script_runs(root, make_runner, monkeypatch, caplog, works, note):
    monkeypatch.setattr("codeproof.experiments.runner.bwrap_works", lambda: works)
    caplog.set_level(logging.INFO, logger="mkdocs.codeproof.experiments")
    for me in ("a", "b"):
        write(root, f"experiments/{me}.py", printing(me))
    runner = make_runner()
    assert caplog.messages == []
    scripts = ("experiments/a.py", "experiments/b.py")
    for script in scripts:  # both at once, on two threads
        runner.start(script)
    assert all(runner.result(script).ok for script in scripts)
    assert caplog.messages == [note]


def test_with_ci_no_experiment_runs_without_the_full_sandbox(root, make_runner, monkeypatch, caplog):
    """Fail closed: where bubblewrap cannot work, CI runs nothing in the weaker fallback, and says how to fix it."""
    monkeypatch.setattr("codeproof.experiments.runner.bwrap_works", lambda: False)
    monkeypatch.setenv("CI", "true")
    caplog.set_level(logging.INFO, logger="mkdocs.codeproof.experiments")
    write(root, SCRIPT, 'open("/tmp/ran-outside-the-sandbox", "w")\nprint("ran")\n')
    runner = make_runner()
    runner.start(SCRIPT)
    result = runner.result(SCRIPT)
    assert (result.ok, result.stdout, result.not_run, runner.runs) == (False, "", NO_SANDBOX_IN_CI, 0)
    assert caplog.messages == ["experiments are not run: CI=true needs bubblewrap's sandbox, which cannot work here"]


def test_with_ci_a_build_whose_sandbox_cannot_work_fails_at_each_output(tmp_path, monkeypatch):
    monkeypatch.setattr("codeproof.experiments.runner.bwrap_works", lambda: False)
    monkeypatch.setenv("CI", "true")
    site = make_site(tmp_path)
    built, log = site.build()
    assert built is None
    assert report(log) == f"1 problem:\n\ndocs/posts/p.md:32: {FIXTURE_SCRIPT}: {NO_SANDBOX_IN_CI}\n  hint: {SANDBOX_HINT}"


@pytest.mark.parametrize("printed, shown", [("all checks \u202edeliaf\u202c", "U+202E on line 1"),
                                            ("ok\n\x1b[31mred\x1b[0m", "U+001B on line 2")])
def test_output_with_a_control_character_fails_and_says_where(root, make_runner, printed, shown):
    """A card would show other text than was printed (bidi), or a terminal would run it (escapes)."""
    write(root, SCRIPT, f"print({printed!r})\n")
    assert run_failure(make_runner().result(SCRIPT), 20) == (
        f"printed {shown}, a control character that a card would not show as printed; print such characters "
        "escaped (repr or ascii())")


@pytest.mark.parametrize("printed, shown", [
    (r"'ok\n\u2713 \u8f93\u51fa\u5df2\u9a8c\u8bc1 \u00b7 Python 3.11'",
     "a card's face (a card's label, or the words of its stamp) on line 2"),
    ("chr(91) + 'output' + chr(93)", "a block marker on line 1"),
    (r"'\u6e90\u7801 REAL SOURCE'", "a card's face (a card's label, or the words of its stamp) on line 1"),
])
def test_output_a_reader_would_take_for_a_cards_own_fails_and_says_where(root, make_runner, printed, shown):
    """Round five: what a script prints is shown outside any card too (its page, the matrix's differences), where a
    printed stamp would pass for a verified card. The words are built from escapes, as a script may."""
    write(root, SCRIPT, f"print({printed})\n")
    assert run_failure(make_runner().result(SCRIPT), 20) == (
        f"printed {shown} of its output, which the script's page shows outside any card, where it would pass for a "
        "verified card; print it otherwise")


@pytest.mark.parametrize("line", ["# \u2713 \u8f93\u51fa\u5df2\u9a8c\u8bc1", "print('[OUTPUT]')"])
def test_a_script_that_shows_a_cards_own_words_is_refused_at_its_line(root, line):
    """Its page shows the script outside any card."""
    write(root, "experiments/face.py", f"x = 1\n{line}\n")
    what = "a block marker" if "OUTPUT" in line else "a card's face (a card's label, or the words of its stamp)"
    assert read_resources(root)[1] == [Problem(
        "experiments/face.py", 2, f"the script shows {what} on line 2, and its page shows the script outside any card, "
        "where that would pass for a verified card", hint="write it otherwise: in a string, as escapes (\\u8f93 for 输)")]


def test_a_failing_scripts_error_shows_control_characters_escaped(root, make_runner):
    write(root, SCRIPT, 'import sys\nsys.stderr.write("\\x1b[2J\\x1b]0;owned\\x07")\nsys.exit(3)\n')
    assert run_failure(make_runner().result(SCRIPT), 20) == "exited with status 3\n<U+001B>[2J<U+001B>]0;owned<U+0007>"


def test_a_script_with_a_bidirectional_control_is_refused_at_its_line(root):
    write(root, "experiments/trojan.py", 'ok = True\nif ok:  # \u202e } \u2066if not ok\u2069 \u2066\n    print("x")\n')
    assert read_resources(root)[1] == [Problem(
        "experiments/trojan.py", 2, "the script holds U+202E on line 2, a bidirectional control that makes code read "
        "other than it runs", hint="delete it; write such a character as an escape (\\u202e) in a string")]


def test_a_failing_scripts_own_frames_come_first_named_as_in_the_repository(root, make_runner):
    """The author's frame (deep in a library's traceback) was cut off by the last-12-lines tail."""
    write(root, SCRIPT, """\
        import json


        def parse(text):
            return json.loads(text)


        def main():
            return parse("{" * 3)


        main()
    """)
    report = run_failure(make_runner().result(SCRIPT), 20).splitlines()
    assert report[:8] == ["exited with status 1", "Traceback (most recent call last):",
                          f'  File "{SCRIPT}", line 12, in <module>', "    main()",
                          f'  File "{SCRIPT}", line 9, in main', '    return parse("{" * 3)',
                          f'  File "{SCRIPT}", line 5, in parse', "    return json.loads(text)"]
    assert report[8] == "  (then, innermost:)" and "json" in report[9]
    assert report[-1].startswith("json.decoder.JSONDecodeError: Expecting property name")
    assert len(report) <= 13


def test_a_timed_out_script_shows_its_last_output(root, build):
    write(root, SCRIPT, "import sys, time\nfor n in range(20):\n    print('step', n, flush=True)\ntime.sleep(60)\n")
    _, result = build(timeout=2)
    assert run_failure(result, 2) == "timed out after 2 s; the run was killed; its last output:\n" + "\n".join(
        f"step {n}" for n in range(8, 20))


def test_a_timed_out_scripts_unflushed_output_is_shown_and_the_setting_named(root, engine_with_timeout):
    """A plain print (no flush) was lost in Python's buffer when the run was killed."""
    write(root, SCRIPT, "import time\nprint('before the loop')\nwhile True:\n    time.sleep(0.1)\n")
    engine = engine_with_timeout(2)
    checked = engine.check(output_block(output_post("x")))
    assert str(checked.problem).endswith(
        "timed out after 2 s; the run was killed; its last output:\nbefore the loop\n"
        f"  hint: run it by hand from the repository's root, `.venv/bin/python -B {SCRIPT}`, and fix it; or, if it "
        "needs longer, raise extra.series.experiments.timeout in mkdocs.yml (now 2 s)")
