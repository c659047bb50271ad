"""The series model, built once per build from the posts' front matter and `extra.series`.

A page is a series post when its front matter gives `series: N`; every page in docs/posts/ must. Two posts with one number are a
problem (one would hide the other); a published post takes the place of its number's announcement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pymdownx.slugs import slugify

from codeproof.common.markers import card_face, line_showing
from codeproof.series.config import MAX_NUMBER
from codeproof.series.prose import first_paragraph, reading_minutes
from codeproof.common.structure import FrontMatter, ParsedPost, Problem


NUMERALS = "零一二三四五六七八九"


def chinese_number(n: int) -> str:
    """1 -> 一, 13 -> 十三, 105 -> 一百零五, 2024 -> 二千零二十四 (posts are numbered from 1 to 9999)."""
    if n < 10:
        return NUMERALS[n]
    if n < 20:
        return "十" + (NUMERALS[n % 10] if n % 10 else "")
    text, pending_zero = "", False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // value % 10
        if digit:
            text += ("零" if pending_zero else "") + NUMERALS[digit] + unit
            pending_zero = False
        elif text:
            pending_zero = True
    return text


@dataclass(frozen=True)
class Entry:
    """A numbered place in the series: a published post (with its page) or an announced one (without)."""

    number: int
    title: str | None  # the short title, without the series prefix
    url: str | None = None  # the site URL, e.g. posts/custom-primitive/; None while only announced
    src_uri: str | None = None  # e.g. posts/custom-primitive.md
    post: str | None = None  # the file as messages name it: docs/posts/custom-primitive.md
    date: str = ""
    excerpt: str = ""  # the first paragraph, plain text
    minutes: int = 0  # to read it
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def published(self) -> bool:
        return self.url is not None

    @property
    def name(self) -> str:
        return f"第{chinese_number(self.number)}篇"

    @property
    def label(self) -> str:
        return f"{self.name}：{self.title}" if self.title else self.name


@dataclass(frozen=True)
class SeriesModel:
    """The series as one build sees it, built once from the posts' front matter and `extra.series`:
    it feeds the navigation, the overview, the feed and each post's header."""

    entries: tuple[Entry, ...]  # published and announced, by number; a published post hides its announcement

    @property
    def posts(self) -> tuple[Entry, ...]:
        return tuple(entry for entry in self.entries if entry.published)

    def post_at(self, src_uri: str) -> Entry | None:
        return next((entry for entry in self.posts if entry.src_uri == src_uri), None)

    def neighbours(self, entry: Entry) -> tuple[Entry | None, Entry | None]:
        """The entries just before and after `entry` in series order, published or announced."""
        return _around(self.entries, entry)

    def published_neighbours(self, entry: Entry) -> tuple[Entry | None, Entry | None]:
        """The published posts just before and after `entry`: where 上一篇 and 下一篇 lead."""
        return _around(self.posts, entry)

    def categories(self) -> dict[str, tuple[Entry, ...]]:
        """Each category of the published posts, in the order the series first reaches it, with its posts."""
        found: dict[str, tuple[Entry, ...]] = {}
        for post in self.posts:
            for category in post.categories:
                found[category] = found.get(category, ()) + (post,)
        return found


def _around(entries: tuple[Entry, ...], entry: Entry) -> tuple[Entry | None, Entry | None]:
    index = entries.index(entry)
    return entries[index - 1] if index > 0 else None, entries[index + 1] if index + 1 < len(entries) else None


POSTS = "posts/"  # every page in docs/posts/ is a series post
SCAFFOLD_OPENING = "（开篇一段："  # how the placeholder paragraph of `new` (templates/new_post.md) begins
TITLE_NUMBER = re.compile("（([零一二三四五六七八九十百千]+)）：")  # "Autograd 源码学习（十三）：…"


def read_series(pages: Iterable[tuple[FrontMatter, ParsedPost, str, str]], announced: dict[int, str | None]
                ) -> tuple[SeriesModel, list[Problem], list[str]]:
    """The series model from each page's (front matter, parsed post, src_uri, url), the problems of the front
    matter, and notes for the log (an announcement its published post supersedes)."""
    pages, posts, problems = list(pages), [], []
    for front, parsed, src_uri, url in pages:
        entry, found = (None, []) if front.unreadable else series_entry(front, parsed, src_uri, url)
        posts += [entry] if entry else []
        problems += front.problems + found
    # Every page that names a number counts, whatever else is wrong with it: all its problems are said at once.
    numbered = {parsed.post: (front.meta["series"], front.line_of("series")) for front, parsed, _, _ in pages
                if not front.unreadable and _whole_number(front.meta.get("series"))}
    problems += duplicate_numbers(numbered)
    notes = [f"{post.name} is published ({post.post}): its announcement in extra.series.announced is superseded; "
             "remove it from mkdocs.yml (`./dev.sh new` does)" for post in posts if post.number in announced]
    return series_model(posts, announced), problems, notes


