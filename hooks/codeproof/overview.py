"""Text of the overview page that comes from configuration, so each fact is written once."""

from __future__ import annotations

import html
import re

from . import resources
from .config import Series
from .markers import MARKER, skeleton
from .structure import SeriesModel


def baseline(series: Series) -> str:
    b = series.baseline
    return (
        f"全系列固定在 {b.repo} **{b.version}** 发布版，commit "
        f"[`{b.commit}`](https://github.com/{b.repo}/tree/{b.commit})。"
        f"这个 commit 的文件与 PyPI 上的 `{b.sdist}` 发布包逐字节一致，因此没有 GitHub 访问时也能取得并核对。"
    )


def cell(text: str) -> str:
    """Text as the content of a Markdown table cell or link text: HTML-escaped, and with `|`, `[`, `]`
    written as character references so they neither split the row nor end the link."""
    return html.escape(text).replace("|", "&#124;").replace("[", "&#91;").replace("]", "&#93;")


def posts_table(model: SeriesModel) -> str:
    rows = [f"| {entry.name} | [{cell(entry.title)}]({entry.src_uri}) | 已发布 · {cell(entry.date)} |" if entry.published
            else f"| {entry.name} | {cell(entry.title or '—')} | 已预告 |" for entry in model.entries]
    return "| 序号 | 文章 | 状态 |\n| --- | --- | --- |\n" + "\n".join(rows)


def environment_table(requirements: str) -> str:
    rows = [f"| {pin.split('==')[0]} | {pin.split('==')[1]} |" for pin in requirements.split()]
    return "| 软件 | 版本 |\n| --- | --- |\n| Python | 3.10 或更新 |\n" + "\n".join(rows)


def first_paragraph(markdown: str) -> str:
    """The first prose paragraph as plain text: a page's description for search engines and feeds. Feeds
    publish it as HTML, unchecked, so it holds no markup characters and no block marker."""
    for paragraph in re.split(r"\n\s*\n", markdown):
        text = paragraph.strip("\n")
        if text.strip() and not text.startswith((" ", "\t", "#", "<", "[", "|", "`", "~", "-", ">", "!")):
            text = re.sub(r"`([^`]*)`", r"\1", text)
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            text = " ".join(re.sub(r"[<>&]", "", text).split())
            return "" if re.search(MARKER, skeleton(text), re.I) else text
    return ""


def fill(markdown: str, series: Series, model: SeriesModel, archive: resources.Archive) -> str:
    """The overview's facts come from configuration and the build: replace its markers with them.
    The overview is docs/index.md, so a file's src path is already a link from it that MkDocs validates."""
    filled = {
        "<!-- series-baseline -->": baseline(series),
        "<!-- experiment-environment -->": environment_table(resources.experiment_requirements(series.root)),
        "<!-- experiment-archive -->": resources.archive_summary(archive, resources.ARCHIVE_URL),
        "<!-- series-posts -->": posts_table(model),
    }
    for marker, text in filled.items():
        markdown = markdown.replace(marker, text)
    return markdown
