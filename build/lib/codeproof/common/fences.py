"""Markdown fences that hold any text verbatim: the code of cards, error boxes and script pages, and the
quotes `update` writes back into a post."""

from __future__ import annotations

import re

from markupsafe import Markup


def fence_for(text: str, mark: str = "`") -> str:
    """A fence of `mark` (` or ~) that no run of it in `text` can close: one more than the longest, at least 3."""
    return mark * (max((len(run) for run in re.findall(re.escape(mark) + "{3,}", text)), default=2) + 1)


def fence(text: str, lang: str, attrs: str = "") -> Markup:
    """A Markdown fenced code block holding `text` verbatim; Markup, so a template puts it in unescaped."""
    ticks = fence_for(text)
    return Markup(f"{ticks}{lang}{' ' + attrs if attrs else ''}\n") + Markup(text) + Markup(f"\n{ticks}")
