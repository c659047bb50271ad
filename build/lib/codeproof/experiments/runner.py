"""Run experiment scripts: once per build each, in parallel, contained, in a fixed environment, cached.

Each run is a scratch folder outside the repository with a copy of the published resources, the script run there
by the supervisor (`supervisor`), in bubblewrap's sandbox where it works (`sandbox`), and the record of what the
script read, which keys the signed cache of good runs (`cache`). Standard output must be UTF-8: other bytes fail
the run (RunResult.undecodable), never replaced.

The run's inputs are what the supervisor's record names (files opened and folders listed under the copy), with
the SHA-256 of the bytes copied for them (RunResult.inputs); the record reaches the runner through a pipe.
"""

from __future__ import annotations

import json
import logging
import contextlib
import os
import stat
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timezone
from functools import cache
from importlib import metadata
from pathlib import Path

from codeproof.common.kinds.figure import graph_call
from codeproof.series.config import in_ci
from codeproof.experiments import supervisor
from codeproof.experiments.cache import RunCache, cache_readable, input_digest
from codeproof.experiments.figures import FOLDER_FAULT, MATPLOTLIBRC, collect_figures
from codeproof.experiments.memorygroup import NO_MEMORY_GROUP, MemoryGroup, memory_groups, remove_stale_groups
from codeproof.experiments.resources import Resource, read_resources
from codeproof.experiments.sandbox import (COUNTED, INSIDE, NO_SANDBOX_IN_CI, NOBODY, SANDBOX_NOTES, SANDBOXES,
                                           SHM_BYTES, Interpreter, bwrap_command, bwrap_works, run_env)
from codeproof.experiments.tracing import TRACE
from codeproof.common.signing import default_key_file
from codeproof.common.structure import Budgets, Limits, Problem, RunResult

log = logging.getLogger("mkdocs.codeproof.experiments")  # shown by MkDocs; info only, so --strict is unaffected

# The limits the supervisor sets on the script's processes, in the order it reads them (run_memory_mib is the
# run's memory group's: memorygroup).
LIMIT_NAMES = ("memory_mib", "processes", "file_size_mib", "cpu_seconds")
RECORD_CAP = 1024 * 1024  # bytes of the inputs record of one run
STOP_GRACE = 5.0  # seconds the supervisor has to end every process after SIGTERM, before SIGKILL
CANCEL_SEEN_WITHIN = 0.1  # seconds a run's thread takes at most to see that the build was cancelled
WATCHED_EVERY = 0.25  # seconds between two counts of a running script's folder against the budgets
# The sandbox's /tmp holds this much more than the budget run_mib: a run that fills it is seen past the budget
# by the last count, as a run that fills the disk without the sandbox is, and fails naming it.
MEMORY_MARGIN_MIB = 1
MAX_COUNTED_DEPTH = 256  # folders within folders that a run's count follows (one descriptor each, while it counts)
# The supervisor's program, run as `python -B -c SUPERVISOR …` (see supervisor): its text, not its path, so that
# nothing of the repository need be seen in the sandbox.
SUPERVISOR = Path(supervisor.__file__).read_text(encoding="utf-8")


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


@contextlib.contextmanager
def _run_folder():
    """A run's folder, removed afterwards whatever the script left in it."""
    tmp = tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{os.getpid()}-")
    try:
        yield tmp
    finally:
        _remove_tree(tmp)


def _remove_tree(folder: str | Path) -> None:
    """Remove a run's folder: shutil.rmtree recurses once a level, so a tree nested thousands deep (or with its
    permissions taken away) is removed by rm, after its folders are made writable again."""
    try:
        shutil.rmtree(folder)
    except (OSError, RecursionError):
        subprocess.run(["chmod", "-R", "u+rwx", "--", str(folder)], capture_output=True)
        subprocess.run(["rm", "-rf", "--", str(folder)], capture_output=True)


