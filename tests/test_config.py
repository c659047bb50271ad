"""mkdocs.yml's `extra.series`: read as the build reads it, every mistake reported at its line."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from codeproof.__main__ import main
from codeproof.common.usercache import repository_cache
from codeproof.common.structure import Limits
from codeproof.series.config import SeriesConfigError, load_series
from fixture_site import make_site
from upstream import make_upstream

GOOD = {"name": "s", "baseline": {"repo": "a/b", "commit": "0" * 40, "version": "1"}}


def good_config(series: dict = GOOD) -> str:
    """mkdocs.yml text ending inside extra.series (4 spaces in), so a test can add settings to it."""
    return yaml.safe_dump({"site_name": "x", "extra": {"series": series}}, sort_keys=False, allow_unicode=True)


def write_config(site, text: str):
    (site / "mkdocs.yml").write_text(text, encoding="utf-8")
    return site / "mkdocs.yml"


def check(site, capsys) -> tuple[int, str]:
    code = main(["check", "--config", str(site / "mkdocs.yml")])
    return code, capsys.readouterr().err


@pytest.fixture
def site(tmp_path):
    return make_upstream(tmp_path).site


def test_every_mistake_in_extra_series_is_reported_at_its_line_with_the_key(site, capsys):
    write_config(site, """\
site_name: x
extra:
  series:
    name: s
    baseline: {repo: a/b, commit: abc, version: "1"}
    timout: 3
    experiments:
      timout: 5
      output_cap: -1
    announced:
      - number: 0
        title: "A & B"
      - {number: 7, titel: x}
    zzz: 1
""")
    code, err = check(site, capsys)
    assert code == 2
    assert err == """\
error: 8 problems:

mkdocs.yml:5: extra.series.baseline.commit: 'abc' is not a full 40-hex commit SHA

mkdocs.yml:6: extra.series.timout: is not a setting; did you mean experiments.timeout?

mkdocs.yml:8: extra.series.experiments.timout: is not a setting; did you mean timeout?

mkdocs.yml:9: extra.series.experiments.output_cap: -1 is not a positive number of bytes

mkdocs.yml:11: extra.series.announced[0].number: 0 is not a whole number from 1 to 9999

mkdocs.yml:12: extra.series.announced[0].title: 'A & B' is not plain text: it holds markup characters (<, > or &) or names a block marker

mkdocs.yml:13: extra.series.announced[1].titel: is not a setting; did you mean title?

