"""Parse a post into its proof blocks: [REAL SOURCE], [EXPERIMENT] and [OUTPUT].

A block is a header paragraph (the `[KIND]` line, then `Key: value` lines) and,
optionally, the fenced code block right after it. Parsing only reads; it never
renders. Malformed blocks become Problems, never silently plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from .config import REPO_RE, SHA_RE
from .problems import Problem

KEYS = {
    "REAL SOURCE": {"required": ("File", "Symbol"), "optional": ("Commit", "Repo"), "lang": "python"},
    "EXPERIMENT": {"required": ("File", "Purpose"), "optional": (), "lang": "python"},
    "OUTPUT": {"required": ("File",), "optional": ("Tolerance",), "lang": "text"},
}
HEADER_RE = re.compile(r"^\[(REAL SOURCE|EXPERIMENT|OUTPUT)\]\s*$")
FIELD_RE = re.compile(r"^([A-Za-z]+):\s*(.*?)\s*$")
FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
FRONT_MATTER_RE = re.compile(r"\A-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*\n", re.S)


@dataclass(frozen=True)
class Block:
    kind: str
    fields: dict[str, str]
    quote: str | None  # the fenced text without its fences, or None when the header stands alone
    post: str  # the post's path as shown in messages, e.g. docs/posts/x.md
    line: int  # 1-based line of the `[KIND]` line in the post file
    start: int  # index of the header line in the parsed text
    end: int  # index just past the block (past the closing fence, or the header paragraph)
    quote_start: int | None = None  # index of the first quoted line, when there is a fence

    def where(self) -> str:
        return f"{self.post}:{self.line}"


@dataclass
class ParsedPost:
    post: str
    lines: list[str]
    first_line: int  # file line number of lines[0]
    blocks: list[Block] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def split_front_matter(raw: str) -> tuple[int, str]:
    """Return (file line number of the body's first line, body), the body being what MkDocs passes on:
    the text after the front matter and the blank lines that follow it."""
    match = FRONT_MATTER_RE.match(raw)
    if not match:
        return 1, raw
    body = raw[match.end() :].lstrip("\n")
    return raw[: len(raw) - len(body)].count("\n") + 1, body


def front_matter(raw: str) -> dict:
    match = FRONT_MATTER_RE.match(raw)
    meta = yaml.safe_load(match.group(0).strip().strip("-.")) if match else None
    return meta if isinstance(meta, dict) else {}


def parse_post(post: str, body: str, first_line: int = 1) -> ParsedPost:
    """Find every block in `body`, the post text after its front matter."""
    parsed = ParsedPost(post=post, lines=body.split("\n"), first_line=first_line)
    lines = parsed.lines
    i = 0
    while i < len(lines):
        fence = FENCE_RE.match(lines[i])
        if fence:  # code shown in the post (e.g. a format example) is not a block
            i = _fence_end(lines, i, fence.group("fence")) or len(lines)
            continue
        if HEADER_RE.match(lines[i]) and (i == 0 or not lines[i - 1].strip()):
            i = _parse_block(parsed, i)
            continue
        i += 1
    return parsed


def _fence_end(lines: list[str], start: int, fence: str) -> int | None:
    """Index just past the fence closing the one opened at `start`, or None if it never closes."""
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
            return j + 1
    return None


def _parse_block(parsed: ParsedPost, start: int) -> int:
    lines = parsed.lines
    kind = HEADER_RE.match(lines[start]).group(1)
    line = parsed.first_line + start
    problems: list[Problem] = []

    def problem(offset: int, message: str, hint: str) -> None:
        problems.append(Problem(parsed.post, line + offset, f"{kind}: {message}", hint=hint))

    fields: dict[str, str] = {}
    i = start + 1
    while i < len(lines) and lines[i].strip():
        match = FIELD_RE.match(lines[i])
        if not match:
            problem(i - start, f"cannot read header line {lines[i]!r}", "write `Key: value`, one per line")
        elif match.group(1) in fields:
            problem(i - start, f"{match.group(1)} is given twice", "keep one")
        else:
            fields[match.group(1)] = match.group(2)
        i += 1
    _check_fields(kind, fields, problem)

    end, quote, quote_start = i, None, None
    j = i
    while j < len(lines) and not lines[j].strip():
        j += 1
    fence = FENCE_RE.match(lines[j]) if j < len(lines) else None
    if fence:
        close = _fence_end(lines, j, fence.group("fence"))
        lang = KEYS[kind]["lang"]
        if close is None:
            problem(j - start, "the fenced block never closes", f"close it with {fence.group('fence')}")
            end = len(lines)
        else:
            if fence.group("info") != lang:
                problem(
                    j - start,
                    f"the fenced block is `{fence.group('info') or '(no language)'}`, expected `{lang}`",
                    f"open the fence with ```{lang} and nothing else",
                )
            quote, quote_start, end = "\n".join(lines[j + 1 : close - 1]), j + 1, close
    if problems:
        parsed.problems.extend(problems)
    else:
        parsed.blocks.append(Block(kind, fields, quote, parsed.post, line, start, end, quote_start))
    return max(end, start + 1)


def _check_fields(kind: str, fields: dict[str, str], problem) -> None:
    spec = KEYS[kind]
    known = spec["required"] + spec["optional"]
    for key in fields:
        if key not in known:
            problem(0, f"unknown key {key!r}", f"{kind} takes {', '.join(known)}")
    for key in spec["required"]:
        if not fields.get(key):
            problem(0, f"{key} is missing or empty", f"add a `{key}: …` line to the header")
    path = fields.get("File", "")
    if path and (path.startswith("/") or "\\" in path or ".." in path.split("/")):
        problem(0, f"File {path!r} must be a relative POSIX path without '..'", "write it as in the repository")
    if kind != "REAL SOURCE" and path and not path.startswith("experiments/"):
        problem(0, f"File {path!r} is not under experiments/", "experiments live in experiments/")
    if "Commit" in fields and not SHA_RE.match(fields["Commit"]):
        problem(0, f"Commit {fields['Commit']!r} is not a full 40-hex SHA", "write the full commit, or omit it for the baseline")
    if "Repo" in fields and not REPO_RE.match(fields["Repo"]):
        problem(0, f"Repo {fields['Repo']!r} is not owner/name", "e.g. HIPS/autograd, or omit it for the baseline")
    if "Tolerance" in fields:
        try:
            if not float(fields["Tolerance"]) > 0:
                raise ValueError
        except ValueError:
            problem(0, f"Tolerance {fields['Tolerance']!r} is not a positive number", "e.g. Tolerance: 1e-7")
