"""Parse a post into its proof blocks, of the kinds codeproof.common.kinds declares ([REAL SOURCE], [EXPERIMENT],
[OUTPUT], [FIGURE]).

A block is a header paragraph (the `[KIND]` line, then `Key: value` lines, checked against its kind's schema) and,
optionally, the fenced code block right after it (a kind without a fence's language, as [FIGURE], is its header alone:
a run draws it). Parsing only reads; it never renders. Malformed blocks become Problems, never silently plain text.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from pathlib import Path

from codeproof.series.config import SHA_RE, normal_path, valid_repo
from codeproof.series.frontmatter import front_matter, split_front_matter
from codeproof.common.markers import BLANKS, CONTAINER_RE, card_face, marker_kind, names_marker, skeleton, visible
from codeproof.common.kinds.base import Format, Kind
from codeproof.common.schema import Finding, Invalid, Section, Value, closest, validate
from codeproof.common.kinds.registry import header_kind
from codeproof.common.structure import Block, FrontMatter, ParsedPost, Problem, Tolerance

# Greedy to the end of the line, then stripped in code: a lazy match before `\s*$` takes time quadratic in
# a line's length.
FIELD_RE = re.compile(r"^([A-Za-z]+):(.*)$")
FENCE_RE = re.compile(r"^(?P<indent>[ \t>]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MAX_FIELD = 500  # characters of a header value: more is a mistake, and parsing it would cost without bound
# Fenced code in these languages is an example of the format (as in the authoring guide), never a block.
EXAMPLE_LANGS = ("markdown", "md")


def read_post(path: Path, shown: str) -> tuple[ParsedPost, FrontMatter]:
    """A post file parsed (its blocks, or the problem that it is not UTF-8) and its front matter,
    read as MkDocs reads it: without a byte order mark, with universal newlines."""
    if path.is_symlink() or not path.is_file():  # a link leads out of the repository; a FIFO blocks the build
        parsed = ParsedPost(post=shown, lines=[], first_line=1)
        parsed.problems.append(Problem(shown, 1, "is a link or not a regular file, so it cannot be a page",
                                       hint="keep posts as regular files in docs/"))
        return parsed, FrontMatter()
    data = path.read_bytes()
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        parsed = ParsedPost(post=shown, lines=[], first_line=1)
        line = data[: error.start].count(b"\n") + 1
        parsed.problems.append(Problem(shown, line, f"byte {error.start} (0x{data[error.start]:02x}) is not UTF-8",
                                       hint="save the post as UTF-8"))
        return parsed, FrontMatter()
    return _parsed(shown, raw.replace("\r\n", "\n").replace("\r", "\n"))  # as MkDocs reads it (universal newlines)


@functools.lru_cache(maxsize=256)
def _parsed(shown: str, raw: str) -> tuple[ParsedPost, FrontMatter]:
    """A post's text parsed, once per text in a process (serve rebuilds every post on every save): what it
    returns is never changed afterwards."""
    too_much = _too_much_to_render(raw.split("\n"), shown)
    if too_much:
        return ParsedPost(post=shown, lines=[], first_line=1, problems=too_much), FrontMatter()
    first_line, body = split_front_matter(raw)
    return parse_post(shown, body, first_line), front_matter(raw, shown)


# Python-Markdown recurses into nested blocks and rescans runs of brackets and emphasis: past these sizes a
# post would end the build with a RecursionError, or take minutes. No post needs more.
MAX_LINE, MAX_INDENT, MAX_RUN, MAX_OPENINGS = 10_000, 200, 100, 200
LONG_RUN_RE = re.compile(r"[\[*_]{%d}|>(\s*>){50}" % MAX_RUN)


def _too_much_to_render(lines: list[str], post: str) -> list[Problem]:
    problems = []
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE or len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) > MAX_INDENT \
                or LONG_RUN_RE.search(line) or line.count("[") > 5 * MAX_RUN:
            problems.append(Problem(post, number, f"the line is too long, too deeply indented or nested, or holds a run "
                                                  f"of over {MAX_RUN} brackets or emphasis marks: Markdown would fail on it",
                                    hint=f"keep lines under {MAX_LINE} characters and nesting shallow"))
    if sum(line.lower().count("<div") + line.lower().count("<details") for line in lines) > MAX_OPENINGS:
        problems.append(Problem(post, 1, f"over {MAX_OPENINGS} HTML blocks: nested so deep, Markdown would fail on them",
                                hint="a post is Markdown: write it without raw HTML blocks"))
    return problems


def parse_post(post: str, body: str, first_line: int = 1) -> ParsedPost:
    """Find every block in `body`, the post text after its front matter.

    Every line that announces a block, however it is written and wherever it stands, either starts
    a block or is a problem: nothing that looks like a block is left to render as plain Markdown."""
    parsed = ParsedPost(post=post, lines=body.split("\n"), first_line=first_line)
    lines = parsed.lines
    i = 0
    while i < len(lines):
        fence = FENCE_RE.match(lines[i])
        if fence:
            i = _skip_fenced_code(parsed, i, fence)
        elif header_kind(lines[i]):
            i = _parse_block(parsed, i)
        else:
            if marker_kind(lines[i]):
                parsed.problems.append(_near_miss(parsed, i))
            elif marker_kind(lines[i], prose_too=True) and _code_follows(lines, i):
                parsed.problems.append(Problem(
                    post, first_line + i, "a line that starts with a block marker is followed by a code block: it "
                    "reads as a block, but nothing verifies it", hint="write the block as the authoring guide shows"))
            if "data-toc-label" in lines[i].lower():  # the label leaves the page for the table of contents, unchecked
                parsed.problems.append(Problem(
                    post, first_line + i, "a data-toc-label gives the table of contents text the page does not show",
                    hint="remove it: the table of contents shows the heading itself"))
            i += 1
    return parsed


def _code_follows(lines: list[str], index: int) -> bool:
    """Whether the next non-blank line after `index` opens code that is not a Markdown example."""
    following = next((line for line in lines[index + 1:] if line.strip()), "")
    fence = FENCE_RE.match(following)
    if fence:
        return fence.group("info").strip().split(" ")[0].lower() not in EXAMPLE_LANGS
    return following.startswith(("    ", "\t"))


def _skip_fenced_code(parsed: ParsedPost, start: int, fence: re.Match) -> int:
    """Code shown in the post is not a block; a marker inside it is one that Markdown would show
    unverified, unless the fence says it is a Markdown example."""
    lines = parsed.lines
    close = _fence_end(lines, start, fence)
    if close is None:
        parsed.problems.append(Problem(
            parsed.post, parsed.first_line + start, f"the fenced block opened here with {fence.group('fence')} never closes",
            hint=f"close it with a line of {fence.group('fence')}, or remove the stray fence: everything after it would show as code",
        ))
        return len(lines)
    # Only a top-level fence is surely a fence to Markdown too: an indented one may be an indented code
    # block, whose "closing" fence leaves what follows as Markdown.
    example = not fence.group("indent") and fence.group("info").strip().split(" ")[0].lower() in EXAMPLE_LANGS
    if not example:
        for j in range(start + 1, close - 1):
            if marker_kind(lines[j]):
                parsed.problems.append(Problem(
                    parsed.post, parsed.first_line + j,
                    f"block marker {lines[j].strip()!r} inside the code block opened at line {parsed.first_line + start}: "
                    "it would be shown as code, unverified",
                    hint="close the code block before the block, or fence an example of the format with ```markdown",
                ))
    return close


def _near_miss(parsed: ParsedPost, index: int) -> Problem:
    line = parsed.lines[index]
    kind = marker_kind(line)
    # Spelled out: what is invisible (format and combining characters, fillers, spaces other than ' ')
    # would make the line look right in the message.
    shown = "".join(ch if ch == " " or (ch.isprintable() and unicodedata.category(ch)[0] not in "CMZ"
                                        and ord(ch) not in BLANKS) else f"<U+{ord(ch):04X}>" for ch in line)
    reasons = []
    if CONTAINER_RE.match(line).group(0):
        reasons.append("it is indented or inside a list, quote or admonition")
    if any(unicodedata.category(ch)[0] in "CM" or ord(ch) in BLANKS for ch in line.strip(" \t")):
        reasons.append("it holds invisible characters")
    if any(unicodedata.normalize("NFKC", ch) != ch for ch in line):
        reasons.append("it holds full-width or compatibility characters")
    if skeleton(line) != visible(line):
        reasons.append("it holds characters that only look like Latin letters")
    reasons = reasons or ["it is not written exactly so"]
    return Problem(
        parsed.post, parsed.first_line + index,
        f"{shown!r} looks like a [{kind}] block but is not one ({'; '.join(reasons)}), so it would not be verified",
        hint=f"write the line exactly `[{kind}]` at the start of a line, at the top level of the post",
    )


def _fence_end(lines: list[str], start: int, fence: re.Match) -> int | None:
    """Index just past the fence closing the one opened at `start`, or None if it never closes."""
    mark = fence.group("fence")
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip(" \t>")
        if stripped.startswith(mark) and set(stripped) == {mark[0]}:
            return j + 1
    return None


def _parse_block(parsed: ParsedPost, start: int) -> int:
    lines = parsed.lines
    kind = header_kind(lines[start])
    line = parsed.first_line + start
    problems: list[Problem] = []

    def problem(offset: int, message: str, hint: str) -> None:
        problems.append(Problem(parsed.post, line + offset, f"{kind}: {message}", hint=hint))

    fields: dict[str, str] = {}
    offsets: dict[str, int] = {}  # key -> its line, counted from the header line
    i = start + 1
    while i < len(lines) and lines[i].strip() and not FENCE_RE.match(lines[i]):
        match = FIELD_RE.match(lines[i])
        if not match:
            problem(i - start, f"cannot read header line {lines[i]!r}", "write `Key: value`, one per line")
        elif match.group(1) in fields:
            problem(i - start, f"{match.group(1)} is given twice", "keep one")
        else:
            fields[match.group(1)] = match.group(2).strip()
            offsets[match.group(1)] = i - start
        i += 1
    _check_fields(kind, fields, offsets, problem)
    tolerance = None
    if "Tolerance" in fields:
        try:
            tolerance = parse_tolerance(fields["Tolerance"])
        except ValueError as error:
            problem(offsets["Tolerance"], f"Tolerance {fields['Tolerance']!r}: {error}", TOLERANCE_HINT)

    if kind.lang is None:  # a header alone: what follows it is the post's own
        end, quote, quote_start = i, None, None
        if i < len(lines) and FENCE_RE.match(lines[i]):
            problem(i - start, "a figure takes no fenced block: the run draws it",
                    "put an empty line between the header and the code, if the code is the post's own")
    else:
        end, quote, quote_start = _read_quote(lines, i, start, kind, problem)
    if problems:
        parsed.problems.extend(problems)
    else:
        parsed.blocks.append(Block(kind, fields, quote, parsed.post, line, start, end, quote_start, tolerance,
                                   {key: line + offset for key, offset in offsets.items()}))
    return max(end, start + 1)


def _read_quote(lines: list[str], i: int, start: int, kind: Kind, problem) -> tuple[int, str | None, int | None]:
    """The fenced block after a header that ends at line index `i`: (index past the block, its text or None, the
    index of its first line or None); what is wrong with it goes to `problem`."""
    end, quote, quote_start = i, None, None
    if i < len(lines) and lines[i].strip():  # a fence right after the header lines
        problem(i - start, "the fenced block must be separated from the header by a blank line",
                "put an empty line between the last `Key: value` line and the fence")
    j = i
    while j < len(lines) and not lines[j].strip():
        j += 1
    fence = FENCE_RE.match(lines[j]) if j < len(lines) else None
    if fence:
        close = _fence_end(lines, j, fence)
        lang = kind.lang
        if close is None:
            problem(j - start, "the fenced block never closes", f"close it with {fence.group('fence')}")
            end = len(lines)
        else:
            if fence.group("indent"):
                problem(j - start, "the fence of the quote is indented", "start the fence at the beginning of the line")
            if fence.group("info").strip() != lang:
                problem(
                    j - start,
                    f"the fenced block is `{fence.group('info').strip() or '(no language)'}`, expected `{lang}`",
                    f"open the fence with ```{lang} and nothing else",
                )
            quote, quote_start, end = "\n".join(lines[j + 1 : close - 1]), j + 1, close
    elif j < len(lines) and lines[j].startswith(("    ", "\t")):
        problem(j - start, "an indented code block follows the header: it would be shown unverified",
                f"quote with a fence at the start of the line: ```{kind.lang}")
        end = j + 1
    return end, quote, quote_start


def _invisible(value: str) -> str:
    """The format and control characters in a header value, named (U+202E), or ""."""
    found = sorted({ch for ch in value if unicodedata.category(ch) in ("Cf", "Cc")})
    return ", ".join(f"U+{ord(ch):04X}" for ch in found)


def _check_fields(kind: Kind, fields: dict[str, str], offsets: dict[str, int], problem) -> None:
    """The header against its kind's schema (common.schema, as extra.series and front matter are checked): known
    keys, each value within its bounds and in its format, the required ones given, and the kind's rule over them
    all; a problem of one key's value said at that key's line (`offsets`), the others at the header's line."""
    found: list[Finding] = []
    schema = _header_schema(kind)
    validate(schema, fields, (), found)
    meant = {closest(schema, key) for key in fields if key not in schema.settings}  # said missing already
    found += [Finding((key,), f"{key} is missing or empty", f"add a `{key}: …` line to the header")
              for key in kind.required if not fields.get(key) and key not in meant]
    for finding in found:
        problem(offsets.get(finding.path[0], 0) if finding.path else 0, finding.message, finding.hint)
    rule = kind.header_rule(fields)
    if rule:
        problem(0, *rule)


