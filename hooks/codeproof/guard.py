"""The last check of a rendered page, which does not trust the parser.

The engine seals every card and error box it renders with a secret made anew for each build (an
attribute the guard removes once it has checked the page), so nothing an author writes can pass for
one. On the rendered page:

- an element with a `proof-…` class outside a sealed card or box is a forgery;
- nothing may change what a page shows beyond its Markdown: no script, style sheet, inline style
  (but the text alignment Markdown tables write), event handler, hidden text, frame, form or SVG;
- the page must hold exactly as many sealed cards as the engine verified blocks;
- a block marker (however written: see blocks.skeleton) anywhere in the page's text outside a sealed
  card or box, inline code, and the code of a highlighted Markdown example (a fence that says
  `markdown`), means a block escaped verification. Prose that mentions a marker writes it as code.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .blocks import MARKER, kind_named, skeleton
from .problems import Problem
from .render import SEAL_ATTRIBUTE, seal_attribute

SEALED_PREFIX = "proof-"  # the classes of what only the engine renders: proof-card…, proof-error…
CARD_CLASS = "proof-card"
EXAMPLE_CLASSES = {"language-markdown", "language-md"}  # set by pymdownx.highlight's pygments_lang_class
ANY_MARKER_RE = re.compile(MARKER, re.I)
# Elements that run code, restyle or hide the page, or show what the Markdown does not.
FORBIDDEN_TAGS = {"script", "style", "link", "meta", "base", "iframe", "frame", "frameset", "object", "embed",
                  "applet", "template", "noscript", "svg", "math", "form", "input", "textarea", "select",
                  "button", "canvas", "dialog", "portal"}
TABLE_ALIGN_RE = re.compile(r"text-align:\s*(left|right|center);?")  # what Markdown tables write
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Page(HTMLParser):
    """The page's visible text outside exempt regions, its sealed cards, and what it must not hold."""

    def __init__(self, seal: str):
        super().__init__(convert_charrefs=True)
        self.seal = seal
        self.open: list[tuple[str, set[str], bool]] = []  # (tag, classes, sealed) of the elements we are in
        self.cards = 0
        self.refused: list[str] = []  # what the page must not hold, described
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        # Every class attribute counts: a browser styles by the first, an attacker may add a second.
        classes = {c for name, value in attrs if name == "class" and value for c in value.split()}
        sealed = any(name == SEAL_ATTRIBUTE and value == self.seal for name, value in attrs)
        engine_made = sealed and any(c.startswith(SEALED_PREFIX) for c in classes)
        inside_sealed = any(s for _, _, s in self.open)
        if any(c.startswith(SEALED_PREFIX) for c in classes) and not (engine_made or inside_sealed):
            self.refused.append(f"a hand-written {' '.join(sorted(c for c in classes if c.startswith(SEALED_PREFIX)))} "
                                "element: only the build renders verified cards")
        elif engine_made and CARD_CLASS in classes:
            self.cards += 1
        if tag in FORBIDDEN_TAGS:
            self.refused.append(f"a <{tag}> element: a post is Markdown, which never needs one")
        for name, value in attrs:
            value = value or ""
            if (name.startswith("on") or name == "hidden"
                    or name == "style" and not TABLE_ALIGN_RE.fullmatch(value.strip())
                    or name in ("href", "src", "action") and value.strip().lower().startswith(("javascript:", "vbscript:"))):
                self.refused.append(f"a {name}={value[:40]!r} attribute on <{tag}>: it would change what the page shows")
        if tag not in VOID:
            self.open.append((tag, classes, engine_made or inside_sealed))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        for index in range(len(self.open) - 1, -1, -1):  # close up to the matching element
            if self.open[index][0] == tag:
                del self.open[index:]
                break

    def handle_data(self, data):
        if not self._exempt():
            self.text.append(data)

    def _exempt(self) -> bool:
        if any(sealed for _, _, sealed in self.open):
            return True
        tags = [tag for tag, _, _ in self.open]
        if "code" in tags and "pre" not in tags:  # inline code: how prose mentions a marker
            return True
        # The code of a highlighted Markdown example: the innermost highlight block says markdown.
        highlight = next((classes for _, classes, _ in reversed(self.open) if "highlight" in classes), set())
        return "code" in tags and bool(highlight & EXAMPLE_CLASSES)


# Files under docs/ that MkDocs publishes as they are: these could show or run anything, unchecked.
UNCHECKED_SUFFIXES = (".html", ".htm", ".xhtml", ".js", ".mjs", ".svg")


def unchecked_files(paths: list[str]) -> list[Problem]:
    """A problem for each file (a path from the repository root) that would be published unchecked."""
    return [Problem(path, 1, "would be published as it is, unchecked: a page or script outside the posts' Markdown",
                    hint="write it as a Markdown page, or remove it from docs/")
            for path in paths if path.lower().endswith(UNCHECKED_SUFFIXES)]


def unseal(html: str, seal: str) -> str:
    """The page as published: the seal has done its work and is not part of the site."""
    return html.replace(" " + seal_attribute(seal), "")


def check_page(html: str, post: str, source_lines: list[str], first_line: int, proved_cards: int,
               seal: str, accounted: set[int]) -> list[Problem]:
    """Problems of a rendered page. `source_lines` (the Markdown the page came from, starting at file
    line `first_line`) locate a marker; `accounted` are file lines whose problems are already known."""
    page = _Page(seal)
    page.feed(html)
    page.close()
    problems = [Problem(post, first_line, f"the page holds {what}",
                        hint="remove it from the post: a post is Markdown, and only the build renders cards")
                for what in dict.fromkeys(page.refused)]
    # A marker split by tags (`[OUT<b></b>PUT]`) still reads as one, wherever it stands in a line.
    text = skeleton("".join(page.text))
    candidates = [first_line + i for i, src in enumerate(source_lines)
                  if first_line + i not in accounted and ANY_MARKER_RE.search(skeleton(src))]
    for match in ANY_MARKER_RE.finditer(text):
        kind = kind_named(match.group(1))
        line = next((n for n in candidates if _kinds(source_lines[n - first_line]) & {kind}), first_line)
        problems.append(Problem(
            post, line, f"the rendered page shows {match.group(0)!r} outside a verified card: a [{kind}] block was "
            "published without being verified, or the text names a marker outside inline code",
            hint=f"write a block as the authoring guide shows (`[{kind}]` alone at the start of a line, at the top "
                 "level); mention a marker in prose as inline code; fence an example of the format with ```markdown",
        ))
    if page.cards != proved_cards:
        problems.append(Problem(
            post, first_line, f"the rendered page has {page.cards} verified cards, but {proved_cards} blocks were verified",
            hint="a block was lost in rendering: check the Markdown around the blocks (unclosed HTML, a stray fence)",
        ))
    return problems


def _kinds(line: str) -> set[str]:
    return {kind_named(m.group(1)) for m in ANY_MARKER_RE.finditer(skeleton(line))}
