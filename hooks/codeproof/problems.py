"""Problems are values: collected over a whole build, reported together at the edge."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    post: str  # the post's path, e.g. docs/posts/x.md (or another file the problem is about)
    line: int
    message: str
    detail: str = ""  # e.g. a unified diff
    hint: str = ""  # what to do about it

    def __str__(self) -> str:
        text = f"{self.post}:{self.line}: {self.message}"
        if self.detail:
            text += "\n" + self.detail.rstrip("\n")
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


def report(problems: list[Problem]) -> str:
    """All problems of a build, in post and line order, ready to print."""
    ordered = sorted(set(problems), key=lambda p: (p.post, p.line, p.message))
    noun = "problem" if len(ordered) == 1 else "problems"
    return f"{len(ordered)} {noun}:\n\n" + "\n\n".join(str(p) for p in ordered)


def shown_path(path: str | os.PathLike, root: str | os.PathLike | None = None) -> str:
    """A file's path as a report shows it: from `root` when it lies there (links are not followed), and
    printable, with bytes that are not UTF-8 and control characters escaped."""
    text = os.fspath(path)
    if root is not None and not os.path.relpath(text, root).startswith(".."):
        text = os.path.relpath(text, root)
    text = os.fsencode(text).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
