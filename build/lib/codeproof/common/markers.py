"""Block markers however they are written: what a reader sees of a text (its skeleton), and whether a line
announces a block. Shared by the parser (near-misses), the front matter check and the rendered-page guard."""

from __future__ import annotations

import functools
import re
import unicodedata

from confusable_homoglyphs import confusables

from codeproof.common.kinds.registry import CARD_LABELS, BlockKind
from codeproof.common.kinds.base import Kind

# Letters that ASCII itself has look-alikes for (0 for O, 1 l | for I); spaces of any width between letters.
ASCII_LOOK_ALIKES = {"o": "[o0]", "i": "[i1l|]", "l": "[l1i|]"}


def _spelled(name: str) -> str:
    """A kind's name however a reader would still read it: its words joined by anything but letters and digits."""
    return r"[\W_]*".join(r"\s*".join(ASCII_LOOK_ALIKES.get(letter, letter) for letter in word)
                          for word in name.lower().split())


SPELLED = {kind: re.compile(_spelled(kind.name), re.I) for kind in BlockKind}
# A marker in a skeleton (see skeleton), in any case.
MARKER = rf"\[\s*({'|'.join(spelled.pattern for spelled in SPELLED.values())})\s*\]"
# A line that is a marker once its skeleton is taken (see marker_kind) and containers are stripped: after
# the marker (and any emphasis or code marks) comes nothing but punctuation and symbols, or raw HTML. So
# `[REAL SOURCE] ✓`, `[OUTPUT]:` and `[OUTPUT]<span hidden>…` are markers; a sentence that starts with one
# (`[OUTPUT] 块记录输出`, `## `[OUTPUT]`：实验的输出`), a link (`[Output](…)`) or a link reference
# (`[output]: https://…`) is prose.
MARKER_RE = re.compile(MARKER, re.I)
MARKUP_CHARACTERS = frozenset("<>&")  # what a theme, a feed or the navigation would publish as markup
NEAR_MARKER_RE = re.compile(rf"^{MARKER}(?P<rest>.*)$", re.I | re.S)  # the rest is judged in marker_kind
# Quote and list markers, admonitions and details (`!!! note`, `??? note`), headings, and emphasis or
# code marks around the marker.
CONTAINER_RE = re.compile(r"^(?:\s*(?:>|[-*+]\s|\d+[.)]\s|#{1,6}\s|[!?]{3}\+?\s*\w.*$|[*_~`]+))*\s*")
# Characters that render as nothing or as blank space without being Unicode format (Cf) or marks (M*).
LETTER_NAME_RE = re.compile(r"(?:LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?|SYMBOL LETTER )([A-Z])$")
VERTICAL_STROKES = set("丨│┃║⎸⏐▏▕❘｜ǀ")
ASCII_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
BLANKS = dict.fromkeys(map(ord, "\u115f\u1160\u3164\uffa0\u2800"), " ")


class _Table(dict):
    """A str.translate table filled as characters are met (pages repeat them): `meaning(ch)` gives what a
    character becomes, or None to drop it."""

    def __init__(self, meaning, start: dict[int, str] | None = None):
        super().__init__(start or {})
        self.meaning = meaning

    def __missing__(self, code: int) -> str | None:
        self[code] = self.meaning(chr(code))
        return self[code]


# Format and control characters and combining marks are dropped (tab and newline are kept); fillers are blank.
SHOWN = _Table(lambda ch: None if unicodedata.category(ch)[0] in "CM" and ch not in "\t\n" else ch, BLANKS)


def visible(text: str) -> str:
    """What a reader sees of the text: compatibility forms folded (NFKD: full-width, ligatures), accents and
    invisible characters dropped (format and control characters, combining marks, fillers)."""
    if text.isascii():  # the common case, and NFKD and NFC leave ASCII alone: drop control characters only
        return ASCII_CONTROLS.sub("", text)
    # Decomposed first, so that accents on letters (Ṭ, Ȯ) are marks too, and dropped with the invisible ones.
    return unicodedata.normalize("NFC", unicodedata.normalize("NFKD", text).translate(SHOWN))


@functools.lru_cache(maxsize=1 << 15)
def skeleton(text: str) -> str:
    """The visible text in ASCII where it looks like ASCII: look-alike letters (Cyrillic Е, Greek Ο...)
    mapped to the Latin ones they are confusable with (Unicode's confusables data). Kept per text: the guard
    and the parser ask it for every text of every page, and a page's texts come back build after build."""
    text = visible(text)
    return text if text.isascii() else text.translate(LOOK_ALIKES)


