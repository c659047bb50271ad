"""Tool state never comes from the repository (integrity round four, class 1): a repository can hold any path,
the paths the tools keep their state in included. What dev.sh and the engine keep lives in the user's cache; a
folder that stays in the tree (.venv, site) is refused by name when it is tracked, a link, or not made here; git
runs with no configuration a repository can hold. Each attack plants a marker that shows whether it ran, and the
dev.sh attacks run under `strace -f`, which lists every program the command started and every file it changed
(none outside the repository and the test's own folder, its user cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codeproof.common.gitrun import run_git
from codeproof.common.usercache import repository_cache
from conftest import ROOT, git
from fixture_site import make_site
from site_server import AXE
from tracing import traced

SET_UP = ("dev.sh", "requirements.lock", "requirements-test.lock", "requirements-uv.lock", "requirements.txt",
          "requirements-test.txt", "pyproject.toml")


def planted(path: Path, marker: Path) -> None:
    """An executable at `path` that leaves `marker` when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {marker}\n")
    path.chmod(0o755)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository with dev.sh and what it sets up from, committed, as a fresh clone of a guest's branch."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in SET_UP:
        shutil.copy2(ROOT / name, repo / name)
    git(repo, "init", "-q")
    return repo


def commit_all(repo: Path) -> None:
    for args in (["add", "-A", "-f"], ["-c", "user.email=a@example.invalid", "-c", "user.name=a", "commit", "-qm", "x"]):
        git(repo, *args)


def traced_dev_sh(repo: Path, tmp_path: Path, *args: str, **extra_env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """./dev.sh args under `strace -f` with a user cache of its own and a python3 that passes dev.sh's version
    check but installs nothing (no network, and nothing the attack could lead it to run): (the run, every
    program it started). Every file it opened to write is inside the repository or the test's folder (its user
    cache), or a device."""
    if not shutil.which("strace"):
        pytest.fail("strace is missing: install it (.ci/run does)")
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir(exist_ok=True)
    # dev.sh's own scan of the tree (python3 -I -S) runs on the real python3; a venv it makes holds a python that
    # succeeds at anything, so dev.sh can make and record one without the network.
    (fake_bin / "python3").write_text(
        f'#!/bin/sh\n[ "$1" = -I ] && exec {shutil.which("python3")} "$@"\n[ "$1" = -c ] && exit 0\n'
        'if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && printf "#!/bin/sh\\n" >"$3/bin/python" && '
        'chmod +x "$3/bin/python" && exit 0; fi\n'
        'echo "python3 $*: refused by the test" >&2\nexit 1\n')
    (fake_bin / "python3").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}", "XDG_CACHE_HOME": str(tmp_path / "user-cache"),
           **extra_env}
    env.pop("CODEPROOF_VENV", None)
    return traced(["./dev.sh", *args], repo, env, tmp_path)


def started_from(repo: Path, started: list[str]) -> list[str]:
    """The programs started from inside the repository, but dev.sh itself."""
    return [path for path in started if Path(path).is_relative_to(repo) and Path(path).name != "dev.sh"
            or path.startswith(".") and path != "./dev.sh"]


def test_a_committed_venv_is_refused_by_name_and_nothing_in_it_runs(clone, tmp_path):
    """Before, a committed .venv/bin/python with a matching .venv/.requirements.sha256 skipped the install, and
    `./dev.sh build` ran .venv/bin/mkdocs."""
    marker = tmp_path / "ran"
    for name in ("python", "python3", "mkdocs"):
        planted(clone / ".venv" / "bin" / name, marker)
    want = subprocess.run("cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1", shell=True, cwd=clone,
                          capture_output=True, text=True).stdout
    (clone / ".venv" / ".requirements.sha256").write_text(want)
    commit_all(clone)
    done, started = traced_dev_sh(clone, tmp_path, "build")
    assert done.returncode == 2
    assert done.stderr == (
        "dev.sh: .venv/ holds files that git tracks: a committed .venv/ would run as if this machine had made it\n"
        "  hint: git rm -r --cached .venv && rm -rf .venv (dev.sh makes it)\n")
    assert not marker.exists() and started_from(clone, started) == [] and started


def test_a_venv_that_dev_sh_did_not_make_is_refused_naming_where_its_records_are(clone, tmp_path):
    """An untracked .venv with no record (copied in, or made by hand) is not trusted either. The record's folder that
    dev.sh names is the engine's cache of this repository: the two compute one key."""
    marker = tmp_path / "ran"
    planted(clone / ".venv" / "bin" / "mkdocs", marker)
    done, started = traced_dev_sh(clone, tmp_path, "build")
    state = repository_cache(clone).relative_to(os.environ["XDG_CACHE_HOME"])
    assert done.returncode == 2
    assert done.stderr == (
        f"dev.sh: .venv/ was not made by dev.sh on this machine (no record of it in {tmp_path / 'user-cache' / state})\n"
        "  hint: delete it (rm -rf .venv): dev.sh makes it again from the hashed lock\n")
    assert not marker.exists() and started_from(clone, started) == []


