"""`drift` reports what another commit of the baseline repository changes in the quotes; `rebase` moves there."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from codeproof.common.usercache import repository_cache
from codeproof.__main__ import main
from codeproof.drift import Release, release_differs
from codeproof.experiments.matrix import ASK, MatrixError, find_python, label, uv_command
from codeproof.experiments.sandbox import Interpreter
from codeproof.common.yamledit import with_values
from conftest import git, read_only
from upstream import module_history

V1 = '''\
LIMIT = 10


def f(x):
    return x + 1


def g(x):
    y = x * 2
    return y


def h(x):
    return -x
'''
# One line inserted above f (f and g move down), one quoted line of g changed, h removed.
V2 = V1.replace("\n\ndef f", "\n# f adds one\n\ndef f").replace("x * 2", "x * 3").split("\n\ndef h")[0] + "\n"

POST = '''\
---
title: "Drift fixture"
series: 1
date: 2026-01-01
---

Prose.

[REAL SOURCE]
File: pkg/mod.py
Symbol: LIMIT

```python
LIMIT = 10
```

[REAL SOURCE]
File: pkg/mod.py
Symbol: f

```python
def f(x):
    return x + 1
```

[REAL SOURCE]
File: pkg/mod.py
Symbol: g

```python
    y = x * 2
```

[REAL SOURCE]
File: pkg/mod.py
Symbol: h

```python
def h(x):
    return -x
```
'''


@pytest.fixture
def site(tmp_path):
    repo = tmp_path / "remote" / "fixture" / "upstream"
    commits = module_history(repo, (V1, V2))
    git(repo, "tag", "newer")
    site = tmp_path / "site"
    (site / "docs" / "posts").mkdir(parents=True)
    (site / "docs" / "posts" / "p.md").write_text(POST)
    series = {"name": "Fixture series", "git_remote": f"file://{tmp_path / 'remote'}/{{repo}}",
              "baseline": {"repo": "fixture/upstream", "commit": commits[0], "version": "1.9.1"}}
    (site / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "f", "extra": {"series": series}}))
    assert main(["lock", "--config", str(site / "mkdocs.yml")]) == 0
    for args in (["init", "-q"], ["config", "user.email", "a@example.invalid"], ["config", "user.name", "a"],
                 ["add", "-A"], ["commit", "-qm", "the series"]):
        git(site, *args)
    return site, commits, repo


def drift(site, *args: str, capsys) -> tuple[int, str, str]:
    code = main(["drift", *args, "--config", str(site / "mkdocs.yml")])
    out, err = capsys.readouterr()
    return code, out, err


def test_each_quote_is_unchanged_moved_changed_or_gone_and_the_last_line_counts_them(site, capsys):
    site, commits, _ = site
    code, out, _ = drift(site, "--to", "newer", capsys=capsys)
    assert code == 1  # something changed or is gone
    assert out == f"""\