class ExperimentRunner:
    def __init__(self, root: Path, cache_dir: Path, timeout: float, output_cap: int, use_cache: bool = True,
                 sandbox: str | None = None, key_file: Path | None = None, python_path: Path | None = None,
                 limits: Limits = Limits(), budgets: Budgets = Budgets(), interpreter: Interpreter | None = None):
        """sandbox: "bwrap" or "subreaper"; None takes bwrap where it works. key_file: the cache's secret.
        interpreter: another than the build's to run the scripts with (a matrix environment)."""
        if sandbox not in (None, *SANDBOXES):
            raise ValueError(f"sandbox must be one of {SANDBOXES}, not {sandbox!r}")
        self.root = root
        self.timeout = timeout
        self.output_cap = output_cap
        self.limits, self.budgets = limits, budgets
        # Caches are conveniences: CI trusts none (see cache).
        # A run against another package tree is no evidence for the build: it neither reads nor fills the cache.
        self.use_cache = use_cache and python_path is None and interpreter is None and cache_readable()
        self._sandbox = sandbox
        self.key_file = key_file or default_key_file()
        self.python_path = python_path
        self.python, self.readable = (interpreter.executable, interpreter.roots) if interpreter else (sys.executable, ())
        self.versions = dict(interpreter.versions) if interpreter else toolchain_versions()
        self._cache = RunCache(cache_dir / "experiments", self.key_file, self.versions, limits, budgets)
        _remove_stale_runs()  # whether or not this build runs a script (its runs may all be cached)
        self.memory_groups = memory_groups()  # where each run's memory group is made, if anywhere
        if self.memory_groups is not None:
            remove_stale_groups(self.memory_groups, _alive)
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
        self._running: set[Supervised] = set()  # supervisors under way, for cancel()
        self._cancelled = False  # set by cancel(): every run still going is then stopped by its own thread

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
                if self.memory_groups is None and not refused:
                    log.info(NO_MEMORY_GROUP)
        return self._sandbox

    def start(self, script: str, calls: tuple[str, ...] = ()) -> None:
        """Begin running `script` (a path relative to the root) unless it is already under way. `calls` are the
        graphs to trace once it has run (`f(x)`, as kinds.figure.graph_call reads them): they are part of the run."""
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
        self._cache.keep_only(self._used_entries)

    def cancel(self) -> None:
        """Stop at once (Ctrl-C): queued runs never start, running ones are ended with every descendant.
        Their scratch folders are removed by the runs' own threads; the cache keeps only whole entries."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._cancelled = True
            running = list(self._running)
        for run in running:
            run.ask_to_end()

    def _wait(self, run: Supervised, deadline: float, run_dir: Path, folders: Handover,
              group: MemoryGroup | None) -> bool:
        """Wait for the supervisor to end, until the deadline (then True: timed out) or until the build is cancelled
        (then False, and the caller stops the run: cancel() may have come before this run was listed). Every
        WATCHED_EVERY seconds the run's folder is counted: a run past its budgets is asked to end there and then,
        so that no run fills the disk, or holds the sandbox's memory full, within its time (the caller reports
        the budget). A run whose memory group saw the kernel end a process is asked to end too: what is left of
        it would only wait for the one that is gone."""
        watched = time.monotonic()
        while run.process.poll() is None and not self._cancelled:
            try:
                run.process.wait(timeout=max(0.0, min(deadline - time.monotonic(), CANCEL_SEEN_WITHIN)))
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    return True
                if time.monotonic() - watched >= WATCHED_EVERY:
                    watched = time.monotonic()
                    folders.over_budget = self._over_budget(folders.counted(run_dir))
                    if folders.over_budget or (group is not None and group.killed()):
                        run.ask_to_end()
        return False

    def cache_entry(self, script: str) -> Path:
        """Where the last good run of `script` with this toolchain is kept."""
        return self._cache.entry(script, self._calls.get(script, ()))

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
            cached = self._cache.load(entry, script, files)
            if cached is not None:
                return cached
        result = self._run(script, files)
        if result.ok and script in result.inputs and self.python_path is None:  # no record of its inputs, no reuse
            self._cache.store(entry, result)
        return result

    # --- a run ------------------------------------------------------------------------------

    def _failed(self, script: str, why: str) -> RunResult:
        return RunResult(script, 1, "", why, 0.0, _today(), self.versions)

    def _run(self, script: str, files: dict[str, bytes]) -> RunResult:
        if in_ci() and self.sandbox != "bwrap":  # what CI publishes runs in the full sandbox or not at all
            return replace(self._failed(script, ""), not_run=NO_SANDBOX_IN_CI)
        with self._lock:
            self.runs += 1
        with _run_folder() as tmp:
            run_dir = Path(tmp).resolve()
            given = run_dir / "given"  # what the supervisor copies to the run's work folder (see supervisor)
            for path, data in {**{f"resources/{path}": data for path, data in files.items()},
                               "tmp/matplotlib/matplotlibrc": MATPLOTLIBRC.encode("utf-8")}.items():
                (given / path).parent.mkdir(parents=True, exist_ok=True)
                (given / path).write_bytes(data)
            for name in ("home", "figures"):
                (given / name).mkdir()
            _readable_by_all(given)  # a root build's script runs as NOBODY, and copies it as NOBODY
            # The record comes through a pipe, not a file in the run's folder: the script cannot replace it
            # with a FIFO, a folder or a link, nor truncate it. What it writes into the pipe itself only
            # adds inputs; a record that overflows or does not end leaves the run uncached.
            read_end, write_end = os.pipe()
            record = bytearray()
            reader = threading.Thread(target=_read_record, args=(read_end, record), daemon=True)
            reader.start()
            with Handover() as folders:
                try:
                    result = self._supervised(script, run_dir, write_end, folders)
                finally:
                    os.close(write_end)
                reader.join(STOP_GRACE)
                whole = not reader.is_alive() and len(record) <= RECORD_CAP
                inside = f"{self._inside(run_dir)}/work/resources"
                inputs = self._inputs(bytes(record), inside, script, files) if whole else {}
                # what it holds when every process has ended, else what ended it (it may have deleted files since)
                over_budget = self._over_budget(folders.counted(run_dir)) or folders.over_budget
                work = folders.work()
                figures, faults = (collect_figures(work, self.budgets) if work else
                                   ({}, {FOLDER_FAULT: "the run ended before its supervisor handed over its folder"}))
                if over_budget:
                    figures, faults = {}, {}
        return replace(result, inputs=inputs, limit=self._limit_hit(bytes(record), result), figures=figures,
                       figure_faults=faults, traces=self._traces(bytes(record), script) if whole else {},
                       over_budget=over_budget)

    def _inside(self, run_dir: Path) -> str:
        """Where the run's folder lies as the supervisor sees it: INSIDE in the sandbox, else where it is."""
        return INSIDE if self.sandbox == "bwrap" else str(run_dir)

    def _over_budget(self, folders: list[str]) -> str:
        """What the run holds in its folders past the budgets, or "": every entry (folders too) counted without
        following links, and no further than the budget (a million empty folders are not all counted). Each
        folder is opened from the one above it, never through a link, so a script that swaps a folder for a link
        as it is counted turns the count nowhere (review, round six: a path led it into a folder of the machine).
        A folder nested deeper than MAX_COUNTED_DEPTH, or that the build cannot read (its permissions taken
        away), is past the budget too. What another file system holds is not the run's: in the sandbox's /tmp,
        the interpreter bound read-only where it lies in /tmp, and given/; they are gone once the sandbox has ended."""
        files, size, open_folders = 0, 0, []  # (descriptor, its entries, its depth): the folders being listed
        try:
            for folder in folders:
                top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
                device = os.fstat(top).st_dev
                open_folders.append((top, os.scandir(top), 0))
                while open_folders:
                    descriptor, entries, depth = open_folders[-1]
                    entry = next(entries, None)
                    if entry is None:
                        entries.close()
                        os.close(descriptor)
                        open_folders.pop()
                        continue
                    info = entry.stat(follow_symlinks=False)
                    if info.st_dev != device:
                        continue
                    # the blocks it holds too: space kept with fallocate has no size (review, round five)
                    used = max(info.st_size, info.st_blocks * 512) if stat.S_ISREG(info.st_mode) else 0
                    files, size = files + 1, size + used
                    if files > self.budgets.run_files:
                        return f"more than {self.budgets.run_files} files, past {self.budgets.phrase('run_files')}"
                    if size > self.budgets.run_mib * 1024 * 1024:
                        return f"more than {self.budgets.run_mib} MiB of files, past {self.budgets.phrase('run_mib')}"
                    if stat.S_ISDIR(info.st_mode):
                        if depth == MAX_COUNTED_DEPTH:
                            return (f"a folder nested deeper than {MAX_COUNTED_DEPTH}, past "
                                    f"{self.budgets.phrase('run_files')}")
                        inner = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=descriptor)
                        open_folders.append((inner, os.scandir(inner), depth + 1))
        except OSError as error:
            return f"a folder the build cannot read ({error.strerror}), past {self.budgets.phrase('run_files')}"
        finally:
            for descriptor, entries, _ in open_folders:
                entries.close()
                os.close(descriptor)
        return ""

    def _traces(self, record: bytes, script: str) -> dict[str, str]:
        """The graphs the run traced (tracing.TRACE), by call."""
        calls, traces = self._calls.get(script, ()), {}
        for item in record.split(b"\0"):
            kind, _, rest = item.decode("utf-8", "replace").partition("\t")  # a script may write any bytes there
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
            if kind == "limit" and name == "run_mib" and self.sandbox == "bwrap":  # else the disk is full
                return f"{self.budgets.phrase(name)}, or the {SHM_BYTES >> 20} MiB of /dev/shm"
        return ""

    def _supervised(self, script: str, run_dir: Path, record: int, folders: Handover) -> RunResult:
        inside = self._inside(run_dir)
        calls = [graph_call(call) for call in self._calls.get(script, ())]
        try:
            group = (MemoryGroup(self.memory_groups, self.limits.run_memory_mib * 1024 * 1024)
                     if self.memory_groups is not None else None)
        except OSError as error:  # the machine let the build make groups when it started, and no longer does
            return self._failed(script, f"its memory group could not be made ({error.strerror}); build again")
        counted = list(COUNTED) if self.sandbox == "bwrap" else []  # else its work folder alone, on the disk
        lifeline, asking_end = os.pipe()  # see Supervised
        argv = [self.python, "-B", "-c", SUPERVISOR, str(record), str(lifeline), str(folders.supervisors_end),
                inside, script, *(str(getattr(self.limits, name)) for name in LIMIT_NAMES),
                str(NOBODY) if self.sandbox == "bwrap" and os.geteuid() == 0 else "0",  # see bwrap_command
                json.dumps(calls), TRACE, json.dumps(counted)]
        if self.sandbox == "bwrap":
            readable = (*((self.python_path,) if self.python_path else ()), *map(Path, self.readable))
            argv = bwrap_command(run_dir / "given", hidden=(self.key_file,), readable=readable,
                                 tmp_bytes=(self.budgets.run_mib + MEMORY_MARGIN_MIB) * 1024 * 1024) + argv
        try:
            return self._contained(script, argv if group is None else group.entering(argv), run_dir, inside,
                                   record, (lifeline, asking_end), folders, group)
        finally:
            if group is not None:
                group.remove()

    def _contained(self, script: str, argv: list[str], run_dir: Path, inside: str, record: int,
                   pipe: tuple[int, int], folders: Handover, group: MemoryGroup | None) -> RunResult:
        """The supervisor run to its end (in the run's memory group, when there is one), and what it gave; the
        lifeline pipe's two ends are closed here."""
        lifeline, asking_end = pipe
        started = time.monotonic()
        try:
            process = subprocess.Popen(
                argv, cwd=run_dir, env=run_env(f"{inside}/work", self.python_path, self.python),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                pass_fds=(record, lifeline, folders.supervisors_end),
            )
        except BaseException:
            os.close(asking_end)
            raise
        finally:
            os.close(lifeline)
            folders.started()
        run = Supervised(process, asking_end)
        with self._lock:
            self._running.add(run)
        overflow = threading.Event()
        streams = [bytearray(), bytearray()]
        readers = [
            threading.Thread(target=self._drain, args=(pipe, buffer, streams, overflow, run), daemon=True)
            for pipe, buffer in zip((process.stdout, process.stderr), streams)
        ]
        for reader in readers:
            reader.start()
        timed_out = self._wait(run, started + self.timeout, run_dir, folders, group)
        run.stop()  # a no-op when the supervisor ended by itself, having ended every descendant
        with self._lock:
            self._running.discard(run)
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
            out_of_memory=self.limits.phrase("run_memory_mib") if group is not None and group.killed() else "",
        )

    @staticmethod
    def _inputs(record: bytes, resources: str, script: str, files: dict[str, bytes]) -> dict[str, str]:
        """The recorded paths that are resources, as repository paths, with the digest of what the run was given."""
        names = {script}  # opened by the supervisor in any case
        prefix = resources + "/"
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
               run: Supervised) -> None:
        """Read one pipe; the cap holds for stdout and stderr together."""
        with pipe:
            for chunk in iter(lambda: pipe.read1(65536), b""):
                with self._lock:
                    room = self.output_cap - sum(len(b) for b in streams)
                    buffer.extend(chunk[: max(room, 0)])
                if len(chunk) > room:
                    overflow.set()
                    run.ask_to_end()  # the supervisor ends the script and its descendants
                    return


