"""The series model, built once per build from the posts' front matter and `extra.series`.

A page is a series post when its front matter gives `series: N`. Two posts with one number are a
problem (one would hide the other); a published post takes the place of its number's announcement.
"""

from __future__ import annotations

from pymdownx.slugs import slugify

from .config import MAX_NUMBER
from .prose import first_paragraph, reading_minutes
from .structure import Entry, Problem, SeriesModel


def series_entry(meta: dict, src_uri: str, url: str, post: str, body: str = "") -> tuple[Entry | None, Problem | None]:
    """The post a page's front matter (and its Markdown `body`) describes (None for a page outside the series),
    or why it cannot be one."""
    if "series" not in meta:
        return None, None
    number = meta["series"]
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_NUMBER:
        return None, Problem(post, 1, f"front matter: series {number!r} is not a whole number from 1 to {MAX_NUMBER}",
                             hint="write the post's number in the series, e.g. `series: 6`")
    title = str(meta.get("title", "")).split("：", 1)[-1]
    categories = meta.get("categories") if isinstance(meta.get("categories"), list) else []  # checked in frontmatter
    return Entry(number, title, url, src_uri, post, str(meta.get("date", "")), first_paragraph(body),
                 reading_minutes(body), tuple(dict.fromkeys(str(c) for c in categories))), None


def category_anchor(category: str) -> str:
    """The id of a category's entry on the overview, where a post's header links its categories."""
    return "category-" + slugify(case="lower")(category, "-")


def duplicate_numbers(posts: list[Entry]) -> list[Problem]:
    """Two posts with one number would hide one of them from the overview and the navigation."""
    by_number: dict[int, list[Entry]] = {}
    for post in posts:
        by_number.setdefault(post.number, []).append(post)
    return [
        Problem(post.post, 1, f"front matter: series {post.number} is also the number of "
                              f"{', '.join(other.post for other in same if other is not post)}",
                hint="give each post its own number in the series")
        for same in by_number.values() if len(same) > 1 for post in same
    ]


def series_model(posts: list[Entry], announced: dict[int, str | None]) -> SeriesModel:
    """Published posts and announced numbers in series order (the first post of a number, if two share it)."""
    entries = {number: Entry(number, title) for number, title in announced.items()}
    for post in reversed(posts):
        entries[post.number] = post
    return SeriesModel(tuple(entries[number] for number in sorted(entries)))


def series_bar(model: SeriesModel, entry: Entry) -> dict[str, Entry | None]:
    """What a post's 上一篇 | 系列总览 | 下一篇 shows: the published posts around it (linked, as the footer's
    上一页/下一页), and a number announced right beside it (named, not linked)."""
    before, after = model.neighbours(entry)
    previous, following = model.published_neighbours(entry)
    return {"previous": previous, "next": following,
            "before": None if before is None or before.published else before,
            "after": None if after is None or after.published else after}
