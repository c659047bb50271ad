"""Run experiment scripts: once per build each, in parallel, in a fixed environment, cached.

A script runs as `python -B <script>` from the resource directory (the repository
root), with stdin closed, a time-out that kills its whole process group, and
capped output. A run is cached under a key that changes whenever anything that
can change its output changes: the script, the local modules it imports
(transitively), the data files it declares, Python, numpy and autograd.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from .sources import write_atomically

FIXED_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "TZ": "UTC",
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
NO_CACHE_ENV = "CODEPROOF_NO_CACHE"  # set to 1 to run every experiment again


@dataclass(frozen=True)
class RunResult:
    script: str
    returncode: int | None  # None when the run was killed
    stdout: str
    stderr: str
    seconds: float
    verified_on: str  # UTC date of the run
    versions: dict[str, str]
    timed_out: bool = False
    overflow: bool = False  # output passed the cap and the run was killed
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.overflow


def toolchain_versions() -> dict[str, str]:
    versions = {"python": ".".join(map(str, sys.version_info[:3]))}
    for package in ("numpy", "autograd"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def local_imports(script: Path, experiments_dir: Path) -> list[Path]:
    """Modules under experiments/ that the script imports, transitively (found with ast)."""
    seen: dict[Path, None] = {}
    pending = [script]
    while pending:
        tree = ast.parse(pending.pop().read_bytes())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            # `import pkg.mod` runs pkg/__init__.py too: every dotted prefix is a module to look for.
            prefixes = {".".join(name.split(".")[: i + 1]) for name in names for i in range(name.count(".") + 1)}
            for name in sorted(prefixes):
                base = experiments_dir.joinpath(*name.split("."))
                for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                    if candidate.is_file() and candidate not in seen and candidate != script:
                        seen[candidate] = None
                        pending.append(candidate)
    return sorted(seen)


def declared_data_files(script: Path, root: Path) -> list[Path]:
    """Files a script declares with a module-level `DATA_FILES = ["experiments/data/x.csv", ...]`."""
    for node in ast.parse(script.read_bytes()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DATA_FILES" for t in node.targets):
            return sorted(root / name for name in ast.literal_eval(node.value))
    return []


class ExperimentRunner:
    def __init__(self, root: Path, cache_dir: Path, timeout: float, output_cap: int, use_cache: bool = True):
        self.root = root
        self.cache_dir = cache_dir / "experiments"
        self.timeout = timeout
        self.output_cap = output_cap
        self.use_cache = use_cache and os.environ.get(NO_CACHE_ENV, "") in ("", "0")
        self.versions = toolchain_versions()
        self.runs = 0  # scripts actually run by this runner (cache hits do not count)
        self._pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="experiment")
        self._futures: dict[str, Future] = {}
        self._used_keys: set[str] = set()
        self._lock = threading.Lock()

    def start(self, script: str) -> None:
        """Begin running `script` (a path relative to the root) unless it is already under way."""
        with self._lock:
            if script not in self._futures:
                self._futures[script] = self._pool.submit(self._result, script)

    def result(self, script: str) -> RunResult:
        self.start(script)
        return self._futures[script].result()

    def finish(self) -> None:
        """End of a build: wait for the pool and drop cache entries this build did not use."""
        self._pool.shutdown(wait=True)
        if self.cache_dir.is_dir():
            for entry in self.cache_dir.glob("*.json"):
                if entry.stem not in self._used_keys:
                    entry.unlink(missing_ok=True)

    def cache_key(self, script: str) -> str:
        path = self.root / script
        digest = hashlib.sha256(json.dumps(self.versions, sort_keys=True).encode())
        inputs = [path, *local_imports(path, self.root / "experiments"), *declared_data_files(path, self.root)]
        for item in inputs:
            digest.update(str(item.relative_to(self.root)).encode() + b"\0" + item.read_bytes() + b"\0")
        return digest.hexdigest()

    def _result(self, script: str) -> RunResult:
        try:
            key = self.cache_key(script)
        except (OSError, SyntaxError, ValueError) as error:
            return self._failed(script, f"cannot read the experiment or its inputs: {error}")
        with self._lock:
            self._used_keys.add(key)
        entry = self.cache_dir / f"{key}.json"
        if self.use_cache and entry.is_file():
            try:
                return RunResult(**{**json.loads(entry.read_text(encoding="utf-8")), "cached": True})
            except (ValueError, TypeError):
                entry.unlink(missing_ok=True)  # a damaged entry is only a cache miss
        result = self._run(script)
        if result.ok:
            write_atomically(entry, json.dumps(asdict(result), ensure_ascii=False).encode("utf-8"))
        return result

    def _failed(self, script: str, why: str) -> RunResult:
        return RunResult(script, 1, "", why, 0.0, _today(), self.versions)

    def _run(self, script: str) -> RunResult:
        with self._lock:
            self.runs += 1
        env = {**os.environ, **FIXED_ENV}
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-B", script],
            cwd=self.root, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
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
        _kill_group(process)  # also any child the script left behind, which would hold the pipes open
        process.wait()
        for reader in readers:
            reader.join()
        return RunResult(
            script=script,
            returncode=None if (timed_out or overflow.is_set()) else process.returncode,
            stdout=streams[0].decode("utf-8", errors="replace"),
            stderr=streams[1].decode("utf-8", errors="replace"),
            seconds=round(time.monotonic() - started, 3),
            verified_on=_today(),
            versions=self.versions,
            timed_out=timed_out,
            overflow=overflow.is_set(),
        )

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
                    _kill_group(process)
                    return


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()
