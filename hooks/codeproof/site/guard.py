"""The last check of a rendered page, which does not trust the parser.

The engine seals every card and error box it renders with a secret made anew for each build (an
attribute the guard removes once it has checked the page), so nothing an author writes can pass for
one. The page is read as a browser reads it (Lexbor, through selectolax: the WHATWG parsing algorithm,
so comments, CDATA and broken markup end where a browser ends them), and:

- an element with a `proof-…` class outside a sealed card or box is a forgery;
- nothing may change what a page shows beyond its Markdown: only the elements and attributes Markdown
  writes (no script, style sheet, event handler, hidden text, frame, form, SVG), no inline style but
  the text alignment Markdown tables write, no class of the theme or the site; no
  `javascript:`, `vbscript:` or `data:` address, and no media loaded from another host (it could
  change after the build); no bidirectional control character (it can make text read as another);
- the page must hold exactly as many sealed cards as the engine verified blocks;
- a block marker (however written: see codeproof.common.markers.skeleton) in the page's text or in the text attributes a
  reader sees (alt, title...), outside a sealed card or box, a single inline code span, and the code of
  a highlighted Markdown example (a fence that says `markdown`), means a block escaped verification.
  Prose that mentions a marker writes it as inline code.
"""

from __future__ import annotations

import bisect
import functools
import html
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from codeproof.series.spans import PLAIN
from codeproof.common.markers import BIDI_RE, MARKER, card_face, kind_named, line_showing, plain_text, skeleton, titles_a_card
from codeproof.common.filesystem import shown_path, unpublishable
from codeproof.site.render import SEAL_ATTRIBUTE
from codeproof.common.kinds.base import Kind
from codeproof.common.kinds.registry import CARD_CLASS, CARD_CLASSES, BlockKind, header_kind
from codeproof.common.structure import Problem
from codeproof.experiments.figures import shown_drawing_problems

KINDS = {kind.name for kind in BlockKind}
LABELS = {"p", "strong", "b", "em", "span", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
TITLES = HEADINGS | {"caption", "figcaption"}  # (and boxes' titles) what may head a code block
# What a browser re-opens after a block closes (the HTML standard's formatting elements, and a link): one left
# open before a card wraps it (struck through, hidden small, or a link elsewhere), or wraps the rest of the page.
FORMATTING = {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"}
SENTINEL = '<p id="codeproof-guard-sentinel-{}">x</p>'
BREAK = "\x1e"  # between the texts of two blocks (and around an exempt one): they are never read as one
BLOCK_TAGS = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "tr",
              "td", "th", "caption", "figure", "figcaption", "details", "summary", "hr", "dl", "dt", "dd"}

SEALED_PREFIX = "proof-"  # the classes of what only the engine renders: proof-card…, proof-error…
DRAWING_KINDS = {kind for kind in BlockKind if kind.draws}  # their cards hold a run's drawing
DRAWING_CLASSES = {CARD_CLASSES[kind] for kind in DRAWING_KINDS}
EXAMPLE_CLASSES = {"language-markdown", "language-md"}  # set by pymdownx.highlight's pygments_lang_class
ANY_MARKER_RE = re.compile(MARKER, re.I)
# What Markdown and the site's extensions write (and the parser's own html, head, body): any other element
# could run code, restyle or hide the page, hide its own text (rp, title...) or reorder it (bdo).
ALLOWED_TAGS = {"html", "head", "body", "p", "div", "span", "a", "code", "pre", "em", "strong", "b", "i", "u", "s",
                "del", "ins", "mark", "kbd", "samp", "var", "cite", "sub", "sup", "small", "abbr", "time",
                "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br", "blockquote", "ul", "ol", "li",
                "table", "caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "th", "td", "img",
                "details", "summary", "figure", "figcaption", "wbr"}
# Likewise the attributes (values checked below); the seal is the engine's own.
ALLOWED_ATTRIBUTES = {"class", "id", "name", "href", "src", "alt", "title", "style", "colspan", "rowspan", "span",
                      "start", "reversed", "type", "open", "width", "height", "loading", "datetime", "lang",
                      "download", "rel", "target", "aria-label", "aria-hidden", "role", "data-label", SEAL_ATTRIBUTE}
# The classes the site's Markdown extensions write: Pygments' short token classes, the highlighter's, the
# table of contents' permalinks, admonitions and details of the usual types, and the author's mark that keeps a
# code span text (`grad`{.plain}, which nothing styles). Any other class could be one the theme or the site
# styles, to hide text (`tabbed-block`), draw some (`[data-linenos]`) or imitate a part.
ALLOWED_CLASS_RE = re.compile(
    r"[a-z]{1,3}[0-9]?(-[A-Z][A-Za-z]*)*|highlight|language-[a-z0-9+#-]+|headerlink|admonition(-title)?|"
    r"note|abstract|summary|tldr|info|todo|tip|hint|important|success|check|done|question|help|faq|warning|"
    rf"caution|attention|failure|fail|missing|danger|error|bug|example|quote|cite|{PLAIN}")
TABLE_ALIGN_RE = re.compile(r"text-align:\s*(left|right|center);?")  # what Markdown tables write
URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "poster", "data", "xlink:href", "background",
                  "cite", "ping"}
