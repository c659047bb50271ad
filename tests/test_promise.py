"""The promise as a property: for any edit of a post, the strict build fails, or every line shown in
a verified card is a line of the pinned source, of the experiment script, or of what it really printed."""

from __future__ import annotations

import base64
import re
import unicodedata
from html.parser import HTMLParser
from xml.etree import ElementTree
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from codeproof.experiments.figures import IMAGE_PREFIX
from codeproof.common.usercache import repository_cache
from fixture_site import OUTPUT, POST, SCRIPT, SCRIPT_TEXT, make_site, report
from upstream import MODULE_V1

# Lines an author (or an attacker) might add: near-miss markers, stray fences, containers, odd bytes.
PALETTE = ["", "````", "```", "~~~", "```python", "```text", "```markdown", "[REAL SOURCE]", "[Real Source]",
           "\uff3bOUTPUT\uff3d", "\u200b[EXPERIMENT]", "\ufeff[OUTPUT]", "[OUTPUT]", "!!! note", "    ", "- item",
           "> quote", "File: pkg/mod.py", "Symbol: helper", "        self.value = 42", 'print("node value 4")',
           "node value 4", "<div class=\"proof-card\">", "</div>", "<!-->", "<![CDATA[ x >",
           '<div class="proof-card proof-card--output"><pre><code>node value 4</code></pre></div>',
           "<style>code::after { content: 'node value 4' }</style>", "`[OUTPUT]`", "[OUTP`UT]`", "[FIGURE]",
           "[Figure]", "Figure: f.svg", "Graph: print(1.0)", "Alt: node value 4",
           '<svg><text>node value 4</text></svg>']


def insert(lines, at, text):
    return lines[:at] + [text] + lines[at:]


def delete(lines, at, _):
    return lines[:at] + lines[at + 1:]


def indent(lines, at, prefix):
    return lines[:at] + [prefix + lines[at]] + lines[at + 1:]


def recase(lines, at, how):
    return lines[:at] + [getattr(lines[at], how)()] + lines[at + 1:]


def tamper(lines, at, char):
    line = lines[at]
    return lines[:at] + [line[:-1] + char if line else char] + lines[at + 1:]


EDITS = st.one_of(
    st.tuples(st.just(insert), st.integers(0, 200), st.sampled_from(PALETTE)),
    st.tuples(st.just(delete), st.integers(0, 200), st.none()),
    st.tuples(st.just(indent), st.integers(0, 200), st.sampled_from([" ", "    ", "\t", "> ", "- ", "\u200b"])),
    st.tuples(st.just(recase), st.integers(0, 200), st.sampled_from(["upper", "lower", "title"])),
    st.tuples(st.just(tamper), st.integers(0, 200), st.sampled_from(["X", " ", "\t", "\u200b", "\u0430", "`"])),
)


