"""`update`: write repaired quotes, outputs and figures' digests back into a post, touching nothing else.

The post keeps its byte order mark, line endings and file mode; a fence is lengthened only when
the new text holds a run of backticks that would close it."""

from __future__ import annotations

import codecs
import difflib
from pathlib import Path

from codeproof.series.blocks import FENCE_RE
from codeproof.common.filesystem import write_atomically
from codeproof.common.fences import fence_for
from codeproof.common.structure import Checked, ParsedPost


def rewrite_post(path: Path, parsed: ParsedPost, repairs: list[Checked]) -> str:
    """Apply the repairs to the file at `path`; return a unified diff of what changed ('' if nothing)."""
    data, diff = rewritten_post(path, parsed, repairs)
    if diff:
        write_atomically(path, data)
    return diff


def rewritten_post(path: Path, parsed: ParsedPost, repairs: list[Checked]) -> tuple[bytes, str]:
    """The bytes of the file at `path` with the repairs applied, and a unified diff of the change ('' if none)."""
    data = path.read_bytes()
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    raw = data[len(bom):].decode("utf-8")
    crlf = raw.count("\r\n")
    endings = {"\r\n": crlf, "\r": raw.count("\r") - crlf, "\n": raw.count("\n") - crlf}
    newline = max(endings, key=endings.get)  # the post's own line endings (the most used, if they are mixed)
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    head = text[: len(text) - len("\n".join(parsed.lines))]  # the front matter, byte for byte
    lines = list(parsed.lines)
    for checked in sorted(repairs, key=lambda c: c.block.start, reverse=True):
        block, new = checked.block, checked.repair.split("\n")
        key = block.kind.record_key
        if key:  # its record is a header line (a figure's: the digest of what the run drew)
            at = next(n for n in range(block.start, block.end) if lines[n].startswith(f"{key}:"))
            lines[at] = f"{key}: {checked.repair}"
            continue
        lang = block.kind.lang
        if block.quote is None:  # no fenced block yet: add one after the header paragraph
            ticks = fence_for(checked.repair)
            lines[block.end : block.end] = ["", ticks + lang, *new, ticks]
            continue
        opening, old_len = block.quote_start - 1, len(block.quote.split("\n"))
        fence = FENCE_RE.match(lines[opening]).group("fence")
        safe = fence_for(checked.repair, fence[0])
        if len(fence) < len(safe):  # the new text would close the fence: lengthen it
            lines[opening], lines[block.quote_start + old_len] = safe + lang, safe
        lines[block.quote_start : block.quote_start + old_len] = new
    updated = head + "\n".join(lines)
    if updated == text:
        return data, ""
    return (bom + updated.replace("\n", newline).encode("utf-8"),
            "".join(difflib.unified_diff(text.splitlines(True), updated.splitlines(True), str(path), str(path))))