def _readable_by_all(folder: Path) -> None:
    """The given files readable, and their folders passable, by any user (what lies in them is published)."""
    for parent, _, names in os.walk(folder):
        os.chmod(parent, 0o755)
        for name in names:
            os.chmod(os.path.join(parent, name), 0o644)


class Handover:
    """The descriptors of a run's folders, as its supervisor hands them over (see supervisor): its work folder,
    then the folders counted against its budgets (in the sandbox, its /tmp and /dev/shm: the work folder lies in
    the first). Read through /proc/self/fd, they outlive the sandbox; closed when the run has been read."""

    def __init__(self):
        self._ours, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.supervisors_end = self._theirs.fileno()
        self._folders: list[int] | None = None
        self.over_budget = ""  # what the last count while the run went on found past its budgets

    def started(self) -> None:
        """The supervisor holds its end now (or never will): ours alone stays open."""
        self._theirs.close()

    def _received(self) -> list[int]:
        if self._folders is None:
            try:  # (socket.recv_fds would ignore MSG_DONTWAIT, and wait)
                _, data, _, _ = self._ours.recvmsg(64, socket.CMSG_SPACE(8 * 4), socket.MSG_DONTWAIT)
            except OSError:  # not yet
                return []
            self._folders = [int.from_bytes(fds[n:n + 4], sys.byteorder) for level, kind, fds in data
                             if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS)
                             for n in range(0, len(fds) - len(fds) % 4, 4)]
        return self._folders

    def work(self) -> str:
        """The run's work folder, or "" before the supervisor has handed it over."""
        folders = self._received()
        return f"/proc/self/fd/{folders[0]}" if folders else ""

    def counted(self, run_dir: Path) -> list[str]:
        """What counts against the run's budgets: the folders the supervisor handed over besides its work folder
        (the sandbox's memory, which holds that and given/), else the run's folder on the disk."""
        folders = self._received()[1:]
        return [f"/proc/self/fd/{fd}" for fd in folders] if folders else [str(run_dir)]

    def __enter__(self) -> Handover:
        return self

    def __exit__(self, *exc) -> None:
        for fd in self._received():
            os.close(fd)
        self._theirs.close()  # if the supervisor never started
        self._ours.close()