def _look_alike(ch: str) -> str:
    """The ASCII character `ch` looks like, or `ch` (looked up once per character: pages repeat them).
    Any opening or closing bracket reads as a square one (an IME types 【】 for []); small capitals and
    other letters are mapped by Unicode's confusables data, whatever script it files them under."""
    if ch.isascii():
        return ch
    category, name = unicodedata.category(ch), unicodedata.name(ch, "")
    if category in ("Ps", "Pe"):
        return "[" if category == "Ps" else "]"
    if "BRACKET" in name or "CORNER" in name:  # bracket pieces (⎡ ⎦) and corners (⌜ ⌟)
        return "[" if "LEFT" in name else "]" if "RIGHT" in name else ch
    letter = LETTER_NAME_RE.search(name)  # small capitals, negative squared letters, regional indicators...
    if letter:
        return letter.group(1)
    if "CIRCLE" in name:  # ○ ◯ ⚪ ⭕
        return "O"
    if ch in VERTICAL_STROKES:
        return "I"
    found = confusables.is_confusable(ch, greedy=True) or []
    # A homoglyph may carry a combining mark (Cherokee Ꮎ is "O̵"): its first letter is what a reader sees.
    return next((h["c"][0] for f in found for h in f["homoglyphs"] if h["c"][0].isascii() and h["c"][0].isalpha()), ch)


LOOK_ALIKES = _Table(_look_alike)


def marker_kind(line: str, prose_too: bool = False) -> Kind | None:
    """The block kind a line announces, however it is written, or None: the parser's test for
    near-misses and the rendered-page guard's test for marker text that escaped verification.
    `prose_too` counts a line that starts with a marker and goes on as prose (`[OUTPUT] of x`)."""
    if line.isascii() and "[" not in line:  # most lines: no bracket, so no marker
        return None
    match = NEAR_MARKER_RE.match(CONTAINER_RE.sub("", skeleton(line), count=1).strip())
    if not match:
        return None
    rest = match.group("rest").lstrip("*_~`")  # (stripped, not matched: a regex would retry every split)
    alone = rest.startswith("<") or not re.search(r"\w", rest)
    return kind_named(match.group(1)) if alone or prose_too else None


def kind_named(word: str) -> Kind:
    """The block kind a marker's word (a match of MARKER's group) names, however written: `Real_Source` -> REAL SOURCE."""
    return next(kind for kind, spelled in SPELLED.items() if spelled.fullmatch(word))


def names_marker(text: str) -> bool:
    """Whether a reader would read a block marker in `text`, however it is written (case, look-alike letters,
    full-width brackets, invisible characters): text that is shown outside a verified card may not."""
    return MARKER_RE.search(skeleton(text)) is not None


def plain_text(text: str) -> bool:
    """Text that a theme may print as HTML anywhere (a title in the navigation, every page's series bar): no
    markup character and no marker."""
    return not set(text) & MARKUP_CHARACTERS and not names_marker(text)


# Characters that reorder the text around them (bidirectional controls and marks): a line that holds one can read
# as another ("Trojan Source"). And what a terminal or a page would not show as printed: those, and the control
# characters but tab and the line breaks (an escape sequence recolours a terminal, a NUL ends a C string).
BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
UNSHOWN_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def first_unshown(text: str) -> str:
    """Where text first holds a character of UNSHOWN_RE, as a message says it ("U+202E on line 3"), or ""."""
    found = UNSHOWN_RE.search(text)
    return f"U+{ord(found.group()):04X} on line {text.count(chr(10), 0, found.start()) + 1}" if found else ""


# The card's own face: the label before each kind (CARD_LABELS), and the stamp under a verified output. Outside a
# sealed card (and in what an author writes into one: header values) they would pass for a verified card.
STAMP_WORDS = "输出已验证"
# Han characters a reader takes for those of the face: traditional and Japanese forms, 己 and 巳 for 已, and rarer
# variants (岀 for 出, 騐 for 验), and radicals drawn as the characters they are (⻢ for 马, ⺒ for 巳 and so 已); and
# a character's two parts written side by side (讠正 reads as 证).
FACE_FOLD = str.maketrans("碼實実驗験輸證証己巳⺒圖図岀騐⻢⻈⻋", "码实实验验输证证已已已图图出验马讠车")
# Each face character a reader may read from two parts side by side, in their simplified and traditional forms
# (the CJK radicals' own characters ⻢ ⻈ ⻋, which have no compatibility mapping, are folded to 马 讠 车 above).
FACE_PARTS = {left + right: whole for whole, lefts, rights in (
    ("证", "讠訁言", "正"), ("验", "马馬", "佥僉"), ("输", "车車", "俞"), ("码", "石", "马馬"))
    for left in lefts for right in rights}
