"""What a block kind declares and does (`Kind`): its name, its card's face, its header's schema (`Key`, `Format`),
how it drifts (`Drifts`); and how it checks, renders and repairs its blocks and what it adds to the page.

The declarations are plain data, read by the parts low in the engine (the marker and header patterns, the parser's
schema check, the guard's card classes). The methods take what they need from the parts above as arguments
(codeproof.common.kinds.proofs), so that this module, which codeproof.common.structure names, imports none.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable


class Format(Enum):
    """A header value's format that the series' own rules check (codeproof.series.blocks), by name: they need
    the series' configuration (what a repository, a commit and a path are)."""

    PATH = "a relative POSIX path in the repository"
    SCRIPT = "a path under experiments/"
    COMMIT = "a full 40-hex SHA"
    REPO = "owner/name"
    YES_NO = "yes or no"
    TOLERANCE = "a tolerance (codeproof.series.blocks.parse_tolerance)"


@dataclass(frozen=True)
class Key:
    """A key of a block's header. `format` is a Format, or the kind's own check of the value: a function giving
    (message, hint) when the value is not one, else None. `free`: the value may hold any text (a sentence, a call's
    argument), so what a card must never show (a card's face, invisible controls) is refused in it; a value of a
    format is refused whole by the format."""

    name: str
    required: bool = False
    format: Format | Callable[[str], tuple[str, str] | None] | None = None
    any_text: bool = False  # a value of its format may still hold any text (a call's argument)

    @property
    def free(self) -> bool:
        return self.format is None or self.any_text


class Drifts(Enum):
    """How a kind's blocks are compared with another commit of the upstream repository (`drift`, `rebase`)."""

    QUOTE = "its quote, against the file at the other commit"
    OUTPUT = "its script's output, run against the other commit's package"


class Kind:
    """A kind of proof block, declared by a subclass in a module of its own (as pymdownx declares a Block): the class
    attributes below say what the low parts of the engine derive their tables from, its methods what it does:

    - check(block, proofs) -> Checked: the block against its evidence (proofs: codeproof.common.kinds.proofs.Proofs);
    - render(checked, page) -> str: a verified block's card, sealed (page: codeproof.common.kinds.proofs.Page);
    - add_to(proved, checked, proofs): what a verified block adds to its page's record (engine.ProvedPage);
    - `update` writes a repair in place of the fenced text, or of the header line `record_key`.
    """

    name: str  # the word between the header's brackets, as the author writes it: REAL SOURCE
    member: str  # its name in the registry, codeproof.common.kinds.registry.BlockKind: SOURCE
    css: str  # what its card's class ends with (proof-card--source) and what the build's steps call it
    label: str  # the word before the kind on its card's face (源码); outside a card it would pass for one
    lang: str | None  # the language of the fence that holds the block's text; None: the header stands alone
    keys: tuple[Key, ...]  # its header's keys, in the order the author is told them
    script: bool  # its File names a script under experiments/ (else a file of the upstream repository)
    runs: bool  # it needs its script run by the build
    upstream: bool = False  # its File names a file of the upstream repository, at the baseline or its own Commit
    draws: bool = False  # its card holds a drawing the run made, which the guard reads all the same
    drifts: Drifts | None = None  # None: its blocks do not change with the upstream repository's commit
    record_key: str | None = None  # the header line that records what the block proved, where it has no fence
    example: dict[str, str]  # a header as an author writes it (the authoring guide shows each kind so)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<kind {self.name}>"

    @property
    def header(self) -> str:
        """The header's first line, exactly as it opens a block."""
        return f"[{self.name}]"

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys if key.required)

    @property
    def known(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)

    def key(self, name: str) -> Key | None:
        return next((key for key in self.keys if key.name == name), None)

    def header_rule(self, fields: dict[str, str]) -> tuple[str, str] | None:
        """What is wrong with the header's keys taken together, as (message, hint), beyond each key's format."""
        return None

    def check(self, block, proofs):
        raise NotImplementedError(f"{self} says how it checks a block")

    def render(self, checked, page) -> str:
        raise NotImplementedError(f"{self} says how it renders a block")

    def add_to(self, proved, checked, proofs) -> None:
        """Nothing, unless the kind says what its verified blocks add to the page's record."""
