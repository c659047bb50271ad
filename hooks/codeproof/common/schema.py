"""Settings checked against a schema: every mistake at once, each at its key path, with a did-you-mean.

A schema is a `Section` of named settings: `Value`s (a type, a test, a default), nested `Section`s and `ListOf`
sections. `validate` checks a mapping read from YAML against it and returns the values with defaults filled in,
appending (key path, message) for every problem instead of stopping at the first; the caller turns key paths
into file lines (it knows its file). A key the schema does not name is a mistake: a misspelt `timout:` would
otherwise leave the default in force without a word.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field

REQUIRED = object()  # a Value's default when the setting must be given


@dataclass(frozen=True)
class Value:
    """A setting of one of `kinds` that passes `test`, else '<value> is not <what>'; `default` when not given
    (None: it may be left out and stays None)."""

    kinds: type | tuple[type, ...]
    what: str
    test: Callable[[object], object] = lambda value: True
    default: object = REQUIRED

    def check(self, value: object) -> object:
        if value is None:
            if self.default is REQUIRED:
                raise Invalid(f"is required: {self.what}")
            return self.default
        bools = self.kinds is bool or (isinstance(self.kinds, tuple) and bool in self.kinds)
        if not isinstance(value, self.kinds) or (isinstance(value, bool) and not bools) or not self.test(value):
            raise Invalid(f"{value!r} is not {self.what}")
        return value


@dataclass(frozen=True)
class Section:
    """A mapping of named settings, in the order a mistake lists them."""

    settings: dict[str, Value | Section | ListOf] = field(default_factory=dict)


@dataclass(frozen=True)
class ListOf:
    """A list of sections (none when not given)."""

    section: Section


class Invalid(ValueError):
    """A value a setting refuses; its text says why."""


def validate(section: Section, data: object, path: tuple, found: list[tuple[tuple, str]]) -> dict:
    """`data` checked against `section`: the values with defaults filled in (a refused one left out), and each
    problem appended to `found` as (key path, message); a path holds keys and list indexes."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        found.append((path, f"must be a mapping of settings, not {type(data).__name__}"))
        return {}
    for key in sorted(map(str, data.keys() - section.settings.keys())):
        found.append((path + (key,), "is not a setting" + _suggestion(section, key)))
    values = {}
    for key, setting in section.settings.items():
        value = data.get(key)
        if isinstance(setting, Section):
            values[key] = validate(setting, value, path + (key,), found)
        elif isinstance(setting, ListOf):
            if not isinstance(value if value is not None else [], list):
                found.append((path + (key,), f"must be a list, not {type(value).__name__}"))
                continue
            values[key] = [validate(setting.section, item, path + (key, i), found) for i, item in enumerate(value or [])]
        else:
            try:
                values[key] = setting.check(value)
            except Invalid as error:
                found.append((path + (key,), str(error)))
    return values


def _suggestion(section: Section, key: str) -> str:
    """'; did you mean X?' naming the setting most like `key`, here or in a nested section (`timout` at the top
    may be experiments.timeout), or the settings there are."""
    names = {}  # last part -> the name as written from here
    for name, setting in section.settings.items():
        names.setdefault(name, name)
        if isinstance(setting, Section):
            for inner in setting.settings:
                names.setdefault(inner, f"{name}.{inner}")
    close = difflib.get_close_matches(key, [n for n in names if n != key], n=1) or ([key] if key in names else [])
    if close:
        return f"; did you mean {names[close[0]]}?"
    return f" (the settings here are {', '.join(section.settings)})"


def dotted(path: tuple) -> str:
    """extra.series.announced[0].title"""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")
