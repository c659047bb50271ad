"""The command line, on a fixture upstream repository: lock, check, update."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys

import pytest

from codeproof.__main__ import main
from codeproof.experiments.runner import RUN_PREFIX
from conftest import ROOT, ctrl_c_as_at_a_terminal, processes_with, wait_for_processes_with
from fixture_site import report
from upstream import make_upstream


@pytest.fixture
def upstream(tmp_path):
    up = make_upstream(tmp_path)
    assert main(["lock", "--config", str(up.config())]) == 0
    return up


def run(up, command, capsys):
    code = main([command, "--config", str(up.config())])
    out, err = capsys.readouterr()
    return code, out, err


def summary(blocks: int, experiments: int) -> str:
    """The line every check ends with, for the one post of the fixture; only the seconds vary from run to run."""
    return (re.escape(f"{blocks} blocks in 1 pages checked in ") + r"\d+\.\d\d"
            + re.escape(f" s; {experiments} experiment{'' if experiments == 1 else 's'} run\n"))


def test_lock_records_the_blob_of_every_quoted_file_through_git(upstream):
    lock = json.loads((upstream.site / "sources.lock.json").read_text())
    (sha,) = lock["fixture/upstream"][upstream.commits[0]].values()
    assert len(sha) == 40


def test_lock_with_nothing_new_to_record_says_so(upstream, capsys):
    code, out, _ = run(upstream, "lock", capsys)
    assert (code, out) == (0, "nothing to lock: every file the posts quote and cite (1) is in sources.lock.json already\n")


def test_check_passes_on_verbatim_quotes(upstream, capsys):
    code, _, err = run(upstream, "check", capsys)
    assert code == 0, err
    assert re.fullmatch(summary(2, 0), err), err


def test_check_reports_every_drifted_quote_with_file_and_line(upstream, capsys):
    text = upstream.post.read_text()
    upstream.post.write_text(text.replace("self.value = value", "self.value = valve").replace("-g)", "+g)"))
    code, _, err = run(upstream, "check", capsys)
    assert code == 1
    commit = upstream.commits[0][:7]
    assert report(err) == f"""\
2 problems:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at {commit}: quote differs from source (first difference at docs/posts/p.md:15, line 10 of the file)
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{commit} lines 9-11
@@ -1,3 +1,3 @@
     def __init__(self, value):
