"""Compare what an experiment printed with the output a post records.

Under a Tolerance, the printed output is first reconciled with the recorded one: every number within
tolerance of the number recorded in its place takes the recorded text. The output matches when the
reconciled lines are the recorded ones; the diff shows only what is out of tolerance; and `update` writes
the reconciled lines, so it keeps the author's numbers wherever they still hold.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext

from codeproof.common.structure import Tolerance

# The numbers a tolerance may apply to, as doctestplus' FLOAT_CMP reads them: floating-point literals standing
# alone (a point or an exponent), never an integer (a seed, a count), nor digits inside a word (float32, v1.2.3);
# a sign belongs to the number only where it cannot be an operator (1-0.5 is text "1-" and 0.5), so a changed
# sign counts only as far as the number itself allows. A full stop may end the sentence after a number.
NUMBER_RE = re.compile(r"((?<![\w.])(?:(?<![\w)\]])[-+])?(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)"
                       r"(?!\w|\.\d))")


def normalize(text: str) -> list[str]:
    """Trailing spaces of each line and trailing blank lines do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@dataclass(frozen=True)
class NumberApart:
    """A number the run printed otherwise than the post records it (within the tolerance or past it)."""

    line: int  # 0-based line of the recorded output
    recorded: str  # the numbers as written
    printed: str

    @property
    def absolute(self) -> float | Decimal:
        return _as_float(_apart(self.recorded, self.printed)[0])

    @property
    def relative(self) -> float | Decimal:
        """The difference over the larger magnitude, as math.isclose measures it."""
        difference, larger = _apart(self.recorded, self.printed)
        with _exact_enough(self.recorded, self.printed):
            return _as_float(difference / larger)


@dataclass
class Reconciled:
    lines: list[str]  # the printed lines, numbers within tolerance written as recorded
    out: list[NumberApart] = field(default_factory=list)
    within: list[NumberApart] = field(default_factory=list)  # printed otherwise, within tolerance (as recorded)


def reconcile(recorded: str, actual: str, tolerance: Tolerance | None) -> Reconciled:
    """The printed output as the post should record it. Lines are paired by difflib over their text
    without the numbers, so a line printed more or less does not pair every line after it with the wrong
    one; a line that pairs with none is taken as printed."""
    want, got = normalize(recorded), normalize(actual)
    if tolerance is None:
        return Reconciled(got)
    reconciled = Reconciled([])
    texts = [_text_of(line) for line in want], [_text_of(line) for line in got]
    if len(want) * len(got) <= PAIRING_WORK:
        opcodes = difflib.SequenceMatcher(None, *texts, autojunk=False).get_opcodes()
    else:  # difflib's pairing grows with the product of the lengths: past the bound, lines pair by position
        opcodes = [("equal" if texts[0][n] == texts[1][n] else "replace", n, n + 1, n, n + 1)
                   for n in range(min(len(want), len(got)))] + [("insert", len(want), len(want), len(want), len(got))]
    for tag, w1, _, g1, g2 in opcodes:
        for offset in range(g2 - g1):
            line = got[g1 + offset]
            if tag == "equal":
                line = _reconcile_line(w1 + offset, want[w1 + offset], line, tolerance, reconciled)
            reconciled.lines.append(line)
    return reconciled


PAIRING_WORK = 1_000_000  # recorded lines × printed lines that difflib pairs; past it, lines pair by position


def _text_of(line: str) -> tuple[str, ...]:
    # re.split with a group alternates text and numbers: the even parts are the text.
    return tuple(NUMBER_RE.split(line)[0::2])


def _reconcile_line(index: int, want: str, got: str, tolerance: Tolerance, reconciled: Reconciled) -> str:
    """`got` with each number within tolerance of its recorded one written as recorded (the texts are equal)."""
    parts, recorded = NUMBER_RE.split(got), NUMBER_RE.split(want)
    for k in range(1, len(parts), 2):
        if recorded[k] == parts[k]:
            continue
        if within(recorded[k], parts[k], tolerance):
            reconciled.within.append(NumberApart(index, recorded[k], parts[k]))
            parts[k] = recorded[k]
        else:
            reconciled.out.append(NumberApart(index, recorded[k], parts[k]))
    return "".join(parts)


def within(recorded: str, printed: str, tolerance: Tolerance) -> bool:
    """Whether two numbers as written are within tolerance, as math.isclose measures it, on the numbers themselves:
    as floats, two different numbers past a double's range both read as inf (or as 0.0) and would compare equal."""
    difference, larger = _apart(recorded, printed)
    with _exact_enough(recorded, printed):
        return difference <= max(Decimal(tolerance.rel) * larger, Decimal(tolerance.abs))


def _apart(recorded: str, printed: str) -> tuple[Decimal, Decimal]:
    """How far apart two numbers as written are, and the larger magnitude (what math.isclose weighs against)."""
    a, b = Decimal(recorded), Decimal(printed)
    with _exact_enough(recorded, printed):
        return abs(a - b), max(abs(a), abs(b))


def _exact_enough(*numbers: str):
    """Arithmetic with more digits than the numbers are written with, and any exponent: a difference is exact
    where it can matter (numbers of about one size), and never overflows."""
    return localcontext(prec=max(map(len, numbers)) + 30, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _as_float(x: Decimal) -> float | Decimal:
    """A float where one holds the number (messages show it as they always have), else the Decimal."""
    near = float(x)
    return near if math.isfinite(near) and (near != 0 or x == 0) else x


def outputs_match(recorded: str, actual: str, tolerance: Tolerance | None = None) -> bool:
    return reconcile(recorded, actual, tolerance).lines == normalize(recorded)


def output_diff(recorded: str, reconciled: Reconciled, script: str, tolerance: Tolerance | None) -> str:
    """The diff from the recorded output to the reconciled one: under a tolerance, a line whose numbers are
    all within it is not marked."""
    printed = f"printed by python -B {script}"
    return "".join(
        difflib.unified_diff(
            [line + "\n" for line in normalize(recorded)],
            [line + "\n" for line in reconciled.lines],
            fromfile="recorded in the post",
            tofile=f"{printed}, numbers within tolerance as recorded" if tolerance else printed,
            n=2,
        )
    )
