"""What a post's prose says about it, as plain text: its first paragraph (the description and the overview's
excerpt) and how long it takes to read."""

from __future__ import annotations

import html
import re

from markdown import Markdown
from markdown.treeprocessors import Treeprocessor

from .markers import MARKER, skeleton

HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # CJK ideographs
WORD = re.compile(r"[A-Za-z0-9_]+")
# Reading speeds: Chinese characters and other words a minute.
HAN_PER_MINUTE, WORDS_PER_MINUTE = 400, 200


def first_paragraph(markdown: str) -> str:
    """The first prose paragraph as plain text: a page's description for search engines and feeds. Feeds
    publish it as HTML, unchecked, so it holds no markup characters and no block marker."""
    found = _FirstParagraph()
    parser = Markdown(extensions=["fenced_code", "tables", "attr_list", "md_in_html"])
    parser.treeprocessors.register(found, "series-first-paragraph", 0)  # after the inline patterns
    parser.convert(markdown)
    return found.text


class _FirstParagraph(Treeprocessor):
    """Keeps the text of the first top-level paragraph that is not a block's header."""

    text = ""

    def run(self, root):
        for paragraph in root.findall("p"):  # top level: one in a list, a quote or an admonition does not open a post
            text = re.sub("\x02[^\x03]*\x03", "", "".join(paragraph.itertext()))  # raw HTML, stashed: dropped
            text = html.unescape(text)  # code spans hold their text escaped
            text = " ".join(re.sub(r"[<>&]", "", text).split())
            if text and not re.search(MARKER, skeleton(text), re.I):
                self.text = text
                return


def reading_minutes(markdown: str) -> int:
    """Minutes to read the text, code included, at least one."""
    return max(1, round(len(HAN.findall(markdown)) / HAN_PER_MINUTE + len(WORD.findall(markdown)) / WORDS_PER_MINUTE))