docs/posts/p.md:9: unchanged pkg/mod.py LIMIT 1-1
docs/posts/p.md:17: moved pkg/mod.py f 4-5 -> 5-6
docs/posts/p.md:26: changed pkg/mod.py g 9-9: quote differs from source (first difference at docs/posts/p.md:31, line 10 of the file)
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{commits[1][:7]} lines 10-10
@@ -1 +1 @@
-    y = x * 2
+    y = x * 3
docs/posts/p.md:34: gone pkg/mod.py h: the symbol: symbol 'h' is not in the file
drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone
"""


def test_no_change_exits_0_and_json_says_the_same_for_machines(site, capsys):
    site, commits, _ = site
    code, out, _ = drift(site, "--to", commits[0], capsys=capsys)
    assert code == 0 and out.splitlines()[-1] == "drift: 0 changed, 0 moved, 4 unchanged, 0 gone; citations: 0 moved, 0 unchanged, 0 gone"
    code, out, _ = drift(site, "--to", "newer", "--format", "json", capsys=capsys)
    report = json.loads(out)
    assert code == 1 and report["commit"] == commits[1] and report["to"] == "newer"
    assert [(b["line"], b["status"], b["lines"], b["moved_to"]) for b in report["blocks"]] == [
        (9, "unchanged", [1, 1], None), (17, "moved", [4, 5], [5, 6]), (26, "changed", [9, 9], None),
        (34, "gone", [13, 14], None)]
    assert report["summary"] == "drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone"


def test_a_ref_that_cannot_be_fetched_exits_2_with_the_reason_and_remote_says_where_from(site, capsys, tmp_path):
    site, commits, repo = site
    code, out, err = drift(site, "--to", "no-such-branch", capsys=capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: cannot fetch no-such-branch from file://") and "no-such-branch" in err
    assert drift(site, "--to", commits[0], capsys=capsys)[0] == 0  # the pinned files are in the cache now
    config = yaml.safe_load((site / "mkdocs.yml").read_text())
    config["extra"]["series"]["git_remote"] = "file:///nowhere/{repo}"
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config))
    assert drift(site, "--to", "newer", capsys=capsys)[0] == 2  # the configured remote is gone
    code, out, _ = drift(site, "--to", "newer", "--remote", str(repo), capsys=capsys)
    assert code == 1 and out.splitlines()[-1] == "drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone"


def test_drift_writes_nothing_in_the_repository(site, capsys):
    site, _, _ = site
    drift(site, "--to", "newer", "--report", str(site.parent / "report.txt"), capsys=capsys)
    assert git(site, "status", "--porcelain") == ""
    assert (site.parent / "report.txt").read_text().endswith("drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone\n")


@pytest.fixture
def released(site, monkeypatch):
    """The newer commit published as release 2.0 of `autograd` (its archive: the commit's files, and one of
    the build's), as PyPI would give it."""
    site, commits, repo = site
    files = {"pkg/mod.py": V2.encode(), "PKG-INFO": b"Version: 2.0\n"}
    monkeypatch.setattr("codeproof.__main__.release_files", lambda pin, cache: (files, "a" * 64))
    (site / "requirements.txt").write_text("autograd==1.9.1\nnumpy==2.2.6\n")
    git(site, "add", "-A")
    git(site, "commit", "-qm", "pins")
    return site, commits, files


def test_rebase_moves_the_baseline_rewrites_changed_quotes_and_leaves_gone_ones_to_the_author(released, capsys):
    site, commits, _ = released
    assert main(["rebase", "--to", "newer", "--release", "2.0", "--config", str(site / "mkdocs.yml")]) == 0
    out = capsys.readouterr().out
    assert "-    y = x * 2\n+    y = x * 3" in out
    assert f"locked fixture/upstream@{commits[1][:7]}:pkg/mod.py = " in out
    assert "rewrite by hand: docs/posts/p.md:34: gone pkg/mod.py h" in out
    assert yaml.safe_load((site / "mkdocs.yml").read_text())["extra"]["series"]["baseline"] == {
        "repo": "fixture/upstream", "commit": commits[1], "version": "2.0", "sdist": "autograd==2.0",
        "sdist_sha256": "a" * 64}
    assert (site / "requirements.txt").read_text() == "autograd==2.0\nnumpy==2.2.6\n"
    lock = json.loads((site / "sources.lock.json").read_text())
    assert list(lock["fixture/upstream"]) == [commits[1]]  # no block quotes the old commit any more
    assert "    y = x * 3\n" in (site / "docs" / "posts" / "p.md").read_text()
    code = main(["check", "--config", str(site / "mkdocs.yml")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("docs/posts/p.md:") == 1 and "docs/posts/p.md:36:" in err  # only h is left, at its Symbol line


def test_rebase_that_cannot_write_one_file_changes_none_and_says_so(released, capsys, monkeypatch):
    """A read-only lock (root ignores file modes, so the write is refused here): before, the post, mkdocs.yml and
    requirements.txt were rewritten and the lock was not."""
    site, _, _ = released
    read_only(monkeypatch, "sources.lock.json")
    assert main(["rebase", "--to", "newer", "--release", "2.0", "--config", str(site / "mkdocs.yml")]) == 2
    assert capsys.readouterr().err == (
        f"error: cannot write {site / 'sources.lock.json'}: Read-only file system; nothing was changed\n"
        "  hint: make the files writable, then run rebase again\n")
    assert git(site, "status", "--porcelain", "--ignored") == ""  # nothing changed, nothing left beside


def test_rebase_refuses_a_dirty_working_tree(released, capsys):
    site, _, _ = released
    (site / "docs" / "posts" / "p.md").write_text(POST + "\nA draft line.\n")
    assert main(["rebase", "--to", "newer", "--release", "2.0", "--config", str(site / "mkdocs.yml")]) == 2
    assert capsys.readouterr().err.startswith("error: rebase needs a clean git working tree")
    assert subprocess.run(["git", "-C", str(site), "diff", "--stat", "--", "mkdocs.yml"],
                          capture_output=True, text=True).stdout == ""


def test_run_reports_which_recorded_outputs_would_change_with_the_package_at_ref(site, capsys):
    site, _, _ = site
    (site / "experiments").mkdir()
    (site / "experiments" / "show.py").write_text("from pkg.mod import g\n\nprint(g(1))\n")
    post = site / "docs" / "posts" / "p.md"
    post.write_text(POST + "\n[OUTPUT]\nFile: experiments/show.py\n\n```text\n2\n```\n")
    line = post.read_text().splitlines().index("[OUTPUT]") + 1
    code, out, _ = drift(site, "--to", "newer", "--run", capsys=capsys)
    assert code == 1
    assert f"docs/posts/p.md:{line}: output of experiments/show.py would change\n--- recorded\n+++ printed there\n" \
           "@@ -1 +1 @@\n-2\n+3" in out  # g(1) is 3 at the newer commit
    assert out.splitlines()[-1] == "drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone"
    runs = repository_cache(site) / "experiments"
    assert not runs.exists() or not any(runs.iterdir())


def test_run_reports_each_outputs_change_in_each_environment_of_the_matrix_too(site, capsys, monkeypatch):
    """`--run` runs the experiments in the matrix's environments too (here one whose interpreter is another Python
    of the machine, and one that cannot be had): a line per block and environment."""
    site, _, _ = site
    other = next(filter(None, (find_python(version, uv_command()) for version in ("3.12", "3.13", "3.10"))), None)
    if other is None:
        pytest.skip("no other Python than the build's on this machine (pyenv install 3.12)")
    (site / "experiments").mkdir()
    (site / "experiments" / "show.py").write_text("from pkg.mod import g\n\nprint(g(1))\n")
    post = site / "docs" / "posts" / "p.md"
    post.write_text(POST + "\n[OUTPUT]\nFile: experiments/show.py\n\n```text\n2\n```\n")
    line = post.read_text().splitlines().index("[OUTPUT]") + 1
    config = site / "mkdocs.yml"
    data = yaml.safe_load(config.read_text())
    data["extra"]["series"]["experiments"] = {"matrix": {"environments": [
        {"python": "3.12", "packages": ["numpy==1.26.4"], "lock": "a.lock"},
        {"python": "3.99", "packages": ["numpy==1.26.4"], "lock": "b.lock"}]}}
    config.write_text(yaml.safe_dump(data))
    packages = subprocess.run([other, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              capture_output=True, text=True, check=True).stdout.strip()
    facts = json.loads(subprocess.run([other, "-I", "-S", "-c", ASK, packages], capture_output=True, text=True,
                                      check=True).stdout)
    interpreter = Interpreter(other, tuple(dict.fromkeys([facts.pop("base"), os.path.dirname(os.path.realpath(other))])),
                              facts)

    def made(environment, cache_dir):
        if environment.python == "3.99":
            raise MatrixError(f"matrix environment {environment.name}: no Python 3.99 on this machine", "install it")
        return interpreter

    monkeypatch.setattr("codeproof.drift.make", made)
    code, out, _ = drift(site, "--to", "newer", "--run", capsys=capsys)
    assert code == 1
    changed = "would change\n--- recorded\n+++ printed there\n@@ -1 +1 @@\n-2\n+3"  # g(1) is 3 at the newer commit
    assert f"docs/posts/p.md:{line}: output of experiments/show.py {changed}" in out
    assert f"docs/posts/p.md:{line}: output of experiments/show.py in {label(interpreter)} {changed}" in out
    assert "matrix environment Python 3.99 + numpy 1.26.4: no Python 3.99 on this machine (install it)" in out


def test_a_release_archive_is_taken_only_if_it_holds_the_commits_files():
    commit = {"pkg/mod.py": b"x = 1\n", "README": b"r"}
    release = Release("2.0", "pkg==2.0", "0" * 64, {"pkg/mod.py": b"x = 1\n", "PKG-INFO": b"built"})
    assert release_differs(release, commit.get) is None  # files the commit lacks (PKG-INFO) are the build's
    assert release_differs(Release("2.0", "pkg==2.0", "0" * 64, {"pkg/mod.py": b"x = 2\n"}), commit.get) == "pkg/mod.py"


def test_rebase_refuses_a_ref_that_is_no_release_and_an_archive_that_is_not_the_commit(released, capsys, monkeypatch):
    site, commits, files = released
    before = git(site, "rev-parse", "HEAD")
    assert main(["rebase", "--to", "newer", "--config", str(site / "mkdocs.yml")]) == 2
    assert capsys.readouterr().err.startswith("error: 'newer' does not name a release")
    monkeypatch.setattr("codeproof.__main__.release_files", lambda pin, cache: ({"pkg/mod.py": V1.encode()}, "a" * 64))
    assert main(["rebase", "--to", "newer", "--release", "2.0", "--config", str(site / "mkdocs.yml")]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: the release archive autograd==2.0 holds pkg/mod.py otherwise than newer ({commits[1][:7]})")
    assert git(site, "status", "--porcelain") == "" and git(site, "rev-parse", "HEAD") == before  # nothing written


def test_rebase_to_the_baseline_itself_changes_nothing(released, capsys, monkeypatch):
    site, commits, _ = released
    baseline_release = {"pkg/mod.py": V1.encode(), "PKG-INFO": b"Version: 1.9.1\n"}  # the baseline's own archive
    monkeypatch.setattr("codeproof.__main__.release_files", lambda pin, cache: (baseline_release, "b" * 64))
    assert main(["rebase", "--to", commits[0], "--release", "1.9.1", "--config", str(site / "mkdocs.yml")]) == 0
    assert capsys.readouterr().out == f"the baseline is {commits[0][:7]} already: nothing to do\n"
    assert git(site, "status", "--porcelain") == ""


def test_a_ref_that_looks_like_an_option_never_reaches_git(site, capsys, tmp_path):
    site, _, repo = site
    marker = tmp_path / "pwned"
    code, _, err = drift(site, "--to", f"--upload-pack=touch {marker}; git-upload-pack", "--remote", str(repo),
                         capsys=capsys)
    assert code == 2 and not marker.exists()
    assert "is not a commit, tag or branch git can be asked for" in err


@pytest.mark.parametrize("baseline, why", [
    ("    baseline: {repo: a/b, commit: x}\n", "extra.series.baseline is not a mapping written one setting per line"),
    ("    baseline:\n      commit: !ENV [COMMIT, x]\n", "extra.series.baseline.commit is not a value on one line"),
    ("    baseline:\n      commit: >-\n        x\n", "extra.series.baseline.commit is not a value on one line"),
])
def test_the_baseline_is_edited_in_place_or_not_at_all(baseline, why):
    text = "extra:\n  series:\n" + baseline + "    name: n\n"
    with pytest.raises(ValueError) as refused:
        with_values(text, ("extra", "series", "baseline"), {"commit": "y"})
    assert str(refused.value) == why


def test_an_edit_keeps_comments_and_adds_what_is_missing():
    text = "extra:\n  series:\n    baseline:\n      # the pin\n      commit: x  # why\n      version: 1.0\n    name: n\n"
    assert with_values(text, ("extra", "series", "baseline"), {"commit": "y", "version": "2.0", "sdist": "a==2.0"}) == (
        'extra:\n  series:\n    baseline:\n      # the pin\n      commit: "y"  # why\n      version: "2.0"\n'
        '      sdist: "a==2.0"\n    name: n\n')


def test_a_header_alone_is_compared_as_the_build_would_show_it_there(site, capsys):
    site, commits, _ = site
    post = site / "docs" / "posts" / "p.md"
    post.write_text(POST + "\n[REAL SOURCE]\nFile: pkg/mod.py\nSymbol: g\n")
    lines = post.read_text().splitlines()
    line = len(lines) - lines[::-1].index("Symbol: g") - 2  # the header of the last block, two lines up
    code, out, _ = drift(site, "--to", "newer", capsys=capsys)
    assert code == 1
    assert f"docs/posts/p.md:{line}: changed pkg/mod.py g 8-10\n--- pkg/mod.py@pin lines 8-10\n" \
           f"+++ pkg/mod.py@{commits[1][:7]} lines 9-11\n" in out
    assert out.splitlines()[-1] == "drift: 2 changed, 1 moved, 1 unchanged, 1 gone; citations: 0 moved, 0 unchanged, 0 gone"


def test_a_quote_copied_from_another_version_at_hand_is_said_to_be_from_it(site, capsys):
    """A quote copied from GitHub's default branch: once drift fetched that version, check names it."""
    site, commits, _ = site
    drift(site, "--to", "newer", capsys=capsys)  # now the object store holds the newer commit too
    (site / "docs" / "posts" / "p.md").write_text(POST.replace("    y = x * 2", "    y = x * 3"))
    assert main(["check", "--config", str(site / "mkdocs.yml")]) == 1
    assert (f"  hint: the quote matches pkg/mod.py at newer ({commits[1][:7]}, as last fetched), not at the pin "
            f"({commits[0][:7]}, 1.9.1): it was copied from another version. Copy it from the pinned file (its source "
            "page, or the installed package), or run `./dev.sh update`\n") in capsys.readouterr().err


def test_update_says_when_it_gives_a_quote_fewer_lines_than_it_had(site, capsys):
    site, _, _ = site
    post = site / "docs" / "posts" / "p.md"
    post.write_text(POST.replace("def f(x):\n    return x + 1\n", "def f(x):\n    return x + 1\n    # and more\n"))
    assert main(["update", "--config", str(site / "mkdocs.yml")]) == 0
    assert capsys.readouterr().err.startswith(
        "note: docs/posts/p.md:17: the quote had 3 lines and now has 2: the closest lines of the file are shorter, so "
        "check its end (and whether it was copied from another version)\n")


CITING = "Cites `pkg/mod.py:1`, `f`, `mod.py:4-5`, `mod.py:9`, `mod.py :: h` and `LIMIT`."


def test_each_citation_in_the_words_is_unchanged_moved_or_gone_and_counted_apart(site, capsys):
    site, _, _ = site
    post = site / "docs" / "posts" / "p.md"
    post.write_text(post.read_text().replace("Prose.", CITING))
    code, out, _ = drift(site, "--to", "newer", capsys=capsys)
    assert code == 1
    assert out.split("gone pkg/mod.py h: the symbol: symbol 'h' is not in the file\n")[1] == """\
docs/posts/p.md:7: unchanged `pkg/mod.py:1` pkg/mod.py:1
docs/posts/p.md:7: moved `f` pkg/mod.py:4 -> pkg/mod.py:5
docs/posts/p.md:7: moved `mod.py:4-5` pkg/mod.py:4-5 -> pkg/mod.py:5-6
docs/posts/p.md:7: gone `mod.py:9` (pkg/mod.py:9 holds other text at newer, and the cited lines stand nowhere in pkg/mod.py)
docs/posts/p.md:7: gone `mod.py :: h` (pkg/mod.py defines no h at newer)
docs/posts/p.md:7: unchanged `LIMIT` pkg/mod.py:1
drift: 1 changed, 1 moved, 1 unchanged, 1 gone; citations: 2 moved, 2 unchanged, 2 gone
"""
    code, out, _ = drift(site, "--to", "newer", "--format", "json", capsys=capsys)
    cited = json.loads(out)["citations"]
    assert [(c["status"], c["text"], c["now"]) for c in cited] == [
        ("unchanged", "pkg/mod.py:1", "pkg/mod.py:1"), ("moved", "f", "pkg/mod.py:5"),
        ("moved", "mod.py:4-5", "pkg/mod.py:5-6"), ("gone", "mod.py:9", None), ("gone", "mod.py :: h", None),
        ("unchanged", "LIMIT", "pkg/mod.py:1")]


def test_rebase_lists_the_citations_and_leaves_the_words_as_they_are(released, capsys):
    site, commits, _ = released
    post = site / "docs" / "posts" / "p.md"
    post.write_text(post.read_text().replace("Prose.", CITING))
    git(site, "commit", "-qam", "citations")
    assert main(["rebase", "--to", "newer", "--release", "2.0", "--config", str(site / "mkdocs.yml")]) == 0
    out = capsys.readouterr().out
    assert "the words, by hand: docs/posts/p.md:7: gone `mod.py :: h` (pkg/mod.py defines no h at " in out
    assert "the words, by hand: docs/posts/p.md:7: moved `f` pkg/mod.py:4 -> pkg/mod.py:5" in out
    assert out.splitlines()[-1].endswith("; citations: 2 moved, 2 unchanged, 2 gone")
    assert CITING in post.read_text()  # the quote of g was rewritten; the words were not
