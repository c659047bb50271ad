"""The matrix: the experiments run again where readers run them, in other environments (a Python version and
pinned packages, `extra.series.experiments.matrix`), each [OUTPUT] and [FIGURE] given a verdict in each.

An environment is data until it is inside the sandbox:

- Its lock (committed beside mkdocs.yml, written by `./dev.sh lock-requirements`) is held, line by line, to what
  its pins resolved to when it was written, which mkdocs.yml records (`locked`: each pin with the SHA-256 of its
  hashes): a pin more, a pin less or another hash fails at the lock's line before uv reads it. What readers get
  is the lock as it was read and checked (`EnvironmentLock.data`).
- uv installs it from that lock, wheels only and every hash checked, into the user's cache, never a folder the
  repository can hold; it is made again only when its lock or its interpreter changes. Its interpreter is found on
  the machine (pyenv's versions, the system's, then uv's own discovery); none is ever downloaded.
- Nothing of it runs on the host: a package's `.pth` or `sitecustomize` runs whenever Python starts with its
  site-packages, and a wheel may replace `bin/python` or `pyvenv.cfg`. So the environment is byte-compiled inside
  bubblewrap's sandbox, where it alone is writable; what it holds is asked of the machine's own interpreter with
  `-I -S`, its site-packages given as a plain path; and its runs are the build's own (engine.Engine with a runner
  on its interpreter): the same sandbox, limits and checks, and no cache read. Without bubblewrap there is no
  matrix.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.common.markers import passes_for_a_card
from codeproof.common.filesystem import shown_path
from codeproof.common.structure import MatrixEnvironment, Problem
from codeproof.experiments.sandbox import SANDBOX_HINT, Interpreter, bwrap_command, bwrap_works

MADE = ".made"  # written last into an environment's folder: what it was made from (a half-made one is made again)
# What an environment holds, asked of the machine's interpreter it was made from (python -I -S: no site-packages
# of anyone's is read, no .pth runs), its packages' folder given as a plain path.
ASK = ("import json, sys\nfrom importlib import metadata\n"
       "def version(name):\n    found = list(metadata.distributions(name=name, path=[sys.argv[1]]))\n"
       "    return found[0].version if found else 'not installed'\n"
       "print(json.dumps({'python': '.'.join(map(str, sys.version_info[:3])), 'numpy': version('numpy'),"
       " 'autograd': version('autograd'), 'base': sys.base_prefix}))")
PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)
UV_ENV = {"UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}  # uv reads no uv.toml and downloads no Python


class MatrixError(CodeproofError):
    """An environment cannot be had here: its interpreter is missing, its lock disagrees with its pins, uv failed.
    `file` and `line`: where, when it is a line of its lock (else the environment's line in mkdocs.yml)."""

    def __init__(self, message: str, hint: str = "", file: Path | None = None, line: int | None = None):
        super().__init__(message, hint)
        self.file, self.line = file, line


def matrix_problem(error: MatrixError, root: Path, config_name: str, line: int) -> Problem:
    """A MatrixError as a build reports it: at its lock's line, else at the environment's `line` of mkdocs.yml."""
    if error.file is not None and error.line is not None:
        return Problem(shown_path(error.file, root), error.line, str(error), hint=error.hint)
    return Problem(config_name, line, str(error), hint=error.hint)


# What a lock may hold: pins, each with its hashes, and comments. Nothing else: an option line (an index, a link
# to find files at, an editable source) would have uv fetch, or build and so run, what the lock does not pin.
# A comment is printable ASCII: the lock is published as it is (a marker, a stamp, a bidi control or bytes that are
# not text would reach readers unverified).
PIN_LINE_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9A-Za-z.+!_-]+) \\")
HASH_LINE_RE = re.compile(r"\s+--hash=sha256:([0-9a-f]{64})( \\)?")
COMMENT_LINE_RE = re.compile(r"\s*(#[ -~]*)?")
LOCK_CAP = 1 << 20  # bytes of a lock: hundreds of pins with their hashes take tens of kilobytes
LOCK_HINT = "run ./dev.sh lock-requirements, which writes each environment's lock from its pins, and commit it"