@functools.cache
def _header_schema(kind: Kind) -> Section:
    """A kind's header keys as a schema: each value a string its test passes; an unknown key's did-you-mean
    (`file`, `Fille` and `Fiel` mean File)."""
    def unknown(key: str, value: str, close: str | None, names: list[str]) -> Invalid:
        said = (Invalid(f"unknown key {key!r}: did you mean {close}? (keys are case-sensitive)", f"write `{close}: {value}`")
                if close else Invalid(f"unknown key {key!r}", f"{kind} takes {', '.join(names)}"))
        return _invalid([(str(said), said.hint), *_value_problems(key, value, free=True)])

    return Section({key.name: Value(str, key.name, _value_test(key), default=None) for key in kind.keys},
                   unknown=unknown, closeness=0.7)


def _value_test(key):
    def test(value: str) -> bool:
        said = _value_problems(key.name, value, key.free)
        said += _format_problems(key.name, key.format, value) if key.format is not None else []
        if said:
            raise _invalid(said)
        return True
    return test


def _invalid(said: list[tuple[str, str]]) -> Invalid:
    (message, hint), *more = said
    return Invalid(message, hint, tuple(Invalid(m, h) for m, h in more))


def _value_problems(key: str, value: str, free: bool) -> list[tuple[str, str]]:
    """What no header value may be, whatever its key: too long, naming a marker; and, where it may hold any
    text, a card's own face or invisible controls (the guard reads no sealed card)."""
    if len(value) > MAX_FIELD:
        return [(f"{key} is longer than {MAX_FIELD} characters", "a header value is a path, a symbol or a sentence")]
    if names_marker(value):  # shown in a verified card, it would claim what nothing proved
        return [(f"{key} names a block marker", "write it without the brackets")]
    if free and card_face(value):
        return [(f"{key} shows {card_face(value)!r}, a card's own face, which would make the card claim what "
                 "nothing proved", "say it in other words")]
    if free and _invisible(value):
        return [(f"{key} holds {_invisible(value)}, which would make the card read other than it is (bidirectional "
                 "or invisible controls)", "delete it: retype the line if you cannot see it")]
    return []


