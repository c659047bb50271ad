"""Settings checked against a schema: every mistake at once, each at its key path, with a did-you-mean.

A schema is a `Section` of named settings: `Value`s (a type, a test, a default), nested `Section`s and `ListOf`
sections or values. `validate` checks a mapping read from YAML against it and returns the values with defaults
filled in, appending a `Finding` (key path, message, hint) for every problem instead of stopping at the first; the
caller turns key paths into file lines (it knows its file). A key the schema does not name is a mistake: a
misspelt `timout:` would otherwise leave the default in force without a word. mkdocs.yml's `extra.series` and a
post's front matter are checked so; each says a mistake in its own words (`Section.unknown`, a test's `Invalid`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

REQUIRED = object()  # a Value's default when the setting must be given
MISSING = object()  # what a mapping holds for a key it does not give


@dataclass(frozen=True)
class Value:
    """A setting of one of `kinds` that passes `test`, else '<value> is not <what>' (a test may raise Invalid to
    say why itself); `default` when not given (None: it may be left out and stays None). `null`: a key given
    with no value (YAML's `key:`) counts as not given, as MkDocs reads its settings; else its null is tested."""

    kinds: type | tuple[type, ...]
    what: str
    test: Callable[[object], object] = lambda value: True
    default: object = REQUIRED
    null: bool = True

    def check(self, value: object) -> object:
        if value is MISSING or (value is None and self.null):
            if self.default is REQUIRED:
                raise Invalid("is required")
            return self.default
        kinds = self.kinds if isinstance(self.kinds, tuple) else (self.kinds,)
        bools = bool in kinds or object in kinds  # a bool is an int to isinstance, never a number here
        if not isinstance(value, kinds) or (isinstance(value, bool) and not bools) or not self.test(value):
            raise Invalid(f"{value!r} is not {self.what}")
        return value


def _unknown_setting(key: str, value: object, close: str | None, names: list[str]) -> Invalid:
    if close:
        return Invalid(f"is not a setting; did you mean {close}?")
    return Invalid(f"is not a setting (the settings here are {', '.join(names)})")


@dataclass(frozen=True)
class Section:
    """A mapping of named settings, in the order a mistake lists them; `unknown(key, value, close, names)` is the
    mistake of a key it does not name, given the setting most like it (or None; alike means a `closeness` of
    difflib's ratio, case aside) and the settings there are."""

    settings: dict[str, Value | Section | ListOf] = field(default_factory=dict)
    unknown: Callable[[str, object, str | None, list[str]], Invalid] = _unknown_setting
    closeness: float = 0.6


@dataclass(frozen=True)
class ListOf:
    """A list of sections or values (none when not given), each checked; `what` it must be otherwise."""

    item: Section | Value
    what: Callable[[object], Invalid] = lambda value: Invalid(f"must be a list, not {type(value).__name__}")


class Invalid(ValueError):
    """A value a setting refuses; its text says why, its hint what to do; `also`, what else is wrong with it."""

    def __init__(self, message: str, hint: str | None = None, also: tuple[Invalid, ...] = ()):
        super().__init__(message)
        self.hint, self.also = hint, also


class Finding(NamedTuple):
    path: tuple  # keys and list indexes
    message: str
    hint: str | None = None


def validate(section: Section, data: object, path: tuple, found: list[Finding]) -> dict:
    """`data` checked against `section`: the values with defaults filled in (a refused one left out), and each
    problem appended to `found`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        found.append(Finding(path, f"must be a mapping of settings, not {type(data).__name__}"))
        return {}
    for key in sorted(data.keys() - section.settings.keys(), key=str):  # YAML keys may be numbers, bools, dates
        name = str(key)
        found += _findings(path + (name,), section.unknown(name, data[key], closest(section, name), list(section.settings)))
    values = {}
    for key, setting in section.settings.items():
        value = data.get(key, MISSING)
        if isinstance(setting, Section):
            values[key] = validate(setting, None if value is MISSING else value, path + (key,), found)
        elif isinstance(setting, ListOf):
            value = None if value is MISSING else value
            if not isinstance(value if value is not None else [], list):
                found += _findings(path + (key,), setting.what(value))
                continue
            values[key] = [_check(setting.item, item, path + (key, i), found) for i, item in enumerate(value or [])]
        else:
            values[key] = _check(setting, value, path + (key,), found)
    return values


def _check(setting: Section | Value, value: object, path: tuple, found: list[Finding]) -> object:
    if isinstance(setting, Section):
        return validate(setting, value, path, found)
    try:
        return setting.check(value)
    except Invalid as error:
        found += _findings(path, error)
        return None


def _findings(path: tuple, error: Invalid) -> list[Finding]:
    return [Finding(path, str(each), each.hint) for each in (error, *error.also)]


def closest(section: Section, key: str) -> str | None:
    """The setting most like `key`, case aside, here or in a nested section (`timout` at the top may be
    experiments.timeout), as written from here; None if none is like it."""
    names = {}  # last part, lower case -> the name as written from here
    for name, setting in section.settings.items():
        names.setdefault(name.lower(), name)
        if isinstance(setting, Section):
            for inner in setting.settings:
                names.setdefault(inner.lower(), f"{name}.{inner}")
    close = difflib.get_close_matches(key.lower(), [n for n in names if names[n] != key], n=1, cutoff=section.closeness)
    return names[close[0]] if close else None


def dotted(path: tuple) -> str:
    """extra.series.announced[0].title"""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")