FACE_PARTS_RE = re.compile("|".join(FACE_PARTS))
NOT_WORD_RE = re.compile(r"[^\w\n]+|_")  # between the characters of a face (a line break ends it)
# Every face holds the first character of a label (the stamp holds 输出), in one of the forms FACE_FOLD knows, or
# in a form that compatibility folding (visible) turns into one: radicals and compatibility ideographs.
FIRST_CHARACTERS = {label[0] for label in CARD_LABELS.values()}
FACE_CHARACTERS = frozenset(FIRST_CHARACTERS | {chr(form) for form, folded in FACE_FOLD.items()
                                               if chr(folded) in FIRST_CHARACTERS}
                            | {parts[0] for parts, folded in FACE_PARTS.items() if folded in FIRST_CHARACTERS})
HAN_VARIANTS_RE = re.compile("[\u2e80-\u2fdf\uf900-\ufaff\U0002f800-\U0002fa1f]")


def _face_compact(text: str) -> str | None:
    """`text` as faces are looked for in it: look-alikes folded, parts joined, upper case, nothing but word
    characters and line breaks; None for most text, which holds no character a face begins with."""
    if FACE_CHARACTERS.isdisjoint(text) and not HAN_VARIANTS_RE.search(text):
        return None
    compact = NOT_WORD_RE.sub("", skeleton(text).translate(FACE_FOLD)).upper()
    return FACE_PARTS_RE.sub(lambda parts: FACE_PARTS[parts.group()], compact)


def card_face(text: str) -> str | None:
    """The part of a card's face that a reader would see in `text`, however spaced, split by markup (the text is
    given joined) or written (look-alike letters, traditional Han): the stamp's wording, a label followed by its
    kind (源码 REAL SOURCE), or None."""
    compact = _face_compact(text)
    if compact is None:
        return None
    if STAMP_WORDS in compact:
        return STAMP_WORDS
    return next((f"{label} {kind.name}" for kind, label in CARD_LABELS.items()
                 if label + kind.name.replace(" ", "") in compact), None)


CARD_DETAILS_RE = re.compile(r"\bL\d+|@[0-9a-f]{7}")  # what a card's head shows: lines, a commit
# The label as a word of its own, of the cards that show code (a figure's card shows none: "图 2：L1 与 L2" is a
# caption, not a card's head).
LABEL_FIRST_RE = re.compile(r"\W*(?:%s)(?!\w)" % "|".join(label for kind, label in CARD_LABELS.items()
                                                             if kind.lang is not None))


def line_showing(face: str, lines: list[str]) -> int | None:
    """The index of the first line that shows the face (card_face), alone or with the next line (a face broken
    over two lines of a paragraph reads as one), or None."""
    for n, (line, after) in enumerate(zip(lines, lines[1:] + [""])):
        if card_face(line) == face or card_face(f"{line} {after}") == face != card_face(after):
            return n
    return None


def passes_for_a_card(lines: list[str]) -> tuple[int, str] | None:
    """The first of `lines`, shown as they are outside any card (a script and its output on the script's page),
    that a reader would take for a card's own (its index, and what it shows): a block marker, or a card's face."""
    for n, line in enumerate(lines):
        if names_marker(line):
            return n, "a block marker"
        if card_face(line):
            return n, "a card's face (a card's label, or the words of its stamp)"
    return None


def titles_a_card(text: str) -> bool:
    """Whether text (a heading, a caption, a box's title) reads as a card's head: a card's label first, then the
    lines, commit or file a card names (`源码 · autograd/core.py L88–L96 · HIPS/autograd@90dbeb8` over a code block
    would pass for a verified card; `源码导读：core.py` heads a section)."""
    shown = skeleton(text).translate(FACE_FOLD)
    return LABEL_FIRST_RE.match(shown) is not None and CARD_DETAILS_RE.search(shown) is not None

