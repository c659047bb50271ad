"""`new`: a post scaffolded from the series (front matter and the sections every post has), and its number's
announcement taken out of mkdocs.yml, so that publishing needs no other edit."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import yaml
from markupsafe import Markup

from .config import MAX_NUMBER, Series
from .filesystem import shown_path, write_atomically
from .frontmatter import front_matter
from .render import TEMPLATES
from .structure import Problem, SeriesModel, chinese_number

SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def new_post(series: Series, config_file: Path, docs: Path, model: SeriesModel, number: int, title: str,
             slug: str | None, today: datetime.date) -> tuple[list[str], list[Problem]]:
    """Write docs/posts/<slug>.md for post `number` and drop its announcement; what was done, or the problems
    that stopped it (then nothing is written)."""
    name = config_file.name
    if not 1 <= number <= MAX_NUMBER:
        return [], [Problem(name, 1, f"new: {number} is not a series number from 1 to {MAX_NUMBER}")]
    if not title.strip() or not title.isprintable():
        return [], [Problem(name, 1, f"new: the title {title!r} is not one line of text", hint='e.g. "Broadcasting 的反向传播"')]
    published = next((entry for entry in model.posts if entry.number == number), None)
    if published:
        return [], [Problem(published.post, 1, f"new: {published.name} is published already",
                            hint="choose a number no post has; the overview lists them")]
    other = next((entry for entry in model.entries if entry.title == title and entry.number != number), None)
    if other:  # the same title under two numbers: the overview and the series bars would show both
        return [], [Problem(name, 1, f"new: {other.name} is {'published' if other.published else 'announced'} with "
                                     f"the title {title!r}", hint=f"publish it as `new {other.number}`, or give "
                                                                  "this post its own title")]
    slug = slug or _slug_of(title) or f"post-{number:02d}"
    if not SLUG_RE.match(slug):
        return [], [Problem(name, 1, f"new: the slug {slug!r} is not lowercase words joined by -",
                            hint="e.g. --slug broadcasting-vjp")]
    path = docs / "posts" / f"{slug}.md"
    shown = shown_path(path, series.root)
    if path.exists():
        return [], [Problem(shown, 1, "new: the file exists already", hint="choose another slug with --slug")]
    full_title = f"{series.name}（{chinese_number(number)}）：{title}"
    latest = model.posts[-1] if model.posts else None  # its categories are the likeliest
    text = TEMPLATES.get_template("new_post.md").render(
        title=Markup(json.dumps(full_title, ensure_ascii=False)), number=number, date=today.isoformat(),
        categories=Markup(json.dumps(list(latest.categories if latest and latest.categories else [series.name]),
                                     ensure_ascii=False)),
        ) + "\n"  # a JSON string (or list) is YAML
    problems = front_matter(text, shown).problems  # the title as the build will read it
    if problems:
        return [], problems
    done = [f"wrote {shown}: {full_title}"]
    mkdocs_yml = config_file.read_text(encoding="utf-8")
    without, line = without_announcement(mkdocs_yml, number)
    write_atomically(path, text.encode("utf-8"))
    if line:
        write_atomically(config_file, without.encode("utf-8"))
        done.append(f"removed the announcement of 第{chinese_number(number)}篇 from {name} (line {line})")
    return done, []


def without_announcement(mkdocs_yml: str, number: int) -> tuple[str, int | None]:
    """mkdocs.yml's text without the `extra.series.announced` item of `number` (its own lines only, so every
    comment and every other setting stays as written), and the line it was on; (text, None) if none."""
    series = _node_at(yaml.compose(mkdocs_yml, Loader=yaml.SafeLoader), ("extra", "series"))
    key, announced = next(((k, v) for k, v in getattr(series, "value", []) if k.value == "announced"), (None, None))
    if not isinstance(announced, yaml.SequenceNode) or announced.flow_style:  # [..] on one line: left to the author
        return mkdocs_yml, None
    for item in announced.value:
        value = _node_at(item, ("number",))
        if isinstance(value, yaml.ScalarNode) and value.value == str(number):
            lines = mkdocs_yml.split("\n")
            first, last = item.start_mark.line, item.end_mark.line  # a block item ends where the next token starts
            if len(announced.value) == 1:  # the list is empty now: the key's line says so
                lines[key.start_mark.line] = lines[key.start_mark.line].rstrip() + " []"
            return "\n".join(lines[:first] + lines[last:]), first + 1
    return mkdocs_yml, None


def _node_at(node, path: tuple):
    for key in path:
        if not isinstance(node, yaml.MappingNode):
            return None
        node = next((value for k, value in node.value if k.value == key), None)
    return node


def _slug_of(title: str) -> str:
    """The ASCII words of a title, lowercase, joined by -: `Broadcasting 的反向传播` -> `broadcasting`."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))
