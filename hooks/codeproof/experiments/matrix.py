"""The matrix: the experiments run again where readers run them, in other environments (a Python version and
pinned packages, `extra.series.experiments.matrix`), each [OUTPUT] and [FIGURE] given a verdict in each.

An environment is made with uv from its hashed lock (committed beside mkdocs.yml, written by `./dev.sh
lock-requirements`) into the user's cache, never a folder the repository can hold, and made again only when its
lock or its interpreter changes. Its interpreter is found on the machine (pyenv's versions, the system's, then
uv's own discovery); none is ever downloaded. The runs are the build's own (engine.Engine with a runner on that
interpreter): the same sandbox, limits and checks, and no cache read.
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
from pathlib import Path

from codeproof.common.errors import CodeproofError
from codeproof.common.markers import passes_for_a_card
from codeproof.common.structure import MatrixEnvironment
from codeproof.experiments.sandbox import Interpreter

MADE = ".made"  # written last into an environment's folder: what it was made from (a half-made one is made again)
# What an environment's interpreter says of itself: its version, its packages' and what the sandbox must show it.
ASK = ("import json, os, sys\nfrom importlib import metadata\n"
       "def version(name):\n    try:\n        return metadata.version(name)\n"
       "    except metadata.PackageNotFoundError:\n        return 'not installed'\n"
       "print(json.dumps({'python': '.'.join(map(str, sys.version_info[:3])), 'numpy': version('numpy'),"
       " 'autograd': version('autograd'), 'roots': [sys.prefix, sys.base_prefix,"
       " os.path.dirname(os.path.realpath(sys.executable))]}))")
PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


class MatrixError(CodeproofError):
    """An environment cannot be had here: its interpreter is missing, its lock disagrees with its pins, uv failed."""


# What a lock may hold: pins, each with its hashes, and comments. Nothing else: an option line (an index, a link
# to find files at, an editable source) would have uv fetch, or build and so run, what the lock does not pin.
# A comment is printable ASCII: the lock is published as it is (a marker, a stamp, a bidi control or bytes that are
# not text would reach readers unverified).
LOCK_LINE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[0-9A-Za-z.+!_-]+ \\|\s+--hash=sha256:[0-9a-f]{64}( \\)?|"
                          r"\s*(#[ -~]*)?")
LOCK_CAP = 1 << 20  # bytes of a lock: hundreds of pins with their hashes take tens of kilobytes


def pins_held(environment: MatrixEnvironment) -> str | None:
    """Why the environment's lock does not hold its pins (it was not renewed after a pin changed), or holds
    something else than pins with their hashes; None when it holds its pins and nothing else."""
    lock = environment.lock
    if not lock.is_file() or lock.resolve() != lock.absolute():  # the file, or a folder on its way, is a link
        return f"its lock {lock.name} is missing or a link"
    data = lock.read_bytes()
    if len(data) > LOCK_CAP:
        return f"its lock {lock.name} is larger than {LOCK_CAP >> 10} KiB"
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return f"its lock {lock.name} holds a byte that is not ASCII (0x{data[error.start]:02x}) at line {line}"
    shown = passes_for_a_card(text.splitlines())
    if shown:  # published as it is, outside any card
        return f"its lock {lock.name} shows {shown[1]} at line {shown[0] + 1}"
    for number, line in enumerate(text.splitlines(), 1):
        if not LOCK_LINE_RE.fullmatch(line):
            return f"its lock {environment.lock.name} holds at line {number} what is no pin, hash or comment: {line[:80]!r}"
    locked = {_name(name): version for name, version in PIN_RE.findall(text)}
    for pin in environment.packages:
        name, _, version = pin.partition("==")
        if locked.get(_name(name)) != version:
            return f"its lock {environment.lock.name} does not hold {pin}"
    return None


def _name(package: str) -> str:
    return re.sub(r"[-_.]+", "-", package).lower()


LOCK_HINT = "run ./dev.sh lock-requirements, which writes each environment's lock from its pins, and commit it"


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
                               env={**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"},
                               cwd="/")  # not the repository's folder, where uv would take a .venv of its own
        if asked.returncode == 0 and _says_version(asked.stdout.strip()) == version:
            return asked.stdout.strip()
    return None


def _says_version(python: str) -> str | None:
    try:
        said = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return said.stdout.strip() if said.returncode == 0 else None


def uv_command() -> str | None:
    """uv, as ./dev.sh keeps it (CODEPROOF_UV, checked before each use), else one on PATH."""
    return os.environ.get("CODEPROOF_UV") or shutil.which("uv")


def make(environment: MatrixEnvironment, cache_dir: Path) -> Interpreter:
    """The environment, made in the user's cache from its lock if it is not there yet: its interpreter, with what
    it says of itself. MatrixError when it cannot be had."""
    held = pins_held(environment)
    if held:
        raise MatrixError(f"matrix environment {environment.name}: {held}", LOCK_HINT)
    uv = uv_command()
    python = find_python(environment.python, uv)
    if python is None:
        raise MatrixError(f"matrix environment {environment.name}: no Python {environment.python} on this machine",
                          f"install Python {environment.python} (pyenv install {environment.python}, or the system's "
                          f"python{environment.python}); none is downloaded")
    if uv is None:
        raise MatrixError(f"matrix environment {environment.name}: uv is needed to make it",
                          "run it through ./dev.sh, which keeps uv in the user's cache")
    lock = environment.lock.read_bytes()
    key = hashlib.sha256(lock + b"\0" + os.path.realpath(python).encode()).hexdigest()
    folder = cache_dir / "matrix" / key[:24]
    made = folder / MADE
    if not (made.is_file() and made.read_text() == key):
        shutil.rmtree(folder, ignore_errors=True)
        env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
        for argv in ([uv, "venv", "--quiet", "--python", python, str(folder)],
                     [uv, "pip", "install", "--quiet", "--python", str(folder / "bin" / "python"), "--require-hashes",
                      "--no-build", "--compile-bytecode", "-r", str(environment.lock)]):  # wheels only: nothing built
            done = subprocess.run(argv, capture_output=True, text=True, env=env)
            if done.returncode != 0:
                said = (done.stderr.strip().splitlines() or ["no message"])
                raise MatrixError(f"matrix environment {environment.name}: uv could not make it: {said[-1][:300]}",
                                  f"the lock {environment.lock.name} may be changed by hand: {LOCK_HINT}")
        made.write_text(key)
    said = subprocess.run([str(folder / "bin" / "python"), "-I", "-c", ASK], capture_output=True, text=True, timeout=60)
    if said.returncode != 0:
        raise MatrixError(f"matrix environment {environment.name}: its interpreter does not run",
                          f"delete {folder} and check again")
    facts = json.loads(said.stdout)
    return Interpreter(str(folder / "bin" / "python"), tuple(dict.fromkeys(facts.pop("roots"))), facts)


def label(interpreter: Interpreter) -> str:
    """An environment as a reader names it: "Python 3.12.1 + numpy 1.26.4"."""
    return f"Python {interpreter.versions['python']} + numpy {interpreter.versions['numpy']}"


def write_lock(environment: MatrixEnvironment, uv: str) -> None:
    """Write the environment's hashed lock from its pins (uv resolves them for its Python version)."""
    with tempfile.TemporaryDirectory(prefix="codeproof-matrix-") as tmp:
        pins = Path(tmp) / "pins.in"
        pins.write_text("".join(pin + "\n" for pin in environment.packages), encoding="utf-8")
        done = subprocess.run([uv, "pip", "compile", "--quiet", "--python-version", environment.python,
                               "--generate-hashes", "--no-annotate", "--custom-compile-command", "./dev.sh lock-requirements",
                               str(pins), "-o", str(environment.lock)], capture_output=True, text=True,
                              env={**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"})
    if done.returncode != 0:
        raise MatrixError(f"matrix environment {environment.name}: uv could not lock it: {done.stderr.strip()[-300:]}",
                          "check its pins in mkdocs.yml")
