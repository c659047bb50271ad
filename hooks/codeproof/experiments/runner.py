"""Run experiment scripts: once per build each, in parallel, contained, in a fixed environment, cached.

Containment. Nothing an experiment does may change what is published or the repository:

- Each run happens in a scratch folder made for it outside the repository and removed afterwards:
  `<tmp>/codeproof-run-*/resources/` holds a copy of the published resources (experiments/, as
  resources.read_resources reads it: regular files only, no links), and the script runs there as
  `python -B experiments/x.py`, with that folder as its working directory. Every relative path it
  writes (site/..., docs/..., experiments/...) lands in the copy. HOME and TMPDIR are the run's
  own `home/` and `tmp/` beside it; its figures go to its own `figures/` (CODEPROOF_FIGURES), which the
  runner reads back after the run (figures.collect_figures), and matplotlib's settings folder is in its `tmp/`.
- Where bubblewrap (`bwrap`) works, the run is also in a sandbox (bwrap_command): it sees only the system's
  programs and libraries and the interpreter, read-only, and the run's folder; a private /tmp, /dev
  and /proc (a PID namespace that dies with the run); no network; never root. Without it
  ("subreaper" below) relative paths are contained, absolute ones are not.
- Limits (Limits: memory, processes, file size, CPU time) are set on the script's process by the
  supervisor, which stays outside them; a run that hits one fails naming it (RunResult.limit).
- The script runs under a small supervisor (SUPERVISOR below, `python -c`) that makes itself a
  child subreaper (prctl PR_SET_CHILD_SUBREAPER): every process the script leaves behind, however
  it detached (setsid, double fork), is re-parented to it. When the script ends, or the runner
  stops the run (time-out, output cap) with SIGTERM, the supervisor kills and reaps every
  descendant before it exits, so no child holds the output pipes or outlives the run.
- The environment is fixed (run_env): FIXED_ENV, PATH (the interpreter's folder, then SYSTEM_PATH),
  HOME and TMPDIR in the run's folder, and PWD. Nothing is inherited from the build's environment:
  the allow-list of inherited variables is empty.
- Standard output must be UTF-8: other bytes fail the run (RunResult.undecodable), never replaced.

Inputs. The supervisor's child installs an audit hook (sys.addaudithook) before it runs the script:
it records every file under the copy that is opened (`open()`, `io.open_code`: imports, whether by
`import` or `importlib`, and data files) and every folder listed (`os.listdir`, `os.scandir`: glob,
and the import system's look-up in experiments/, so a script that imports anything depends on the
names in experiments/: a new module there could shadow the one it imports). The run's inputs are
those, with the SHA-256 of the bytes copied for them (RunResult.inputs). The record reaches the runner
through a pipe. Not seen: files read by C code without Python's `open`, stat-only checks such as
os.path.getsize, and anything a script hides on purpose (it runs in the same process as the hook and
may close the pipe): the record serves the local cache, never what CI publishes.

Cache. The last good run of each script (what it printed, the figures it wrote, the graphs it traced) is kept in
`<cache>/experiments/<sha256(format, script, versions, limits, graphs asked)>.json` and reused while the script
and every recorded input hash the same and Python, numpy and autograd are the same versions. A cache is a convenience, never evidence:
- A build with CI=true (or 1) in its environment (the publishing workflow, `.ci/run`) reads no entry
  and runs every experiment: that is the guarantee of what is published. CODEPROOF_NO_CACHE=1 does
  the same locally.
- Locally each entry carries an HMAC-SHA256 over its name and content, keyed by a per-machine secret
  kept outside the repository (~/.cache/codeproof/experiment-cache.key). An entry edited by hand,
  damaged, or copied from another machine fails the check, is discarded and its experiment runs
  again. Whoever can read that key can forge entries: the check guards against damage and edits in the
  working tree, not against the machine's owner; CI=true is what guarantees a publication.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, replace
from datetime import datetime, timezone
from functools import cache
from importlib import metadata
from pathlib import Path

from codeproof.common.kinds.figure import graph_call
from codeproof.series.config import in_ci
from codeproof.common.filesystem import write_atomically
from codeproof.experiments.figures import MATPLOTLIBRC, collect_figures
from codeproof.experiments.resources import Resource, read_resources
from codeproof.experiments.tracing import TRACE
from codeproof.common.signing import default_key_file, mac, machine_secret, signed_by
from codeproof.common.structure import Limits, Problem, RunResult

log = logging.getLogger("mkdocs.codeproof.experiments")  # shown by MkDocs; info only, so --strict is unaffected

FIXED_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONUNBUFFERED": "1",  # a run that is killed (time-out, limit) has shown all it printed
    "TZ": "UTC",
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "MPLBACKEND": "Agg",
    "SOURCE_DATE_EPOCH": "0",  # what a figure's metadata says of its date (matplotlib): the same run, the same bytes
}
FIGURES_ENV = "CODEPROOF_FIGURES"  # the folder where a run writes its figures (see run_env)
CACHE_FORMAT = 2  # of a cache entry's body: entries of another format are never read
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # after the interpreter's own folder; see run_env
NO_CACHE_ENV = "CODEPROOF_NO_CACHE"  # set to 1 to run every experiment again
SANDBOXES = ("bwrap", "subreaper")
NO_SANDBOX_IN_CI = ("not run: with CI=true an experiment runs only in bubblewrap's sandbox, and bubblewrap is missing "
                    "or cannot make namespaces here")
SANDBOX_HINT = ("install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces (sysctl "
                "kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), "
                "or build as root in a container that may make namespaces")
# What a build log says of the sandbox the experiments run in, once, when the first one runs.
SANDBOX_NOTES = {
    "bwrap": "experiments run in bubblewrap's sandbox",
    "subreaper": "experiments run in the fallback containment (a child subreaper, not a sandbox, whose process "
                 "limit counts all of the user's processes and none of root's): bubblewrap is missing or cannot make "
                 "namespaces here; install it (apt-get install bubblewrap) for the full sandbox",
}
LIMIT_NAMES = tuple(Limits.__dataclass_fields__)  # the order in which the supervisor reads them
NOBODY = 65534  # the user a root build's sandbox runs scripts as (see bwrap_command)
RECORD_CAP = 1024 * 1024  # bytes of the inputs record of one run
STOP_GRACE = 5.0  # seconds the supervisor has to end every process after SIGTERM, before SIGKILL


# The supervisor, run as `python -B -c SUPERVISOR <record fd> <resource folder> <script> <limits> <nobody>
# <calls> <trace code>` in the run's resource folder, the limits as Limits' four numbers in its field order, then
# the user to become (NOBODY in a root build's sandbox, else 0: stay), then the graphs to trace as a JSON list of
# [function, argument] and tracing.TRACE. A string, so that nothing of
# the engine is imported into the experiment's process.
SUPERVISOR = r'''
import ctypes, json, os, resource, signal, sys, time

record_fd, inside, script = int(sys.argv[1]), sys.argv[2], sys.argv[3]
memory_mib, processes, file_size_mib, cpu_seconds, nobody = map(int, sys.argv[4:9])
calls, trace_code = json.loads(sys.argv[9]), sys.argv[10]  # the graphs to trace once the script has run
os.set_inheritable(record_fd, False)  # the script's own children do not get it
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER, CLONE_NEWUSER = 1, 38, 36, 0x10000000
libc = ctypes.CDLL(None, use_errno=True)
prctl = getattr(libc, "prctl", None)
if prctl is None or prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("codeproof: cannot contain the experiment: prctl(PR_SET_CHILD_SUBREAPER) is not available "
             "(experiments run on Linux only)")
prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no program it runs gains a privilege (setuid bits, file capabilities)
if nobody:  # a root build's sandbox (see bwrap_command): never run the script as root
    os.setgroups([])
    os.setresgid(nobody, nobody, nobody)
    os.setresuid(nobody, nobody, nobody)
    if libc.unshare(CLONE_NEWUSER) != 0:  # where it cannot, the process limit counts every process of NOBODY
        print(f"codeproof: no user namespace of the run's own (errno {ctypes.get_errno()}): the process limit "
              "counts every process of its user", file=sys.stderr)
    # A new user namespace gives its first process every capability inside it: the script needs none.
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # _LINUX_CAPABILITY_VERSION_3
    if libc.capset(header, data) != 0:
        sys.exit(f"codeproof: cannot drop the run's capabilities (errno {ctypes.get_errno()})")
prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)  # the build went away: clean up as on a time-out


class Stop(Exception):
    """The runner asked the run to end (SIGTERM): time-out or output cap."""


def stop(signum, frame):
    raise Stop


def experiment(record_fd, inside, script, calls, trace_code):
    """The forked child: record what the script opens and lists, then run it as `python -B script` would.

    Everything it needs is local: the module's globals are replaced by the script's before it runs."""
    import builtins
    import os
    import sys
    from importlib.machinery import SourceFileLoader

    seen = set()
    write, realpath, fsdecode = os.write, os.path.realpath, os.fsdecode  # bound now: the script may patch os
    kinds = {"open": "file", "os.listdir": "dir", "os.scandir": "dir"}

    def record(event, args):
        kind = kinds.get(event)
        if kind is None or isinstance(args[0], int):  # other events; an already open descriptor
            return
        try:
            path = realpath(fsdecode("." if args[0] is None else args[0]))
            if path.startswith(inside + "/") and (kind, path) not in seen:
                seen.add((kind, path))
                write(record_fd, f"{kind}\t{path}\0".encode("utf-8", "surrogateescape"))
        except Exception:  # never let the record change what the script does
            pass

    def hit(name):
        """Tell the runner which limit stopped the script (a note for the failure's message, nothing more)."""
        try:
            write(record_fd, f"limit\t{name}\0".encode())
        except OSError:
            pass

    # The limits hold for the script and every process it starts; the supervisor stays outside them, so it can
    # always end the run. RLIMIT_NPROC counts the processes of the run's user in the run's own user namespace.
    mib = 1024 * 1024
    for which, soft, hard in ((resource.RLIMIT_AS, memory_mib * mib, memory_mib * mib),
                              (resource.RLIMIT_NPROC, processes, processes),
                              (resource.RLIMIT_FSIZE, file_size_mib * mib, file_size_mib * mib),
                              (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)):  # SIGXCPU, then SIGKILL
        resource.setrlimit(which, (soft, hard))

    path = os.path.abspath(script)
    sys.addaudithook(record)
    sys.argv[:] = [script]
    sys.path[0] = os.path.dirname(path)  # `python script` puts the script's folder first, -c the cwd
    with open(path, "rb") as handle:  # recorded, as every input is
        code = compile(handle.read(), path, "exec")
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None, __cached__=None,
                     __file__=path, __builtins__=builtins, __loader__=SourceFileLoader("__main__", path))
    def traces():
        """The graphs the posts ask of this script, traced in its own process once it has run (see tracing)."""
        if calls:
            emit = lambda number, text: write(record_fd, f"graph\t{number}\t{text}\0".encode("utf-8", "surrogateescape"))
            exec(trace_code, {"namespace": namespace, "calls": calls, "inside": inside, "emit": emit})

    try:
        exec(code, namespace)
        traces()
    except SystemExit as done:
        if done.code in (None, 0):  # `sys.exit(main())` that went well
            traces()
        raise
    except BaseException as error:  # a traceback of the script's frames only, as `python script` prints
        if isinstance(error, MemoryError):
            hit("memory_mib")
        elif isinstance(error, OSError) and error.errno == 27:  # EFBIG: Python ignores SIGXFSZ, the write fails
            hit("file_size_mib")
        elif (isinstance(error, OSError) and error.errno == 11) or "can't start new thread" in str(error):
            hit("processes")  # EAGAIN from fork, or a thread refused
        error = error.with_traceback(error.__traceback__.tb_next)
        sys.excepthook(type(error), error, error.__traceback__)
        sys.exit(1)


