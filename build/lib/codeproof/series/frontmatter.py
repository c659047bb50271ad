"""A page's front matter: read as MkDocs reads it, and checked where it reaches HTML unescaped."""

from __future__ import annotations

import datetime
import re
import unicodedata

import yaml

from codeproof.common.markers import MARKUP_CHARACTERS, card_face, names_marker
from codeproof.common.schema import Finding, Invalid, ListOf, Section, Value, validate
from codeproof.common.structure import FrontMatter, Problem

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where PyYAML was built with it

FRONT_MATTER_RE = re.compile(r"\A-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*\n", re.S)

HIDEABLE = ("navigation", "toc", "footer", "tags", "feedback", "path")


def _unknown_key(key: str, value: object, close: str | None, names: list[str]) -> Invalid:
    """The theme prints keys it knows beyond these (author, subtitle, status, template, icon...) into every page as
    they are, or changes how a page is made: refused, and dropped from the build."""
    return Invalid(f"{key!r} is not a key this site uses: the theme would publish it unchecked",
                   (f"did you mean {close}? Else remove it" if close else "remove it")
                   + f"; the keys are {', '.join(names)} (case-sensitive)")


def _text(key: str):
    def test(value) -> bool:
        if not isinstance(value, str):
            raise Invalid(f"{key} must be text, not {type(value).__name__} {value!r}"[:200], f'write it in quotes, e.g. {key}: "…"')
        return _word(key)(value)
    return test


def _word(key: str):
    """Text the navigation, tags, <meta> and feeds publish, where no guard reads it: one line, no markup, no marker,
    no card's face."""
    def test(value) -> bool:
        if not isinstance(value, str):
            raise Invalid(f"{key} must be a list of words: {value!r} is not a word", f"e.g. {key}: [a, b]")
        if any(unicodedata.category(ch)[0] == "C" for ch in value):  # a line break would start new Markdown
            raise Invalid(f"{key} {value!r} holds a line break or another control character", "write it on one line")
        if set(value) & MARKUP_CHARACTERS:
            raise Invalid(f"{key} {value!r} holds {''.join(sorted(set(value) & MARKUP_CHARACTERS))}, which the "
                          "navigation, tags and feed would publish as markup", "write it without <, > and & (use 与 or "
                                                                               "“and” for &)")
        if names_marker(value):
            raise Invalid(f"{key} {value!r} names a block marker, which would be published outside a verified card",
                          "write it without the brackets")
        if card_face(value):
            raise Invalid(f"{key} {value!r} shows {card_face(value)!r}, a card's own face, which would be published "
                          "outside a verified card", "say it in other words")
        return True
    return test


def _words(key: str) -> ListOf:
    return ListOf(Value(object, "a word", _word(key)),
                  lambda value: Invalid(f"{key} must be a list of words, not {value!r}", f"e.g. {key}: [a, b]"))


def _hideable(value) -> bool:
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise Invalid(f"hide must be a list of words, not {value!r}", "e.g. hide: [a, b]")
    if set(value) - set(HIDEABLE):
        raise Invalid(f"hide {sorted(set(value) - set(HIDEABLE))} is not what the theme hides",
                      f"hide takes {', '.join(HIDEABLE)}")
    return True


def _date(value) -> bool:
    if not _is_date(value):
        raise Invalid(f"date {value!r} is not a date", "write it as 2026-09-05")
    return True


# The keys a page may set, and what each may hold.
FRONT_MATTER = Section({
    "title": Value(object, "text", _text("title"), default=None, null=False),
    "description": Value(object, "text", _text("description"), default=None, null=False),
    "series": Value(object, "the post's number", default=None),  # the series model checks it, with the others'
    "date": Value(object, "a date", _date, default=None, null=False),
    "categories": _words("categories"),
    "tags": _words("tags"),
    "hide": Value(object, "a list of words", _hideable, default=None, null=False),
    # What a reader's search must find of the post beyond what the tests derive from it (its title, its headings, a
    # phrase only it holds): read by the tests alone, never published.
    "search_expects": Section({
        "lists": _words("search_expects.lists"),  # queries whose results list the post
        "first": _words("search_expects.first"),  # queries whose first result is the post, if no post holds them
    }, unknown=lambda key, value, close, names: Invalid(
        f"search_expects takes {' and '.join(names)}, not {key!r}", f"did you mean {close}?" if close else None)),
}, unknown=_unknown_key)
KEYS = tuple(FRONT_MATTER.settings)