LOADED_ATTRIBUTES = {"src", "srcset", "poster", "data", "background"}  # fetched as the page loads
# Text a reader may see (data-label: a table cell's column on a phone, drawn by the style sheet).
SHOWN_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder", "value", "label", "data-label")
URL_NOISE = re.compile(r"[\x00-\x20]")  # browsers drop tabs and newlines anywhere, controls around
NOT_WORDS_RE = re.compile(r"[\W_]+")  # between the words of a label


@dataclass
class _Reading:
    """What the guard gathers from one page."""

    cards: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)  # (what, a snippet to find its line by)
    figure_cards: int = 0
    # What a figure card's drawing holds that no figure may: (the card's place among the page's figure cards, what).
    figures: list[tuple[int, str]] = field(default_factory=list)
    # Text a reader sees outside exempt regions, in skeleton form: (text, id of its inline code span or None), as
    # the page reads with its images shown, and as it reads with each image's alt text in its place (an image that
    # does not load, or has no size).
    segments: list[tuple[str, int | None]] = field(default_factory=list)
    with_alt: list[tuple[str, int | None]] = field(default_factory=list)
    # Each text attribute a reader may see (a tooltip, a cell's label), read alone: it is shown apart from the text
    # around its element, so it neither splits that text nor joins it.
    attributes: list[list[tuple[str, int | None]]] = field(default_factory=list)

    def flow(self, text: str, code: int | None = None) -> None:
        self.segments.append((text, code))
        self.with_alt.append((text, code))


def _read(html: str, seal: str) -> _Reading:
    reading = _Reading()
    # (node, sealed, example, inline code id): walked without recursion, as pages may nest deeply. From the
    # root: a parser moves a leading <style> or <meta> into <head>.
    pending = [(LexborHTMLParser(html).root, False, False, None)]
    while pending:
        node, sealed, example, code = pending.pop()
        tag = node.tag
        if tag == "-text":
            _text(reading, node.text_content, sealed, example, code)
            continue
        if tag.startswith("-"):  # a comment or a doctype, which nobody sees
            continue
        sealed, example, code = _open(reading, node, seal, sealed, example, code)
        if tag in BLOCK_TAGS:  # a reader sees a new block here; a line break inside a paragraph is a space
            reading.flow(BREAK)
            if not sealed and node.attributes.get("data-label"):  # on a phone, drawn on the line above the cell's text
                reading.flow(skeleton(node.attributes["data-label"]) + "\n")
        elif tag == "br":  # a line break in a paragraph: what it splits still reads on (a face over two lines)
            reading.flow("\n")
        if sealed:  # what the engine rendered holds verified text only: nothing in it to check
            continue
        children, child = [], node.child
        while child is not None:
            children.append(child)
            child = child.next
        pending += [(child, sealed, example, code) for child in reversed(children)]
    return reading