def _format_problems(key: str, format, value: str) -> list[tuple[str, str]]:
    """What is wrong with a value in its key's format (a Format, or the kind's own check), as (message, hint)."""
    if not isinstance(format, Format):
        said = format(value)
        return [said] if said else []
    if format in (Format.PATH, Format.SCRIPT) and value:
        said = []
        if normal_path(value) is None:
            said.append((f"{key} {value!r} must be a relative POSIX path without '..' or invisible characters",
                         "write it as in the repository, e.g. autograd/core.py"))
        elif normal_path(value) != value:
            said.append((f"{key} {value!r} is not written in normal form", f"write {key}: {normal_path(value)}"))
        if format is Format.SCRIPT and not value.startswith("experiments/"):
            said.append((f"{key} {value!r} is not under experiments/", "experiments live in experiments/"))
        return said
    if format is Format.COMMIT and not SHA_RE.match(value):
        return [(f"{key} {value!r} is not a full 40-hex SHA", "write the full commit, or omit it for the baseline")]
    if format is Format.REPO and not valid_repo(value):
        return [(f"{key} {value!r} is not owner/name", "e.g. HIPS/autograd, or omit it for the baseline")]
    if format is Format.YES_NO and value not in ("yes", "no"):
        return [(f"{key} {value!r} is neither yes nor no",
                 f"write `{key}: no` to show the quote with the file's indentation; yes (the default) removes the "
                 "indentation its lines share")]
    return []  # a Tolerance is read, and its problem said, where the block is made