-        self.value = valve
+        self.value = value
         self.parents = []
  hint: run `./dev.sh update` to take lines 9-11 from the pinned file, or fix the quote by hand (a quote copied from GitHub's default branch may be another version than the pin ({commit}, 1.9.1))

docs/posts/p.md:21: REAL SOURCE pkg/mod.py (Symbol register(math.cos, ...)) at {commit}: quote differs from source (first difference at docs/posts/p.md:26, line 18 of the file)
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{commit} lines 18-18
@@ -1 +1 @@
-register(math.cos, lambda g: +g)
+register(math.cos, lambda g: -g)
  hint: run `./dev.sh update` to take lines 18-18 from the pinned file, or fix the quote by hand (a quote copied from GitHub's default branch may be another version than the pin ({commit}, 1.9.1))
"""


def test_a_quote_of_another_commit_verifies_against_that_commit(upstream, capsys):
    text = upstream.post.read_text()
    newer = upstream.commits[1]
    header = "File: pkg/mod.py\nSymbol: Node.__init__\n"
    upstream.post.write_text(text.replace(header, header + f"Commit: {newer}\n"))
    code, _, err = run(upstream, "check", capsys)
    assert code == 1  # a newly quoted commit must be locked first
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE: fixture/upstream@{newer[:7]}:pkg/mod.py has no entry in the lock file sources.lock.json
  hint: run `./dev.sh lock` (python -m codeproof lock) to record it, and commit the lock
"""
    assert main(["lock", "--config", str(upstream.config())]) == 0
    assert run(upstream, "check", capsys)[0] == 0


def test_update_repairs_a_drifted_quote_and_touches_nothing_else(upstream, capsys):
    good = upstream.post.read_text()
    upstream.post.write_text(good.replace("        self.value = value\n", "").replace("More prose.", "More  prose."))
    code, out, _ = run(upstream, "update", capsys)
    assert code == 0
    assert out == (  # the one change, as a diff of the post from its line 11 (the blank line before the fence)
        f"--- {upstream.post}\n"
        f"+++ {upstream.post}\n"
        "@@ -12,6 +12,7 @@\n"
        " \n"
        " ```python\n"
        "     def __init__(self, value):\n"
        "+        self.value = value\n"
        "         self.parents = []\n"
        " ```\n"
        " \n"
    )
    assert upstream.post.read_text() == good.replace("More prose.", "More  prose.")
    assert run(upstream, "check", capsys)[0] == 0


def test_update_leaves_a_quote_outside_its_symbol_for_the_author(upstream, capsys):
    text = upstream.post.read_text().replace("Symbol: Node.__init__", "Symbol: helper")
    upstream.post.write_text(text)
    code, _, err = run(upstream, "update", capsys)
    assert code == 1
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol helper) at {upstream.commits[0][:7]}: quote is lines 9-11, outside the symbol (lines 4-5)
  hint: name the symbol these lines belong to, or quote lines inside the named symbol
"""
    assert upstream.post.read_text() == text


# --- update never makes things worse --------------------------------------------------------


def test_update_keeps_crlf_line_endings_a_byte_order_mark_and_the_file_mode(upstream, capsys):
    good = upstream.post.read_text()
    drifted = good.replace("        self.value = value\n", "        self.value = valve\n")
    upstream.post.write_bytes(b"\xef\xbb\xbf" + drifted.replace("\n", "\r\n").encode())
    upstream.post.chmod(0o640)
    code, _, err = run(upstream, "update", capsys)
    assert code == 0, err
    assert upstream.post.read_bytes() == b"\xef\xbb\xbf" + good.replace("\n", "\r\n").encode()
    assert upstream.post.stat().st_mode & 0o777 == 0o640
    assert run(upstream, "check", capsys)[0] == 0


def test_update_lengthens_a_fence_that_the_recorded_output_would_close(upstream, capsys):
    script = upstream.site / "experiments" / "fence.py"
    script.parent.mkdir()
    script.write_text('print("```")\nprint("after the fence")\n')
    text = upstream.post.read_text() + "\n[OUTPUT]\nFile: experiments/fence.py\n\n```text\nold\n```\n\nThe end.\n"
    upstream.post.write_text(text)
    code, _, err = run(upstream, "update", capsys)
    assert code == 0, err
    assert upstream.post.read_text().endswith("````text\n```\nafter the fence\n````\n\nThe end.\n")
    code, _, err = run(upstream, "check", capsys)
    assert code == 0 and re.fullmatch(summary(3, 0), err), err


def test_update_leaves_a_quote_that_shares_nothing_with_its_symbol_and_says_why(upstream, capsys):
    text = upstream.post.read_text().replace(
        "    def __init__(self, value):\n        self.value = value\n        self.parents = []\n",
        "import os\nos.system('echo pwned')\n",
    )
    upstream.post.write_text(text)
    code, _, err = run(upstream, "update", capsys)
    assert code == 1
    commit = upstream.commits[0][:7]
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:9: REAL SOURCE pkg/mod.py (Symbol Node.__init__) at {commit}: quote differs from source (first difference at docs/posts/p.md:14, line 10 of the file); update left it alone: it shares only 14% with the closest lines of the source (less than 50%), so they are not the same code
--- docs/posts/p.md (quote)
+++ pkg/mod.py@{commit} lines 10-11
@@ -1,2 +1,2 @@
-import os
-os.system('echo pwned')
+        self.value = value
+        self.parents = []
  hint: fix the quote or its Symbol by hand, or run `./dev.sh update --force` to take those lines
"""
    assert upstream.post.read_text() == text
    assert main(["update", "--force", "--config", str(upstream.config())]) == 0
    assert "self.parents = []" in upstream.post.read_text()


def test_ctrl_c_during_update_stops_promptly_kills_the_run_and_leaves_the_post_whole(upstream):
    """SIGINT while an experiment runs: exit 130 with the experiment stopped (left to itself it would print `done`
    after a minute, which the command's 20 s would not wait for), no traceback, no process left, post unchanged."""
    script = upstream.site / "experiments" / "slow.py"
    script.parent.mkdir()
    script.write_text("import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\nprint('done')\n")
    text = upstream.post.read_text() + "\n[OUTPUT]\nFile: experiments/slow.py\n\n```text\nold\n```\n"
    upstream.post.write_text(text)
    process = subprocess.Popen([sys.executable, "-m", "codeproof", "update", "--config", str(upstream.config())],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    # The state it needs, not a time: the experiment is under way (its run folder, named by the pid, in a command
    # line). A signal before would stop Python's start instead.
    runs = f"{RUN_PREFIX}{process.pid}-"
    wait_for_processes_with(runs)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130
    assert err == "interrupted: the experiments were stopped; every file is whole (posts are only ever replaced whole)\n"
    assert upstream.post.read_text() == text
    assert processes_with(runs) == []  # its runs only: another process may run a slow.py meanwhile


def test_update_lengthens_a_tilde_fence_that_the_recorded_output_would_close(upstream, capsys):
    script = upstream.site / "experiments" / "tildes.py"
    script.parent.mkdir()
    script.write_text('print("~~~")\nprint("after the fence")\n')
    text = upstream.post.read_text() + "\n[OUTPUT]\nFile: experiments/tildes.py\n\n~~~text\nold\n~~~\n\nThe end.\n"
    upstream.post.write_text(text)
    assert run(upstream, "update", capsys)[0] == 0
    assert upstream.post.read_text().endswith("~~~~text\n~~~\nafter the fence\n~~~~\n\nThe end.\n")
    code, _, err = run(upstream, "check", capsys)
    assert code == 0 and re.fullmatch(summary(3, 0), err), err


def test_update_keeps_carriage_return_line_endings(upstream, capsys):
    good = upstream.post.read_text()
    upstream.post.write_bytes(good.replace("self.value = value", "self.value = valve").replace("\n", "\r").encode())
    assert run(upstream, "update", capsys)[0] == 0
    assert upstream.post.read_bytes() == good.replace("\n", "\r").encode()


def test_a_file_that_is_not_upstream_is_named_once_with_the_paths_it_probably_meant(upstream, capsys):
    text = upstream.post.read_text()
    upstream.post.write_text(text.replace("File: pkg/mod.py", "File: pkg/mode.py"))
    code, _, err = run(upstream, "check", capsys)
    assert code == 1
    lines = [n for n, line in enumerate(upstream.post.read_text().splitlines(), 1) if line == "File: pkg/mode.py"]
    assert len(lines) > 1  # every quote of the file, said once
    also = ", ".join(f"docs/posts/p.md:{n - 1}" for n in lines[1:])
    assert report(err) == f"""\
1 problem:

docs/posts/p.md:{lines[0] - 1}: REAL SOURCE: pkg/mode.py is not in fixture/upstream at {upstream.commits[0][:7]}
  also at {also}
  hint: did you mean pkg/mod.py?
"""


@pytest.mark.parametrize("argv, refused", [
    (["check", "--force"], "codeproof: error: unrecognized arguments: --force"),
    (["lock", "--no-cache"], "codeproof: error: unrecognized arguments: --no-cache"),
    (["drift", "--to", "v1.9.2", "--to-release", "1.9.2"], "codeproof drift: error: argument --to-release: not allowed "
                                                           "with argument --to"),
    (["new", "5"], "codeproof new: error: the following arguments are required: title"),
    (["rebase"], "codeproof rebase: error: the following arguments are required: --to"),
])
def test_each_command_takes_only_its_own_arguments(argv, refused, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert (stopped.value.code, capsys.readouterr().err.splitlines()[-1]) == (2, refused)