def _open(reading: _Reading, node, seal: str, sealed: bool, example: bool, code: int | None):
    tag, attrs = node.tag, {name: value or "" for name, value in node.attributes.items()}
    classes = set(attrs["class"].split()) if "class" in attrs else set()
    own = {c for c in classes if c.startswith(SEALED_PREFIX)}
    if own and not sealed:
        if attrs.get(SEAL_ATTRIBUTE) == seal:
            sealed = True
            reading.cards += CARD_CLASS in classes
            if DRAWING_CLASSES & classes:  # a drawing inside: the engine's, checked all the same
                images = [image.attributes.get("src") or "" for image in node.css("img")]
                drawn = [(element.tag, dict(element.attributes)) for svg in node.css("svg") for element in
                         (svg, *svg.css("*"))]
                text = " ".join(svg.text(deep=True) for svg in node.css("svg"))
                reading.figures += [(reading.figure_cards, what) for what in shown_drawing_problems(images, drawn, text)]
                reading.figure_cards += 1
        else:
            reading.refused.append((f"a hand-written {' '.join(sorted(own))} element: only the build renders "
                                    "verified cards", "proof-"))
    if sealed:
        return sealed, example, code
    if tag not in ALLOWED_TAGS:
        reading.refused.append((f"a <{tag}> element: a post is Markdown, which never needs one", f"<{tag}"))
    foreign = sorted(c for c in classes if not ALLOWED_CLASS_RE.fullmatch(c))
    if foreign:
        reading.refused.append((f"the class {foreign[0]!r}: Markdown does not write it, and the theme or the site "
                                "could use it to hide, draw or imitate a part of the page", foreign[0]))
    for name, value in attrs.items():
        # As a browser parses it (WHATWG URL): noise dropped, and a backslash is a slash (\\host is //host).
        url = URL_NOISE.sub("", value).replace("\\", "/").lower() if name in URL_ATTRIBUTES else ""
        if (name not in ALLOWED_ATTRIBUTES
                or name == "style" and not TABLE_ALIGN_RE.fullmatch(value.strip())
                or name in URL_ATTRIBUTES and url.startswith(("javascript:", "vbscript:", "data:"))
                or name in LOADED_ATTRIBUTES and re.search(r"(^|[\s,])(//|[a-z][a-z0-9+.-]*:)", url)):
            reading.refused.append((f"a {name}={value[:40]!r} attribute on <{tag}>: it would change what the "
                                    "page shows", f"{name}="))
    for name in SHOWN_ATTRIBUTES:
        if attrs.get(name):
            _shown_attribute(reading, tag, name, attrs[name], sealed)
    # The theme hides these: the permalink of a heading (its text is ¶) and the line anchors in code.
    if "headerlink" in classes or tag == "a" and "id" in attrs and code is not None:
        text = node.text(deep=True).strip()
        if text not in ("", "¶"):
            reading.refused.append((f"text the theme hides ({text[:20]!r} in <{tag}>): a reader does not see it, so "
                                    "it could split what a reader sees", text[:20]))
    # A card's label, unbracketed: a box (admonition, details) whose title names a block's kind, or a
    # heading, paragraph or bold text that is nothing but one. It would pass for a verified card.
    # (Bracketed, it is a marker, reported as such; in code, it is code.)
    boxed = "admonition-title" in classes or tag == "summary"
    titled = boxed or tag in TITLES
    text = skeleton(node.text(deep=True)) if code is None and (titled or tag in LABELS) else ""
    words = NOT_WORDS_RE.sub(" ", text).strip().upper() if text else ""
    if words and not ANY_MARKER_RE.search(text) and (
            boxed and any(kind in words for kind in KINDS) or titled and titles_a_card(text)
            or tag in LABELS and words in KINDS):
        reading.refused.append((f"a <{tag}> reading {words[:40]!r}: a card's label outside a card would pass for "
                                "a verified one", words[:20]))
    if "highlight" in classes:  # a highlighted block: its code is an example when it says markdown
        example = bool(classes & EXAMPLE_CLASSES)
    if tag == "code" and code is None:
        code = node.mem_id
    if tag == "pre" or tag in HEADINGS:
        # Code inside pre is a block, not an inline span; a heading's is shown plain by the table of contents and
        # the page's title: never exempt by itself.
        code = -1
    return sealed, example, code


def _shown_attribute(reading: _Reading, tag: str, name: str, value: str, sealed: bool) -> None:
    """Text a reader sees from an attribute (a tooltip; a table cell's label, drawn above it on a phone) is read
    like the page's text, alone, and may not be a card's label: nothing but a block's kind, or for a drawn label,
    any text naming one. An image's alt text also stands in the page's text where the image is not shown."""
    shown = skeleton(value)
    reading.attributes.append([(shown, None)])
    if tag == "img" and name == "alt":
        reading.with_alt.append((shown, None))
    if sealed:
        return
    bidi = BIDI_RE.search(value)
    if bidi:
        reading.refused.append((f"a bidirectional control character (U+{ord(bidi.group()):04X}) in the {name} of "
                                f"<{tag}>: it can make text read as something else", f"{name}="))
    words = re.sub(r"[\W_]+", " ", shown).strip().upper()
    if words and not ANY_MARKER_RE.search(shown) and (
            words in KINDS or name == "data-label" and any(kind in words for kind in KINDS)):
        reading.refused.append((f"a {name} reading {words[:40]!r} on <{tag}>: a card's label outside a card would "
                                "pass for a verified one", f"{name}="))


