"""Where the engine keeps its state between runs: in the user's cache folder, never in the repository.

A repository can hold any path, the paths a tool keeps its state in included; a file committed there would be
read as the tool's own (a git mirror's config, a journal of files to overwrite). So the state of a repository
lives in `$XDG_CACHE_HOME/codeproof/repositories/<key>/` (else `~/.cache/codeproof/…`), keyed by the
repository's real path; `./dev.sh` computes the same key for its own records (a test holds the two together).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from codeproof.common.gitrun import run_git


def user_cache() -> Path:
    """The engine's folder in the user's cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "codeproof"


def repository_key(root: Path) -> str:
    """The key of a repository's state: the SHA-256 of its real path, as `printf %s "$(pwd -P)" | sha256sum`."""
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:32]


def repository_cache(root: Path) -> Path:
    """The folder of the state the engine keeps for the repository at `root` (fetched files, runs, indexes)."""
    return user_cache() / "repositories" / repository_key(root)


def output_folder_problem(folder: Path, root: Path) -> tuple[str, str] | None:
    """Why a folder a tool empties and fills (the built site) cannot be used, and what to do; None when it can.
    A build empties its folder first: were it a link, a committed one, what it leads to would be emptied; were
    files in it tracked, the build would delete them and publish what the repository put there meanwhile."""
    if os.path.islink(folder):
        return (f"{folder} is a link (to {os.readlink(folder)}): a build empties its folder, wherever the link leads",
                f"delete the link (rm {folder}): the build makes the folder itself")
    tracked = run_git("ls-files", "-z", "--", str(folder), work_tree=root)
    said = tracked.stderr.decode(errors="replace").strip()
    if tracked.returncode != 0 and "not a git repository" not in said and "outside repository" not in said:
        return (f"cannot ask git whether it tracks files in {folder}: {said[:300]}",
                "build in the repository's work tree, where git can be asked")
    if tracked.returncode == 0 and tracked.stdout:
        first = tracked.stdout.split(b"\0")[0].decode(errors="replace")
        return (f"{folder} holds files that git tracks ({first}, …): a build empties its folder",
                f"git rm -r --cached {folder}, then build again")
    return None
