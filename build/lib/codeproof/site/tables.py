"""A Python-Markdown extension for tables that read on a phone.

Each body cell carries its column's header as `data-label`, so a narrow screen can show a row as a card of
labelled cells (the site's style sheet does); code in a cell may break only after `/`, `.` or `::` (a `<wbr>`),
so an identifier is never split inside a word."""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Extension
from markdown.treeprocessors import Treeprocessor
from markdown.util import STX, ETX, AtomicString

BREAK_AFTER = re.compile(r"(?<=/)|(?<=\.)(?=[^.])|(?<=::)")
STASHED = re.compile(f"{STX}[^{ETX}]*{ETX}")  # what Markdown keeps aside (raw HTML) until it serialises


class _TableCells(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        for table in root.iter("table"):
            head = table.find("thead/tr")
            labels = [STASHED.sub("", "".join(th.itertext())).strip() for th in head] if head is not None else []
            for row in table.iterfind("tbody/tr"):
                for label, cell in zip(labels, row):
                    if label:
                        cell.set("data-label", label)
            for code in table.iter("code"):
                _break_points(code)


def _break_points(code: etree.Element) -> None:
    if len(code) or not code.text:  # code spans hold text only; anything else is left as it is
        return
    first, *rest = BREAK_AFTER.split(code.text)
    code.text = AtomicString(first)
    for part in rest:
        etree.SubElement(code, "wbr").tail = AtomicString(part)


class TableCells(Extension):
    def extendMarkdown(self, md) -> None:
        md.treeprocessors.register(_TableCells(md), "codeproof-table-cells", 1)  # after inline (20)