def _text(reading: _Reading, text: str | None, sealed: bool, example: bool, code: int | None) -> None:
    if not text:
        return
    bidi = BIDI_RE.search(text)
    if bidi and not sealed:
        reading.refused.append((f"a bidirectional control character (U+{ord(bidi.group()):04X}): it can make text "
                                "read as something else", bidi.group()))
    if sealed or (example and code == -1):
        reading.flow(BREAK)  # exempt: shown as written, and never joined to its neighbours
        return
    shown = skeleton(text)  # once per text: every text of every page comes here
    reading.flow(shown, code if code != -1 else None)


def unseal(html: str, seal: str) -> str:
    """The page as published: the seal has done its work and is not part of the site."""
    return html.replace(f' {SEAL_ATTRIBUTE}="{seal}"', "")


# What docs/ may hold besides Markdown: MkDocs publishes other files as they are, and a browser may render
# or run them (.html, .shtml, .xml, .js, .svg...) or restyle every page with them (.css: the site's style
# sheet is code, in overrides/), unchecked.
PUBLISHED_AS_IS = (".md", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2")


def docs_problems(docs: Path, root: Path) -> list[Problem]:
    """What in the docs folder MkDocs would publish unchecked, or could not even walk: links (a link can
    copy any file of the machine into the site, and a loop hangs the walk), hard links, special files,
    names that are not UTF-8, and files other than Markdown pages, images and fonts."""
    problems = []
    for folder, subfolders, names in os.walk(docs):  # never follows links
        for name in sorted(subfolders + names):
            path = Path(folder) / name
            shown, info = shown_path(path, root), path.lstat()
            refused = unpublishable(path, info)
            if refused:
                problems.append(Problem(shown, 1, refused[0], hint=refused[1]))
            elif stat.S_ISDIR(info.st_mode):
                continue
            elif not name.lower().endswith(PUBLISHED_AS_IS):
                problems.append(Problem(shown, 1, "would be published as it is, unchecked: docs/ holds Markdown "
                                                  "pages, images and fonts only",
                                        hint="write it as a Markdown page, or remove it from docs/"))
        subfolders[:] = [d for d in subfolders if not (Path(folder) / d).is_symlink()]
    return problems


def check_titles(titles: list[str], where: str, read_lines: Callable[[], list[str]]) -> list[Problem]:
    """Titles the theme prints as HTML on every page, outside any page's content (the nav): plain text, as
    front matter titles are, so no markup character (`<!--` alone would hide every page) and no marker.
    A problem is at the first line of `where` (whose lines `read_lines` reads, only if a title fails) that
    holds the title."""
    unfit = [title for title in titles if not plain_text(title)]
    lines = read_lines() if unfit else []
    return [Problem(where, next((n for n, text in enumerate(lines, 1) if title in text), 1),
                    f"the nav title {title!r} holds markup characters (<, > or &) or names a block marker, and the "
                    "theme prints it as HTML on every page", hint="write the titles of the nav as plain text")
            for title in unfit]


def check_page(html: str, post: str, source_lines: list[str], first_line: int, proved_cards: int,
               seal: str, accounted: set[int]) -> list[Problem]:
    """Problems of a rendered page. `source_lines` (the Markdown the page came from, starting at file
    line `first_line`) locate them; `accounted` are file lines whose problems are already known.

    A page rendered again unchanged (serve rebuilds every page on every save) gets the verdict it got: the
    verdict is a function of the page with its seal in place, and the seal is a secret made anew for each build,
    so the page is named with the seal replaced by this process's own secret, which no page can hold."""
    key = (html.replace(seal, _PROCESS_SECRET), post, tuple(source_lines), first_line, proved_cards,
           tuple(sorted(accounted)))
    if key not in _VERDICTS:
        if len(_VERDICTS) >= KEPT_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = _check_page(html, post, source_lines, first_line, proved_cards, seal, accounted)
    return list(_VERDICTS[key])


_PROCESS_SECRET = secrets.token_hex(16)
_VERDICTS: dict[tuple, list[Problem]] = {}
KEPT_VERDICTS = 256


def _check_page(html: str, post: str, source_lines: list[str], first_line: int, proved_cards: int,
                seal: str, accounted: set[int]) -> list[Problem]:
    reading = _read(html, seal)
    lines = _Locator(source_lines, first_line, accounted)
    problems = [Problem(post, lines.containing(snippet), f"the page holds {what}",
                        hint="remove it from the post: a post is Markdown, and only the build renders cards")
                for what, snippet in dict.fromkeys(reading.refused)]
    # The page's drawing cards are its blocks of the kinds that draw, in order (one that failed has a box, not a
    # card, and shifts the count: the build fails on its own problem then).
    figure_lines = [first_line + n for n, text in enumerate(source_lines) if header_kind(text) in DRAWING_KINDS
                    and first_line + n in accounted]
    problems += [Problem(post, figure_lines[k] if k < len(figure_lines) else first_line, f"the page holds {what}",
                         hint="the figure's script drew it: draw with drawing elements only")
                 for k, what in dict.fromkeys(reading.figures)]
    for kind in _escaped_markers(reading.segments, reading.with_alt, *reading.attributes):
        problems.append(Problem(
            post, lines.marker(kind), f"the rendered page shows [{kind}] outside a verified card: a block was "
            "published without being verified, or the text names a marker outside inline code",
            hint=f"write a block as the authoring guide shows (`[{kind}]` alone at the start of a line, at the top "
                 "level); mention a marker in prose as inline code; fence an example of the format with ```markdown",
        ))
    for face in dict.fromkeys(face for flow in (reading.segments, reading.with_alt, *reading.attributes)
                              for face in _faces(flow)):
        problems.append(Problem(post, lines.face(face), f"the page shows {face!r} outside a "
                                "verified card: a card's face (its label, or its stamp's wording) would pass for one",
                                hint="remove it from the post: only the build renders cards"))
    for tag, before_card in _left_open(html, seal):
        problems.append(Problem(post, lines.containing(f"<{tag}"), f"a <{tag}> is left open, so the browser carries "
                                f"it {'into the next verified card' if before_card else 'on into the rest of the page'}",
                                hint=f"close it (</{tag}>) where it ends, or write it as Markdown"))
    if reading.cards != proved_cards:
        problems.append(Problem(
            post, first_line, f"the rendered page has {reading.cards} verified cards, but {proved_cards} blocks "
            "were verified",
            hint="a block was lost in rendering: check the Markdown around the blocks (unclosed HTML, a stray fence)",
        ))
    return problems


def linked_problems(html: str, seal: str, proved_cards: int) -> list[str]:
    """The guard's structural checks on a page as written after the build's edits (citations and names linked,
    copy text: edits of the guard's own reading, common.pagetree), read as a browser reads it: a verified card
    inside a link, a card lost, an element left open. The edits add links around text alone, so anything found
    here is the build's own fault, never let through."""
    tree = LexborHTMLParser(html)
    cards = [node for node in tree.css(f"[{SEAL_ATTRIBUTE}]") if node.attributes.get(SEAL_ATTRIBUTE) == seal
             and CARD_CLASS in (node.attributes.get("class") or "").split()]
    problems = []
    linked = sum(1 for card in cards if any(parent.tag == "a" for parent in _ancestors(card)))
    if linked:
        problems.append(f"{linked} verified card(s) inside a link the build added")
    if len(cards) != proved_cards:
        problems.append(f"{len(cards)} verified cards where {proved_cards} blocks were verified")
    problems += [f"a <{tag}> left open" for tag, _ in _left_open(html, seal)]
    return problems


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def route_problems(fragment: str) -> list[tuple[str, str]]:
    """What rendered HTML that reaches readers by another route than its page (a search index's entry, a feed's
    item, a page's description) shows that the guard refuses on a page: a card's face, or a block marker outside
    inline code, read as a browser reads the fragment (the guard's own reading: one HTML5 parser for every route).
    A route holds no card: nothing in it is sealed (its seal is a secret no fragment can hold). Each as (what it
    shows, as the post's lines would show it: the face or `[KIND]`; the problem's words)."""
    return list(_route_findings(fragment))


@functools.lru_cache(maxsize=8192)
def _route_findings(fragment: str) -> tuple[tuple[str, str], ...]:
    """route_problems' reading, a function of the fragment alone: remembered, because serve's every rebuild hands
    the same thousand search entries and pages again, and an edit changes a few."""
    reading = _read(fragment, secrets.token_hex(16))
    flows = (reading.segments, reading.with_alt, *reading.attributes)
    return tuple([(face, f"shows {face!r}, a card's face") for face in dict.fromkeys(f for flow in flows for f in _faces(flow))]
                 + [(f"[{kind}]", f"shows [{kind}] outside inline code") for kind in dict.fromkeys(_escaped_markers(*flows))])


def showing_line(shown: str, lines: list[str]) -> int | None:
    """The index of the first source line that shows what route_problems found (a face, however written, or a
    marker outside a block's header), or None."""
    if shown.startswith("["):
        return next((n for n, line in enumerate(lines) if shown.lower() in skeleton(line).lower()
                     and header_kind(line) is None), None)
    return line_showing(shown, lines)


def showing(parsed, shown: str, unparsed: tuple[str, int] | None) -> tuple[str, int]:
    """(file, line) of the post's line that shows what a route showed (`shown`: a face or a marker; its first line if
    none shows it alone), or `unparsed` for a page the build did not parse."""
    if parsed is None:
        return unparsed
    at = showing_line(shown, parsed.lines)
    return parsed.post, parsed.first_line + (at or 0)


def toc_problems(titles: list[str], parsed, unparsed: tuple[str, int]) -> list[Problem]:
    """A page's table of contents, which a theme shows beside the page from its headings' titles (HTML; a
    heading's `data-toc-label` sets one apart from its text), read as the guard reads a page; each problem at the
    post's line that shows it (`unparsed` for a page that was not parsed)."""
    return [Problem(*showing(parsed, shown, unparsed), f"the table of contents {what}: a heading's title there, which "
                    "the theme shows beside the page, outside any verified card",
                    hint="say it in other words (a heading's data-toc-label too)")
            for title in titles for shown, what in route_problems(title)]


def _faces(segments: list[tuple[str, int | None]]) -> list[str]:
    """Each card face in the page's text, block by block with the segments joined (`✓ 输出<span></span>已验证`,
    `源码<code>REAL SOURCE</code>` and a face broken over two lines of a paragraph are faces). An inline code span
    that holds a face whole is exempt, and only that span (prose that names the label writes it as code): the text
    on either side of it is read without it."""
    blocks: list[list[tuple[str, int | None]]] = [[]]
    for segment, code in segments:
        for n, part in enumerate(segment.split(BREAK)):
            if n:
                blocks.append([])
            lines_as_spaces = part.replace("\n", " ")  # as a browser shows a line break inside a paragraph
            blocks[-1].append((lines_as_spaces, code))
    found = []
    for line in blocks:
        runs: list[tuple[str, int | None]] = []  # the line's text, each inline code span's in one piece
        for text, code in line:
            if runs and code is not None and runs[-1][1] == code:
                runs[-1] = (runs[-1][0] + text, code)
            else:
                runs.append((text, code))
        shown = "".join(_without_faces(text) if code is not None else text for text, code in runs)
        for piece in shown.split(BREAK):
            face = card_face(piece)
            if face and face not in found:
                found.append(face)
    return found


MAX_EXEMPT = 400  # characters of an inline code span that may name a face: a longer one exempts none


def _without_faces(text: str) -> str:
    """An inline code span's text with each face it names cut out (a break in its place), its other characters
    kept: they are read with the text around the span (`✓ 输出<code>已验证 …</code>` shows a reader the stamp)."""
    if len(text) > MAX_EXEMPT:
        return text
    while card_face(text):
        # The last face, and its shortest extent: a suffix that holds a face is held by every longer suffix, and a
        # prefix likewise, so each is found by bisection (a span of many faces is read in n log n, not n squared).
        start = bisect.bisect_left(range(len(text)), True, key=lambda i: not card_face(text[i:])) - 1
        end = bisect.bisect_left(range(start + 1, len(text) + 1), True, key=lambda j: bool(card_face(text[start:j])))
        text = text[:start] + BREAK + text[start + 1 + end:]
    return text


def _left_open(html: str, seal: str) -> list[tuple[str, bool]]:
    """(tag, whether before a card) of each formatting element left open before a sealed card or at the end of
    the page: a paragraph placed there, as a browser parses it, is inside one, or has one re-opened within it.
    One parse, with such a paragraph before each card and at the end (each changes nothing of what follows: a
    formatting element it re-opens is re-opened after it all the same)."""
    cards = [m.start() for m in re.finditer(rf'<div [^>]*{SEAL_ATTRIBUTE}="{re.escape(seal)}"', html)]
    pieces, start = [], 0
    for n, at in enumerate(cards):
        pieces += [html[start:at], SENTINEL.format(n)]
        start = at
    page = LexborHTMLParser("".join(pieces) + html[start:] + SENTINEL.format("end"))
    found = []
    for sentinel in page.css("p[id^=codeproof-guard-sentinel-]"):
        before_card = not sentinel.attributes["id"].endswith("-end")
        tags = {node.tag for node in (sentinel.parent, sentinel.child) if node is not None}
        node = sentinel.parent
        while node is not None:
            tags.add(node.tag)
            node = node.parent
        for tag in sorted(tags & FORMATTING):
            if (tag, before_card) not in found and (tag, not before_card) not in found:
                found.append((tag, before_card))
    return found


def _escaped_markers(*flows: list[tuple[str, int | None]]) -> list[str]:
    """The kind of every marker in the text that does not lie within a single inline code span, in the flow that
    shows most of them. Segments are joined, so a marker split by tags (`[OUT<b></b>PUT]`) or across code
    (`[OUT`PUT]`) still reads as one."""
    found = []
    for segments in flows:
        text, owners = "", []
        for segment, code in segments:
            text += segment
            owners += [code] * len(segment)
        kinds = [kind_named(m.group(1)) for m in ANY_MARKER_RE.finditer(text)
                 if owners[m.start()] is None or len(set(owners[m.start():m.end()])) > 1]
        for kind in set(kinds):  # each kind as often as the flow that shows it most
            found += [kind] * max(0, kinds.count(kind) - found.count(kind))
    return found


class _Locator:
    """Finds the source line a problem of the rendered page most likely comes from."""

    def __init__(self, source_lines: list[str], first_line: int, accounted: set[int]):
        self.lines = [(first_line + i, text) for i, text in enumerate(source_lines) if first_line + i not in accounted]
        self.first_line = first_line
        self.blamed: set[int] = set()

    def containing(self, snippet: str) -> int:
        """The first line that holds the snippet as written, or as a reader sees it (character references decoded,
        look-alikes and full-width letters folded, as the snippet was): `&#x6e90;码` and `ＯＵＴＰＵＴ` are found."""
        wanted = snippet.lower()
        for forms in ((text,) for _, text in self.lines), ((html.unescape(text), skeleton(html.unescape(text)))
                                                           for _, text in self.lines):
            for (n, _), texts in zip(self.lines, forms):
                if any(wanted in form.lower() for form in texts):
                    return n
        return self.first_line

    def face(self, face: str) -> int:
        """The first line that shows the card face as a reader reads it (card_face: however written, spaced or
        split by markup), alone or with the next line (a face broken over two lines of a paragraph)."""
        at = line_showing(face, [_shown_line(text) for _, text in self.lines])
        if at is None:  # an image's alt, which a reader reads in its place: `![✓ 输出](a.png)已验证`, its address left out
            at = line_showing(face, [LINK_TARGET_RE.sub("]", _shown_line(text)) for _, text in self.lines])
        return self.first_line if at is None else self.lines[at][0]

    def marker(self, kind: Kind) -> int:
        """The next source line, not blamed yet, that holds a marker of this kind."""
        for n, text in self.lines:
            if n not in self.blamed and kind in {kind_named(m.group(1)) for m in ANY_MARKER_RE.finditer(skeleton(text))}:
                self.blamed.add(n)
                return n
        return self.first_line


LINK_TARGET_RE = re.compile(r"\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")  # where a Markdown link or image leads: `](a.png "t")`


def _shown_line(text: str) -> str:
    """A source line's text as a reader sees it: tags dropped and character references decoded (a line alone, so
    an element it opens is not closed: its text is still read)."""
    if "<" not in text:
        return html.unescape(text)
    body = LexborHTMLParser(text).body
    return body.text(deep=True) if body is not None else html.unescape(text)
