"""A command run under `strace -f`: every program it started, and a check that every file it changed lies where it
may (the repository, the test's folder, the user cache, a device, the sandbox's own, a run's memory group)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from codeproof.experiments.memorygroup import PREFIX, memory_groups
from codeproof.experiments.sandbox import INSIDE


def in_a_runs_memory_group(path: Path) -> bool:
    """The path is a run's memory group, or a file in one (memorygroup: where the machine lets the build make
    them, each run's is made under the build's own cgroup)."""
    groups = memory_groups()
    return groups is not None and any(part.parent == groups.folder and re.fullmatch(rf"{PREFIX}\d+-\d+", part.name)
                                      for part in (path, path.parent))


def traced(argv: list[str], repo: Path, env: dict[str, str], tmp_path: Path, timeout: float = 120
           ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """argv, run in `repo` under `strace -f`: (the run, every program it started). Every file it opened to write,
    made, removed or renamed is inside the repository, the test's folder or the user cache `env` names, a device,
    or a run's memory group."""
    log = tmp_path / f"strace-{len(list(tmp_path.glob('strace-*')))}"  # a prefix of its own for each call
    done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve,open,openat,creat,rename,renameat,renameat2,"
                           "unlink,unlinkat,mkdir,mkdirat", "-ff", "-o", str(log), *argv],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)
    calls = [line for each in tmp_path.glob(f"{log.name}.*") for line in each.read_text().splitlines()]  # -ff: a file a process
    started = [m[1] for line in calls for m in [re.search(r'execve\("([^"]+)"', line)] if m]
    changed = []  # what a call that succeeded wrote, made, removed or renamed (strace writes one line a call with -qq)
    for line in calls:
        done_well = re.search(r"\) += (\d+)", line)
        opened = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", ([^)]*)\)', line)
        other = re.search(r'(?:creat|mkdir|unlink|rename)(?:at2?)?\((?:AT_FDCWD, )?"([^"]+)"', line)
        if done_well and (opened and re.search(r"O_(WRONLY|RDWR|CREAT)", opened[2]) or other):
            path = (opened or other)[1]
            changed.append(Path(path) if path.startswith("/") else repo / path)
    # bubblewrap's own writes are inside the sandbox it makes: its new root (a tmpfs) and its /proc; and a run's
    # work folder lies in the sandbox's own /tmp (INSIDE there is no path of the machine's).
    inside = ("/dev", "/proc", "/newroot", "/oldroot", INSIDE)
    allowed = (repo, tmp_path, Path(env["XDG_CACHE_HOME"]), *map(Path, inside))
    assert [path for path in changed if not any(path.is_relative_to(folder) for folder in allowed)
            and not in_a_runs_memory_group(path)] == []
    assert started
    return done, started