@dataclass(frozen=True)
class LockedPin:
    """A pin of a lock, with its hashes and the line it starts at."""

    pin: str  # as written: numpy==1.26.4
    hashes: tuple[str, ...]
    line: int

    @property
    def key(self) -> str:
        """The pin as the index names it (numpy==1.26.4 and NumPy==1.26.4 are one)."""
        name, _, version = self.pin.partition("==")
        return f"{project(name)}=={version}"


@dataclass(frozen=True)
class EnvironmentLock:
    """A lock as it was read and checked: its bytes (what uv installs from and readers get) and its pins."""

    data: bytes
    pins: tuple[LockedPin, ...]


def project(name: str) -> str:
    """A package's name in the index's normal form (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def hashes_digest(hashes) -> str:
    """What mkdocs.yml records of a pin's hashes: the SHA-256 of their sorted list, a line each."""
    return hashlib.sha256("".join(f"{h}\n" for h in sorted(hashes)).encode()).hexdigest()


def read_lock(environment: MatrixEnvironment) -> EnvironmentLock:
    """The environment's lock, read once and held to what mkdocs.yml records its pins resolved to; MatrixError at
    the lock's line (or the environment's, for what mkdocs.yml lacks) when it is not that."""
    lock = parse_lock(environment)
    _hold_to_record(environment, list(lock.pins), lambda message, line=None: _wrong(environment, message, line))
    return lock


def _wrong(environment: MatrixEnvironment, message: str, line: int | None = None) -> MatrixError:
    """A lock that is not what it must be: at its line, or at the environment's in mkdocs.yml (line None)."""
    return MatrixError(f"matrix environment {environment.name}: {message}", LOCK_HINT,
                       environment.lock if line is not None else None, line)


def parse_lock(environment: MatrixEnvironment) -> EnvironmentLock:
    """The environment's lock read once: pins, each with its hashes, and comments, nothing else. MatrixError at
    its line when it holds anything else."""
    lock = environment.lock

    def wrong(message: str, line: int | None = None) -> MatrixError:
        return _wrong(environment, message, line)

    if not lock.is_file() or lock.resolve() != lock.absolute():  # the file, or a folder on its way, is a link
        raise wrong(f"its lock {lock.name} is missing or a link")
    data = lock.read_bytes()
    if len(data) > LOCK_CAP:
        raise wrong(f"its lock {lock.name} is larger than {LOCK_CAP >> 10} KiB", 1)
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise wrong(f"its lock {lock.name} holds a byte that is not ASCII (0x{data[error.start]:02x})", line) from None
    shown = passes_for_a_card(text.split("\n"))
    if shown:  # published as it is, outside any card
        raise wrong(f"its lock {lock.name} shows {shown[1]}", shown[0] + 1)
    pins: list[LockedPin] = []
    continued = False  # the line before ended with a backslash: this one is a hash of the pin above
    lines = text.removesuffix("\n").split("\n")  # the last line's break ends it: no line follows
    for number, line in enumerate(lines, 1):
        pin, hashed = PIN_LINE_RE.fullmatch(line), HASH_LINE_RE.fullmatch(line)
        if pin and not continued:
            pins.append(LockedPin(f"{pin[1]}=={pin[2]}", (), number))
        elif hashed and continued:
            pins[-1] = LockedPin(pins[-1].pin, (*pins[-1].hashes, hashed[1]), pins[-1].line)
        elif not (COMMENT_LINE_RE.fullmatch(line) and not continued):
            raise wrong(f"its lock {lock.name} holds what is no pin, hash or comment: {line[:80]!r}", number)
        continued = line.endswith("\\")
    if continued:
        raise wrong(f"its lock {lock.name} ends in the middle of a pin", len(lines))
    for locked in pins:
        if not locked.hashes:
            raise wrong(f"its lock {lock.name} pins {locked.pin} without a hash", locked.line)
    return EnvironmentLock(data, tuple(pins))


