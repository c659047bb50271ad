"""Code in rendered HTML that words cite the source with: each inline <code> element (not a code block's, not a
link's text) and the text of `text` fences, with where it stands in the HTML, so that it can be replaced exactly.
Read with the standard library's HTML parser, which gives where each stands (entities kept as written); the page as
published is read again after the links are added (site.guard.linked_problems), and the titles of the sections come
from the HTML5 parser the guard reads with."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, replace
from html.parser import HTMLParser

from selectolax.lexbor import LexborHTMLParser

TEXT_FENCE = "language-text"  # the class pymdownx.highlight gives a ```text fence (pygments_lang_class)
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


@dataclass(frozen=True)
class InlineCode:
    """An inline code element: its content at html[start:end] (text, perhaps with <wbr>s, when `bare`), and its
    classes."""

    start: int
    end: int
    text: str  # as shown (entities read)
    classes: tuple[str, ...]
    bare: bool  # no element inside: its content is text alone
    section: tuple[str, str]  # (id, title) of the h2 or h3 it follows, ("", "") before any


@dataclass(frozen=True)
class FenceText:
    """A run of text in a `text` fence, html[start:end], entities not included."""

    start: int
    end: int
    section: tuple[str, str]


def read_code(page: str, skip: Callable[[str, dict], bool] = lambda tag, attrs: False
              ) -> tuple[list[InlineCode], list[FenceText]]:
    """The inline code and the `text` fences' text of an HTML page, in order; elements for which `skip(tag,
    attributes)` holds are passed over with all they hold."""
    reader = _Reader(page, skip)
    reader.feed(page)
    reader.close()
    # Each section's title as a browser reads it (an HTML5 parser: a heading Python's parser saw inside what is a
    # comment to a browser is no section, and a comment it ended early shows nothing), by the heading's id.
    titles = {node.attributes.get("id"): node.text().strip().rstrip("¶").strip()
              for node in LexborHTMLParser(page).css("h2[id], h3[id]")}
    shown = {("", ""): ("", "")}

    def section(found: tuple[str, str]) -> tuple[str, str]:
        return shown.setdefault(found, (found[0], titles[found[0]]) if found[0] in titles else ("", ""))

    return ([replace(code, section=section(code.section)) for code in reader.codes],
            [replace(fence, section=section(fence.section)) for fence in reader.fences])


class _Reader(HTMLParser):
    def __init__(self, page: str, skip):
        super().__init__(convert_charrefs=False)
        self._starts = [0]
        for n, char in enumerate(page):
            if char == "\n":
                self._starts.append(n + 1)
        self._skip = skip
        self.codes: list[InlineCode] = []
        self.fences: list[FenceText] = []
        self._open: list[tuple[str, bool]] = []  # open elements: (tag, whether it and what it holds are passed over)
        self._code: tuple[int, tuple[str, ...], list[str], bool] | None = None  # open inline code
        self._fence = 0  # depth of open `text` fence elements
        self._heading: list | None = None  # (id, text so far) of an open h2/h3
        self._section = ("", "")

    def _at(self) -> int:
        line, column = self.getpos()
        return self._starts[line - 1] + column

    def _hidden(self) -> bool:
        return any(hidden for _, hidden in self._open)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in ("h2", "h3"):
            self._heading = [attributes.get("id") or "", []]
        if self._code is not None and tag != "wbr":  # an element inside inline code: its content is not text alone
            self._code = (*self._code[:3], False)  # (a line-break chance, which phone tables add, leaves it text)
        if tag in VOID:
            return
        classes = (attributes.get("class") or "").split()
        hidden = self._hidden() or self._skip(tag, attributes) or tag in ("a", "script", "style") \
            or (tag == "pre" and not self._fence)
        if tag == "div" and TEXT_FENCE in classes and not self._hidden():
            hidden, self._fence = False, len(self._open) + 1
        self._open.append((tag, hidden))
        if tag == "code" and not hidden and not self._fence and self._code is None:
            self._code = (self._at() + len(self.get_starttag_text()), tuple(classes), [], True)

    def handle_endtag(self, tag):
        if tag in ("h2", "h3") and self._heading is not None:
            self._section = (self._heading[0], "".join(self._heading[1]).strip().rstrip("¶").strip())
            self._heading = None
        if tag == "code" and self._code is not None and self._open and self._open[-1][0] == "code":
            start, classes, text, bare = self._code
            self.codes.append(InlineCode(start, self._at(), "".join(text), classes, bare, self._section))
            self._code = None
        for n in range(len(self._open) - 1, -1, -1):  # close it, and what it left open
            if self._open[n][0] == tag:
                del self._open[n:]
                break
        if self._fence > len(self._open):
            self._fence = 0

    def handle_data(self, data):
        if self._heading is not None and not any(tag == "a" for tag, _ in self._open[-1:]):
            self._heading[1].append(data)
        if self._code is not None:
            self._code[2].append(data)
        elif self._fence and not self._hidden():
            start = self._at()
            self.fences.append(FenceText(start, start + len(data), self._section))

    def handle_entityref(self, name):
        self._text(f"&{name};")

    def handle_charref(self, name):
        self._text(f"&#{name};")

    def _text(self, written: str) -> None:
        if self._heading is not None:
            self._heading[1].append(html.unescape(written))
        if self._code is not None:
            self._code[2].append(html.unescape(written))
