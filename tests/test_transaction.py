"""A change of several files (rebase: the posts, mkdocs.yml, requirements.txt, the lock) lands whole or not at
all, whatever ends the process, and the next command says what it finished."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codeproof.common import filesystem
from codeproof.common.filesystem import journal_file, recover, shown_path, write_together
from codeproof.series.config import SeriesConfigError, load_series
from conftest import ROOT, ctrl_c_as_at_a_terminal, read_only

OLD = {"docs/posts/a.md": b"old a\n", "mkdocs.yml": b"old config\n", "requirements.txt": b"old pins\n",
       "sources.lock.json": b"old lock\n"}
NEW = {name: data.replace(b"old", b"new") for name, data in OLD.items()}

# A child that writes NEW over OLD with write_together and is ended at its `stop`-th step: after each aside copy
# is written (the journal's too), before each rename (the journal's too) and before the journal is removed.
CHILD = textwrap.dedent("""\
    import os, signal, sys
    from pathlib import Path
    from codeproof.common import filesystem
    root, stop, how = Path(sys.argv[1]), int(sys.argv[2]), getattr(signal, sys.argv[3])
    steps = 0

    def step():
        global steps
        steps += 1
        if steps == stop:
            os.kill(os.getpid(), how)

    write_aside, replace, unlink = filesystem._write_aside, os.replace, Path.unlink
    def aside(path, data, made, **how):
        write_aside(path, data, made, **how)
        step()
    def replacing(a, b):
        step()
        replace(a, b)
    def unlinking(self, missing_ok=False):
        if self == filesystem.journal_file(root):
            step()
        unlink(self, missing_ok=missing_ok)
    filesystem._write_aside, os.replace, Path.unlink = aside, replacing, unlinking
    new = {root / name: data for name, data in eval(sys.argv[4]).items()}
    try:
        filesystem.write_together(root, new)
    except KeyboardInterrupt:
        print("interrupted", steps)
        sys.exit(130)
    print("done", steps)
""")
STEPS = len(OLD) + 2 + len(OLD) + 1  # asides, the journal aside and its rename, the renames, the journal's removal
COMMITTED = len(OLD) + 2  # the step of the journal's rename, the point of no return: stopped after it, all is new


def tree(tmp_path: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return tmp_path


def contents(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in OLD}


def leftovers(root: Path) -> list[str]:
    """Aside copies in the repository, and the journal or its aside copy in the user's cache."""
    journal = journal_file(root)
    return sorted([str(p.relative_to(root)) for p in root.rglob("*") if filesystem.ASIDE in p.name]
                  + [p.name for p in journal.parent.glob("*") if journal.name in p.name])


def child(root: Path, stop: int, how: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, str(root), str(stop), how, repr(NEW)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, preexec_fn=ctrl_c_as_at_a_terminal)


def test_every_file_is_written_and_nothing_is_left_beside_them(tmp_path):
    root = tree(tmp_path, OLD)
    write_together(root, {root / name: data for name, data in NEW.items()})
    assert contents(root) == NEW and leftovers(root) == []


def test_the_child_reaches_every_step_it_can_be_stopped_at(tmp_path):
    """So that the tests below stop it at each of them (a step they never reach would test nothing)."""
    done = child(tree(tmp_path, OLD), 0, "SIGKILL")
    assert done.stdout == f"done {STEPS}\n", done.stderr


@pytest.mark.parametrize("stop", range(1, STEPS + 1))
def test_a_sigkill_at_any_write_leaves_all_old_or_all_new_once_the_next_run_recovers(tmp_path, stop):
    root = tree(tmp_path, OLD)
    assert child(root, stop, "SIGKILL").returncode == -signal.SIGKILL
    committed = stop > COMMITTED
    said = recover(root)
    assert contents(root) == (NEW if committed else OLD)
    assert leftovers(root) == []
    if committed:
        assert said == [f"finished an interrupted change of 4 files: {', '.join(OLD)}"]
    else:
        assert said and all(line.endswith("left by a change interrupted before it wrote anything") for line in said)


