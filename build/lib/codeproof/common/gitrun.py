"""git as the engine runs it: with no configuration but the engine's own.

git reads configuration from many places, and some of it runs programs: an `insteadOf` that turns the remote
into `ext::` or ssh with `core.sshCommand`, hooks, an fsmonitor. None of it may come from a file a repository
can hold, nor from the machine's or the user's settings, which the engine cannot vouch for. So every git the
engine runs reads no system or global file, allows only the https and file transports, runs no hook, and
replaces no object; its repository is named explicitly (a folder that is not one is never searched upward).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# Highest precedence of all (git's -c), so a repository's own config cannot undo them. Each transport but https and
# file is named too: a repository's `protocol.ext.allow` would otherwise win over the general `protocol.allow`.
SETTINGS = ("protocol.allow=never", *(f"protocol.{name}.allow=never" for name in ("ext", "fd", "ssh", "git", "http")),
            "protocol.https.allow=always", "protocol.file.allow=always",
            "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.sshCommand=false", "credential.helper=",
            "transfer.fsckObjects=true",
            # Any owner's repository is read: with nothing of its configuration able to run a program, reading it is
            # safe, and git's refusal would otherwise read as "nothing tracked" (fail open).
            "safe.directory=*")


def git_environment() -> dict[str, str]:
    """The process environment without any GIT_* variable of the caller's, and with no configuration file."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_NO_REPLACE_OBJECTS="1", GIT_ATTR_NOSYSTEM="1", GIT_PROTOCOL_FROM_USER="0")
    return env


def run_git(*args: str, git_dir: Path | None = None, work_tree: Path | None = None,
            timeout: float | None = None) -> subprocess.CompletedProcess:
    """`git args…` on the repository at `git_dir` (a bare one), or the work tree at `work_tree`, captured."""
    where = ["--git-dir", str(git_dir)] if git_dir is not None else ["-C", str(work_tree)]
    settings = [word for setting in SETTINGS for word in ("-c", setting)]
    return subprocess.run(["git", *where, *settings, *args], capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=timeout, env=git_environment())
