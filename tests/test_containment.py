"""Experiments are contained: nothing a run does changes the repository, site/ or what is published.

Each run test runs in both sandboxes: "subreaper" (the fallback, anywhere on Linux) and "bwrap"
(skipped where bubblewrap cannot make namespaces). Processes a test starts carry a unique marker in
their command line, so the test can tell that they are gone, and kill exactly them if they are not.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import sys
import tempfile
import time
import uuid
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from mkdocs.config import load_config

from codeproof.engine import run_failure
from codeproof.experiments.runner import ExperimentRunner
from codeproof.experiments.sandbox import FIXED_ENV, SYSTEM_PATH, bwrap_works
from codeproof.common.filesystem import FILE_HINT, LINK_HINT, RENAME_HINT
from codeproof.common.structure import Limits, Problem
from codeproof.experiments.resources import Resource, build_archive, read_resources
from conftest import ROOT, SCRIPT, archive_entries, mkdocs, printing, processes_with, write

HOSTILE = 'x"><img src=x onerror=alert(1)>.py'

# Why the bubblewrap tests skip (outside CI; under CI=true a skip fails): what is missing and how to get it.
NO_BWRAP = ("bubblewrap cannot run here: install it (`apt-get install bubblewrap`) and allow unprivileged user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
            "kernel.apparmor_restrict_unprivileged_userns=0)")


# --- helpers -------------------------------------------------------------------------------


def tree_digest(root: Path) -> dict[str, str]:
    """SHA-256 of every file under root (and the target of every link), by relative path."""
    digests = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            digests[rel] = "link to " + os.readlink(path)
        elif path.is_file():
            digests[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            digests[rel] = "folder"
    return digests


def all_gone(marker: str, within: float = 30.0) -> bool:
    """Whether the processes holding marker end: a killed process is gone at once, so `within` is only how long a
    test waits before it says one was left (generous, for a loaded machine)."""
    deadline = time.monotonic() + within
    while processes_with(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def spawning(marker: str, body: str) -> str:
    """A script that starts sleepers (command lines holding marker) as `body` says, waiting until each runs."""
    return f"MARKER = {marker!r}\n" + '''\
import os, subprocess, sys, time
# Left to itself, it says so on the stdout it shares with the script: a run that waited for it shows the line.
SLEEPER = [sys.executable, "-c", "import time; time.sleep(60); print('the sleeper woke', flush=True)", MARKER]


def running(pid):
    """Return once pid runs the sleeper (its exec is done), so that the run cannot end before it."""
    deadline = time.monotonic() + 10
    while MARKER.encode() not in open(f"/proc/{pid}/cmdline", "rb").read():
        if time.monotonic() > deadline:
            sys.exit("the sleeper never started")
        time.sleep(0.01)


''' + body


# Detached: a new session, so no process group holds it; it keeps the script's stdout open.
DETACHED = """\
running(subprocess.Popen(SLEEPER, start_new_session=True).pid)
print("parent done", flush=True)
"""
# A double fork: the middle process exits at once, so the sleeper is an orphan in its own session.
ORPHAN = """\
r, w = os.pipe()
middle = os.fork()
if middle == 0:
    if os.fork() == 0:
        os.setsid()
        os.write(w, str(os.getpid()).encode())
        os.execv(sys.executable, SLEEPER)
    os._exit(0)
