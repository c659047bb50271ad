"""The command line, on a fixture upstream repository: lock, check, update."""

from __future__ import annotations

import json

import pytest

from codeproof.__main__ import main
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