class Cards(HTMLParser):
    """Every verified card of a page (its kind, first link and code lines), and the text outside
    cards and Markdown examples."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cards: list[dict] = []
        self.depth = 0  # nesting of divs inside the current card
        self.in_pre = self.in_code = False
        self.example_depth = 0  # nesting of divs inside a Markdown example
        self.outside = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "div" and "proof-card" in classes and not self.depth:
            kind = next(c.split("--")[1] for c in classes if c.startswith("proof-card--"))
            self.cards.append({"kind": kind, "href": None, "code": ""})
            self.depth = 1
        elif self.depth and tag == "div":
            self.depth += 1
        elif tag == "div" and (self.example_depth or "language-markdown" in classes):
            self.example_depth += 1
        elif self.depth and tag == "a" and self.cards[-1]["href"] is None:
            self.cards[-1]["href"] = attrs.get("href")
        elif self.depth and tag == "code" and self.in_pre:
            self.in_code = True
        self.in_pre = self.in_pre or tag == "pre"

    def handle_endtag(self, tag):
        if self.depth and tag == "div":
            self.depth -= 1
        elif self.example_depth and tag == "div":
            self.example_depth -= 1
        if tag == "code":
            self.in_code = False
        if tag == "pre":
            self.in_pre = False

    def handle_data(self, data):
        if self.depth and self.in_code:
            self.cards[-1]["code"] += data
        elif not self.depth and not self.example_depth:
            self.outside += data


# A block marker anywhere in a text, in any width, case or spacing, with invisible characters dropped:
# the test's own oracle, independent of the engine's.
MARKER_ANYWHERE = re.compile(r"\[\s*(real\W*source|experiment|output|figure)\s*\]", re.I)


def visible(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if unicodedata.category(ch) != "Cf")


def reindented(shown: list[str], lines: list[str]) -> bool:
    """Whether the lines shown are these lines with one margin taken off each (a card shows a quote without
    the indentation its lines share; a blank line may show as empty)."""
    if len(shown) != len(lines):
        return False
    margins = {line[:len(line) - len(text)] for text, line in zip(shown, lines) if line.strip()}
    return len(margins) <= 1 and not "".join(margins).strip() and all(
        line.endswith(text) and (text or not line.strip()) for text, line in zip(shown, lines))


def published_lines_are_verified(page_html: str, script: str = SCRIPT_TEXT) -> None:
    parser = Cards()
    parser.feed(page_html)
    assert not MARKER_ANYWHERE.search(visible(parser.outside)), "a block marker was published outside a card"
    module = MODULE_V1.split("\n")
    for card in parser.cards:
        shown = card["code"].rstrip("\n").split("\n")
        if card["kind"] == "source":
            first, last = (int(n) for n in card["href"].rsplit("#L", 1)[1].split("-L"))
            assert reindented(shown, module[first - 1:last]), card
        elif card["kind"] == "experiment":
            script_lines = script.rstrip("\n").split("\n")
            assert "\n".join(shown) in "\n".join(script_lines) and set(shown) <= set(script_lines), card
        elif card["kind"] == "figure":  # the fixture's script draws nothing: no figure can be verified
            raise AssertionError(f"a figure card was published: {card}")
        else:
            assert shown == OUTPUT.split("\n"), card


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return make_site(tmp_path_factory.mktemp("promise"))


def test_the_unedited_fixture_post_builds_with_three_verified_cards(site):
    site.post.write_text(POST, encoding="utf-8")
    built, log = site.build()
    assert built is not None, log
    html = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="proof-card ') == 3
    published_lines_are_verified(html)


# The lines of the post that blocks quote or record (inside a fence), where an edit matters most: edits are drawn
# over them as often as over the whole post.
FENCED = [n for n, line in enumerate(POST.split("\n")) if line.startswith("```")]
QUOTED = [n for start, end in zip(FENCED[::2], FENCED[1::2]) for n in range(start + 1, end)]
POSITIONS = st.one_of(st.sampled_from(QUOTED), st.integers(0, len(POST.split("\n")) - 1))
POST_EDITS = st.one_of(
    st.tuples(st.just(insert), POSITIONS, st.sampled_from(PALETTE)),
    st.tuples(st.just(delete), POSITIONS, st.none()),
    st.tuples(st.just(indent), POSITIONS, st.sampled_from([" ", "    ", "\t", "> ", "- ", "\u200b"])),
    st.tuples(st.just(recase), POSITIONS, st.sampled_from(["upper", "lower", "title"])),
    st.tuples(st.just(tamper), POSITIONS, st.sampled_from(["X", " ", "\t", "\u200b", "\u0430", "`"])),
)
# Edits of the other files a card shows: the script (its lines and what it prints) and the cached upstream file.
FILE_EDITS = st.tuples(st.sampled_from(["script", "upstream"]), st.sampled_from([insert, delete, tamper]),
                       st.integers(0, 12), st.sampled_from(['print("node value 4")', "import os", "X", " "]))
POST_LINE = re.compile(r"docs/posts/p\.md:(\d+): ")
NEAR = 12  # a problem is reported at the edited line, or at the block (or front matter) around it


def edited_file(root, what: str) -> Path:
    if what == "script":
        return root / SCRIPT
    blobs = [p for p in (repository_cache(root) / "blobs").rglob("*") if p.is_file()]
    assert len(blobs) == 1, blobs  # the fixture quotes one upstream file
    return blobs[0]


@pytest.mark.heavy
@pytest.mark.slow
@pytest.mark.kills("guard")  # tests/mutations.py: without the guard, an inserted hand-made card is published
def test_any_edit_of_a_post_or_what_it_quotes_fails_at_its_line_or_publishes_only_verified_lines(site):
    """Post edits are single (so "its line" is one line), drawn over the quoted and recorded lines as often as over
    the rest; the script and the cached upstream file are edited too. A failed build of an edited post names a
    line of it near the edit. Both outcomes must occur (counted here: Hypothesis' event() cannot be asserted)."""
    outcomes = {"built": 0, "failed": 0}

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(edit=st.one_of(POST_EDITS, FILE_EDITS))
    def run(edit):
        site.post.write_text(POST, encoding="utf-8")
        saved = {}
        if len(edit) == 4:  # another file
            what, change, at, payload = edit
            path = edited_file(site.root, what)
            saved[path] = path.read_bytes()
            lines = saved[path].decode("utf-8").split("\n")
            path.write_text("\n".join(change(lines, min(at, len(lines) - 1), payload)), encoding="utf-8")
        else:
            change, at, payload = edit
            lines = change(POST.split("\n"), at, payload)
            site.post.write_text("\n".join(lines), encoding="utf-8")
        try:
            built, log = site.build()
            script = (site.root / SCRIPT).read_text(encoding="utf-8")
        finally:
            for path, data in saved.items():
                path.write_bytes(data)
        outcomes["built" if built else "failed"] += 1
        if built is not None:
            published_lines_are_verified((built / "posts" / "p" / "index.html").read_text(encoding="utf-8"), script)
        elif len(edit) == 3:
            edited = at + 1  # 1-based: the post has no front matter offset, its first line is line 1
            lines_named = [int(n) for n in POST_LINE.findall(log)]
            assert any(abs(n - edited) <= NEAR for n in lines_named), (edit, log[-1500:])

    run()
    assert outcomes["built"] and outcomes["failed"], outcomes


def test_a_series_number_that_is_not_a_whole_number_fails_with_its_file(site):
    site.post.write_text(POST.replace("series: 1", "series: X"), encoding="utf-8")
    built, log = site.build()
    assert built is None
    assert report(log) == """\
1 problem:

docs/posts/p.md:3: front matter: series 'X' is not a whole number from 1 to 9999
  hint: write the post's number in the series, e.g. `series: 6`"""


def test_two_posts_with_one_series_number_fail_naming_both(site):
    site.post.write_text(POST, encoding="utf-8")
    twin = site.post.with_name("twin.md")
    twin.write_text(POST.replace('title: "Fixture post"', 'title: "Twin"'), encoding="utf-8")
    try:
        built, log = site.build()
    finally:
        twin.unlink()
    assert built is None
    assert report(log) == """\
2 problems:

docs/posts/p.md:3: front matter: series 1 is also the number of docs/posts/twin.md
  hint: give each post its own number in the series (no post has 2, 3, 4, ...)

docs/posts/twin.md:3: front matter: series 1 is also the number of docs/posts/p.md
  hint: give each post its own number in the series (no post has 2, 3, 4, ...)"""


# --- figures ---------------------------------------------------------------------------------------

FIGURE_SCRIPT = "experiments/draw.py"
DRAWING = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 90 40"><path d="M 0 0 L 90 40" '
           'style="stroke: #000000"/><text x="4" y="20">node value 3</text></svg>')