mkdocs.yml:14: extra.series.zzz: is not a setting (the settings here are name, baseline, announced, git_remote, lock_file, experiments, source_pages, source_page_max_lines)
"""


def test_a_misspelt_setting_fails_the_strict_build_naming_it(tmp_path):
    fixture = make_site(tmp_path)
    config = yaml.safe_load((fixture.root / "mkdocs.yml").read_text())
    config["extra"]["series"]["experiments"] = {"timout": 5}
    (fixture.root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    site, log = fixture.build()
    assert site is None
    assert "mkdocs.yml:" in log and ": extra.series.experiments.timout: is not a setting; did you mean timeout?" in log


@pytest.mark.parametrize("timeout", [".nan", ".inf", "0", "-1", "86400", "true"])
def test_an_experiment_timeout_that_would_never_end_a_run_is_refused(site, timeout):
    config = write_config(site, good_config() + f"    experiments:\n      timeout: {timeout}\n")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    (problem,) = refused.value.problems
    assert (problem.line, problem.message) == (
        10, f"extra.series.experiments.timeout: {yaml.safe_load(timeout)!r} is not a number of seconds between 0 and 3600")


@pytest.mark.parametrize("title", ["[OUTPUT] Broadcasting", "<b>x</b>", "A & B"])
def test_an_announced_title_with_markup_or_a_marker_is_refused(site, title):
    series = {**GOOD, "announced": [{"number": 7, "title": title}]}
    config = write_config(site, good_config(series))
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [p.message for p in refused.value.problems] == [
        f"extra.series.announced[0].title: {title!r} is not plain text: it holds markup characters (<, > or &) "
        "or names a block marker"]


def test_an_archive_without_its_sha256_is_refused(site):
    series = {**GOOD, "baseline": {**GOOD["baseline"], "sdist": "autograd==1.9.1"}}
    config = write_config(site, good_config(series))
    with pytest.raises(SeriesConfigError, match=r"^1 problem:\n\nmkdocs.yml:\d+: extra.series.baseline: sdist and "
                                                r"sdist_sha256 go together \(the archive is checked against its SHA-256\)$"):
        load_series(config)


def test_the_command_line_reads_env_tags_as_the_build_does(site, monkeypatch):
    config = write_config(site, good_config() + "    lock_file: !ENV [CODEPROOF_TEST_LOCK, sources.lock.json]\n")
    monkeypatch.setenv("CODEPROOF_TEST_LOCK", "other.lock.json")
    assert load_series(config).lock_file == site / "other.lock.json"


@pytest.mark.parametrize("content, message", [
    ("extra: [unclosed\n", "error: 1 problem:\n\nmkdocs.yml:2: is not YAML: expected ',' or ']', but got '<stream end>'\n"),
    ("- a\n- b\n", "error: 1 problem:\n\nmkdocs.yml:1: must be a mapping of settings, not list\n"),
    ("site_name: x\nextra: [1]\n", "error: 1 problem:\n\nmkdocs.yml:2: extra: must be a mapping of settings\n"),
    ("site_name: x\nextra:\n  series: [1, 2]\n", "error: 1 problem:\n\nmkdocs.yml:3: extra.series: must be a mapping of "
                                                 "settings, not list\n"),
    ("site_name: x\nINHERIT: base.yml\nextra: {}\n", "error: 1 problem:\n\nmkdocs.yml:2: INHERIT: is not read by the "
     "command line, which reads one mkdocs.yml: write the settings here\n"),
])
def test_a_configuration_mkdocs_refuses_is_an_error_not_a_traceback(site, capsys, content, message):
    write_config(site, content)
    code, err = check(site, capsys)
    assert (code, err) == (2, message)


def test_a_file_that_is_not_utf8_is_an_error_not_a_traceback(site, capsys):
    (site / "mkdocs.yml").write_bytes(b"site_name: \xff\n")
    code, err = check(site, capsys)
    assert code == 2
    assert err.startswith("error: 1 problem:\n\nmkdocs.yml:1: ") and "Traceback" not in err


@pytest.mark.parametrize("setting, value, message", [
    ("git_remote", "'https://github.com/{0}.git'", "'https://github.com/{0}.git' is not a git URL template holding "
                                                   "{repo} and no other {…} field"),
    ("git_remote", "'https://example.org/x.git'", "'https://example.org/x.git' is not a git URL template holding "
                                                  "{repo} and no other {…} field"),
    ("lock_file", "''", "'' is not a relative path in the repository for the lock file, outside docs/ and experiments/"),
    ("lock_file", "../elsewhere", "'../elsewhere' is not a relative path in the repository for the lock file, "
                                  "outside docs/ and experiments/"),
    ("lock_file", "docs/lock.json", "'docs/lock.json' is not a relative path in the repository for the lock file, "
                                    "outside docs/ and experiments/"),
    ("name", "'<b>s</b>'", "'<b>s</b>' is not plain text: it holds markup characters (<, > or &) or names a block marker"),
])
def test_a_setting_that_would_break_or_leak_the_build_is_refused(site, setting, value, message):
    config = write_config(site, good_config({"baseline": GOOD["baseline"]}) + f"    {setting}: {value}\n"
                          + ("    name: s\n" if setting != "name" else ""))
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [(p.line, p.message) for p in refused.value.problems] == [(8, f"extra.series.{setting}: {message}")]


def test_the_cache_is_the_users_and_cannot_be_put_in_the_repository(site):
    """Tool state never comes from the repository (integrity round four): the cache has no setting."""
    config = write_config(site, good_config() + "    cache_dir: .cache\n")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [(p.line, p.message.split(" (")[0]) for p in refused.value.problems] == [
        (9, "extra.series.cache_dir: is not a setting")]
    assert load_series(write_config(site, good_config())).cache_dir == repository_cache(site)


@pytest.mark.parametrize("field, value, message", [
    ("sdist", "'autograd==1.9.1` [x](javascript:alert(1)) `'", "is not a pinned requirement, such as autograd==1.9.1"),
    ("version", "'1.9.1 <b>'", "is not a release version, such as 1.9.1"),
])
def test_baseline_text_that_reaches_the_overview_must_be_what_it_says(site, field, value, message):
    baseline = {**GOOD["baseline"], "sdist": "autograd==1.9.1", "sdist_sha256": "7" * 64, field: yaml.safe_load(value)}
    config = write_config(site, good_config({**GOOD, "baseline": baseline}))
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [p.message for p in refused.value.problems] == [
        f"extra.series.baseline.{field}: {yaml.safe_load(value)!r} {message}"]


def test_a_setting_given_twice_is_refused_naming_both_lines(site):
    config = write_config(site, good_config() + "    experiments:\n      timeout: 5\n    experiments:\n      output_cap: 9\n")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [str(p) for p in refused.value.problems] == [
        "mkdocs.yml:11: extra.series.experiments: is given twice (lines 9 and 11): YAML keeps the second and drops the first"]


def test_a_setting_given_twice_after_a_first_build_of_the_process_is_refused(site):
    config = write_config(site, good_config())
    load_series(config)  # a first build (serve builds again in one process) reads the file as it was
    write_config(site, good_config() + "    experiments:\n      timeout: 5\n    experiments:\n      output_cap: 9\n")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [str(p) for p in refused.value.problems] == [
        "mkdocs.yml:11: extra.series.experiments: is given twice (lines 9 and 11): YAML keeps the second and drops the first"]


@pytest.mark.parametrize("announced, message", [
    ([{"number": 7, "title": "A"}, {"number": 7, "title": "B"}], "extra.series.announced[1]: number 7 is announced twice"),
    ([{"number": 10000}], "extra.series.announced[0].number: 10000 is not a whole number from 1 to 9999"),
])
def test_announced_numbers_must_be_distinct_and_nameable(site, announced, message):
    config = write_config(site, good_config({**GOOD, "announced": announced}))
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert [p.message for p in refused.value.problems] == [message]


def test_a_docs_dir_that_does_not_exist_is_an_error(site, capsys):
    write_config(site, good_config() + "docs_dir: nowhere\n")
    code, err = check(site, capsys)
    assert (code, err) == (2, f"error: 1 problem:\n\n{site / 'nowhere'}:1: is not a folder of posts\n")


def test_the_command_line_leaves_mkdocs_own_settings_to_the_strict_build(tmp_path, capsys):
    """The core reads only what it needs of mkdocs.yml; `./dev.sh check` then builds strictly, and MkDocs refuses
    a setting it does not know (test_a_misspelt_setting_fails_the_strict_build_naming_it shows that build)."""
    site = make_site(tmp_path).root
    write_config(site, (site / "mkdocs.yml").read_text(encoding="utf-8") + "base: 1\n")
    code, err = check(site, capsys)
    assert (code, "base" in err) == (0, False), err


def test_a_docs_folder_that_does_not_exist_is_an_error(site, capsys):
    code = main(["check", "--config", str(site / "mkdocs.yml"), "--docs", str(site / "nowhere")])
    assert (code, capsys.readouterr().err) == (2, f"error: 1 problem:\n\n{site / 'nowhere'}:1: is not a folder of posts\n")


@pytest.mark.slow
def test_nested_aliases_in_mkdocs_yml_cost_no_more_than_mkdocs_own_loader(tmp_path):
    """A 'billion laughs' under extra (unused), 7 levels of 9 aliases: the key-line walker walks each aliased node
    once, as MkDocs' loader shares it (walking each alias anew, it takes many times MkDocs' own time and fails the
    ratio; at 8 levels it passed 2 GiB. Now the whole load takes about 1 s, most of it MkDocs' own). In a child process under a 2 GiB limit, so a regression fails instead of filling the machine;
    processor time, so a busy machine does not change the ratio."""
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 7)]  # 7 levels
    config = tmp_path / "mkdocs.yml"
    (tmp_path / "docs").mkdir()
    config.write_text(good_config() + "  bomb:\n" + "".join(f"    {line}\n" for line in levels), encoding="utf-8")
    probe = ("import pathlib, resource, sys, time; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
             "from mkdocs.config import load_config\n"
             "from codeproof.series.config import load_series\n"
             f"started = time.process_time(); load_config({str(config)!r})\n"
             "own = time.process_time() - started\n"
             f"started = time.process_time(); load_series(pathlib.Path({str(config)!r}))\n"
             "print(own, time.process_time() - started)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    own, ours = map(float, done.stdout.split())
    assert ours < 2 * own + 1, (own, ours)


def test_the_experiments_limits_have_stated_defaults(site):
    series = load_series(write_config(site, good_config()))
    assert series.limits == Limits(memory_mib=2048, processes=256, file_size_mib=64, cpu_seconds=60)


def test_each_experiment_limit_is_settable(site):
    config = write_config(site, good_config() + "    experiments:\n      limits: {memory_mib: 4096, processes: 32, "
                                                "file_size_mib: 8, cpu_seconds: 300}\n")
    assert load_series(config).limits == Limits(memory_mib=4096, processes=32, file_size_mib=8, cpu_seconds=300)


def test_a_limit_that_would_break_every_run_is_refused_at_its_line(site):
    config = write_config(site, good_config() + "    experiments:\n      limits:\n        memory_mib: 16\n"
                                                "        processes: 1\n        cpu_seconds: 0\n        memory: 4096\n")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(config)
    assert sorted((problem.line, problem.message) for problem in refused.value.problems) == [
        (11, "extra.series.experiments.limits.memory_mib: 16 is not a whole number of MiB from 256"),
        (12, "extra.series.experiments.limits.processes: 1 is not a whole number from 8"),
        (13, "extra.series.experiments.limits.cpu_seconds: 0 is not a whole number of seconds from 1 to 3600"),
        (14, "extra.series.experiments.limits.memory: is not a setting; did you mean memory_mib?"),
    ]
