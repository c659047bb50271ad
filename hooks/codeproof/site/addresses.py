"""Where the build publishes what it adds, as paths under docs/ (`*_src`, MkDocs' src_uri) and site URLs
(`*_url`, directory URLs): a page per experiment script beside its bytes, a page per file of the quoted package
under source/ with its bytes under source/raw/, and the package map; and what a script's page shows in
Markdown. One scheme, so every link to a generated page is made the same way."""

from __future__ import annotations

import re
import shlex

from codeproof.experiments.resources import ARCHIVE_URL

SOURCE_ROOT = "source"  # source/autograd/core.py/ is the page of upstream's autograd/core.py at the pin


def source_page_src(path: str) -> str:
    return f"{SOURCE_ROOT}/{path}.md"


def source_page_url(path: str) -> str:
    return f"{SOURCE_ROOT}/{path}/"


# Upstream files are data: published under names a browser shows as text or saves, never renders (.html, .svg,
# .xhtml...) and MkDocs never makes a page of (.md). Any other file name gets .txt added.
PLAIN_SUFFIXES = (".py", ".txt", ".cfg", ".toml", ".ini", ".in", ".json", ".yml", ".yaml")


def source_raw_src(path: str) -> str:
    """Where an upstream file's bytes are published, to download (a page's folder cannot share its name)."""
    return f"{SOURCE_ROOT}/raw/{path}" + ("" if path.lower().endswith(PLAIN_SUFFIXES) else ".txt")


SOURCE_MAP_SRC = f"{SOURCE_ROOT}/index.md"
DOWNLOADS = ARCHIVE_URL.rsplit("/", 1)[0]  # beside the experiments' archive


def matrix_lock_url(lock_name: str) -> str:
    """Where a matrix environment's lock is published, for readers to install from: a name a browser shows as
    text whatever the lock is called (x.html would be rendered), and no folder."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", lock_name).lstrip(".") or "lock"
    return f"{DOWNLOADS}/{name}" + ("" if name.endswith(".txt") else ".txt")


def script_page_src(script: str) -> str:
    """Where the page publishing a script sits among the docs: experiments/x.py -> experiments/x.md."""
    return script[: -len(".py")] + ".md"


def script_page_url(script: str) -> str:
    """Its site URL (directory URLs): experiments/x.py -> experiments/x/."""
    return script[: -len(".py")] + "/"


def script_command(script: str) -> str:
    """The command that runs a script in the readers' resource directory, shell-quoted."""
    return f"python -B {shlex.quote(script)}"
