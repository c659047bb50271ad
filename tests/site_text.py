"""Reading built pages as a reader would: visible text, links, headings (stdlib html.parser)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path


class Page(HTMLParser):
    """The article of a built page: its text (without permalink marks), links and headings."""

    def __init__(self, html: str):
        super().__init__()
        self.html = html
        self.text_parts: list[str] = []
        self.links: list[str] = []
        self.headings: list[str] = []
        self._depth = 0  # inside <article>
        self._skip = 0  # inside a headerlink
        self._heading: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article":
            self._depth += 1
        if not self._depth:
            return
        if tag == "a":
            if "headerlink" in (attrs.get("class") or ""):
                self._skip += 1
            if attrs.get("href"):
                self.links.append(attrs["href"])
        if tag in ("h1", "h2", "h3"):
            self._heading = []
        if tag in ("p", "li", "td", "th", "tr", "br", "div", "pre", "dd", "dt", "h1", "h2", "h3"):
            self.text_parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "article":
            self._depth -= 1
        if tag == "a" and self._skip:
            self._skip -= 1
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None
        if tag in ("p", "li", "td", "th", "pre", "dd", "dt", "h1", "h2", "h3"):
            self.text_parts.append("\n")

    def handle_data(self, data):
        if self._depth and not self._skip:
            self.text_parts.append(data)
            if self._heading is not None:
                self._heading.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def folded(self) -> str:
        return fold(self.text)


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def read_page(site_dir: Path, url: str) -> Page:
    return Page((site_dir / url / "index.html").read_text(encoding="utf-8"))
