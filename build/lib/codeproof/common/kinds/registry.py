"""The registry of the block kinds, and the tables derived from it: the header's pattern, the cards' labels and
classes. A new kind is added to BlockKind here."""

from __future__ import annotations

import re
from typing import Iterator

from codeproof.common.kinds.base import Kind
from codeproof.common.kinds.experiment import Experiment
from codeproof.common.kinds.figure import Figure
from codeproof.common.kinds.output import Output
from codeproof.common.kinds.source import Source


class Kinds:
    """The registry: each kind by its member name (BlockKind.SOURCE), in the order the authoring guide gives them."""

    def __init__(self, *kinds: Kind):
        self._kinds = kinds
        for kind in kinds:
            setattr(self, kind.member, kind)

    def __iter__(self) -> Iterator[Kind]:
        return iter(self._kinds)

    def named(self, name: str) -> Kind:
        """The kind whose header's word is `name` (exactly as written in a header: REAL SOURCE)."""
        return next(kind for kind in self._kinds if kind.name == name)


BlockKind = Kinds(Source(), Experiment(), Output(), Figure())

# A line that opens a block: its header, alone (trailing blanks allowed).
HEADER_RE = re.compile(r"^\[(%s)\][ \t]*$" % "|".join(re.escape(kind.name) for kind in BlockKind))
# The card's face: the label before each kind. Outside a sealed card it would pass for a verified card.
CARD_LABELS = {kind: kind.label for kind in BlockKind}
CARD_CLASS = "proof-card"  # every card's; and each kind's own, which tells what the card shows


def card_class(css: str) -> str:
    """The class of the cards of the kind whose `css` this is."""
    return f"{CARD_CLASS}--{css}"


CARD_CLASSES = {kind: card_class(kind.css) for kind in BlockKind}


def header_kind(line: str) -> Kind | None:
    """The kind whose block the line opens, or None."""
    match = HEADER_RE.match(line)
    return BlockKind.named(match.group(1)) if match else None
