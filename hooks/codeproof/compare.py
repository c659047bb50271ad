"""Compare what an experiment printed with the output a post records."""

from __future__ import annotations

import difflib
import math
import re

NUMBER_RE = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")


def normalize(text: str) -> list[str]:
    """Trailing spaces of each line and trailing blank lines do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def outputs_match(recorded: str, actual: str, tolerance: float | None = None) -> bool:
    want, got = normalize(recorded), normalize(actual)
    if tolerance is None:
        return want == got
    return len(want) == len(got) and all(_line_close(w, g, tolerance) for w, g in zip(want, got))


def _line_close(want: str, got: str, tolerance: float) -> bool:
    # re.split with a group alternates text and numbers: text must be equal, numbers close.
    want_parts, got_parts = NUMBER_RE.split(want), NUMBER_RE.split(got)
    if len(want_parts) != len(got_parts):
        return False
    for index, (w, g) in enumerate(zip(want_parts, got_parts)):
        if index % 2 == 0 and w != g:
            return False
        if index % 2 == 1 and not math.isclose(float(w), float(g), rel_tol=tolerance, abs_tol=0.0):
            return False
    return True


def output_diff(recorded: str, actual: str, script: str) -> str:
    return "".join(
        difflib.unified_diff(
            [line + "\n" for line in normalize(recorded)],
            [line + "\n" for line in normalize(actual)],
            fromfile="recorded in the post",
            tofile=f"printed by python -B {script}",
            n=2,
        )
    )
