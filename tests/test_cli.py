"""The command line, on a fixture upstream repository: lock, check, update."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codeproof.__main__ import main
from conftest import ROOT
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


def test_lock_records_the_blob_of_every_quoted_file_through_git(upstream):
    lock = json.loads((upstream.site / "sources.lock.json").read_text())
    (sha,) = lock["fixture/upstream"][upstream.commits[0]].values()
    assert len(sha) == 40


def test_check_passes_on_verbatim_quotes(upstream, capsys):
    code, _, err = run(upstream, "check", capsys)
    assert code == 0, err
    assert "2 blocks in 1 posts checked" in err


def test_check_reports_every_drifted_quote_with_file_and_line(upstream, capsys):
    text = upstream.post.read_text()
    upstream.post.write_text(text.replace("self.value = value", "self.value = valve").replace("-g)", "+g)"))
    code, _, err = run(upstream, "check", capsys)
    assert code == 1
    assert "2 problems:" in err
    assert "docs/posts/p.md:8: REAL SOURCE pkg/mod.py (Symbol Node.__init__)" in err
    assert "docs/posts/p.md:20: REAL SOURCE pkg/mod.py (Symbol register(math.cos, ...))" in err


def test_a_quote_of_another_commit_verifies_against_that_commit(upstream, capsys):
    text = upstream.post.read_text()
    newer = upstream.commits[1]
    header = "File: pkg/mod.py\nSymbol: Node.__init__\n"
    upstream.post.write_text(text.replace(header, header + f"Commit: {newer}\n"))
    code, _, err = run(upstream, "check", capsys)
    assert code == 1 and "no entry in the lock file" in err  # a newly quoted commit must be locked first
    assert main(["lock", "--config", str(upstream.config())]) == 0
    assert run(upstream, "check", capsys)[0] == 0


def test_update_repairs_a_drifted_quote_and_touches_nothing_else(upstream, capsys):
    good = upstream.post.read_text()
    upstream.post.write_text(good.replace("        self.value = value\n", "").replace("More prose.", "More  prose."))
    code, out, _ = run(upstream, "update", capsys)
    assert code == 0
    assert "+        self.value = value" in out
    assert upstream.post.read_text() == good.replace("More prose.", "More  prose.")
    assert run(upstream, "check", capsys)[0] == 0


def test_update_leaves_a_quote_outside_its_symbol_for_the_author(upstream, capsys):
    text = upstream.post.read_text().replace("Symbol: Node.__init__", "Symbol: helper")
    upstream.post.write_text(text)
    code, _, err = run(upstream, "update", capsys)
    assert code == 1 and "outside the symbol" in err
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
    assert code == 0 and "3 blocks in 1 posts checked" in err


def test_update_leaves_a_quote_that_shares_nothing_with_its_symbol_and_says_why(upstream, capsys):
    text = upstream.post.read_text().replace(
        "    def __init__(self, value):\n        self.value = value\n        self.parents = []\n",
        "import os\nos.system('echo pwned')\n",
    )
    upstream.post.write_text(text)
    code, _, err = run(upstream, "update", capsys)
    assert code == 1
    assert "update left it alone: it shares only" in err and "(less than 50%), so they are not the same code" in err
    assert "hint: fix the quote or its Symbol by hand, or run `./dev.sh update --force`" in err
    assert upstream.post.read_text() == text
    assert main(["update", "--force", "--config", str(upstream.config())]) == 0
    assert "self.parents = []" in upstream.post.read_text()


def test_ctrl_c_during_update_stops_promptly_kills_the_run_and_leaves_the_post_whole(upstream):
    """SIGINT while an experiment runs: exit 130 within seconds, no traceback, no process left, post unchanged."""
    script = upstream.site / "experiments" / "slow.py"
    script.parent.mkdir()
    script.write_text("import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\nprint('done')\n")
    text = upstream.post.read_text() + "\n[OUTPUT]\nFile: experiments/slow.py\n\n```text\nold\n```\n"
    upstream.post.write_text(text)
    process = subprocess.Popen([sys.executable, "-m", "codeproof", "update", "--config", str(upstream.config())],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # the experiment is under way
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert time.monotonic() - started < 10
    assert process.returncode == 130
    assert "Traceback" not in err and "interrupted: the experiments were stopped" in err
    assert upstream.post.read_text() == text
    assert not [p for p in Path("/proc").glob("[0-9]*") if _runs(p, "experiments/slow.py")]


def _runs(proc: Path, script: str) -> bool:
    try:
        return script in (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def test_update_lengthens_a_tilde_fence_that_the_recorded_output_would_close(upstream, capsys):
    script = upstream.site / "experiments" / "tildes.py"
    script.parent.mkdir()
    script.write_text('print("~~~")\nprint("after the fence")\n')
    text = upstream.post.read_text() + "\n[OUTPUT]\nFile: experiments/tildes.py\n\n~~~text\nold\n~~~\n\nThe end.\n"
    upstream.post.write_text(text)
    assert run(upstream, "update", capsys)[0] == 0
    assert upstream.post.read_text().endswith("~~~~text\n~~~\nafter the fence\n~~~~\n\nThe end.\n")
    code, _, err = run(upstream, "check", capsys)
    assert code == 0 and "3 blocks in 1 posts checked" in err


def test_update_keeps_carriage_return_line_endings(upstream, capsys):
    good = upstream.post.read_text()
    upstream.post.write_bytes(good.replace("self.value = value", "self.value = valve").replace("\n", "\r").encode())
    assert run(upstream, "update", capsys)[0] == 0
    assert upstream.post.read_bytes() == good.replace("\n", "\r").encode()