def children():
    me = str(os.getpid()).encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    if stat.read().rsplit(b")", 1)[1].split()[1] == me:
                        found.append(int(name))
            except (OSError, IndexError):
                pass  # gone meanwhile
    return found


def end_descendants():
    """Kill every child until none is left: orphans of killed ones are re-parented here, and killed too."""
    while True:
        for pid in children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.005)
        except ChildProcessError:
            return


signal.signal(signal.SIGTERM, stop)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # held until the parent is in its try below
child = os.fork()
if child == 0:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    experiment(record_fd, inside, script, calls, trace_code)
else:
    status = None
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # a pending SIGTERM raises Stop here
        status = os.waitpid(child, 0)[1]
    except Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # ending is under way: finish it
        end_descendants()
    if status is None:
        sys.exit(124)
    # A script killed by signal N ends with status 128+N, as in a shell (and as bwrap reports it).
    sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
'''


# What a script may read of the machine, read-only: the system's programs and libraries (and what the dynamic
# loader reads in /etc), the interpreter and its packages. Nothing else of the machine is there: no home, no
# repository, no /run or /var (no socket of ssh-agent, D-Bus or Docker), no other file of /etc.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf",
                "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")


def interpreter_paths() -> tuple[str, ...]:
    """The interpreter that runs the scripts and its packages: the venv, the Python it was made from."""
    return tuple(dict.fromkeys([sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]))


def bwrap_command(run_dir: Path, cwd: Path, hidden: tuple[Path, ...] = (), readable: tuple[Path, ...] = ()) -> list[str]:
    """The sandbox: the system's programs and libraries and the interpreter (and `readable`, e.g. another
    commit's package for drift --run), read-only; the run's folder, writable; a private /tmp, /dev and /proc
    (a PID namespace: no other process visible); no network, no IPC, no other namespace shared, a session of
    its own. `hidden` files (the cache's key), where they are among what it sees, read as empty.

    The script never runs as root. The kernel exempts root from RLIMIT_NPROC in every user namespace, so
    a root build's sandbox keeps only the capabilities to change user, and the supervisor becomes NOBODY in a
    user namespace of its own before anything else runs (the process limit then counts that run's processes
    alone). Any other user's build is bwrap's own user namespace, as that user, without capabilities."""
    system = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path) and os.path.dirname(path) == "/":  # merged /usr: /bin -> usr/bin
            system += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            system += ["--ro-bind", path, path]
    seen = [path for path in dict.fromkeys((*interpreter_paths(), *map(str, readable))) if os.path.exists(path)]
    seen = [path for path in seen if not any(Path(path).is_relative_to(other) for other in seen if other != path)]
    hide = [arg for file in hidden if file.is_file() and any(file.is_relative_to(path) for path in seen)
            for arg in ("--ro-bind", "/dev/null", str(file))]
    # bwrap makes the folders leading to a bound path (/etc, /root, ...) readable by root alone: made first
    # (mode 755), NOBODY may pass. Those inside a bound folder are that folder's own.
    bound = [system[i + 2] for i, arg in enumerate(system) if arg == "--ro-bind"]
    leading = dict.fromkeys(str(folder) for path in (*bound, *seen, str(run_dir)) for folder in reversed(Path(path).parents)
                            if str(folder) not in ("/", "/tmp") and not any(folder.is_relative_to(b) for b in bound))
    namespaces = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                   "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if os.geteuid() == 0 else ["--unshare-all"])
    return ["bwrap", *namespaces, "--new-session", "--die-with-parent",
            "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp",  # then what lies in it: a venv
            *[arg for folder in leading for arg in ("--dir", folder)], *system,
            *[arg for path in seen for arg in ("--ro-bind", path, path)],
            "--bind", str(run_dir), str(run_dir), *hide, "--chdir", str(cwd), "--"]


@cache
def bwrap_works() -> bool:
    """bwrap is installed and may make namespaces here (some CI machines forbid them)."""
    if shutil.which("bwrap") is None:
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="codeproof-probe-") as tmp:
            probe = subprocess.run([*bwrap_command(Path(tmp), Path(tmp)), sys.executable, "-c", ""],
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def _give(run_dir: Path, user: int) -> None:
    """Make the run's folder, and all it holds, the user's (the script runs as that user and writes there)."""
    for folder, dirs, files in os.walk(run_dir):
        for name in (folder, *(os.path.join(folder, d) for d in dirs), *(os.path.join(folder, f) for f in files)):
            os.chown(name, user, user, follow_symlinks=False)


def run_env(run_dir: Path, python_path: Path | None = None) -> dict[str, str]:
    """The whole environment of a run: nothing is inherited from the build's. `python_path` puts a package
    tree before the installed ones (drift --run: autograd at another commit). The run's figures go to its own
    `figures/`; matplotlib keeps its settings (figures.MATPLOTLIBRC) and font list in the run's private temp."""
    return {
        FIGURES_ENV: str(run_dir / "figures"),
        "MPLCONFIGDIR": str(run_dir / "tmp" / "matplotlib"),
        **FIXED_ENV,
        **({"PYTHONPATH": str(python_path)} if python_path else {}),
        "PATH": f"{Path(sys.executable).parent}:{SYSTEM_PATH}",
        "HOME": str(run_dir / "home"),
        "TMPDIR": str(run_dir / "tmp"),
        "PWD": str(run_dir / "resources"),  # the working directory (bwrap sets it; so does this, for both)
    }


def toolchain_versions() -> dict[str, str]:
    versions = {"python": ".".join(map(str, sys.version_info[:3]))}
    for package in ("numpy", "autograd"):
        try:
            versions[package] = _installed_version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


_VERSIONS: dict[str, str] = {}  # a package's METADATA -> the version it states


def _installed_version(package: str) -> str:
    """metadata.version(package), read again on every build; the email parsing of the whole file (numpy's
    is 60 KB: 1.5 ms) done once per text."""
    installed = metadata.distribution(package)
    text = installed.read_text("METADATA")
    if text is None:  # not a wheel's .dist-info: as importlib reads it
        return installed.version
    if text not in _VERSIONS:
        _VERSIONS[text] = installed.version
    return _VERSIONS[text]


def input_digest(files: dict[str, bytes], name: str) -> str | None:
    """SHA-256 of a file of the resources, or of the names in a folder ("experiments/sub/"); None if absent."""
    if not name.endswith("/"):
        return hashlib.sha256(files[name]).hexdigest() if name in files else None
    names = sorted({path[len(name):].split("/")[0] for path in files if path.startswith(name)})
    return hashlib.sha256("\n".join(names).encode("utf-8", "surrogateescape")).hexdigest()


class ExperimentRunner:
    def __init__(self, root: Path, cache_dir: Path, timeout: float, output_cap: int, use_cache: bool = True,
                 sandbox: str | None = None, key_file: Path | None = None, python_path: Path | None = None,
                 limits: Limits = Limits()):
        """sandbox: "bwrap" or "subreaper"; None takes bwrap where it works. key_file: the cache's secret."""
        if sandbox not in (None, *SANDBOXES):
            raise ValueError(f"sandbox must be one of {SANDBOXES}, not {sandbox!r}")
        self.root = root
        self.cache_dir = cache_dir / "experiments"
        self.timeout = timeout
        self.output_cap = output_cap
        self.limits = limits
        # Caches are conveniences: CI trusts none (see the module's docstring).
        # A run against another package tree is no evidence for the build: it neither reads nor fills the cache.
        self.use_cache = use_cache and python_path is None and os.environ.get(NO_CACHE_ENV, "") in ("", "0") \
            and not in_ci()
        self._sandbox = sandbox
        self.key_file = key_file or default_key_file()
        self.python_path = python_path
        self.versions = toolchain_versions()
        _remove_stale_runs()  # whether or not this build runs a script (its runs may all be cached)
        self.runs = 0  # scripts actually run by this runner (cache hits do not count)
        self._pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="experiment")
        self._futures: dict[str, Future] = {}
        self._calls: dict[str, tuple[str, ...]] = {}  # script -> the graphs its run traces
        self._used_entries: set[str] = set()
        self._lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._probe_lock = threading.Lock()  # scripts start on several threads; the sandbox is probed once
        self._published: tuple[list[Resource], list[Problem]] | None = None
        self._by_path: tuple[dict[str, bytes], dict[str, Problem]] = ({}, {})  # the same, by path
        self._running: set[subprocess.Popen] = set()  # supervisors under way, for cancel()
        self._key: bytes | None = None

    @property
    def sandbox(self) -> str:
        """What runs the scripts, probed when a script is first run: a build whose runs all come from the
        cache starts no probe."""
        with self._probe_lock:
            if self._sandbox is None:
                self._sandbox = "bwrap" if bwrap_works() else "subreaper"
                refused = in_ci() and self._sandbox != "bwrap"
                log.info("experiments are not run: CI=true needs bubblewrap's sandbox, which cannot work here"
                         if refused else SANDBOX_NOTES[self._sandbox])
        return self._sandbox

    def start(self, script: str, calls: tuple[str, ...] = ()) -> None:
        """Begin running `script` (a path relative to the root) unless it is already under way. `calls` are the
        graphs to trace once it has run (`f(x)`, as blocks.graph_call reads them): they are part of the run."""
        with self._lock:
            if script not in self._futures:
                self._calls[script] = tuple(sorted(set(calls)))
                self._futures[script] = self._pool.submit(self._result, script)

    def result(self, script: str) -> RunResult:
        self.start(script)
        return self._futures[script].result()

    def finish(self) -> None:
        """End of a build: wait for the pool and drop cache entries this build did not use."""
        self._pool.shutdown(wait=True)
        if self.cache_dir.is_dir():
            for entry in self.cache_dir.glob("*.json"):
                if entry.name not in self._used_entries:
                    entry.unlink(missing_ok=True)

    def cancel(self) -> None:
        """Stop at once (Ctrl-C): queued runs never start, running ones are ended with every descendant.
        Their scratch folders are removed by the runs' own threads; the cache keeps only whole entries."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            running = list(self._running)
        for process in running:
            _signal(process, signal.SIGTERM)

    def cache_entry(self, script: str) -> Path:
        """Where the last good run of `script` with this toolchain is kept."""
        # A run that passed under other limits may not pass under these.
        key = [CACHE_FORMAT, script, self.versions, asdict(self.limits), self._calls.get(script, ())]
        name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        return self.cache_dir / f"{name}.json"

    def published(self) -> tuple[list[Resource], list[Problem]]:
        """experiments/ as resources.read_resources reads it, once per runner (that is, per build):
        what runs, what the site publishes and what the archive holds are the same bytes."""
        self._read()
        return self._published

    def resources(self) -> tuple[dict[str, bytes], dict[str, Problem]]:
        """The published resources as {path: bytes}, and {path: Problem} of the refused files."""
        self._read()
        return self._by_path

    def _read(self) -> None:
        with self._read_lock:
            if self._published is None:
                files, problems = self._published = read_resources(self.root)
                self._by_path = ({f.path: f.data for f in files}, {p.post: p for p in problems})

    def _result(self, script: str) -> RunResult:
        files, problems = self.resources()
        if script in problems:
            return self._failed(script, f"cannot run it: {problems[script].message}")
        if script not in files:
            return self._failed(script, f"cannot run it: {script} is not a file under experiments/")
        entry = self.cache_entry(script)
        with self._lock:
            self._used_entries.add(entry.name)
        if self.use_cache:
            cached = self._load(entry, script, files)
            if cached is not None:
                return cached
        result = self._run(script, files)
        if result.ok and script in result.inputs and self.python_path is None:  # no record of its inputs, no reuse
            self._store(entry, result)
        return result

    # --- the cache --------------------------------------------------------------------------

    def _secret(self) -> bytes | None:
        """The per-machine HMAC key, made on first use; None (no caching) if it cannot be kept."""
        with self._read_lock:
            if self._key is None:
                try:
                    self._key = machine_secret(self.key_file)
                except OSError as error:
                    log.info(f"experiment cache off: cannot keep its key ({error}); "
                             f"delete the folder {self.key_file.parent} if it is damaged")
                    self._key = b""
            return self._key or None

    def _load(self, entry: Path, script: str, files: dict[str, bytes]) -> RunResult | None:
        """The cached run, if its entry is intact and every input it recorded is unchanged."""
        key = self._secret()
        if key is None or not entry.is_file():
            return None
        try:
            stored = json.loads(entry.read_text(encoding="utf-8"))
            body = stored["entry"]
            if not isinstance(stored["mac"], str) or not signed_by(key, entry.name, _signed_text(body), stored["mac"]):
                raise ValueError("its checksum does not match its content")
            result = RunResult(**{**body, "cached": True})
        except (OSError, ValueError, KeyError, TypeError) as error:
            why = f"it has no {error} field" if isinstance(error, KeyError) else str(error)
            log.info(f"{script}: discarded the damaged cache entry {entry} ({why}); the experiment runs again. "
                     f"Delete the folder {self.cache_dir} to clear the experiment cache")
            entry.unlink(missing_ok=True)
            return None
        if result.script != script or result.versions != self.versions or script not in result.inputs:
            return None
        if any(input_digest(files, name) != digest for name, digest in result.inputs.items()):
            return None  # an input changed: run again
        return result

    def _store(self, entry: Path, result: RunResult) -> None:
        key = self._secret()
        if key is None:
            return
        body = asdict(result)
        try:
            data = json.dumps({"mac": mac(key, entry.name, _signed_text(body)), "entry": body}, ensure_ascii=False,
                              indent=1)
            write_atomically(entry, data.encode("utf-8"))
        except OSError as error:
            log.info(f"{result.script}: cannot write the experiment cache ({error}); "
                     f"delete the folder {self.cache_dir} if it is damaged")

    # --- a run ------------------------------------------------------------------------------

    def _failed(self, script: str, why: str) -> RunResult:
        return RunResult(script, 1, "", why, 0.0, _today(), self.versions)

    def _run(self, script: str, files: dict[str, bytes]) -> RunResult:
        if in_ci() and self.sandbox != "bwrap":  # what CI publishes runs in the full sandbox or not at all
            return replace(self._failed(script, ""), not_run=NO_SANDBOX_IN_CI)
        with self._lock:
            self.runs += 1
        with tempfile.TemporaryDirectory(prefix=f"{RUN_PREFIX}{os.getpid()}-", ignore_cleanup_errors=True) as tmp:
            run_dir = Path(tmp).resolve()
            resources = run_dir / "resources"
            for path, data in files.items():
                (resources / path).parent.mkdir(parents=True, exist_ok=True)
                (resources / path).write_bytes(data)
            for name in ("home", "tmp", "tmp/matplotlib", "figures"):
                (run_dir / name).mkdir()
            (run_dir / "tmp" / "matplotlib" / "matplotlibrc").write_text(MATPLOTLIBRC, encoding="utf-8")
            # The record comes through a pipe, not a file in the run's folder: the script cannot replace it
            # with a FIFO, a folder or a link, nor truncate it. What it writes into the pipe itself only
            # adds inputs; a record that overflows or does not end leaves the run uncached.
            read_end, write_end = os.pipe()
            record = bytearray()
            reader = threading.Thread(target=_read_record, args=(read_end, record), daemon=True)
            reader.start()
            try:
                result = self._supervised(script, run_dir, write_end)
            finally:
                os.close(write_end)
            reader.join(STOP_GRACE)
            whole = not reader.is_alive() and len(record) <= RECORD_CAP
            inputs = self._inputs(bytes(record), resources, script, files) if whole else {}
            figures, faults = collect_figures(run_dir / "figures")
        return replace(result, inputs=inputs, limit=self._limit_hit(bytes(record), result), figures=figures,
                       figure_faults=faults, traces=self._traces(bytes(record), script) if whole else {})

    def _traces(self, record: bytes, script: str) -> dict[str, str]:
        """The graphs the run traced (tracing.TRACE), by call."""
        calls, traces = self._calls.get(script, ()), {}
        for item in record.split(b"\0"):
            kind, _, rest = item.decode("utf-8", "surrogateescape").partition("\t")
            number, _, text = rest.partition("\t")
            if kind == "graph" and number.isdigit() and int(number) < len(calls):
                traces[calls[int(number)]] = text
        return traces

    def _limit_hit(self, record: bytes, result: RunResult) -> str:
        """Which limit stopped a failed run, as the record says (MemoryError, EFBIG, EAGAIN) or SIGXCPU shows."""
        if result.returncode == 0:
            return ""
        if result.returncode == 128 + signal.SIGXCPU:
            return self.limits.phrase("cpu_seconds")
        for item in record.split(b"\0"):
            kind, _, name = item.decode("utf-8", "replace").partition("\t")
            if kind == "limit" and name in LIMIT_NAMES:
                return self.limits.phrase(name)
        return ""

    def _supervised(self, script: str, run_dir: Path, record: int) -> RunResult:
        cwd = run_dir / "resources"
        calls = [graph_call(call) for call in self._calls.get(script, ())]
        argv = [sys.executable, "-B", "-c", SUPERVISOR, str(record), str(cwd), script,
                *(str(getattr(self.limits, name)) for name in LIMIT_NAMES), "0", json.dumps(calls), TRACE]
        if self.sandbox == "bwrap":
            readable = (self.python_path,) if self.python_path else ()
            argv = bwrap_command(run_dir, cwd, hidden=(self.key_file,), readable=readable) + argv
            if os.geteuid() == 0:  # the supervisor becomes NOBODY (see bwrap_command); the script writes here
                _give(run_dir, NOBODY)
                argv[-3] = str(NOBODY)
        started = time.monotonic()
        process = subprocess.Popen(
            argv, cwd=cwd, env=run_env(run_dir, self.python_path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=(record,),
        )
        with self._lock:
            self._running.add(process)
        overflow = threading.Event()
        streams = [bytearray(), bytearray()]
        readers = [
            threading.Thread(target=self._drain, args=(pipe, buffer, streams, overflow, process), daemon=True)
            for pipe, buffer in zip((process.stdout, process.stderr), streams)
        ]
        for reader in readers:
            reader.start()
        timed_out = False
        try:
            process.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        _stop(process)  # a no-op when the supervisor ended by itself, having ended every descendant
        with self._lock:
            self._running.discard(process)
        for reader in readers:
            reader.join(STOP_GRACE)
        timed_out = timed_out or any(reader.is_alive() for reader in readers)  # a pipe still held: never expected
        with self._lock:
            out, err = bytes(streams[0]), bytes(streams[1])
        try:
            stdout, undecodable = out.decode("utf-8"), ""
        except UnicodeDecodeError as error:
            stdout = out.decode("utf-8", errors="replace")
            line = out[: error.start].count(b"\n") + 1
            undecodable = f"byte 0x{out[error.start]:02x} on line {line}"
        return RunResult(
            script=script,
            returncode=None if (timed_out or overflow.is_set()) else process.returncode,
            stdout=stdout,
            stderr=err.decode("utf-8", errors="backslashreplace"),  # only ever shown in a failure report
            seconds=round(time.monotonic() - started, 3),
            verified_on=_today(),
            versions=self.versions,
            timed_out=timed_out,
            overflow=overflow.is_set(),
            undecodable=undecodable,
        )

    @staticmethod
    def _inputs(record: bytes, resources: Path, script: str, files: dict[str, bytes]) -> dict[str, str]:
        """The recorded paths that are resources, as repository paths, with the digest of what the run was given."""
        names = {script}  # opened by the supervisor in any case
        prefix = str(resources) + "/"
        for line in record.decode("utf-8", "surrogateescape").split("\0"):
            kind, _, path = line.partition("\t")
            if not path.startswith(prefix):
                continue
            name = path[len(prefix):]
            if kind == "file" and name in files:
                names.add(name)
            elif kind == "dir" and (name == "experiments" or name.startswith("experiments/")):
                names.add(name + "/")
        return {name: input_digest(files, name) for name in sorted(names)}

    def _drain(self, pipe, buffer: bytearray, streams: list[bytearray], overflow: threading.Event,
               process: subprocess.Popen) -> None:
        """Read one pipe; the cap holds for stdout and stderr together."""
        with pipe:
            for chunk in iter(lambda: pipe.read1(65536), b""):
                with self._lock:
                    room = self.output_cap - sum(len(b) for b in streams)
                    buffer.extend(chunk[: max(room, 0)])
                if len(chunk) > room:
                    overflow.set()
                    _signal(process, signal.SIGTERM)  # the supervisor ends the script and its descendants
                    return


RUN_PREFIX = "codeproof-run-"  # then the pid of the build that made the run's folder


@cache
def _remove_stale_runs() -> None:
    """Remove the run folders of builds that are gone (killed with SIGKILL, they could not): once per process."""
    root = Path(tempfile.gettempdir())
    for folder in root.glob(f"{RUN_PREFIX}*-*"):
        pid = folder.name[len(RUN_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or a name that is not a pid): not ours to judge
    return True


def _read_record(fd: int, record: bytearray) -> None:
    """Drain the record pipe to its end, keeping at most RECORD_CAP + 1 bytes (more means: not whole)."""
    with open(fd, "rb", buffering=0) as pipe:
        for chunk in iter(lambda: pipe.read(65536), b""):
            record.extend(chunk[: RECORD_CAP + 1 - len(record)])


def _signal(process: subprocess.Popen, signum: int) -> None:
    try:
        process.send_signal(signum)
    except ProcessLookupError:
        pass


def _stop(process: subprocess.Popen) -> None:
    """Ask the supervisor (or the sandbox) to end the run; kill its process group if it does not in time."""
    if process.poll() is not None:
        return
    _signal(process, signal.SIGTERM)
    try:
        process.wait(STOP_GRACE)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def _signed_text(body: dict) -> bytes:
    """The bytes of a cache entry's body that its signature covers (keys sorted: the same body, the same bytes)."""
    return json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()