def _hold_to_record(environment: MatrixEnvironment, pins: list[LockedPin], wrong) -> None:
    """The lock's pins are exactly those mkdocs.yml records (`locked`), each with the hashes it was locked with,
    and those hold the environment's own pins."""
    recorded = {_key(pin): (pin, digest) for pin, digest in environment.locked}
    if not recorded:
        raise wrong("mkdocs.yml records no `locked` set for it (what its pins resolved to, each with the SHA-256 of "
                    "its hashes), so its lock cannot be held to one")
    for pin in environment.packages:
        if _key(pin) not in recorded:
            raise wrong(f"its `locked` set in mkdocs.yml does not hold {pin}, which it pins")
    seen: dict[str, LockedPin] = {}
    for locked in pins:
        if locked.key in seen:
            raise wrong(f"its lock {environment.lock.name} pins {locked.pin} twice (first at line "
                        f"{seen[locked.key].line})", locked.line)
        seen[locked.key] = locked
        if locked.key not in recorded:
            same_name = [pin for key, (pin, _) in recorded.items() if key.partition("==")[0] == locked.key.partition("==")[0]]
            raise wrong(f"its lock {environment.lock.name} pins {locked.pin}, which is not among what the "
                        "environment's pins resolved to (`locked` in mkdocs.yml" +
                        (f": {same_name[0]})" if same_name else ")"), locked.line)
        if hashes_digest(locked.hashes) != recorded[locked.key][1]:
            raise wrong(f"its lock {environment.lock.name} gives {locked.pin} other hashes than it was locked with "
                        f"(their SHA-256 is {hashes_digest(locked.hashes)[:16]}…; `locked` in mkdocs.yml records "
                        f"{recorded[locked.key][1][:16]}…)", locked.line)
    for key, (pin, _) in recorded.items():
        if key not in seen:
            raise wrong(f"its lock {environment.lock.name} does not hold {pin}, which its pins resolved to "
                        "(`locked` in mkdocs.yml)", 1)


def _key(pin: str) -> str:
    name, _, version = pin.partition("==")
    return f"{project(name)}=={version}"


def find_python(version: str, uv: str | None) -> str | None:
    """An interpreter of `version` ("3.12") on this machine: pyenv's newest such version, the system's, else what
    uv's discovery finds; None if there is none. Nothing is downloaded."""
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    installed = glob.glob(os.path.join(pyenv, "versions", f"{version}.*", "bin", f"python{version}"))
    newest_first = sorted(installed, key=lambda path: [int(n) for n in re.findall(r"\d+", Path(path).parents[1].name)],
                          reverse=True)
    for path in [*newest_first, f"/usr/local/bin/python{version}", f"/usr/bin/python{version}"]:
        if os.path.exists(path) and _says_version(path) == version:
            return path
    if uv:
        asked = subprocess.run([uv, "python", "find", "--no-python-downloads", version], capture_output=True, text=True,
                               env={**os.environ, **UV_ENV},
                               cwd="/")  # not the repository's folder, where uv would take a .venv of its own
        if asked.returncode == 0 and _says_version(asked.stdout.strip()) == version:
            return asked.stdout.strip()
    return None


