"""What a post's prose says about it, as plain text: its first paragraph (the description and the overview's
excerpt) and how long it takes to read."""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.treeprocessors import Treeprocessor

from codeproof.common.markers import names_marker

HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # CJK ideographs
WORD = re.compile(r"[A-Za-z0-9_]+")
# Reading speeds: Chinese characters and other words a minute.
HAN_PER_MINUTE, WORDS_PER_MINUTE = 400, 200


@functools.lru_cache(maxsize=64)
def first_paragraph(markdown: str) -> str:
    """The first prose paragraph as plain text: a page's description for search engines and feeds. Feeds
    publish it as HTML, unchecked, so it holds no markup characters and no block marker. (Kept per text: a
    rebuild asks again for the pages that did not change.)"""
    parser = Markdown(extensions=["fenced_code", "tables", "attr_list", "md_in_html"])
    found = _FirstParagraph(parser)
    parser.treeprocessors.register(found, "series-first-paragraph", 100)  # first: it runs the others itself
    parser.convert(markdown)
    return found.text


class _FirstParagraph(Treeprocessor):
    """Keeps the text of the first top-level paragraph that is not a block's header. The tree processors that
    follow it (the inline patterns, attr_list, unescaping) are given one paragraph at a time, in order, until
    that one; then the page is emptied, as the rest of it cannot change that text (most of a conversion's time
    is the inline patterns of every paragraph)."""

    text = ""

    def run(self, root):
        later = [processor for processor in self.md.treeprocessors if processor is not self]  # in their order
        for paragraph in root.findall("p"):  # top level: one in a list, a quote or an admonition does not open a post
            alone = etree.Element("div")
            alone.append(paragraph)
            for processor in later:
                alone = processor.run(alone) or alone  # a tree processor may return a new tree
            text = re.sub("\x02[^\x03]*\x03", "", "".join(alone[0].itertext()))  # raw HTML, stashed: dropped
            text = html.unescape(text)  # code spans hold their text escaped
            text = " ".join(re.sub(r"[<>&]", "", text).split())
            if text and not names_marker(text):
                self.text = text
                break
        root.clear()


def reading_minutes(markdown: str) -> int:
    """Minutes to read the text, code included, at least one."""
    return max(1, round(len(HAN.findall(markdown)) / HAN_PER_MINUTE + len(WORD.findall(markdown)) / WORDS_PER_MINUTE))
