"""A memory cgroup for each run, where the machine lets the build make one.

The per-process limits (supervisor.rlimits) bound what each process maps, and the sandbox's /tmp what the run's
files hold. Memory that no file holds and no single process maps escapes both: memfd_create, System V and POSIX
shared memory and message queues, extended attributes on files in the sandbox's /tmp, pipe and socket buffers,
and many processes each under memory_mib (review, round six: 12 GiB of kernel memory in 2.7 s). A memory cgroup
counts all of it against one bound, `limits.run_memory_mib`: past it the kernel's OOM killer ends a process of
the run (never one outside it), and the runner, reading the group's count of such kills, fails the run naming
the limit.

A group is made under the build's own cgroup in the memory controller's hierarchy: cgroup v1's (mounted with
`memory`), or v2's where the build's cgroup hands the memory controller to its children (cgroup.subtree_control).
Where neither can be written (no root, a read-only cgroup file system, v2 without delegation), `memory_groups()`
is None: the per-process limits hold alone, and the build says so (NO_MEMORY_GROUP).
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

NO_MEMORY_GROUP = ("the experiments' runs are not in a memory cgroup (the machine lets the build make none): "
                   "limits.run_memory_mib does not hold, only each process's memory_mib")
PREFIX = "codeproof-"  # a group's name: codeproof-<the build's pid>-<a number>
REMOVE_TRIES = 50  # a group is removed once its last process is gone: tries, REMOVE_PAUSE apart
REMOVE_PAUSE = 0.02


@dataclass(frozen=True)
class Hierarchy:
    """Where this process may make memory groups: the folder of its own cgroup, and the cgroup version."""

    folder: Path
    version: int


def memory_groups(mountinfo: Path = Path("/proc/self/mountinfo"), cgroup: Path = Path("/proc/self/cgroup")
                  ) -> Hierarchy | None:
    """The hierarchy in which this process may make a memory group for a run, or None. (The paths are
    arguments for the tests, which describe other machines.)"""
    try:
        mounts, own = mountinfo.read_text(), cgroup.read_text()
    except OSError:
        return None
    own_path = {}  # "memory" (v1) or "" (v2) -> this process's cgroup in that hierarchy
    for line in own.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            own_path[controller] = path
    for line in mounts.splitlines():
        fields = line.split()
        if " - " not in line:
            continue
        root, point = fields[3], fields[4]
        kind, _, options = line.split(" - ", 1)[1].split()[:3]
        if kind == "cgroup" and "memory" in options.split(",") and "memory" in own_path:
            folder = _inside(point, root, own_path["memory"])
            if folder is not None and _writable(folder):
                return Hierarchy(folder, 1)
        if kind == "cgroup2" and "" in own_path:
            folder = _inside(point, root, own_path[""])
            if folder is not None and _writable(folder) and "memory" in _words(folder / "cgroup.subtree_control"):
                return Hierarchy(folder, 2)
    return None


def _inside(point: str, root: str, path: str) -> Path | None:
    """The folder of cgroup `path` where the hierarchy's `root` is mounted at `point`, if it is there."""
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        return None
    folder = Path(point) / relative
    return folder if folder.is_dir() else None


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK) and os.access(folder / "cgroup.procs", os.W_OK)


def _words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


class MemoryGroup:
    """One run's group: made with its limit, entered by the run's first process (`entering`), read for the kernel's
    kills once the run has ended, removed after."""

    _numbers = itertools.count(1)  # each group this process makes has a new name (next() holds the GIL: runs
    # start in parallel threads)

    def __init__(self, hierarchy: Hierarchy, limit_bytes: int):
        self.version = hierarchy.version
        self.folder = hierarchy.folder / f"{PREFIX}{os.getpid()}-{next(MemoryGroup._numbers)}"
        self.folder.mkdir()
        try:
            if self.version == 1:
                (self.folder / "memory.limit_in_bytes").write_text(str(limit_bytes))
                _try_write(self.folder / "memory.swappiness", "0")  # its pages stay in memory, counted
            else:
                (self.folder / "memory.max").write_text(str(limit_bytes))
                _try_write(self.folder / "memory.swap.max", "0")
        except OSError:
            self.remove()
            raise

    def entering(self, argv: list[str]) -> list[str]:
        """`argv` run from inside the group: a shell moves itself in (writing 0 to cgroup.procs moves the
        writer), then becomes the command, so that every process of the run is born in the group."""
        return ["/bin/sh", "-c", 'echo 0 >"$0" && exec "$@"', str(self.folder / "cgroup.procs"), *argv]

    def killed(self) -> bool:
        """Whether the kernel's OOM killer ended a process of the group (the run went past its limit)."""
        counts = self.folder / ("memory.oom_control" if self.version == 1 else "memory.events")
        for line in _lines(counts):
            name, _, count = line.partition(" ")
            if name == "oom_kill" and count.strip().isdigit() and int(count) > 0:
                return True
        return False

    def remove(self) -> None:
        """Every process still in the group killed (none, once the supervisor has ended the run), then the group."""
        for _ in range(REMOVE_TRIES):
            for pid in _lines(self.folder / "cgroup.procs"):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            try:
                self.folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:  # busy: its last processes are still being reaped
                time.sleep(REMOVE_PAUSE)


def remove_stale_groups(hierarchy: Hierarchy, alive) -> None:
    """The groups of builds that ended without removing theirs (killed): `alive(pid)` says whose build runs."""
    for folder in hierarchy.folder.glob(f"{PREFIX}*-*"):
        pid = folder.name.removeprefix(PREFIX).partition("-")[0]
        if pid.isdigit() and not alive(int(pid)):
            stale = MemoryGroup.__new__(MemoryGroup)
            stale.folder, stale.version = folder, hierarchy.version
            stale.remove()


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except OSError:
        return []


def _try_write(path: Path, text: str) -> None:
    """A setting the kernel may not have (no swap accounting): left as it is."""
    try:
        path.write_text(text)
    except OSError:
        pass