TOLERANCE_HINT = ("write `Tolerance: 1e-7` (a relative tolerance), or `Tolerance: rel=1e-7, abs=1e-12` "
                  "(abs for values near zero; either key may stand alone)")


MAX_REL, MAX_ABS = 0.01, 1e-3  # the widest tolerance: 1% relative, 0.001 absolute


def parse_tolerance(text: str) -> Tolerance:
    """A Tolerance line's value: one number (the relative tolerance), or `key=value` parts split by commas
    with the keys rel and abs. Raises ValueError saying what is wrong."""
    if "=" not in text:
        given = {"rel": text}
    else:
        given = {}
        for part in text.split(","):
            key, equals, value = (piece.strip() for piece in part.partition("="))
            if not equals:
                raise ValueError(f"{part.strip()!r} is not key=value")
            if key not in ("rel", "abs"):
                raise ValueError(f"unknown key {key!r}: the keys are rel and abs")
            if key in given:
                raise ValueError(f"{key} is given twice")
            given[key] = value
    numbers = {key: _number(value) for key, value in given.items()}
    rel, absolute = numbers.get("rel", 0.0), numbers.get("abs", 0.0)
    # A tolerance forgives the last digits of a float: a wider one (abs=1e300) would verify any number the card shows.
    if "rel" in numbers and not 0 < rel <= MAX_REL:  # also refuses nan and inf
        raise ValueError(f"rel must be a number above 0 and at most {MAX_REL:g}, not {given['rel']}")
    if not (math.isfinite(absolute) and 0 <= absolute <= MAX_ABS):
        raise ValueError(f"abs must be a number from 0 to {MAX_ABS:g}, not {given['abs']}")
    if not rel and not absolute:
        raise ValueError("abs=0 alone allows no difference at all")
    return Tolerance(rel, absolute)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
