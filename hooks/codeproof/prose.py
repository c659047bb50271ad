"""What a post's prose says about it, as plain text: its first paragraph (the description and the overview's
excerpt) and how long it takes to read."""

from __future__ import annotations

import re

from .markers import MARKER, skeleton

HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # CJK ideographs
WORD = re.compile(r"[A-Za-z0-9_]+")
# Reading speeds: Chinese characters and other words a minute.
HAN_PER_MINUTE, WORDS_PER_MINUTE = 400, 200


def first_paragraph(markdown: str) -> str:
    """The first prose paragraph as plain text: a page's description for search engines and feeds. Feeds
    publish it as HTML, unchecked, so it holds no markup characters and no block marker."""
    for paragraph in re.split(r"\n\s*\n", markdown):
        text = paragraph.strip("\n")
        if text.strip() and not text.startswith((" ", "\t", "#", "<", "[", "|", "`", "~", "-", ">", "!")):
            text = re.sub(r"`([^`]*)`", r"\1", text)
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            text = " ".join(re.sub(r"[<>&]", "", text).split())
            return "" if re.search(MARKER, skeleton(text), re.I) else text
    return ""


def reading_minutes(markdown: str) -> int:
    """Minutes to read the text, code included, at least one."""
    return max(1, round(len(HAN.findall(markdown)) / HAN_PER_MINUTE + len(WORD.findall(markdown)) / WORDS_PER_MINUTE))