os.waitpid(middle, 0)
os.close(w)
running(int(os.read(r, 32)))
print("parent done", flush=True)
"""


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(params=[
    "subreaper",
    pytest.param("bwrap", marks=pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)),
])
def sandbox(request) -> str:
    return request.param


@pytest.fixture
def run(make_runner, sandbox):
    """Run one script in a fresh runner with the sandbox of the test; returns its RunResult."""

    def go(script: str = SCRIPT, timeout: float = 20):
        runner = make_runner(timeout=timeout, sandbox=sandbox)
        assert runner.sandbox == sandbox
        result = runner.result(script)
        runner.finish()
        return result

    return go


@pytest.fixture
def marker():
    """A unique marker; at teardown, any process still holding it (which the test started) is killed."""
    mark = f"codeproof-test-{uuid.uuid4().hex}"
    yield mark
    for pid in processes_with(mark):
        os.kill(pid, signal.SIGKILL)


# --- the repository, and the run's folder --------------------------------------------------


def test_a_run_cannot_change_the_repository_or_site_through_relative_paths(root, run):
    write(root, "site/index.html", "<p>published</p>\n")
    write(root, "docs/posts/x.md", "# A post\n")
    write(root, SCRIPT, """\
        import os, pathlib
        for folder in ("site", "docs/posts", ".cache/experiments"):
            os.makedirs(folder, exist_ok=True)
        pathlib.Path("site/index.html").write_text("defaced")
        pathlib.Path("site/new.html").write_text("new page")
        with open("docs/posts/x.md", "a") as post:
            post.write("appended to the post")
        with open("experiments/x.py", "a") as script:
            script.write("# changed itself")
        pathlib.Path("requirements.txt").write_text("evil==1")
        pathlib.Path(".cache/experiments/forged.json").write_text("{}")
        pathlib.Path("../outside.txt").write_text("one folder up")
        print("wrote")
    """)
    before = tree_digest(root)
    result = run()
    assert result.ok, result.stderr
    assert result.stdout == "wrote\n"
    assert tree_digest(root) == before


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_the_repository_is_out_of_reach_by_its_absolute_path(tmp_path):
    with tempfile.TemporaryDirectory() as repository:
        repo = Path(repository)
        target = write(repo, "requirements.txt", "autograd==1.9.1\n")
        write(repo, SCRIPT, f"open({str(target)!r}, 'a').write('evil==1')\n")
        before = tree_digest(repo)
        runner = ExperimentRunner(repo, tmp_path / ".cache", 20, 1 << 20, sandbox="bwrap", key_file=tmp_path / "key")
        result = runner.result(SCRIPT)
        runner.finish()
        assert result.returncode == 1
        assert result.stderr.splitlines()[-1] == f"FileNotFoundError: [Errno 2] No such file or directory: {str(target)!r}"
        assert tree_digest(repo) == before


def test_the_run_happens_in_a_scratch_copy_that_is_removed_afterwards(root, run):
    write(root, "experiments/data.txt", "copied\n")
    write(root, SCRIPT, "import os\nprint(os.getcwd())\nprint(open('experiments/data.txt').read().strip())\n")
    result = run()
    cwd = Path(result.stdout.splitlines()[0])
    assert result.stdout.splitlines()[1] == "copied"
    assert cwd.name == "resources"
    assert not cwd.is_relative_to(root)
    assert not cwd.parent.exists()


# --- the environment -----------------------------------------------------------------------


def test_an_inherited_variable_is_not_visible(root, run, monkeypatch):
    monkeypatch.setenv("FOO", "1")
    write(root, SCRIPT, "import os\nprint(os.environ.get('FOO'))\n")
    assert run().stdout == "None\n"


def test_the_environment_is_exactly_the_documented_one(root, run):
    write(root, SCRIPT, "import json, os\nprint(json.dumps(dict(os.environ)))\n")
    env = json.loads(run().stdout)
    run_dir = Path(env["PWD"]).parent
    assert env == {
        **FIXED_ENV,
        "PATH": f"{Path(sys.executable).parent}:{SYSTEM_PATH}",
        "CODEPROOF_FIGURES": str(run_dir / "figures"),
        "MPLCONFIGDIR": str(run_dir / "tmp" / "matplotlib"),
        "HOME": str(run_dir / "home"),
        "TMPDIR": str(run_dir / "tmp"),
        "PWD": str(run_dir / "resources"),
    }


# --- processes -----------------------------------------------------------------------------


def test_a_detached_child_holding_stdout_ends_with_the_script(root, run, marker):
    write(root, SCRIPT, spawning(marker, DETACHED))
    result = run(timeout=20)  # had it waited for the child, the run would have timed out
    assert result.ok, result.stderr
    assert result.stdout == "parent done\n"
    assert all_gone(marker), "the detached child outlived the run"


def test_a_detached_child_is_gone_after_a_time_out(root, run, marker):
    write(root, SCRIPT, spawning(marker, DETACHED + "time.sleep(60)\n"))
    result = run(timeout=2)
    assert result.timed_out and result.stdout == "parent done\n", "the run outlasted its time-out"
    assert all_gone(marker), "the detached child outlived the time-out"


def test_a_double_forked_orphan_is_gone_when_the_run_ends(root, run, marker):
    write(root, SCRIPT, spawning(marker, ORPHAN))
    result = run(timeout=20)  # had it waited for the orphan, the run would have timed out
    assert result.ok, result.stderr
    assert all_gone(marker), "the orphan outlived the run"


def test_a_double_forked_orphan_is_gone_after_a_time_out(root, run, marker):
    write(root, SCRIPT, spawning(marker, ORPHAN + "time.sleep(60)\n"))
    result = run(timeout=2)
    assert result.timed_out
    assert all_gone(marker), "the orphan outlived the time-out"


def test_a_failing_script_shows_a_traceback_of_its_own_frames(root, run):
    write(root, SCRIPT, "def f():\n    raise ValueError('boom')\n\nf()\n")
    result = run()
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith('  File "') and lines[1].endswith('/resources/experiments/x.py", line 4, in <module>')
    assert lines[-1] == "ValueError: boom"
    assert "<string>" not in result.stderr


def test_a_script_killed_by_a_signal_exits_with_128_plus_that_signal(root, run):
    write(root, SCRIPT, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert run().returncode == 128 + signal.SIGKILL


# --- what is published of experiments/ -----------------------------------------------------


def test_a_symlink_in_experiments_is_a_problem_and_is_not_read(root):
    write(root, "experiments/a.py", printing("a"))
    os.symlink("/etc/passwd", root / "experiments" / "passwd.py")
    files, problems = read_resources(root)
    assert [f.path for f in files] == ["experiments/a.py"]
    assert problems == [Problem("experiments/passwd.py", 1, "a symbolic link (to /etc/passwd): the site would publish "
                                "whatever it leads to", hint=LINK_HINT)]


def test_a_symlinked_folder_is_a_problem_and_is_not_walked(root):
    os.symlink("/etc", root / "experiments" / "etc")
    files, problems = read_resources(root)
    assert files == []
    assert problems == [Problem("experiments/etc", 1, "a symbolic link (to /etc): the site would publish whatever "
                                "it leads to", hint=LINK_HINT)]


def test_a_symlinked_experiments_folder_is_a_problem(tmp_path):
    os.symlink("/etc", tmp_path / "experiments")
    assert read_resources(tmp_path) == ([], [Problem("experiments", 1, "a symbolic link (to /etc): the site would "
                                                     "publish whatever it leads to", hint=LINK_HINT)])


def test_a_hard_link_is_a_problem(root):
    write(root, "experiments/a.txt", "data\n")
    os.link(root / "experiments" / "a.txt", root / "experiments" / "b.txt")
    files, problems = read_resources(root)
    assert files == []
    assert problems == [
        Problem(f"experiments/{name}", 1, "a hard link (the file has 2 names), so it cannot be published", hint=FILE_HINT)
        for name in ("a.txt", "b.txt")
    ]


def test_a_fifo_is_a_problem_and_is_not_read(root):
    os.mkfifo(root / "experiments" / "pipe.txt")
    assert read_resources(root) == ([], [Problem("experiments/pipe.txt", 1, "not a regular file, so it cannot be "
                                                 "published", hint=FILE_HINT)])


def test_a_script_that_is_not_utf8_is_a_problem_naming_its_line(root):
    (root / "experiments" / "latin.py").write_bytes(b"print('ok')\nname = 'caf\xe9'\n")
    assert read_resources(root) == ([], [Problem("experiments/latin.py", 2, "the script is not UTF-8 (byte 0xe9 on "
                                                 "line 2)", hint="save it as UTF-8")])


def test_a_file_name_that_is_not_printable_is_a_problem(root):
    write(root, "experiments/a\nb.py", printing("x"))
    assert read_resources(root) == ([], [Problem("experiments/a\\nb.py", 1, "the file name is not printable UTF-8, "
                                                 "so it has no address", hint=RENAME_HINT)])


@pytest.mark.parametrize("name", [".py", "..py", ".hidden.py", ".data"])
def test_a_hidden_file_name_is_a_problem_as_mkdocs_would_not_publish_it(root, name):
    write(root, f"experiments/{name}", printing("x"))
    write(root, "experiments/ok.py", printing("ok"))
    assert read_resources(root) == ([Resource("experiments/ok.py", printing("ok").encode())], [Problem(
        f"experiments/{name}", 1, "the name is hidden (it starts with '.'), and MkDocs publishes no hidden file, so "
        "its link and page would be missing", hint="rename it, or delete it")])


@pytest.mark.parametrize("name", ["index.py", "README.py", "Readme.py"])
def test_a_script_whose_page_would_be_its_folders_page_is_a_problem(root, name):
    write(root, f"experiments/{name}", printing("x"))
    assert read_resources(root) == ([], [Problem(
        f"experiments/{name}", 1, "its page would be the page of the folder experiments/ (MkDocs makes index.md and "
        "README.md a folder's page), not a page of its own", hint="rename it")])


def test_a_symlinked_script_is_not_run(root, make_runner):
    os.symlink("/etc/passwd", root / SCRIPT)
    runner = make_runner()
    result = runner.result(SCRIPT)
    assert runner.runs == 0
    assert not result.ok
    assert result.stderr == "cannot run it: a symbolic link (to /etc/passwd): the site would publish whatever it leads to"


def test_a_symlink_is_not_in_the_archive(root):
    write(root, "experiments/a.py", printing("a"))
    os.symlink("/etc/passwd", root / "experiments" / "passwd.txt")
    files, _ = read_resources(root)
    names = [entry.filename for entry in archive_entries(build_archive(root, "S", files).data)]
    assert names == ["README.md", "experiments/a.py", "requirements.txt"]


# --- in a real build -----------------------------------------------------------------------


class _Page(HTMLParser):
    """The decoded text of <title> and <h1>, and the attributes of the download link."""

    def __init__(self, html_text: str):
        super().__init__(convert_charrefs=True)
        self.inside: str | None = None
        self.text = {"title": "", "h1": ""}
        self.download: dict[str, str] = {}
        self.feed(html_text)

    def handle_starttag(self, tag, attrs):
        if tag in self.text:
            self.inside = tag
        if tag == "a" and "download" in dict(attrs):
            self.download = dict(attrs)

    def handle_endtag(self, tag):
        if tag == self.inside:
            self.inside = None

    def handle_data(self, data):
        if self.inside:
            self.text[self.inside] += data


def make_site(root: Path, experiments: dict[str, str]) -> Path:
    """A small Material site using the series hook, with these experiments and no posts."""
    real = load_config(str(ROOT / "mkdocs.yml"))  # for extra.series, read as MkDocs reads it
    config = {
        "site_name": "Containment",
        "site_url": "https://example.org/",
        "theme": {"name": "material"},
        "hooks": [str(ROOT / "hooks" / "series.py")],
        "plugins": ["search"],
        "markdown_extensions": [  # the real site's, but toc's slugify, a Python object
            "admonition", "attr_list", "md_in_html", "tables", {"toc": {"permalink": True}},
            {"pymdownx.highlight": {"anchor_linenums": True, "line_spans": "__span", "linenums_style": "pymdownx-inline"}},
            "pymdownx.inlinehilite", "pymdownx.superfences",
        ],
        # The real series less its matrix, whose locks this site does not hold (a build checks them).
        "extra": {"series": {**real.extra["series"], "announced": [], "experiments": {
            key: value for key, value in real.extra["series"].get("experiments", {}).items() if key != "matrix"}}},
        "nav": [{"Home": "index.md"}],
    }
    write(root, "mkdocs.yml", yaml.safe_dump(config, allow_unicode=True))
    write(root, "docs/index.md", "# Containment\n")
    write(root, "requirements.txt", (ROOT / "requirements.txt").read_text(encoding="utf-8"))
    for name, text in experiments.items():
        write(root, f"experiments/{name}", text)
    return root


# The two sites below are Material builds with the real series' pinned sdist: their tests are marked slow.
@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    root = make_site(tmp_path_factory.mktemp("hostile"), {"ok.py": printing("ok"), HOSTILE: printing("hi")})
    done = mkdocs(root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    return root / "site"


@pytest.fixture(scope="module")
def linked_site(tmp_path_factory):
    root = make_site(tmp_path_factory.mktemp("linked"), {"ok.py": printing("ok")})
    os.symlink("/etc/passwd", root / "experiments" / "passwd.py")
    os.symlink("/etc/passwd", root / "experiments" / "secrets.txt")
    return root / "site", mkdocs(root, "build", "--strict")


@pytest.mark.slow
def test_a_hostile_file_name_is_escaped_in_its_built_page(hostile_site):
    page = (hostile_site / "experiments" / HOSTILE[: -len(".py")] / "index.html").read_text(encoding="utf-8")
    assert "<img" not in page
    assert _Page(page).text["h1"].rstrip("¶") == HOSTILE


@pytest.mark.slow
def test_a_hostile_file_name_is_the_title_of_its_built_page(hostile_site):
    page = (hostile_site / "experiments" / HOSTILE[: -len(".py")] / "index.html").read_text(encoding="utf-8")
    assert _Page(page).text["title"] == f"{HOSTILE} - Containment"


@pytest.mark.slow
def test_a_hostile_file_name_downloads_under_its_own_name(hostile_site):
    page = (hostile_site / "experiments" / HOSTILE[: -len(".py")] / "index.html").read_text(encoding="utf-8")
    link = _Page(page).download
    assert link["download"] == HOSTILE
    assert unquote(link["href"]) == f"../{HOSTILE}"
    assert (hostile_site / "experiments" / HOSTILE).read_text(encoding="utf-8") == printing("hi")


@pytest.mark.slow
def test_a_hostile_file_name_is_not_raw_html_in_the_search_index(hostile_site):
    index = (hostile_site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "<img" not in json.dumps(json.loads(index), ensure_ascii=False)  # Material shows its strings as HTML


@pytest.mark.slow
def test_a_symlink_in_experiments_fails_the_build_naming_it(linked_site):
    _, done = linked_site
    assert done.returncode == 1
    assert ("experiments/passwd.py:1: a symbolic link (to /etc/passwd): the site would publish whatever it leads to"
            f"\n  also at experiments/secrets.txt:1\n  hint: {LINK_HINT}") in done.stderr


@pytest.mark.slow
def test_a_symlink_in_experiments_is_published_nowhere(linked_site):
    site, _ = linked_site
    assert not any(site.iterdir())  # the build failed, so it left nothing to publish
    root = site.parent
    files, _ = read_resources(root)
    names = [entry.filename for entry in archive_entries(build_archive(root, "x", files).data)]
    assert names == ["README.md", "experiments/ok.py", "requirements.txt"]
    assert [f.path for f in files] == ["experiments/ok.py"]


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_the_cache_key_cannot_be_read(root, make_runner, tmp_path):
    key = tmp_path / "secret" / "cache.key"
    write(root, SCRIPT, f"""\
        try:
            print(len(open({str(key)!r}, 'rb').read()), 'bytes of key')
        except OSError as error:
            print('no key:', type(error).__name__)
    """)
    result = make_runner(sandbox="bwrap").result(SCRIPT)  # the key is made before the run looks up the cache
    assert key.stat().st_size == 32
    assert result.stdout in ("0 bytes of key\n", "no key: PermissionError\n", "no key: FileNotFoundError\n"), result.stderr


@pytest.mark.parametrize("attack", [
    "os.mkfifo('../inputs')",
    "os.mkdir('../inputs')",
    "os.symlink('/dev/zero', '../inputs')",
])
def test_a_run_that_plants_things_beside_its_copy_neither_hangs_nor_breaks_the_build(root, run, attack):
    write(root, SCRIPT, f"import os\n{attack}\nprint('ok')\n")
    result = run(timeout=20)  # a run that hung would time out
    assert result.ok and result.stdout == "ok\n", result.stderr
    assert SCRIPT in result.inputs


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_there_is_no_network_not_even_loopback(root, make_runner):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        write(root, SCRIPT, f"""\
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=5)
                print("connected")
            except OSError as error:
                print("no network:", type(error).__name__)
        """)
        result = make_runner(sandbox="bwrap").result(SCRIPT)
    assert result.stdout.startswith("no network:"), result.stdout + result.stderr


@pytest.mark.parametrize("name, shows", [
    ("experiments/[OUTPUT] grad=42.py", "a block marker"),
    ("experiments/✓输出已验证.py", "a card's face (a card's label, or the words of its stamp)"),  # review, round five
    ("experiments/源码 REAL SOURCE/a.py", "a card's face (a card's label, or the words of its stamp)"),  # a folder
    # Issue 52: a face or a marker split over folders, each name passing alone, read whole on the script's page (its
    # description) and in a citation's tooltip.
    ("experiments/✓ 输出/已验证 · Python 3.11.7 · autograd 1.9.1.py", "a card's face (a card's label, or the words of its stamp)"),
    ("experiments/[REAL/SOURCE].py", "a block marker"),
])
def test_a_script_whose_name_reads_as_a_cards_own_is_not_published(root, name, shows):
    write(root, name, printing("x"))
    files, problems = read_resources(root)
    assert files == []
    shown = name if name.endswith(("grad=42.py", "1.9.1.py", "SOURCE].py")) or "✓输出" in name else name.rsplit("/", 1)[0]
    assert problems == [Problem(shown, 1, f"the path shows {shows}, so its page would claim what nothing proved",
                                hint="rename it")]


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_a_file_of_the_machine_outside_what_a_script_needs_cannot_be_read(root, make_runner, tmp_path):
    """A token in a file of /tmp or a home, the build's environment, the repository: what `check` would print in a
    mismatch diff and `update` write into a post."""
    secret = tmp_path / "hosts.yml"
    secret.write_text("oauth_token: gho_secret\n")
    write(root, SCRIPT, f"""\
        import os
        for path in ({str(secret)!r}, "/proc/1/environ", "/etc/hostname", {str(ROOT / "mkdocs.yml")!r}):
            try:
                print(path, len(open(path, "rb").read()))
            except OSError as error:
                print(path, type(error).__name__)
    """)
    result = make_runner(sandbox="bwrap").result(SCRIPT)
    assert result.ok, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{secret} FileNotFoundError"
    assert lines[2:] == ["/etc/hostname FileNotFoundError", f"{ROOT / 'mkdocs.yml'} FileNotFoundError"]
    assert "gho_secret" not in result.stdout  # /proc/1 is the sandbox's own first process, not the build's
    assert lines[1].startswith("/proc/1/environ ")


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_a_unix_socket_of_the_machine_receives_nothing(root, make_runner, tmp_path):
    """ssh-agent, D-Bus or Docker listen on filesystem sockets, which a network namespace does not close."""
    path = tmp_path / "agent.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)
        server.settimeout(0.5)
        write(root, SCRIPT, f"""\
            import socket
            try:
                socket.socket(socket.AF_UNIX).connect({str(path)!r})
                print("connected")
            except OSError as error:
                print("no socket:", type(error).__name__)
        """)
        result = make_runner(sandbox="bwrap").result(SCRIPT)
        with pytest.raises(socket.timeout):
            server.accept()
    assert result.stdout == "no socket: FileNotFoundError\n", result.stdout + result.stderr



# --- limits ------------------------------------------------------------------------------------


LIMIT_CASES = {  # limit name -> (the limits of the run, a script that passes it)
    "memory_mib": (Limits(memory_mib=512), "x = bytearray(1024 * 1024 * 1024)\nprint(len(x))\n"),
    "file_size_mib": (Limits(file_size_mib=1), "import os\nwith open(os.environ['TMPDIR'] + '/big', 'wb') as f:\n"
                                              "    f.write(bytes(2 * 1024 * 1024))\nprint('written')\n"),
    "cpu_seconds": (Limits(cpu_seconds=1), "while True:\n    pass\n"),
}


@pytest.mark.parametrize("name", LIMIT_CASES)  # and the process limit, in the bwrap sandbox only: below
def test_a_run_that_passes_a_limit_fails_naming_the_limit_and_where_it_is_set(root, make_runner, sandbox, name):
    limits, script = LIMIT_CASES[name]
    write(root, SCRIPT, script)
    result = make_runner(sandbox=sandbox, limits=limits).result(SCRIPT)
    assert not result.ok and result.stdout == ""
    assert result.limit == limits.phrase(name)
    assert f"extra.series.experiments.limits.{name} in mkdocs.yml" in run_failure(result, 20)


def test_the_limits_name_their_values_and_units():
    assert [Limits().phrase(name) for name in ("memory_mib", "file_size_mib", "processes", "cpu_seconds")] == [
        "the memory limit (2048 MiB; extra.series.experiments.limits.memory_mib in mkdocs.yml)",
        "the file size limit (64 MiB; extra.series.experiments.limits.file_size_mib in mkdocs.yml)",
        "the process limit (256; extra.series.experiments.limits.processes in mkdocs.yml)",
        "the CPU time limit (60 s; extra.series.experiments.limits.cpu_seconds in mkdocs.yml)",
    ]


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_the_process_limit_counts_the_runs_own_processes(root, make_runner):
    """Not the whole user's (RLIMIT_NPROC alone would), and not exempt for root (the kernel exempts root): 12
    children fit under a limit of 16 however many processes the build's user has, 40 do not. (The fallback's
    note says it holds no such limit.)"""
    limits = Limits(processes=16)
    for count, ok in ((12, True), (40, False)):
        write(root, SCRIPT, f"import os, time\nfor _ in range({count}):\n    if os.fork() == 0:\n"
                            "        time.sleep(2)\n        os._exit(0)\nprint('forked')\n")
        result = make_runner(sandbox="bwrap", limits=limits).result(SCRIPT)
        assert result.ok is ok, (count, result.stderr)
    assert result.limit == limits.phrase("processes")


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_a_script_never_runs_as_root_and_gains_no_privilege(root, make_runner):
    write(root, SCRIPT, """\
        import os
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(os.getuid() != 0, os.geteuid() != 0, status["NoNewPrivs"].strip(), status["CapEff"].strip())
        open("/tmp/anywhere", "w").write("a private /tmp is writable")
    """)
    result = make_runner(sandbox="bwrap").result(SCRIPT)
    assert result.ok, result.stderr
    assert result.stdout == "True True 1 0000000000000000\n"


@pytest.mark.skipif(not bwrap_works(), reason=NO_BWRAP)
@pytest.mark.kills("sandbox")  # tests/mutations.py
def test_in_the_bwrap_sandbox_a_read_only_mount_cannot_be_made_writable(root, make_runner):
    """With capabilities, a script could remount the venv writable and plant a .pth that the next build runs."""
    write(root, SCRIPT, """\
        import ctypes, sys
        libc = ctypes.CDLL(None, use_errno=True)
        MS_REMOUNT, MS_BIND = 32, 4096
        print(libc.mount(None, sys.prefix.encode(), None, MS_REMOUNT | MS_BIND, None), ctypes.get_errno())
    """)
    result = make_runner(sandbox="bwrap").result(SCRIPT)
    assert result.ok, result.stderr
    assert result.stdout == "-1 1\n"  # EPERM


def test_run_folders_of_a_killed_build_are_removed_by_the_next(root, make_runner, monkeypatch, tmp_path):
    """A build killed with SIGKILL cannot remove its run folders, which hold whatever its scripts wrote."""
    from codeproof.experiments import runner as experiments

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process has it
    stale, ours = tmp_path / f"codeproof-run-{gone}-x1", tmp_path / f"codeproof-run-{os.getpid()}-x2"
    for folder in (stale, ours):
        (folder / "resources").mkdir(parents=True)
    experiments._remove_stale_runs.cache_clear()
    write(root, SCRIPT, printing("ok"))
    assert make_runner().result(SCRIPT).ok
    assert not stale.exists() and ours.exists()
