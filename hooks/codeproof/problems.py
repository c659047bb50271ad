"""Problems are values: collected over a whole build, reported together at the edge."""

from __future__ import annotations

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
