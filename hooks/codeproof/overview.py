"""Text of the overview page that comes from configuration, so each fact is written once."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from . import resources
from .config import Series
from .markers import MARKER, skeleton
from .problems import Problem
from .series_nav import chinese_number


@dataclass(frozen=True)
class PostInfo:
    number: int
    title: str  # the short title, without the series prefix
    date: str
    src_uri: str  # e.g. posts/custom-primitive.md
    url: str  # e.g. posts/custom-primitive/
    post: str  # the file, as messages name it: docs/posts/custom-primitive.md


def post_info(meta: dict, src_uri: str, url: str, post: str) -> tuple[PostInfo | None, Problem | None]:
    """The post a page's front matter describes (None for a page outside the series), or why it cannot be one."""
    if "series" not in meta:
        return None, None
    number = meta["series"]
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return None, Problem(post, 1, f"front matter: series {number!r} is not a positive whole number",
                             hint="write the post's number in the series, e.g. `series: 6`")
    title = str(meta.get("title", "")).split("：", 1)[-1]
    return PostInfo(number, title, str(meta.get("date", "")), src_uri, url, post), None


def duplicate_numbers(posts: list[PostInfo]) -> list[Problem]:
    """Two posts with one number would hide one of them from the overview and the navigation."""
    by_number: dict[int, list[PostInfo]] = {}
    for post in posts:
        by_number.setdefault(post.number, []).append(post)
    return [
        Problem(post.post, 1, f"front matter: series {post.number} is also the number of "
                              f"{', '.join(other.post for other in same if other is not post)}",
                hint="give each post its own number in the series")
        for same in by_number.values() if len(same) > 1 for post in same
    ]


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


def posts_table(series: Series, posts: list[PostInfo]) -> str:
    rows = {n: f"| 第{chinese_number(n)}篇 | {cell(title or '—')} | 已预告 |" for n, title in series.announced.items()}
    for post in posts:
        rows[post.number] = f"| 第{chinese_number(post.number)}篇 | [{cell(post.title)}]({post.src_uri}) | 已发布 · {cell(post.date)} |"
    return "| 序号 | 文章 | 状态 |\n| --- | --- | --- |\n" + "\n".join(rows[n] for n in sorted(rows))


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


def fill(markdown: str, series: Series, posts: list[PostInfo], archive: resources.Archive) -> str:
    """The overview's facts come from configuration and the build: replace its markers with them.
    The overview is docs/index.md, so a file's src path is already a link from it that MkDocs validates."""
    filled = {
        "<!-- series-baseline -->": baseline(series),
        "<!-- experiment-environment -->": environment_table(resources.experiment_requirements(series.root)),
        "<!-- experiment-archive -->": resources.archive_summary(archive, resources.ARCHIVE_URL),
        "<!-- series-posts -->": posts_table(series, posts),
    }
    for marker, text in filled.items():
        markdown = markdown.replace(marker, text)
    return markdown
