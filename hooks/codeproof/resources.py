"""The resources readers download: each experiment script, and one reproducible archive.

The archive holds experiments/, a requirements.txt pinning what they need, and a
README. Its bytes depend only on its inputs: sorted entries, fixed timestamps.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

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
class Archive:
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        return len(self.data)


def experiment_scripts(root: Path) -> list[Path]:
    return sorted(p for p in (root / "experiments").rglob("*.py") if "__pycache__" not in p.parts)


def experiment_requirements(root: Path) -> str:
    """The pins of requirements.txt for the packages experiments import: one source of versions."""
    pins = [
        line.strip()
        for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if re.split(r"[=<>!~ ]", line.strip(), maxsplit=1)[0].lower() in EXPERIMENT_PACKAGES
    ]
    return "\n".join(sorted(pins)) + "\n"


def build_archive(root: Path, series_name: str) -> Archive:
    entries = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "experiments").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
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


def script_page_src(script: str) -> str:
    """Where the page publishing a script sits among the docs: experiments/x.py -> experiments/x.md."""
    return script[: -len(".py")] + ".md"


def script_page_url(script: str) -> str:
    """Its site URL (directory URLs): experiments/x.py -> experiments/x/."""
    return script[: -len(".py")] + "/"


def script_page(script: str, text: str) -> str:
    """Markdown of the page that shows one script whole, with its line numbers and a download link."""
    name = Path(script).name
    return (
        f"---\ntitle: {name}\n---\n\n# {name}\n\n"
        f"[下载 {name}]({name}){{: download='{name}' }} · 在资源目录中运行：`python -B {script}`\n\n"
        f'````python linenums="1"\n{text.rstrip(chr(10))}\n````\n'
    )


def archive_summary(archive: Archive, link: str) -> str:
    return (
        f"[下载实验资源目录（experiments.zip）]({link})：{archive.size:,} 字节，"
        f"SHA-256 `{archive.sha256}`。"
    )
