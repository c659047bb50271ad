"""`new`: a post scaffolded from the series (front matter and the sections every post has), and its number's
announcement taken out of mkdocs.yml, so that publishing needs no other edit."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

from markupsafe import Markup

from codeproof.series.config import MAX_NUMBER, Series
from codeproof.common.filesystem import shown_path, write_together
from codeproof.series.frontmatter import front_matter
from codeproof.common.templates import TEMPLATES
from codeproof.common.structure import Problem
from codeproof.series.model import SeriesModel, chinese_number
from codeproof.common.yamledit import without_item

SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
MAX_TITLE, MAX_SLUG = 120, 60  # characters: a title fits a heading; a slug a file name and an address


def new_post(series: Series, config_file: Path, docs: Path, model: SeriesModel, number: int, title: str,
             slug: str | None, today: datetime.date) -> tuple[list[str], list[Problem]]:
    """Write docs/posts/<slug>.md for post `number` and drop its announcement; what was done, or the problems
    that stopped it (then nothing is written)."""
    name = config_file.name
    if not 1 <= number <= MAX_NUMBER:
        return [], [Problem(name, 1, f"new: {number} is not a series number from 1 to {MAX_NUMBER}")]
    if not title.strip() or not title.isprintable() or len(title) > MAX_TITLE:
        return [], [Problem(name, 1, f"new: the title {title[:80]!r} is not one line of text of at most {MAX_TITLE} "
                                     "characters", hint='e.g. "Broadcasting 的反向传播"')]
    published = next((entry for entry in model.posts if entry.number == number), None)
    if published:
        return [], [Problem(published.post, 1, f"new: {published.name} is published already",
                            hint="choose a number no post has; the overview lists them")]
    other = next((entry for entry in model.entries if entry.title == title and entry.number != number), None)
    if other:  # the same title under two numbers: the overview and the series bars would show both
        hint = "give this post its own title" if other.published else \
            f"publish it as `new {other.number}`, or give this post its own title"
        line = 1 if other.published else next((n for n, text in enumerate(
            config_file.read_text(encoding="utf-8").split("\n"), 1) if title in text), 1)  # the announcement's title
        return [], [Problem(other.post or name, line, f"new: {other.name} is {'published' if other.published else 'announced'}"
                                                      f" with the title {title!r}", hint=hint)]
    slug = slug or _slug_of(title) or f"post-{number:02d}"
    if not SLUG_RE.match(slug) or len(slug) > MAX_SLUG:
        return [], [Problem(name, 1, f"new: the slug {slug!r} is not lowercase words joined by -",
                            hint="e.g. --slug broadcasting-vjp")]
    path = docs / "posts" / f"{slug}.md"
    shown = shown_path(path, series.root)
    if path.exists():
        return [], [Problem(shown, 1, "new: the file exists already", hint="choose another slug with --slug")]
    full_title = f"{series.name}（{chinese_number(number)}）：{title}"
    latest = model.posts[-1] if model.posts else None  # its categories and tags are the likeliest
    text = TEMPLATES.get_template("new_post.md").render(
        title=Markup(json.dumps(full_title, ensure_ascii=False)), number=number, date=today.isoformat(),
        categories=Markup(json.dumps(list(latest.categories if latest and latest.categories else [series.name]),
                                     ensure_ascii=False)),
        tags=Markup(json.dumps(list(latest.tags if latest and latest.tags else ["autograd"]), ensure_ascii=False)),
        ) + "\n"  # a JSON string (or list) is YAML
    problems = front_matter(text, shown).problems  # the title as the build will read it
    if problems:
        return [], problems
    done = [f"wrote {shown}: {full_title}"]
    mkdocs_yml = config_file.read_bytes().decode("utf-8")  # edited as it is: each line keeps its own break
    without, line = without_item(mkdocs_yml, ("extra", "series", "announced"), "number", str(number))
    changes = {path: text.encode("utf-8")}
    if line:
        changes[config_file] = without.encode("utf-8")
        done.append(f"removed the announcement of 第{chinese_number(number)}篇 from {name} (line {line})")
    write_together(series.root, changes)  # the post and its announcement's removal: both or neither
    done.append("next: write it (its scripts under experiments/), then ./dev.sh lock and ./dev.sh check; the tests "
                "derive what a reader's search must find of it")
    return done, []


def _slug_of(title: str) -> str:
    """The ASCII words of a title, lowercase, joined by -: `Broadcasting 的反向传播` -> `broadcasting`."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:MAX_SLUG].strip("-")
