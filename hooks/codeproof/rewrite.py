"""`update`: write repaired quotes and outputs back into a post, touching nothing else."""

from __future__ import annotations

import difflib
from pathlib import Path

from .blocks import KEYS, ParsedPost
from .sources import write_atomically
from .verify import Checked


def rewrite_post(path: Path, parsed: ParsedPost, repairs: list[Checked]) -> str:
    """Apply the repairs to the file at `path`; return a unified diff of what changed ('' if nothing)."""
    raw = path.read_text(encoding="utf-8")
    head = raw[: len(raw) - len("\n".join(parsed.lines))]  # the front matter, byte for byte
    lines = list(parsed.lines)
    for checked in sorted(repairs, key=lambda c: c.block.start, reverse=True):
        block, new = checked.block, checked.repair.split("\n")
        if block.quote is None:  # no fenced block yet: add one after the header paragraph
            fence = "```"
            lines[block.end : block.end] = ["", fence + KEYS[block.kind]["lang"], *new, fence]
        else:
            old_len = len(block.quote.split("\n"))
            lines[block.quote_start : block.quote_start + old_len] = new
    updated = head + "\n".join(lines)
    if updated == raw:
        return ""
    write_atomically(path, updated.encode("utf-8"))
    return "".join(difflib.unified_diff(raw.splitlines(True), updated.splitlines(True), str(path), str(path)))