def series_entry(front: FrontMatter, parsed: ParsedPost, src_uri: str, url: str) -> tuple[Entry | None, list[Problem]]:
    """The post a page's front matter (and its Markdown) describes (None for a page outside the series), or why
    it cannot be one."""
    meta = front.meta
    if "series" not in meta:
        if not src_uri.startswith(POSTS):
            return None, []
        return None, [Problem(parsed.post, 1, "front matter: every page in posts/ is a post of the series, and this "
                                              "one has no series number", hint="add its number, e.g. `series: 6` "
                                              "(or move the page out of posts/)")]
    problems = []
    number = meta["series"]
    if not _whole_number(number):
        problems.append(Problem(parsed.post, front.line_of("series"), f"front matter: series {number!r} is not a whole "
                                f"number from 1 to {MAX_NUMBER}", hint="write the post's number in the series, e.g. "
                                                                      "`series: 6`"))
    for key, example in (("title", 'title: "Autograd 源码学习（五）：标题"'), ("date", "date: 2026-09-05")):
        if meta.get(key) in (None, ""):
            problems.append(Problem(parsed.post, 1, f"front matter: a post of the series needs a {key}",
                                    hint=f"add it, e.g. {example}"))
    said = TITLE_NUMBER.search(str(meta.get("title", "")))
    if said and not problems and said.group(1) != chinese_number(number):
        problems.append(Problem(parsed.post, front.line_of("title"), f"front matter: the title says （{said.group(1)}） "
                                f"but the series number is {number} （{chinese_number(number)}）",
                                hint="make the title and `series:` agree"))
    body = "\n".join(parsed.lines)
    excerpt = first_paragraph(body)
    if excerpt.startswith(SCAFFOLD_OPENING):  # a post scaffolded and not written: it would publish the placeholder
        at = next((n for n, line in enumerate(parsed.lines) if line.startswith(SCAFFOLD_OPENING)), 0)
        problems.append(Problem(parsed.post, parsed.first_line + at, "the post still opens with the scaffold's "
                                "placeholder, which would be its description in <meta>, feeds and the overview",
                                hint="write the post's first paragraph in its place"))
    face = card_face(excerpt)
    if face:  # the description of the post's <meta>, feeds and overview entry, which no guard reads
        at = line_showing(face, parsed.lines) or 0
        problems.append(Problem(parsed.post, parsed.first_line + at, f"the first paragraph shows {face!r}, a card's own "
                                "face; it is the post's description in its <meta>, feeds and the overview, where it "
                                "would pass for a verified card", hint="say it in other words, or begin the post with "
                                                                       "another paragraph"))
    if problems:
        return None, problems
    title = str(meta["title"]).split("：", 1)[-1]
    categories, tags = (meta.get(key) if isinstance(meta.get(key), list) else [] for key in ("categories", "tags"))
    return Entry(number, title, url, src_uri, parsed.post, str(meta["date"]), excerpt,
                 reading_minutes(body), tuple(dict.fromkeys(str(c) for c in categories)),
                 tuple(dict.fromkeys(str(t) for t in tags))), []  # (their form is checked in frontmatter)


def category_anchors(model: SeriesModel) -> dict[str, str]:
    """The id of each category's entry on the overview, where a post's header links its categories: its
    slug, made unique (C++ and C would share one), or its place when it has none (!!)."""
    anchors: dict[str, str] = {}
    for n, category in enumerate(model.categories(), 1):
        anchor = "category-" + (slugify(case="lower")(category, "-") or str(n))
        while anchor in anchors.values():
            anchor += "-"
        anchors[category] = anchor
    return anchors


def duplicate_numbers(numbered: dict[str, tuple[int, int]]) -> list[Problem]:
    """Two posts with one number would hide one of them from the overview and the navigation. `numbered`: each
    post's path -> (its number, the line of its `series:`)."""
    by_number: dict[int, list[str]] = {}
    for post, (number, _) in numbered.items():
        by_number.setdefault(number, []).append(post)
    free = [n for n in range(1, MAX_NUMBER + 1) if n not in by_number][:3]
    return [
        Problem(post, numbered[post][1], f"front matter: series {number} is also the number of "
                                         f"{', '.join(other for other in same if other != post)}",
                hint=f"give each post its own number in the series (no post has {', '.join(map(str, free))}, ...)")
        for number, same in by_number.items() if len(same) > 1 for post in same
    ]


def _whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NUMBER


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


def posts_using(model: SeriesModel, parsed: dict[str, ParsedPost], script: str) -> tuple[Entry, ...]:
    """The series posts with a block that quotes or runs `script` (experiments/x.py), in series order."""
    using = {src for src, post in parsed.items()
             if any(b.fields.get("File") == script and b.kind.script for b in post.blocks)}
    return tuple(entry for entry in model.posts if entry.src_uri in using)