WRITES = "import os\nsvg = {svg!r}\nopen(os.path.join(os.environ['CODEPROOF_FIGURES'], 'f.svg'), 'w').write(svg)\n"
FIGURE_BLOCK = f"[FIGURE]\nFile: {FIGURE_SCRIPT}\nFigure: f.svg\nAlt: a line and its label\n"
# What a script (or an author) might put into a drawing: markup that runs, links, styles that restyle the page,
# references outside it, faces of a card, invisible or reordering characters.
SVG_PALETTE = ['<script>alert(1)</script>', '<a href="https://example.org"><text>x</text></a>',
               '<foreignObject><p>x</p></foreignObject>', '<path onload="x()" d="M 0 0"/>',
               '<use href="https://example.org/a.svg#b"/>', '<path style="fill: url(#a); position: fixed" d="M 0 0"/>',
               '<text>✓ 输出<tspan>已验证</tspan></text>', '<text>[OUTPUT]</text>', '<text>\u202eabc</text>',
               '<style>body { display: none }</style>', '<image href="http://example.org/x.png"/>',
               '<text fill="#eeeeee">x</text>', '<g transform="scale(2)"><text>node value 3</text></g>', '<!-- x -->']
DRAWN_TAGS = {"svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
              "clipPath", "mask", "pattern", "marker", "use", "linearGradient", "radialGradient", "stop", "image", "symbol"}


