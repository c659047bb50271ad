"""Where an experiment runs: the bubblewrap sandbox (`bwrap_command`), or the fallback, and the fixed environment
(`run_env`). Nothing an experiment does may change what is published or the repository:

- Each run happens in a scratch folder made for it outside the repository and removed afterwards (runner):
  `<tmp>/codeproof-run-*/given/` holds a copy of the published resources (experiments/, as
  resources.read_resources reads it: regular files only, no links) and the run's empty folders. The supervisor
  copies it to the run's `work/` and runs the script in `work/resources/` as `python -B experiments/x.py`. Every
  relative path it writes (site/..., docs/..., experiments/...) lands in the copy. HOME and TMPDIR are the run's
  own `home/` and `tmp/` beside it; its figures go to its own `figures/` (CODEPROOF_FIGURES), which the runner
  reads after the run (figures.collect_figures), and matplotlib's settings folder is in its `tmp/`.
- Where bubblewrap (`bwrap`) works, the run is also in a sandbox (bwrap_command): it sees only the system's
  programs and libraries and the interpreter, read-only, and the run's folder at INSIDE; its `work/` lies in a
  private /tmp of a fixed size (the budget run_mib), so what a script writes can never exceed it, however it
  writes. / and /dev are read-only, /dev/shm is memory of SHM_BYTES, /proc is a PID namespace that dies with the
  run; no network; never root. Without bubblewrap ("subreaper", the supervisor alone) `work/` lies on the disk,
  counted while the script runs, and relative paths are contained, absolute ones are not.
- Limits (Limits: memory, processes, file size, CPU time) are set on the script's process by the
  supervisor, which stays outside them; a run that hits one fails naming it (RunResult.limit).
- The environment is fixed (run_env): FIXED_ENV, PATH (the interpreter's folder, then SYSTEM_PATH),
  HOME and TMPDIR in the run's folder, and PWD. Nothing is inherited from the build's environment:
  the allow-list of inherited variables is empty.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

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
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # after the interpreter's own folder; see run_env
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
                 "limit counts all of the user's processes and none of root's, and in which System V shared memory a "
                 "script leaves outlives its run unless the build runs as root): bubblewrap is missing or cannot make "
                 "namespaces here; install it (apt-get install bubblewrap) for the full sandbox",
}
NOBODY = 65534  # the user a root build's sandbox runs scripts as (see bwrap_command)
INSIDE = "/tmp/codeproof-run"  # where a run's folder lies in the sandbox (its given/ bound there, its work/ made)
SHM_BYTES = 16 << 20  # the sandbox's /dev/shm (POSIX semaphores and shared memory: multiprocessing's locks)
COUNTED = ("/tmp", "/dev/shm")  # what the script may write in the sandbox: the runner counts both (see supervisor)


# What a script may read of the machine, read-only: the system's programs and libraries (and what the dynamic
# loader reads in /etc), the interpreter and its packages. Nothing else of the machine is there: no home, no
# repository, no /run or /var (no socket of ssh-agent, D-Bus or Docker), no other file of /etc.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf",
                "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")


@dataclass(frozen=True)
class Interpreter:
    """Another interpreter than the build's to run the scripts with (a matrix environment, experiments/matrix.py):
    its executable, the folders the sandbox must show it (read-only) and the versions it reports."""

    executable: str
    roots: tuple[str, ...]
    versions: dict[str, str] = field(hash=False, compare=False, default_factory=dict)


def interpreter_paths() -> tuple[str, ...]:
    """The interpreter that runs the scripts and its packages: the venv, the Python it was made from."""
    return tuple(dict.fromkeys([sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]))


def bwrap_command(given: Path, hidden: tuple[Path, ...] = (), readable: tuple[Path, ...] = (),
                  tmp_bytes: int = 512 << 20, writable: tuple[Path, ...] = ()) -> list[str]:
    """The sandbox: the system's programs and libraries and the interpreter (and `readable`, e.g. another
    commit's package for drift --run), read-only, but `writable` folders (a matrix environment while it is
    byte-compiled in it); the run's `given` folder, read-only at INSIDE/given; a private
    /tmp (in memory, of at most `tmp_bytes`: the run's work folder lies there), /dev (read-only but for /dev/shm,
    of SHM_BYTES) and /proc (a PID namespace: no other process visible); / read-only; no network, no IPC, no other
    namespace shared, a session of its own. `hidden` files (the cache's key), where they are among what it sees,
    read as empty.

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
    leading = dict.fromkeys(str(folder) for path in (*bound, *seen, *map(str, writable)) for folder in reversed(Path(path).parents)
                            if str(folder) not in ("/", "/tmp") and not any(folder.is_relative_to(b) for b in bound))
    namespaces = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                   "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if os.geteuid() == 0 else
                  # no user namespace of the script's own, where it could mount memory of any size (review, round six;
                  # bubblewrap 0.8 and later)
                  ["--unshare-all", "--unshare-user", *(["--disable-userns"] if _disables_userns() else [])])
    return ["bwrap", *namespaces, "--new-session", "--die-with-parent",
            "--dev", "/dev", "--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--proc", "/proc",
            "--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", "/tmp",
            # then what lies in /tmp (a venv) is bound over that memory, and counts none of it
            *[arg for folder in leading for arg in ("--dir", folder)], *system,
            *[arg for path in seen for arg in ("--ro-bind", path, path)],
            *[arg for path in map(str, writable) for arg in ("--bind", path, path)],
            "--perms", "1777", "--dir", INSIDE,  # the supervisor, NOBODY in a root build, makes work/ there
            "--ro-bind", str(given), f"{INSIDE}/given", *hide, "--remount-ro", "/dev", "--remount-ro", "/",
            "--chdir", INSIDE, "--"]


@cache
def _disables_userns() -> bool:
    """This bubblewrap can forbid the sandbox further user namespaces (0.8 and later)."""
    try:
        said = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--disable-userns" in said.stdout + said.stderr


@cache
def bwrap_works() -> bool:
    """bwrap is installed and may make namespaces here (some CI machines forbid them)."""
    if shutil.which("bwrap") is None:
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="codeproof-probe-") as tmp:
            probe = subprocess.run([*bwrap_command(Path(tmp)), sys.executable, "-c", ""],
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def run_env(work: str, python_path: Path | None = None, python: str = sys.executable) -> dict[str, str]:
    """The whole environment of a run whose work folder is `work` (as the supervisor sees it): nothing is
    inherited from the build's. `python_path` puts a package tree before the installed ones (drift --run: autograd
    at another commit). The run's figures go to its own `figures/`; matplotlib keeps its settings
    (figures.MATPLOTLIBRC) and font list in the run's private temp."""
    return {
        FIGURES_ENV: f"{work}/figures",
        "MPLCONFIGDIR": f"{work}/tmp/matplotlib",
        **FIXED_ENV,
        **({"PYTHONPATH": str(python_path)} if python_path else {}),
        "PATH": f"{Path(python).parent}:{SYSTEM_PATH}",
        "HOME": f"{work}/home",
        "TMPDIR": f"{work}/tmp",
        "PWD": f"{work}/resources",  # the working directory (the supervisor goes there)
    }