def front_matter_problems(front: FrontMatter, post: str) -> list[Problem]:
    """A problem for each key the site does not use and each value it cannot publish safely."""
    found: list[Finding] = []
    validate(FRONT_MATTER, front.meta, (), found)
    problems = [Problem(post, front.line_of(path[0]), f"front matter: {message}", hint=hint) for path, message, hint in found]
    for key in ("categories", "tags"):  # each word passed alone; the post's header shows them side by side
        words = front.meta.get(key) if isinstance(front.meta, dict) else None
        if not found and isinstance(words, list) and len(words) > 1:
            together = " ".join(map(str, words))
            shown = card_face(together) or (names_marker(together) and "a block marker")
            if shown:
                problems.append(Problem(post, front.line_of(key), f"front matter: {key} {words!r} read together show "
                                        f"{shown!r}, a card's own face or marker: the post's header shows them side by "
                                        "side, outside a verified card", hint="say them in other words"))
    return problems


def _shared_node(root):
    """A node the front matter reaches twice (through an alias), or None."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return node
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return None


def _days_that_do_not_exist(root) -> list[tuple[int, str, str, str]]:
    """(line, key, text, why) of each value YAML reads as a date (its timestamp form) that no calendar holds."""
    found = []
    for key, value in root.value:
        if isinstance(value, yaml.ScalarNode) and value.tag == "tag:yaml.org,2002:timestamp":
            try:
                datetime.date(*map(int, value.value[:10].split("-")))
            except ValueError as error:
                found.append((2 + value.start_mark.line, str(key.value), value.value, str(error)))
    return found


def _is_date(value) -> bool:
    if isinstance(value, datetime.date):
        return True
    try:
        datetime.date.fromisoformat(str(value))
        return True
    except ValueError:
        return False


def split_front_matter(raw: str) -> tuple[int, str]:
    """Return (file line number of the body's first line, body), the body being what MkDocs passes on:
    the text after the front matter and the blank lines that follow it."""
    match = FRONT_MATTER_RE.match(raw)
    if not match:
        return 1, raw
    body = raw[match.end() :].lstrip("\n")
    return raw[: len(raw) - len(body)].count("\n") + 1, body


def front_matter(raw: str, post: str) -> FrontMatter:
    """The front matter as MkDocs reads it, the file line of each key, and why it cannot be read. (MkDocs
    drops front matter it cannot read without a word, and publishes it as text.)"""
    match = FRONT_MATTER_RE.match(raw)
    if not match:
        return FrontMatter()
    text = match.group(0)[match.group(0).index("\n") + 1 :]  # after the opening ---, so YAML's line 0 is file line 2
    text = text[: text.rstrip("\n").rfind("\n") + 1]  # before the closing --- or ...
    try:
        node = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.MarkedYAMLError as error:
        line = 2 + (error.problem_mark or error.context_mark).line
        return FrontMatter(problems=[Problem(post, line, f"front matter is not YAML: {error.problem}",
                                            hint="write each setting as `key: value`; quote values with : or # in them")])
    except yaml.YAMLError as error:  # e.g. a control character, which the reader refuses
        return FrontMatter(problems=[Problem(post, 1, f"front matter is not YAML: {error}",
                                             hint="write each setting as `key: value`, in plain text")])
    if not isinstance(node, yaml.MappingNode):
        return FrontMatter(problems=[Problem(post, 2, "front matter is not a list of `key: value` settings",
                                             hint='e.g. title: "Autograd 源码学习（五）：标题"')])
    lines = {key.value: 2 + key.start_mark.line for key, _ in node.value if isinstance(key, yaml.ScalarNode)}
    shared = _shared_node(node)
    if shared is not None:  # an alias: of no use here, and a few nested ones expand to more than memory holds
        return FrontMatter(problems=[Problem(post, 2 + shared.start_mark.line, "front matter repeats a value with a "
                                             "YAML alias (*name)", hint="write the value out where it is used")])
    missing = _days_that_do_not_exist(node)
    if missing:  # YAML reads 2026-02-30 as a date, and fails
        return FrontMatter(problems=[Problem(post, line, f"front matter: {key} {value} is written as a date, but the "
                                             f"calendar has no such day ({why})", hint=f"write a day {value[:7]} has")
                                     for line, key, value, why in missing])
    try:
        meta = yaml.load(text, Loader=SAFE_LOADER)
    except (yaml.YAMLError, ValueError) as error:
        return FrontMatter(problems=[Problem(post, 1, f"front matter cannot be read: {error}",
                                             hint="write each setting as `key: value`, in plain text")])
    front = FrontMatter(meta, lines)
    front.problems += front_matter_problems(front, post)
    return front