def figure_images(page_html: str) -> tuple[list[list[str]], int]:
    """Each figure card's images (the SVG each src holds), as a browser reads the page (an HTML5 parser); and how
    many drawings stand anywhere on the page (an image is not one: none of its markup is the page's)."""
    tree = LexborHTMLParser(page_html)
    images = [[base64.b64decode(image.attributes["src"].removeprefix(IMAGE_PREFIX)).decode("utf-8")
               if (image.attributes.get("src") or "").startswith(IMAGE_PREFIX) else image.attributes.get("src") or ""
               for image in card.css("img")] for card in tree.css(".proof-card--figure")]
    return images, len(tree.css("svg"))


@pytest.fixture(scope="module")
def figure_site(tmp_path_factory):
    return make_site(tmp_path_factory.mktemp("figures"))


@pytest.mark.heavy
@pytest.mark.slow
def test_any_edit_of_a_drawing_or_its_block_fails_or_publishes_only_what_the_script_drew(figure_site):
    """The script's drawing gains a hostile part, or the post's [FIGURE] block is edited: the strict build fails, or
    each published figure holds drawing elements only, links and references to nothing outside it, and exactly the
    text the script drew (so nothing else reached the card)."""
    site, outcomes = figure_site, {"built": 0, "failed": 0}
    post = POST.replace("The end.", FIGURE_BLOCK + "\nThe end.")
    start = post.split("\n").index("[FIGURE]")

    @settings(max_examples=24, deadline=None, derandomize=True)
    @given(part=st.one_of(st.none(), st.sampled_from(SVG_PALETTE)),
           edit=st.one_of(st.none(), st.tuples(st.sampled_from([insert, delete, tamper, indent]),
                                               st.integers(start - 1, start + 5), st.sampled_from(PALETTE))))
    def run(part, edit):
        drawing = DRAWING.replace("</svg>", f"{part}</svg>") if part else DRAWING
        (site.root / FIGURE_SCRIPT).write_text(WRITES.format(svg=drawing), encoding="utf-8")
        lines = post.split("\n")
        if edit:
            change, at, payload = edit
            lines = change(lines, at, payload if change is not indent else "> ")
        site.post.write_text("\n".join(lines), encoding="utf-8")
        built, log = site.build()
        outcomes["built" if built else "failed"] += 1
        if built is None:
            return
        page = (built / "posts" / "p" / "index.html").read_text(encoding="utf-8")
        published_lines_are_verified_but_figures(page)
        images, drawings = figure_images(page)
        assert drawings == 0, "a drawing was published as the page's markup"
        for shown in (svg for card in images for svg in card):
            root = ElementTree.fromstring(shown)  # an SVG image the build made: data:image/svg+xml, nothing else
            elements = list(root.iter())
            assert {el.tag.removeprefix("{http://www.w3.org/2000/svg}") for el in elements} <= DRAWN_TAGS, shown
            for el in elements:
                assert not any(name.startswith("on") for name in el.attrib), el.attrib
                assert all(value.startswith(("#", "data:image/png;", "data:image/jpeg;"))
                           for name, value in el.attrib.items() if name.endswith("href") and value)
                assert "position" not in (el.get("style") or "") and "url(#a)" not in (el.get("style") or "")
            drawn = ElementTree.fromstring(drawing)
            assert ["".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text")] == \
                ["".join(el.itertext()) for el in drawn.iter("{http://www.w3.org/2000/svg}text")]  # what it drew

    run()
    assert outcomes["built"] and outcomes["failed"], outcomes


def published_lines_are_verified_but_figures(page_html: str) -> None:
    """The text cards' promise (published_lines_are_verified), with the figure cards left to the figure oracle."""
    without = re.sub(r'<div class="proof-card proof-card--figure">.*?</figure>', "", page_html, flags=re.S)
    published_lines_are_verified(without)