def test_a_venv_that_is_a_link_is_refused(clone, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    planted(elsewhere / "bin" / "mkdocs", tmp_path / "ran")
    (clone / ".venv").symlink_to(elsewhere)
    done, started = traced_dev_sh(clone, tmp_path, "build")
    assert (done.returncode, done.stderr) == (2, "dev.sh: .venv is a link or a file, not a folder dev.sh made\n"
                                                 "  hint: delete it (rm .venv): dev.sh makes .venv/ itself\n")
    assert not (tmp_path / "ran").exists() and not [p for p in started if p.startswith(str(elsewhere))]


def test_a_committed_uv_is_never_run(clone, tmp_path):
    """Before, a committed .cache/uv/bin/uv with a matching .lock.sha256 ran on a fresh clone's first build. uv now
    lives in the user's cache, checked against its wheel's record before each use."""
    marker = tmp_path / "ran"
    planted(clone / ".cache" / "uv" / "bin" / "uv", marker)
    lock = subprocess.run(["sha256sum", "requirements-uv.lock"], cwd=clone, capture_output=True, text=True).stdout
    (clone / ".cache" / "uv" / ".lock.sha256").write_text(lock.split()[0] + "\n")
    commit_all(clone)
    done, started = traced_dev_sh(clone, tmp_path, "build")
    assert done.returncode != 0 and "uv could not be installed" in done.stderr  # it fetched its own, then used pip
    assert not marker.exists() and [path for path in started if ".cache" in path] == []


@pytest.mark.browser  # axe-core is the browser tests': `./dev.sh test --fast` does not install it
def test_axe_is_read_from_the_users_cache_never_from_the_repository():
    """node_modules/ in the tree, committed or not, is never read: axe-core is installed into the user's cache from
    copies of package.json and its lock (so no .npmrc of the repository's applies), and injected from there."""
    assert not AXE.is_relative_to(ROOT) and AXE.is_file()
    assert "--ignore-scripts" in (ROOT / "dev.sh").read_text()


def test_a_site_folder_that_is_a_link_is_refused_before_the_build_empties_it(tmp_path):
    """Before, a committed `site` link would have had MkDocs empty the folder it leads to."""
    site = make_site(tmp_path)
    host = tmp_path / "host"
    host.mkdir()
    (host / "keep.txt").write_text("a host file\n")
    (site.root / "site").symlink_to(host)
    built, log = site.build()
    assert built is None
    assert f"{site.root / 'site'} is a link (to {host}): a build empties its folder, wherever the link leads\n" \
           f"  hint: delete the link (rm {site.root / 'site'}): the build makes the folder itself" in log
    assert (host / "keep.txt").read_text() == "a host file\n"


def site_with_a_tracked_page(tmp_path):
    """The fixture site in a git repository that tracks site/index.html."""
    site = make_site(tmp_path)
    (site.root / "site").mkdir()
    (site.root / "site" / "index.html").write_text("<p>committed</p>\n")
    git(site.root, "init", "-q")
    git(site.root, "add", "-f", "site/index.html")
    return site


def test_a_site_folder_with_tracked_files_is_refused(tmp_path):
    site = site_with_a_tracked_page(tmp_path)
    built, log = site.build()
    assert built is None
    assert f"{site.root / 'site'} holds files that git tracks (site/index.html, …): a build empties its folder\n" \
           f"  hint: git rm -r --cached {site.root / 'site'}, then build again" in log


def traced_check(site, tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`python -m codeproof check` of a fixture site under strace, with the test's own user cache."""
    return traced([sys.executable, "-m", "codeproof", "check", "--config", str(site.root / "mkdocs.yml")], site.root,
                  {**os.environ, "TMPDIR": str(tmp_path)}, tmp_path)  # the runs' folders too


def payloads(started: list[str]) -> list[str]:
    """The programs started that the planted configuration's command runs (`touch`). A shell is started in any
    case: git's file:// transport runs git-upload-pack through /bin/sh."""
    return [path for path in started if Path(path).name == "touch"]


def test_a_git_mirror_committed_to_the_repository_is_never_used(tmp_path):
    """Before, a committed .cache/git/<repo>.git whose config turned the remote into an `ext::` command ran it on
    a fresh clone's build. The mirror now lives in the user's cache, which the repository cannot reach."""
    site = make_site(tmp_path)
    marker = tmp_path / "ran"
    mirror = site.root / ".cache" / "git" / "fixture__upstream.git"
    mirror.mkdir(parents=True)
    assert run_git("init", "-q", "--bare", git_dir=mirror).returncode == 0
    with (mirror / "config").open("a") as config:
        config.write(f'[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% {marker}"]\n\tinsteadOf = file://\n')
    done, started = traced_check(site, tmp_path)
    assert done.returncode == 0, done.stderr
    assert not marker.exists() and payloads(started) == []


def test_git_refuses_every_transport_but_https_and_file_whatever_a_mirrors_config_says(tmp_path):
    """Even a mirror in the user's cache whose config asks for `ext::` (written by anything that reached the
    cache) runs no command: the engine's own settings come last and name every transport."""
    site = make_site(tmp_path)
    marker = tmp_path / "ran"
    mirror = repository_cache(site.root) / "git" / "fixture__upstream.git"
    mirror.mkdir(parents=True)
    assert run_git("init", "-q", "--bare", git_dir=mirror).returncode == 0
    with (mirror / "config").open("a") as config:
        config.write(f'[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% {marker}"]\n\tinsteadOf = file://\n'
                     f'[core]\n\thooksPath = {tmp_path}\n\tfsmonitor = sh -c "touch {marker}"\n')
    done, started = traced_check(site, tmp_path)
    assert done.returncode != 0 and "transport 'ext' not allowed" in done.stderr
    assert not marker.exists() and payloads(started) == []


def test_no_workflow_restores_tool_state_from_a_cache():
    """actions/cache restored .cache (uv included) before ./dev.sh build: what it restores is tool state too."""
    workflows = list((ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows and [w.name for w in workflows if "actions/cache" in w.read_text()] == []


def test_a_venv_that_dev_sh_made_and_a_checkout_then_filled_is_refused(clone, tmp_path):
    """Review of round four: a guest commit force-added .venv/bin/mkdocs; after `git pull` and `git reset HEAD~1` the
    file stayed, untracked, in the folder dev.sh had made (same device and inode), and ran. The record now holds
    what the folder held."""
    done, _ = traced_dev_sh(clone, tmp_path, "build", DEV_SH_NO_UV="1")
    assert (clone / ".venv" / "bin" / "python").is_file(), done.stderr  # made, installed (by the fakes), recorded
    marker = tmp_path / "ran"
    planted(clone / ".venv" / "bin" / "mkdocs", marker)
    done, started = traced_dev_sh(clone, tmp_path, "build", DEV_SH_NO_UV="1")
    state = tmp_path / "user-cache" / repository_cache(clone).relative_to(os.environ["XDG_CACHE_HOME"])
    assert (done.returncode, done.stderr) == (2, f"dev.sh: .venv/ changed since dev.sh made it (its record in {state} "
                                                 "names other files)\n  hint: delete it (rm -rf .venv): dev.sh makes it "
                                                 "again from the hashed lock\n")
    assert not marker.exists() and started_from(clone, started) == []


@pytest.mark.parametrize("where", ["tracked", "left behind"])
def test_bytecode_python_would_run_unchecked_is_refused_tracked_or_not(clone, tmp_path, where):
    """Review of round four: a committed unchecked hash-based .pyc of an engine module ran in place of its source."""
    import py_compile

    marker = tmp_path / "ran"
    (clone / "hooks").mkdir()
    (clone / "hooks" / "mod.py").write_text("x = 1\n")
    payload = tmp_path / "payload.py"
    payload.write_text(f"open({str(marker)!r}, 'w').close()\n")
    pyc = clone / "hooks" / "__pycache__" / "mod.cpython-311.pyc"
    py_compile.compile(str(payload), cfile=str(pyc), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    if where == "tracked":
        commit_all(clone)
    done, started = traced_dev_sh(clone, tmp_path, "build")
    assert (done.returncode, done.stderr) == (2, "dev.sh: the tree holds compiled code that Python would run unreviewed: "
                                                 "hooks/__pycache__/mod.cpython-311.pyc\n  hint: delete it (Python "
                                                 "makes none of these in the tree itself); if git tracks it: git rm "
                                                 "--cached, then delete it\n")
    assert not marker.exists() and started_from(clone, started) == []


def test_python_m_never_imports_a_module_of_the_working_folder_first(clone, tmp_path):
    """Review of round four: a repository's codeproof/__main__.py ran on `python -m codeproof` (the working folder
    came first on the import path)."""
    import sys

    marker = tmp_path / "ran"
    (clone / "codeproof").mkdir()
    (clone / "codeproof" / "__main__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {**os.environ, "CODEPROOF_VENV": sys.prefix}
    subprocess.run(["./dev.sh", "check"], cwd=clone, env=env, capture_output=True, text=True, timeout=300)
    assert not marker.exists()


def test_a_repository_git_calls_dubious_is_still_read_and_its_tracked_site_refused(tmp_path):
    """Review of round four: owned by another user, git refused to list what it tracks, which read as "nothing"."""
    site = site_with_a_tracked_page(tmp_path)
    os.chown(site.root, 65534, 65534)
    try:
        built, log = site.build()
    finally:
        os.chown(site.root, os.getuid(), os.getgid())
    assert built is None and "holds files that git tracks (site/index.html, …)" in log