def _says_version(python: str) -> str | None:
    try:  # -I -S: nothing of the machine's site-packages runs either
        said = subprocess.run([python, "-I", "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30, cwd="/")
    except (OSError, subprocess.SubprocessError):
        return None
    return said.stdout.strip() if said.returncode == 0 else None


def uv_command() -> str | None:
    """uv, as ./dev.sh keeps it (CODEPROOF_UV, checked before each use), else one on PATH."""
    return os.environ.get("CODEPROOF_UV") or shutil.which("uv")


def make(environment: MatrixEnvironment, cache_dir: Path) -> Interpreter:
    """The environment, made in the user's cache from its checked lock if it is not there yet: its interpreter,
    with what it holds. MatrixError when it cannot be had."""
    lock = read_lock(environment)
    if not bwrap_works():
        raise MatrixError(f"matrix environment {environment.name}: it runs only in bubblewrap's sandbox, which is "
                          "missing or cannot make namespaces here", SANDBOX_HINT)
    uv = uv_command()
    python = find_python(environment.python, uv)
    if python is None:
        raise MatrixError(f"matrix environment {environment.name}: no Python {environment.python} on this machine",
                          f"install Python {environment.python} (pyenv install {environment.python}, or the system's "
                          f"python{environment.python}); none is downloaded")
    if uv is None:
        raise MatrixError(f"matrix environment {environment.name}: uv is needed to make it",
                          "run it through ./dev.sh, which keeps uv in the user's cache")
    base = os.path.realpath(python)  # the machine's interpreter: the only one of it that starts on the host
    key = hashlib.sha256(lock.data + b"\0" + base.encode()).hexdigest()
    folder = cache_dir / "matrix" / key[:24]
    packages = folder / "lib" / f"python{environment.python}" / "site-packages"
    made = folder / MADE
    fresh = not (made.is_file() and made.read_text() == key)
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
        _install(environment, lock, uv, base, folder)
    facts = _ask(environment, base, packages)
    roots = (str(folder), facts.pop("base"), os.path.dirname(base))
    if fresh:
        _compile_in_sandbox(environment, base, roots, packages)
        made.write_text(key)
    return Interpreter(str(folder / "bin" / "python"), tuple(dict.fromkeys(roots)), facts)


def _install(environment: MatrixEnvironment, lock: EnvironmentLock, uv: str, base: str, folder: Path) -> None:
    """uv makes the environment and installs the lock's bytes as they were checked (not the file again): wheels
    only, every hash checked, nothing compiled (that would start the environment's Python here), and every file
    copied, so that nothing in it shares a file with uv's cache."""
    with tempfile.TemporaryDirectory(prefix="codeproof-matrix-") as tmp:
        checked = Path(tmp) / "checked.lock"
        checked.write_bytes(lock.data)
        made = None  # what uv venv made that a package must not replace: its settings and its interpreter's link
        for argv in ([uv, "venv", "--quiet", "--python", base, str(folder)],
                     [uv, "pip", "install", "--quiet", "--python", str(folder / "bin" / "python"), "--require-hashes",
                      "--no-build", "--no-deps", "--link-mode", "copy", "-r", str(checked)]):
            done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **UV_ENV}, cwd=tmp,
                                  stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                shutil.rmtree(folder, ignore_errors=True)
                message, hint = uv_refusal(done.stderr, environment)
                raise MatrixError(f"matrix environment {environment.name}: {message}", hint)
            if made is None:
                made = _own_files(folder)
    if _own_files(folder) != made:  # a wheel's data files land anywhere in the environment
        shutil.rmtree(folder, ignore_errors=True)
        raise MatrixError(f"matrix environment {environment.name}: a package of its lock writes over the "
                          "environment's own pyvenv.cfg or bin/python", "pin packages that install into site-packages "
                          "alone, then ./dev.sh lock-requirements")


def _own_files(folder: Path) -> tuple[bytes | None, str | None]:
    """What uv venv made of an environment that its packages must leave as it is: its pyvenv.cfg (include-system-
    site-packages, home) and where its bin/python leads."""
    try:
        return (folder / "pyvenv.cfg").read_bytes(), os.readlink(folder / "bin" / "python")
    except OSError:
        return None, None


def _compile_in_sandbox(environment: MatrixEnvironment, base: str, roots: tuple[str, ...], packages: Path) -> None:
    """Byte-compile the environment once, inside bubblewrap's sandbox, where the environment (`roots[0]`) alone is
    writable and the machine's interpreter runs the standard library's compileall (-I -S: no .pth of it runs even
    there); else each run in the read-only sandbox would compile numpy again in memory."""
    folder = Path(roots[0])
    with tempfile.TemporaryDirectory(prefix="codeproof-compile-") as given:
        argv = [*bwrap_command(Path(given), readable=tuple(map(Path, roots[1:])), writable=(folder,)),
                base, "-I", "-S", "-m", "compileall", "-q", "-j", "0", str(packages)]
        done = subprocess.run(argv, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
                              stdin=subprocess.DEVNULL, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        said = (done.stderr.strip().splitlines() or ["no message"])[-1][:300]
        raise MatrixError(f"matrix environment {environment.name}: it could not be byte-compiled in the sandbox: "
                          f"{said}", "check again; if it fails again, report it with this message")


def _ask(environment: MatrixEnvironment, base: str, packages: Path) -> dict[str, str]:
    """What the environment holds (its Python's version, numpy's and autograd's), asked of the machine's
    interpreter with -I -S, the environment's packages' folder given as a plain path: nothing of it runs."""
    with tempfile.TemporaryDirectory(prefix="codeproof-ask-") as empty:
        said = subprocess.run([base, "-I", "-S", "-c", ASK, str(packages)], capture_output=True, text=True,
                              timeout=60, cwd=empty, stdin=subprocess.DEVNULL)
    if said.returncode != 0 or not packages.is_dir():
        raise MatrixError(f"matrix environment {environment.name}: what it holds cannot be read",
                          f"delete {packages.parents[2]} and check again")
    return json.loads(said.stdout)


# uv's refusals, in the engine's words: what uv said (a pattern of its message), why, and what to do.
UV_REFUSALS = (
    (re.compile(r"Hash mismatch for `([^`]+)`.*?Computed:\s*sha256:([0-9a-f]{64})", re.S),
     "{0}: the file uv would install here has SHA-256 {1}, which the lock does not list (a lock that lists only a "
     "source archive's hash installs nothing: no archive is built)",
     "write the lock again (./dev.sh lock-requirements): it lists every file of each pin, wheels included"),
    (re.compile(r"Because (\S+) has no usable wheels"),
     "{0} has no wheel for Python {python} on this platform, and nothing is built from a source archive",
     "pin a release of it that publishes wheels for Python {python} in mkdocs.yml, then ./dev.sh lock-requirements"),
    (re.compile(r"Because there is no version of (\S+?)(?:==| )"),
     "the package index has no {0} at the version the lock pins",
     "check the pin in mkdocs.yml, then ./dev.sh lock-requirements"),
    (re.compile(r"Failed to (?:download|fetch) `?([^`\s]+)`?.*?(?:cause|Caused by): ([^\n]+)", re.S),
     "uv could not download {0}: {1}", "check the network (or uv's cache), then check again"),
)


def uv_refusal(stderr: str, environment: MatrixEnvironment) -> tuple[str, str]:
    """What uv's refusal to install a lock means, and what to do; its last line when it is none known."""
    for pattern, message, hint in UV_REFUSALS:
        found = pattern.search(stderr)
        if found:
            return (message.format(*found.groups(), python=environment.python)[:400],
                    hint.format(python=environment.python))
    said = (stderr.strip().splitlines() or ["no message"])[-1].strip()[:300]
    return f"uv could not make it: {said}", f"the lock {environment.lock.name} may be changed by hand: {LOCK_HINT}"


def label(interpreter: Interpreter) -> str:
    """An environment as a reader names it: "Python 3.12.1 + numpy 1.26.4"."""
    return f"Python {interpreter.versions['python']} + numpy {interpreter.versions['numpy']}"


def write_lock(environment: MatrixEnvironment, uv: str) -> dict[str, str]:
    """Write the environment's hashed lock from its pins (uv resolves them for its Python version); what it holds,
    as mkdocs.yml records it (`locked`): each pin -> the SHA-256 of its hashes."""
    with tempfile.TemporaryDirectory(prefix="codeproof-matrix-") as tmp:
        pins = Path(tmp) / "pins.in"
        pins.write_text("".join(pin + "\n" for pin in environment.packages), encoding="utf-8")
        done = subprocess.run([uv, "pip", "compile", "--quiet", "--python-version", environment.python,
                               "--generate-hashes", "--no-annotate", "--custom-compile-command", "./dev.sh lock-requirements",
                               str(pins), "-o", str(environment.lock)], capture_output=True, text=True,
                              env={**os.environ, **UV_ENV}, cwd=tmp)
    if done.returncode != 0:
        raise MatrixError(f"matrix environment {environment.name}: uv could not lock it: {done.stderr.strip()[-300:]}",
                          "check its pins in mkdocs.yml")
    return {locked.pin: hashes_digest(locked.hashes) for locked in parse_lock(environment).pins}