RUN_PREFIX = "codeproof-run-"  # then the pid of the build that made the run's folder


@cache
def _remove_stale_runs() -> None:
    """Remove the run folders of builds that are gone (killed with SIGKILL, they could not): once per process."""
    root = Path(tempfile.gettempdir())
    for folder in root.glob(f"{RUN_PREFIX}*-*"):
        pid = folder.name[len(RUN_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            _remove_tree(folder)


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


class Supervised:
    """A supervisor under way, and the write end of its lifeline: the runner asks the run to end by closing it,
    never by a signal to the process it started. That process may be bubblewrap, and a SIGTERM that reaches it
    before it has tied its sandbox's life to its own ends bubblewrap alone: the sandbox runs on, orphaned,
    holding the output pipes. The supervisor sees the pipe close whenever it has started."""

    def __init__(self, process: subprocess.Popen, asking_end: int):
        self.process = process
        self._asking_end: int | None = asking_end
        self._lock = threading.Lock()  # the run's thread, its output readers and cancel() may all ask

    def ask_to_end(self) -> None:
        with self._lock:
            if self._asking_end is not None:
                os.close(self._asking_end)
                self._asking_end = None

    def stop(self) -> None:
        """Ask the run to end; kill the process group if it has not ended in time. Ends the lifeline either way."""
        self.ask_to_end()
        try:
            self.process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()