@pytest.mark.parametrize("stop", range(1, STEPS + 1))
def test_ctrl_c_at_any_write_leaves_all_old_before_the_journal_and_all_new_after_at_once(tmp_path, stop):
    """Held from the journal's rename to the end, Ctrl-C lands after the last rename: nothing to recover."""
    root = tree(tmp_path, OLD)
    done = child(root, stop, "SIGINT")
    assert done.returncode == 130 and done.stdout.startswith("interrupted"), done.stderr
    assert contents(root) == (NEW if stop >= COMMITTED else OLD)  # the rename's Ctrl-C is held until all is done
    assert leftovers(root) == [] and recover(root) == []


def test_a_journal_whose_files_were_changed_since_is_not_finished_blindly(tmp_path):
    root = tree(tmp_path, OLD)
    assert child(root, COMMITTED + 2, "SIGKILL").returncode == -signal.SIGKILL  # one file renamed, then killed
    aside = next(p for p in root.rglob("*") if filesystem.ASIDE in p.name)
    aside.write_bytes(b"edited meanwhile\n")
    with pytest.raises(filesystem.ChangeUnfinished) as refused:
        recover(root)
    assert refused.value.hint == (f"restore the files with `git checkout -- .`, delete {journal_file(root)}, and run the "
                                  "command again")


