"""The resources readers download: each experiment script, and one reproducible archive.

Everything published of experiments/ comes from read_resources, which reads the folder once: the
script pages, the scripts themselves, the archive, and the copy each experiment runs in. Only
regular files inside the repository are published. A symbolic link (to a file or a folder), a hard
link, a FIFO or device, a file name that is not printable UTF-8, and a script that is not UTF-8
are problems (the build fails), and such a file is neither read further, run, shown nor archived.

A file name reaches its script page's title, heading, download link and command: as values of the
page (its meta and the theme template's context), which the template escapes, never as Markdown. So
any printable name is published safely, and others are refused.

The archive holds experiments/, a requirements.txt pinning what they need, and a README. Its bytes
depend only on its inputs: sorted entries, fixed timestamps.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from codeproof.common.markers import BIDI_RE, passes_for_a_card
from codeproof.common.filesystem import FILE_HINT, shown_path, unpublishable
from codeproof.common.structure import Problem

EXPERIMENTS = "experiments"
ARCHIVE_URL = "downloads/experiments.zip"
EXPERIMENT_PACKAGES = ("autograd", "numpy")
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
README = """\
# {name}: 实验资源目录

解压后在本目录（资源目录）中运行：

    python -m venv .venv && . .venv/bin/activate
    pip install -r requirements.txt
    python -B experiments/<name>.py

每个实验打印的输出与文章中记录的一致；检查失败时以非零状态退出。
"""


@dataclass(frozen=True)
class Resource:
    """One published file: its path from the repository root (POSIX, under experiments/) and its bytes."""

    path: str
    data: bytes

    @property
    def is_script(self) -> bool:
        return self.path.endswith(".py")


@dataclass(frozen=True)
class Archive:
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        return len(self.data)


def read_resources(root: Path) -> tuple[list[Resource], list[Problem]]:
    """Every publishable file under experiments/, read once, in path order; and a problem for each other file."""
    found: list[Resource] = []
    problems: list[Problem] = []
    top = root / EXPERIMENTS
    refused = unpublishable(top, top.lstat()) if os.path.lexists(top) else None
    if refused:
        problems.append(Problem(EXPERIMENTS, 1, refused[0], hint=refused[1]))
    elif top.is_dir():
        _read_folder(root, EXPERIMENTS, found, problems)
    return found, problems


def _read_folder(root: Path, folder: str, found: list[Resource], problems: list[Problem]) -> None:
    try:
        entries = sorted(os.scandir(root / folder), key=lambda e: e.name)
    except OSError as error:
        problems.append(Problem(folder, 1, f"cannot be read: {error.strerror}", hint="make it readable, or delete it"))
        return
    for entry in entries:
        path = f"{folder}/{entry.name}"
        if entry.name == "__pycache__":
            continue
        refused = unpublishable(Path(entry.path), entry.stat(follow_symlinks=False))
        if refused:
            problems.append(Problem(shown_path(path), 1, refused[0], hint=refused[1]))
        elif entry.name.startswith("."):
            problems.append(Problem(path, 1, "the name is hidden (it starts with '.'), and MkDocs publishes no hidden "
                                             "file, so its link and page would be missing",
                                    hint="rename it, or delete it"))
        elif entry.name.endswith(".py") and entry.name[:-3].lower() in ("index", "readme"):
            problems.append(Problem(path, 1, f"its page would be the page of the folder {folder}/ (MkDocs makes "
                                             "index.md and README.md a folder's page), not a page of its own",
                                    hint="rename it"))
        elif shown := passes_for_a_card([path]):  # the path heads its published page, title, description, download
            # and a citation's tooltip: read whole (`✓ 输出/已验证 …`, a face split over folders, reads as one)
            problems.append(Problem(path, 1, f"the path shows {shown[1]}, so its page would claim what nothing "
                                             "proved", hint="rename it"))
        elif entry.is_dir(follow_symlinks=False):
            _read_folder(root, path, found, problems)
        else:
            resource, problem = _read_file(Path(entry.path), path)
            found += [resource] if resource else []
            problems += [problem] if problem else []


def _read_file(file: Path, path: str) -> tuple[Resource | None, Problem | None]:
    try:
        # O_NOFOLLOW: a link put in its place since the listing is refused too; O_NONBLOCK: a FIFO does not hang.
        with open(os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as handle:
            refused = unpublishable(file, os.fstat(handle.fileno()))  # what was opened, not what was listed
            if refused:
                return None, Problem(path, 1, refused[0], hint=refused[1])
            data = handle.read()
    except OSError as error:
        return None, Problem(path, 1, f"cannot be read: {error.strerror}", hint=FILE_HINT)
    if path.endswith(".py"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            return None, Problem(path, line, f"the script is not UTF-8 (byte 0x{data[error.start]:02x} on line "
                                             f"{line})", hint="save it as UTF-8")
        found = BIDI_RE.search(text)
        if found:  # published on its page and in cards, it would read as other code than runs ("Trojan Source")
            line = text.count("\n", 0, found.start()) + 1
            return None, Problem(path, line, f"the script holds U+{ord(found.group()):04X} on line {line}, a "
                                             "bidirectional control that makes code read other than it runs",
                                 hint="delete it; write such a character as an escape (\\u202e) in a string")
        shown = passes_for_a_card(text.split("\n"))
        if shown:  # its page shows it outside any card, where it would pass for a verified one
            return None, Problem(path, shown[0] + 1, f"the script shows {shown[1]} on line {shown[0] + 1}, and its "
                                                     "page shows the script outside any card, where that would pass "
                                                     "for a verified card",
                                 hint="write it otherwise: in a string, as escapes (\\u8f93 for 输)")
    return Resource(path, data), None


def experiment_scripts(root: Path) -> list[Path]:
    """The publishable scripts (for the benchmarks); the build itself uses read_resources."""
    return [root / r.path for r in read_resources(root)[0] if r.is_script]


def experiment_requirements(root: Path) -> str:
    """The pins of requirements.txt for the packages experiments import: one source of versions."""
    pins = [
        line.strip()
        for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if re.split(r"[=<>!~ ]", line.strip(), maxsplit=1)[0].lower() in EXPERIMENT_PACKAGES
    ]
    return "\n".join(sorted(pins)) + "\n"


def build_archive(root: Path, series_name: str, files: list[Resource]) -> Archive:
    """The archive of `files` (from read_resources), with the requirements and a README."""
    entries = {r.path: r.data for r in files}
    entries["requirements.txt"] = experiment_requirements(root).encode()
    entries["README.md"] = README.format(name=series_name).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, entries[name], compresslevel=9)
    return Archive(buffer.getvalue())