def test_a_build_refuses_files_that_a_change_left_half_written(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nextra:\n  series: {}\n")
    journal_file(tmp_path).parent.mkdir(parents=True)
    journal_file(tmp_path).write_text("[]")
    with pytest.raises(SeriesConfigError) as refused:
        load_series(tmp_path / "mkdocs.yml")
    assert [str(p) for p in refused.value.problems] == [
        f"{journal_file(tmp_path)}:1: a change of several files (rebase) was interrupted and is not finished\n"
        "  hint: run ./dev.sh check: it finishes the change first"]


def test_a_command_finishes_an_interrupted_change_first_and_says_so(tmp_path, capsys):
    from codeproof.__main__ import main

    root = tree(tmp_path, OLD)
    assert child(root, COMMITTED + 1, "SIGKILL").returncode == -signal.SIGKILL
    (root / "mkdocs.yml").write_bytes(b"site_name: x\n")  # (the journal holds its new bytes: mend the aside too)
    aside = next(p for p in root.glob(f".mkdocs.yml{filesystem.ASIDE}*"))
    aside.write_bytes(b"site_name: x\n")
    journal = journal_file(root).read_text().replace(filesystem.hashlib.sha256(NEW["mkdocs.yml"]).hexdigest(),
                                                     filesystem.hashlib.sha256(b"site_name: x\n").hexdigest())
    journal_file(root).write_text(journal)
    main(["check", "--config", str(root / "mkdocs.yml")])
    assert capsys.readouterr().err.startswith(
        f"note: finished an interrupted change of 4 files: {', '.join(OLD)}\n")
    assert leftovers(root) == []


def test_a_change_that_cannot_write_a_file_changes_nothing(tmp_path, monkeypatch):
    """The lock read-only (adversarial B31): before, the posts, mkdocs.yml and requirements.txt were rewritten."""
    root = tree(tmp_path, OLD)
    read_only(monkeypatch, "sources.lock.json")
    with pytest.raises(OSError):
        write_together(root, {root / name: data for name, data in NEW.items()})
    assert contents(root) == OLD and leftovers(root) == [] and not journal_file(root).exists()


def test_a_file_that_cannot_be_written_is_named_not_its_temporary_copy(tmp_path, monkeypatch):
    """Adversarial B29: `update` on a read-only docs/ said `[Errno 30] …: '.custom-primitive.md.67h_vggy'`."""
    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system", str(tmp_path / ".p.md.67h_vggy"))

    monkeypatch.setattr(filesystem.tempfile, "mkstemp", read_only)
    with pytest.raises(filesystem.WriteError) as refused:
        filesystem.write_atomically(tmp_path / "p.md", b"x")
    assert refused.value.shown() == (f"error: cannot write {tmp_path / 'p.md'}: Read-only file system\n"
                                     "  hint: make the file and its folder writable, then run the command again")


def test_a_file_that_is_a_mount_point_is_refused_before_anything_changes(tmp_path, monkeypatch):
    """Adversarial round 2 (B31): a lock bind-mounted read-only let the posts, mkdocs.yml and requirements.txt
    change and the lock not (the rename onto the mount fails with EBUSY, after the journal)."""
    root = tree(tmp_path, OLD)
    lock = root / "sources.lock.json"
    monkeypatch.setattr(filesystem.os.path, "ismount", lambda path: Path(path) == lock)
    with pytest.raises(filesystem.WriteError) as refused:
        write_together(root, {root / name: data for name, data in NEW.items()})
    assert str(refused.value) == f"cannot write {lock}: it is a mount point, which a rename cannot replace"
    assert contents(root) == OLD and leftovers(root) == []


def test_a_journal_committed_to_the_repository_is_not_read(tmp_path):
    """Adversarial (integrity round four): a committed .codeproof-journal.json made `lock` overwrite a host file.
    The journal is tool state, kept in the user's cache: a file of that name in the repository is only a file."""
    root = tree(tmp_path / "repo", OLD)
    victim = tree(tmp_path / "host", {"victim": b"host file\n"}) / "victim"
    (root / ".x.codeproof-aside-1").write_bytes(b"planted\n")  # an aside copy, as write_together would name one
    (root / ".codeproof-journal.json").write_text(json.dumps(
        [{"path": str(victim), "aside": ".x.codeproof-aside-1", "sha256": hashlib.sha256(b"planted\n").hexdigest()}]))
    recover(root)
    assert victim.read_bytes() == b"host file\n" and contents(root) == OLD


def planted_journal(root: Path, entry: dict) -> None:
    """A journal in the user's cache naming `entry`, its aside copy holding what the entry's SHA-256 says."""
    journal_file(root).parent.mkdir(parents=True, exist_ok=True)
    journal_file(root).write_text(json.dumps([{"sha256": hashlib.sha256(b"planted\n").hexdigest(), **entry}]))


@pytest.mark.parametrize("where", ["absolute", "parent", "link", "aside outside", "git's folder", "null byte"])
def test_a_journal_that_names_a_file_outside_the_repository_changes_nothing(tmp_path, where):
    """Whatever wrote the journal (an edit, a copy from elsewhere), recover follows it only inside the repository:
    each path is checked, resolved, before any write, and the aside copy must lie beside its file."""
    root = tree(tmp_path / "repo", OLD)
    host = tree(tmp_path / "host", {"victim": b"host file\n", ".victim.codeproof-aside-1": b"planted\n"})
    (root / ".a.md.codeproof-aside-1").write_bytes(b"planted\n")
    (root / "docs" / "linked").symlink_to(host)
    entry = {"absolute": {"path": str(host / "victim"), "aside": ".a.md.codeproof-aside-1"},
             "parent": {"path": "../host/victim", "aside": "../host/.victim.codeproof-aside-1"},
             "link": {"path": "docs/linked/victim", "aside": "docs/linked/.victim.codeproof-aside-1"},
             "aside outside": {"path": "docs/a.md", "aside": str(host / ".victim.codeproof-aside-1")},
             # review of round four: .git/ lies inside the repository, and a NUL raised ValueError
             "git's folder": {"path": ".git/config", "aside": ".git/.config.codeproof-aside-1"},
             "null byte": {"path": "docs/a\0.md", "aside": "docs/.a\0.md.codeproof-aside-1"}}[where]
    planted_journal(root, entry)
    with pytest.raises(filesystem.ChangeUnfinished) as refused:
        recover(root)
    wrong = (f"it names {entry['aside']} as the new content of docs/a.md, not a copy beside it"
             if where == "aside outside" else
             f"it names {shown_path(entry['path'])}, which is not a file inside the repository reached through no link")
    assert str(refused.value) == f"{journal_file(root)}: the journal of an interrupted change cannot be followed: {wrong}"
    assert refused.value.hint == (f"delete {journal_file(root)} (nothing was changed by it), check `git status`, "
                                  "and run the command again")
    assert (host / "victim").read_bytes() == b"host file\n" and (host / ".victim.codeproof-aside-1").exists()
    assert contents(root) == OLD
