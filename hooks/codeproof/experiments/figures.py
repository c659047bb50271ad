"""Figures from runs: what a run may leave in its figure folder, and an SVG cleaned into what a page may show.

A script writes SVG into the folder the build gives it (`CODEPROOF_FIGURES`; sandbox.run_env). The build reads
back regular files only (`collect_figures`), and `clean_svg` turns one into the figure a page shows inline, or
says why it cannot: an allow-list of drawing elements and attributes (no script, event handler, foreignObject,
link, style sheet or reference outside the figure, but for embedded PNG or JPEG pictures), ids prefixed so that
two figures and the page never share one, black drawn in the page's text colour (`currentColor`), every other
colour of a stroke or a text at 3:1 or more against both colour schemes' backgrounds, text left as SVG text in
the page's fonts, metadata dropped, and the same bytes for the same input.
"""

from __future__ import annotations

import colorsys
import functools
import math
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element, tostring

import svgelements
import tinycss2
import tinycss2.color3
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from codeproof.common.markers import BIDI_RE, card_face, card_face_among, names_marker
from codeproof.common.structure import Budgets

FIGURE_CAP = 2 * 1024 * 1024  # bytes of one figure file: more is no drawing a page should inline
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
COMPUTED_FONT_SIZE = "codeproof-font-size"  # the size _clean computed, handed down with the inherited properties
DROPPED = {"metadata", "title", "desc", "style"}  # what a page does not need: data, names, and a style sheet
# (matplotlib's `*{stroke-linejoin: round}`), which inline would restyle the whole page
ELEMENTS = {"svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
            "clipPath", "mask", "pattern", "use", "linearGradient", "radialGradient", "stop", "image"}
ATTRIBUTES = {"id", "style", "transform", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry",
              "width", "height", "points", "viewBox", "preserveAspectRatio", "version", "fill", "stroke",
              "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
              "stroke-miterlimit", "stroke-opacity", "fill-opacity", "fill-rule", "clip-rule", "opacity",
              "clip-path", "mask", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline",
              "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "patternUnits",
              "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits", "maskContentUnits", "dx",
              "dy", "rotate", "textLength", "lengthAdjust", "href", XML_SPACE}
PROPERTIES = {"fill", "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray",
              "stroke-dashoffset", "stroke-miterlimit", "stroke-opacity", "fill-opacity", "fill-rule", "clip-rule",
              "opacity", "clip-path", "mask", "font-size", "font-weight", "font-style", "text-anchor",
              "dominant-baseline", "stop-color", "stop-opacity", "font-family"}  # not color: currentColor is the page's
COLOURED = ("fill", "stroke", "stop-color")
FUNCTIONS = {"rgb", "rgba", "hsl", "hsla", "matrix", "translate", "scale", "rotate", "skewx", "skewy"}  # and url()
PICTURE_RE = re.compile(r"^data:image/(png|jpeg);base64,[A-Za-z0-9+/=\s]*$")  # pixels: nothing they could run
MIN_CONTRAST = 3.0  # WCAG's minimum for graphics and large text
# Text on a shape the figure fills: below this a reader may not see a glyph at all. The page's 3:1 is for text on
# the page; a label on a bar of the runs' default colours, in the page's text colour, reaches 2.2:1 on the slate
# scheme, and is read.
MIN_CONTRAST_ON_FILL = 2.0
# The page's backgrounds: Material's default scheme, and its slate scheme (hsl(232, 15%, 14%)).
BACKGROUNDS = {"light": (1.0, 1.0, 1.0), "dark": colorsys.hls_to_rgb(232 / 360, 0.14, 0.15)}
# matplotlib's settings for a run (runner writes them into its MPLCONFIGDIR): text stays text, ids are the same
# from run to run, nothing paints the page's background, and the default colours and grey lines reach 3:1 on both
# backgrounds. A script may change any of them; the cleaning checks what it draws.
MATPLOTLIBRC = """\
figure.figsize: 4.5, 3
font.size: 11
savefig.bbox: tight
savefig.pad_inches: 0.1
svg.fonttype: none
svg.hashsalt: codeproof
figure.facecolor: none
axes.facecolor: none
savefig.transparent: True
legend.facecolor: none
legend.edgecolor: 767676
grid.color: 767676
axes.prop_cycle: cycler('color', ['1f77b4', 'd35f00', '2ca02c', 'd62728', '9467bd', '767676'])
"""
LENGTH_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(pt|px)?\s*$")
MAX_TALL = 3  # height to width: a taller figure would push the page away on a phone
MAX_DEPTH = 64  # elements within elements: matplotlib nests about 8 deep; past this, no drawing but a trap
ID = r"[A-Za-z0-9_.:-]{1,200}"  # what an id may be, and so what a reference may name
TARGET_RE = re.compile(rf"^#{ID}$")
MAX_LABEL = 200  # characters of a text element quoted in a problem


FOLDER_FAULT = ""  # the key of collect_figures' fault about the figure folder itself


def collect_figures(run_dir: Path, budgets: Budgets = Budgets(), folder: str = "figures") \
        -> tuple[dict[str, str], dict[str, str]]:
    """The SVG files a run wrote into its figure folder ({name: text}), and {name: why} of those that cannot be
    figures ({FOLDER_FAULT: why} when the folder itself cannot be read, or holds more than the budgets allow: then
    nothing of it is kept). Read without following links: the folder is the script's, so it and what lies in it
    may have been replaced by links that point anywhere; each is opened from the run's own folder, which the build
    made, with O_NOFOLLOW."""
    figures, faults = {}, {}
    try:
        run_fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY)
        try:
            folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=run_fd)
        finally:
            os.close(run_fd)
    except OSError:
        return figures, {FOLDER_FAULT: f"the run replaced its folder {folder}/ with a link or a file"}
    try:
        names, total = sorted(os.listdir(folder_fd)), 0
        if len(names) > budgets.figure_files:
            return {}, {FOLDER_FAULT: f"the run wrote {len(names)} files into its figure folder, past "
                                      f"{budgets.phrase('figure_files')}"}
        for name in names:
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:  # a byte that is not UTF-8, kept by listdir as a lone surrogate
                faults[name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")] = \
                    "its name is not UTF-8"
                continue
            try:
                descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder_fd)
            except OSError:
                faults[name] = "it is a link or cannot be read"
                continue
            try:
                if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # a folder, a FIFO, a device
                    faults[name] = "it is not a regular file"
                    continue
                data = os.read(descriptor, FIGURE_CAP + 1)
            except OSError:
                faults[name] = "it cannot be read"
                continue
            finally:
                os.close(descriptor)
            if len(data) > FIGURE_CAP:
                faults[name] = f"it is larger than {FIGURE_CAP // 1024 // 1024} MiB"
                continue
            total += len(data)
            if total > budgets.figure_mib * 1024 * 1024:
                return {}, {FOLDER_FAULT: f"the run wrote more than {budgets.figure_mib} MiB into its figure folder, "
                                          f"past {budgets.phrase('figure_mib')}"}
            try:
                figures[name] = data.decode("utf-8")
            except UnicodeDecodeError as error:
                faults[name] = f"byte {error.start} is not UTF-8"
    finally:
        os.close(folder_fd)
    return figures, faults


# The width a figure is shown at on a phone 375 px wide: the figure's column in a card there (series.css; a
# browser test measures it), where a figure wider than that is scaled down to it.
PHONE_WIDTH_PX = 375
PHONE_FIGURE_PX = 312
MIN_PHONE_TEXT_PX = 9  # smaller text on a phone is hard to read (WCAG's sizes start at 9 px for captions)


@dataclass(frozen=True)
class SmallText:
    """A figure's smallest text as a phone shows it, with what would make it readable."""

    text: str  # the first words of that text
    phone_px: float  # its size on a phone, in CSS pixels
    font_size: float  # its size in the figure's units (matplotlib's: points)
    figure_width: float  # the figure's width in the same units

    def widest(self) -> float:
        """The figure's largest width (in its units) at which this text stays readable on a phone."""
        return self.font_size * PHONE_FIGURE_PX / MIN_PHONE_TEXT_PX

    def least_size(self) -> float:
        """The least font size (in its units) that is readable on a phone at the figure's width."""
        return MIN_PHONE_TEXT_PX * self.figure_width / min(PHONE_FIGURE_PX, self.figure_width)


@dataclass(frozen=True)
class CleanFigure:
    svg: str  # the figure as the page shows it, one line
    problems: tuple[str, ...]  # why it cannot be shown; when any, svg is ""
    small_text: SmallText | None = None  # its smallest text, when a phone shows it under MIN_PHONE_TEXT_PX


def clean_svg(text: str, prefix: str, alt: str, budgets: Budgets = Budgets()) -> CleanFigure:
    """The SVG a script wrote, as a page may show it inline: `prefix` starts each of its ids, `alt` is its text
    alternative (the svg is an image with that name)."""
    try:
        root = fromstring(text)
    except (ParseError, DefusedXmlException, ValueError) as error:
        return CleanFigure("", (f"it is not well-formed XML without entities ({error})",))
    if root.tag != f"{{{SVG_NS}}}svg":
        return CleanFigure("", (f"its root element is {_name(root.tag)}, not an svg of the SVG namespace",))
    problems: list[str] = []
    for key in ("transform", "style"):  # on the outer <svg>, they would move or restyle it over the page
        if key in root.attrib:
            problems.append(f"its <svg> has a {key}, which would move it out of its place on the page")
    box = [_number(n) or 0 for n in root.get("viewBox", "").replace(",", " ").split()]
    frame = _Frame(tuple(box) if len(box) == 4 else (0, 0, 0, 0))
    texts: list[tuple[float, str]] = []  # each text's font size (in the figure's units) and its words
    placed: list[tuple[float, float, str]] = []  # each run of words where it is drawn (y, x)
    over = _Over({element.get("id"): element for element in root.iter() if element.get("id")})
    _clean(root, prefix, problems, {"fill": "currentColor", "stroke": "none"}, 0, texts, placed, frame, over)
    if not problems:  # a tree of drawing elements only, not too deep: its references and its text as a whole
        problems += _references(root, prefix) + _read_text(root, placed, over.seen, over.runs)
    if not problems:  # each reference to a figure's own part: what a browser draws, copies counted
        problems += _drawn_within(root, budgets)
    _size(root, problems)
    if "fill" not in root.attrib:  # SVG's default is black, which a page shows in its text colour
        root.set("fill", "currentColor")
    root.set("role", "img")
    root.set("aria-label", alt)
    if problems:
        return CleanFigure("", tuple(dict.fromkeys(problems)))
    return CleanFigure(tostring(root, encoding="unicode"), (), _small_text(root, texts))


def _small_text(root: Element, texts: list[tuple[float, str]]) -> SmallText | None:
    """The smallest of a figure's texts, if a phone shows it under MIN_PHONE_TEXT_PX: the figure is scaled from
    its viewBox's width to its own width (set in CSS pixels by _size), and no wider than the phone's column."""
    if not texts:
        return None
    box_width = float(root.get("viewBox").replace(",", " ").split()[2])
    shown = min(PHONE_FIGURE_PX, float(root.get("width", PHONE_FIGURE_PX)))
    size, text = min(texts, key=lambda found: found[0])
    phone_px = size * shown / box_width
    return SmallText(text[:MAX_LABEL], phone_px, size, box_width) if phone_px < MIN_PHONE_TEXT_PX else None


def _clean(element: Element, prefix: str, problems: list[str], inherited: dict[str, str], depth: int,
           texts: list[tuple[float, str]], placed: list[tuple[float, float, str]], frame: _Frame, over: _Over,
           in_text: bool = False, hidden: str | None = None, start: tuple[float, float] = (0, 0),
           undrawn: bool = False, opacity: float = 1.0) -> tuple[float, float]:
    """Clean an element and what it holds in place, and say what cannot be cleaned; add each text's font size
    (scaled by the transforms around it) and words to `texts`, and its words where they are drawn (y, x) to
    `placed`, and where they may draw to `over`, which a shape drawn later must not paint. `frame`: where the
    element draws, `hidden`: why a group around it draws nothing a reader sees (opacity 0, a clip or a mask), if
    it does; `start`: where the text around a <tspan> stands; `undrawn`: it paints nothing at all (in <defs>, or
    faded), where a clip or a mask paints some of it. Returns where its text ends (a text element's last position;
    else `start`)."""
    name = _name(element.tag)
    if not element.tag.startswith(f"{{{SVG_NS}}}") or name not in ELEMENTS:
        problems.append(f"it holds <{name}>, which a figure may not (only drawing elements)")
        return
    if name == "svg" and depth:  # its own viewport would clip, or move, what it holds
        problems.append("it holds an <svg> inside the figure, which clips what it holds to a box of its own")
        return start
    if in_text and name != "tspan":  # a browser draws nothing else inside a text, so its words would be unseen
        problems.append(f"it holds a <{name}> inside a <text>, where a browser draws only <tspan>: a reader does not "
                        "see what it holds, so it could split the text a reader sees")
        return start
    if depth > MAX_DEPTH:
        problems.append(f"its elements are nested deeper than {MAX_DEPTH}")
        return
    element.tag = name  # the default namespace, written once on the root
    copied = (element.get(XLINK_HREF) or element.get("href") or "").removeprefix("#")  # a <use>'s, as written
    style = _attributes(element, name, prefix, problems)
    colours = {**inherited, **{key: value for key, value in element.attrib.items() if key in INHERITED},
               **{key: value for key, value in style.items() if key in INHERITED}}
    written_size = style.get("font-size", element.get("font-size"))
    if written_size is not None:  # a size relative to the group's (em, %, smaller) is of the group's own size
        computed = _computed_font_size(written_size, _font_size(inherited))
        if computed is None:
            problems.append(f"<{name}> has the font-size {written_size[:40]!r}, which the check cannot read as a "
                            "browser does: use px, pt or em")
        else:
            colours[COMPUTED_FONT_SIZE] = repr(computed)
    transform = _transform(element.get("transform", "")) if name != "tspan" else []  # Chromium ignores a tspan's
    frame = frame.within(transform)
    opacity *= _fraction({**element.attrib, **style}.get("opacity", "1"))  # a group's multiplies what it holds
    hidden = hidden or _hides({**element.attrib, **style}) or _shrinks(transform, frame) or (
        f"is inside <{name}>, which draws nothing where it stands" if name in NOT_DRAWN else None) or (
        f"is drawn at opacity {opacity:.2g}, its own and its groups' multiplied" if opacity < MIN_OPACITY else None)
    undrawn = undrawn or name in NOT_DRAWN or opacity < MIN_OPACITY
    if colours.get("stroke") != "none":  # a text's fill is seen against what lies below each of its characters
        _contrast(colours.get("stroke", ""), "stroke", name, problems)  # (_Over.text)
    textual = name in ("text", "tspan")
    faded = opacity * _fraction(colours.get("fill-opacity", "1"))  # a text's fill, its own and its groups' opacity
    if name == "text":
        _shown_spaces(element, colours.get(XML_SPACE) == "preserve")
    own_text = (element.text or "") + "".join(child.tail or "" for child in element)  # a tspan's tail is its parent's
    off = None
    size = _font_size(colours) or DEFAULT_FONT_SIZE  # a text of size 0 is refused, but still placed
    anchor = colours.get("text-anchor", "start").strip().lower()
    if textual:
        start, off, runs = _positions(element, start, frame, size, anchor,
                                      colours.get("dominant-baseline", "auto").strip().lower())
        placed += [(y, x, words) for y, x, words, _, _ in runs]
        for _, _, words, x, y in runs:
            problems += over.text(name, frame, (x, y), words, size, anchor, colours.get("fill", ""), faded)
    elif name in SHAPES and not undrawn:  # a clip or a mask leaves some of it painted: checked as if whole
        problems += over.painted(element, name, {**element.attrib, **style}, colours, frame, copied, opacity)
    if textual and own_text.strip():
        unseen = hidden or _hides_text(colours, element.attrib, own_text.strip(), frame) or off
        if unseen:
            problems.append(f"its <{name}> holding {own_text.strip()[:MAX_LABEL]!r} {unseen}: a reader does not "
                            "see it, so it could split the text a reader sees")
        elif colours.get("font-size") is not None:
            texts.append((_font_size(colours) * frame.scale, own_text.strip()))
    element.text = " ".join(element.text.split("\n")) if textual and element.text else None  # one line: Markdown
    element.tail = " ".join(element.tail.split("\n")) if in_text and element.tail else None  # keeps it whole
    for child in list(element):
        if not isinstance(child.tag, str) or _name(child.tag) in DROPPED:  # comments, metadata, style sheets
            element.remove(child)
        else:
            went_on = _clean(child, prefix, problems, colours, depth + 1, texts, placed, frame, over, textual,
                             hidden, start, undrawn, opacity)
            if textual:  # the next <tspan>, or the words after this one, go on from where it ended
                start = went_on
            if textual and child.tail:
                drawn = frame.point(*went_on)
                placed.append((drawn[1], drawn[0], child.tail))
                problems += over.text(name, frame, went_on, child.tail, size, anchor, colours.get("fill", ""), faded)
                start = (went_on[0] + _along(child.tail, size, anchor)[-1], went_on[1])
    return start


INHERITED = ("fill", "stroke", "stroke-width", "stroke-linejoin", "stroke-miterlimit", "stroke-linecap", "font-size",
             "text-anchor", "dominant-baseline", "fill-opacity", "stroke-opacity", "fill-rule", XML_SPACE,
             COMPUTED_FONT_SIZE)  # what a group hands
# down (opacity is not handed down: a group's multiplies what it holds, the `opacity` _clean carries)
NOT_DRAWN = {"defs", "pattern", "clipPath", "mask"}  # what they hold is drawn only through a reference, if at all
MIN_OPACITY = 0.2  # below it, text is a faint smudge: what it says could split what a reader reads
MIN_TEXT_SHARE = 0.01  # a font size under this share of the figure's larger side is a few pixels on a phone, or none
DEFAULT_FONT_SIZE = 16  # a browser's, where a text and the groups around it set none
IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class _Frame:
    """Where an element draws: the figure's viewBox (x, y, width, height), and the transforms around the element
    as one matrix (a, b, c, d, e, f: a point x, y is drawn at a x + c y + e, b x + d y + f)."""

    box: tuple[float, float, float, float]
    ctm: tuple[float, ...] = IDENTITY

    def within(self, transform: list[tuple[str, tuple[float, ...]]]) -> _Frame:
        ctm = self.ctm
        for _, matrix in transform:
            ctm = _times(ctm, matrix)
        return _Frame(self.box, ctm)

    @property
    def size(self) -> float:
        """The larger side of the viewBox."""
        return max(self.box[2], self.box[3])

    @property
    def scale(self) -> float:
        """How much the transforms scale a length (the root of an area's scale: a text's size, on average)."""
        a, b, c, d = self.ctm[:4]
        return abs(a * d - b * c) ** 0.5

    @property
    def stretch(self) -> float:
        """At most how much the transforms lengthen a line, whichever way it runs (at least the largest singular
        value of the matrix)."""
        a, b, c, d = self.ctm[:4]
        return math.sqrt(a * a + b * b + c * c + d * d)

    def point(self, x: float, y: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.ctm
        return a * x + c * y + e, b * x + d * y + f

    def outside(self, x: float, y: float) -> float:
        """How far a drawn point lies outside the viewBox (0 inside it)."""
        left, top, width, height = self.box
        return max(left - x, x - left - width, top - y, y - top - height, 0)


def _times(m: tuple[float, ...], n: tuple[float, ...]) -> tuple[float, ...]:
    """The matrix that applies n, then m."""
    a, b, c, d, e, f = m
    return (a * n[0] + c * n[1], b * n[0] + d * n[1], a * n[2] + c * n[3], b * n[2] + d * n[3],
            a * n[4] + c * n[5] + e, b * n[4] + d * n[5] + f)


def _transform(text: str) -> list[tuple[str, tuple[float, ...]]]:
    """A transform attribute as its functions (each as written, and its matrix), read with tinycss2 (the syntax
    is CSS's functions); one that a browser would not read is no transform at all, as a browser ignores it."""
    functions = []
    for token in tinycss2.parse_component_value_list(text):
        if token.type in ("whitespace", "comment") or token.type == "literal" and token.value == ",":
            continue
        if token.type != "function":
            return []
        numbers = [t.value for t in token.arguments if t.type == "number"]
        if any(t.type not in ("number", "whitespace", "comment") and not (t.type == "literal" and t.value == ",")
               for t in token.arguments):
            return []
        matrix = _function_matrix(token.lower_name, numbers)
        if matrix is None:
            return []
        functions.append((f"{token.name}({tinycss2.serialize(token.arguments).strip()})", matrix))
    return functions


def _function_matrix(name: str, numbers: list[float]) -> tuple[float, ...] | None:
    """The matrix of one transform function with its numbers, or None where a browser would not read it."""
    count = len(numbers)
    if name == "matrix" and count == 6:
        return tuple(numbers)
    if name == "translate" and count in (1, 2):
        return (1, 0, 0, 1, numbers[0], numbers[1] if count == 2 else 0)
    if name == "scale" and count in (1, 2):
        return (numbers[0], 0, 0, numbers[-1], 0, 0)
    if name == "rotate" and count in (1, 3):
        turn = math.radians(numbers[0])
        cos, sin = math.cos(turn), math.sin(turn)
        x, y = (numbers[1], numbers[2]) if count == 3 else (0, 0)
        return (cos, sin, -sin, cos, x - cos * x + sin * y, y - sin * x - cos * y)
    if name in ("skewx", "skewy") and count == 1:
        tan = math.tan(math.radians(numbers[0]))
        return (1, 0, tan, 1, 0, 0) if name == "skewx" else (1, tan, 0, 1, 0, 0)
    return None


def _number(value: str) -> float | None:
    """The number a length or an opacity starts with (`0.0px`, `1e-3`), or None."""
    found = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)", value or "", re.I)
    return float(found[1]) if found else None


def _hides(properties: dict[str, str]) -> str | None:
    """Why an element draws nothing a reader can read of what it holds (an opacity near 0, a clip or a mask, a
    transform that shrinks it to nothing), or None. A clip or a mask may hide some characters of a text and leave the
    rest: a figure's text is drawn unclipped (matplotlib clips a text only when asked, clip_on=True)."""
    for key in ("opacity", "fill-opacity"):
        if key in properties and _fraction(properties[key]) < MIN_OPACITY:
            return f"is drawn with {key} {properties[key]}"
    for key in ("clip-path", "mask"):
        if properties.get(key, "none") != "none":
            return f"is clipped ({key}), which can hide some of its characters: draw it unclipped (clip_on=False)"
    return None


MIN_AREA_SCALE = 0.01  # transforms that shrink an area below this share of it shrink what it holds to a smudge
# Transforms that squeeze one way below this share of the other: a glyph flattened toward a hairline, or two
# glyphs squeezed into one's square (马 佥 read as 验); matplotlib never squeezes text.
MIN_LINEAR_SCALE = 0.7


def _shrinks(transform: list[tuple[str, tuple[float, ...]]], frame: _Frame) -> str | None:
    """Why the transforms around an element shrink what it holds to nothing (one of its own, or all together), or
    squeeze it one way (scale(.5, 1), skewX(88): its area kept or not)."""
    for written, (a, b, c, d, _, _) in transform:
        if abs(a * d - b * c) < MIN_AREA_SCALE:
            return f"is shrunk to nothing ({written})"
    if frame.scale ** 2 < MIN_AREA_SCALE:
        return f"is shrunk to nothing (the transforms around it scale it by {frame.scale:.3g})"
    a, b, c, d = frame.ctm[:4]
    squares, determinant = a * a + b * b + c * c + d * d, abs(a * d - b * c)
    widest = math.sqrt((squares + math.sqrt(max(0.0, squares * squares - 4 * determinant * determinant))) / 2)
    if widest and determinant / widest < MIN_LINEAR_SCALE * widest:  # its singular values, smaller to larger
        return (f"is squeezed one way (the transforms around it squeeze it to {determinant / widest ** 2:.2g} of its "
                "size the other way)")
    return None


# CSS pixels in each unit a length may have (SVG's); "em" and "ex" are the text's size, "%" the viewBox's.
UNITS = {"": 1, "px": 1, "pt": 4 / 3, "pc": 16, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4, "q": 96 / 101.6}
LENGTH_RE = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(em|ex|%|[a-z]*)\s*$", re.I)


def _lengths(value: str, size: float, extent: float) -> list[float] | None:
    """A list of lengths (x="1 2 3", one a glyph) in user units; None where a browser would not read it (and so
    would ignore the attribute)."""
    found = []
    for part in value.replace(",", " ").split():
        match = LENGTH_RE.match(part)
        unit = match[2].lower() if match else None
        per = {"em": size, "ex": size / 2, "%": extent / 100}.get(unit, UNITS.get(unit))
        if per is None:
            return None
        found.append(float(match[1]) * per)
    return found


# Where the body of a glyph stands from its position, in font sizes: to the right of it (anchored at its start),
# around it or to the left (its middle, its end); above the baseline, or around it (a central or hanging one).
# A glyph whose body's centre is drawn outside the viewBox is cut away, however much of its box is inside.
BODY_X = {"start": 0.25, "middle": 0.0, "end": -0.25}
BODY_Y = {"auto": -0.35, "central": 0.0, "middle": 0.0, "hanging": 0.35, "text-before-edge": 0.35}


def _positions(element: Element, start: tuple[float, float], frame: _Frame, size: float, anchor: str, baseline: str
               ) -> tuple[tuple[float, float], str | None, list[tuple[float, float, str, float, float]]]:
    """Where a text element's glyphs start (from its x, y, dx and dy: SVG's per-glyph lists, a <tspan> going on
    from `start` where it sets none): where its own characters end (where a <tspan> inside goes on from); why it is drawn
    off the figure, if a glyph's position lies farther outside the viewBox than the glyph could reach back from
    it; and its own words as placed: each run of characters from a position the lists set, where it is drawn
    (y, x), then the run and its position in the element's own units (x, y)."""
    # A glyph is drawn within its size of its position (two, for the baseline's shift); a text anchored at its
    # middle or end is moved back by up to its whole length.
    glyphs = len("".join(element.itertext()))
    reach = (2 + (glyphs if anchor in ("middle", "end") else 0)) * size * frame.stretch
    left, top, width, height = frame.box
    lists = [_lengths(element.get(key, ""), size, extent) or []
             for key, extent in (("x", width), ("y", height), ("dx", width), ("dy", height))]
    own = element.text or ""
    x, y = start
    pen = x  # where the next glyph goes, if no list places it: past the one before, as _text_box takes its width
    drawn = frame.point(x, y)
    runs = [[drawn[1], drawn[0], "", x, y]]
    off = None
    for n in range(max(min(max(map(len, lists)), glyphs), len(own))):  # a position past the last glyph places none
        xs, ys, dxs, dys = lists
        if any(n < len(values) for values in lists):
            x = xs[n] if n < len(xs) else pen
            y = ys[n] if n < len(ys) else y
            x, y = x + (dxs[n] if n < len(dxs) else 0), y + (dys[n] if n < len(dys) else 0)
            drawn = frame.point(x, y)
            body = frame.point(x + size * BODY_X.get(anchor, BODY_X["start"]),
                               y + size * BODY_Y.get(baseline, BODY_Y["auto"]))
            if off is None and frame.size and (frame.outside(*drawn) > reach or frame.outside(*body) > 0):
                off = f"is drawn off the figure (at {drawn[0]:.6g}, {drawn[1]:.6g}, outside its viewBox)"
            pen = x
            if n < len(own):
                runs.append([drawn[1], drawn[0], "", x, y])
        if n < len(own):
            runs[-1][2] += own[n]
            pen += _width(own[n]) * size
    end = runs[-1][3] + _along(runs[-1][2], size, anchor)[-1]  # past its last characters, as its anchor sets them
    return (end, y), off, [tuple(run) for run in runs if run[2]]


def _shown_spaces(text: Element, preserve: bool) -> None:
    """A <text>'s characters as a browser shows them, written back, so that what is checked and published is what
    is seen: with SVG's xml:space="default", line breaks removed, tabs as spaces, a run of spaces as one, none at
    its start or its end (forty spaces before a word moved it far right for the checks, not on the page); with
    "preserve", line breaks and tabs as spaces."""
    def nodes(element: Element):
        yield element, "text"
        for child in element:
            if isinstance(child.tag, str):
                yield from nodes(child)
            yield child, "tail"

    after_space, last = True, None  # at its start, a space is dropped
    for node, where in list(nodes(text)):
        value = (getattr(node, where) or "").replace("\r", "" if not preserve else " ")
        if preserve:
            value = value.replace("\n", " ").replace("\t", " ")
        else:
            kept = []
            for ch in value.replace("\n", "").replace("\t", " "):
                if ch != " " or not after_space:
                    kept.append(ch)
                after_space = ch == " "
            value = "".join(kept)
        setattr(node, where, value or None)
        if value:
            last = (node, where)
    if last and not preserve:
        node, where = last
        setattr(node, where, getattr(node, where).rstrip(" ") or None)


def _fraction(value: str) -> float:
    """An opacity as a browser reads it: a number, or a percentage (1% is 0.01)."""
    number = _number(value) or 0
    return number / 100 if value.strip().endswith("%") else number


MIN_GLYPH_SHARE = 0.25  # of its font size: no glyph a reader can read is narrower

# --- text that a later shape paints over ---------------------------------------------------------------------------

SHAPES = {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use", "image"}
GLYPH_BAND = (-0.5, 1.1)  # below and above its baseline, in font sizes: where a glyph may draw
# A character's width, in font sizes: an East Asian wide one a whole size, any other at most this much on average
# over a run (a Latin capital's is about 0.65; a two-column legend's second column stands clear of that).
NARROW_WIDTH = 0.65
# A glyph's body, in font sizes: no narrow glyph a reader can read is narrower than MIN_GLYPH_SHARE; a wide one
# fills most of its square.
GLYPH_SHARE = {False: MIN_GLYPH_SHARE, True: 0.9}
GLYPH_BUCKETS = 64  # a figure's width and height are cut in this many, to find the characters near one
CELL_HEIGHT = 0.3  # of a text's font size above its baseline: the middle of a lower-case letter
COVER_NEAR = 0.3  # of a text's font size: a thin shape this near a spot of a character (SPOTS) may lie on its strokes
COVERING_STROKE = 0.3  # of a text's font size: a line this wide hides a glyph (a thinner one shows as a line: strokes contrast)
CURVE_POINTS = 8  # points a curve of a path is read at, each way along it
# Shapes drawn after texts, times those texts, that the check compares (about a second): a figure of matplotlib's
# compares tens of thousands; 10,000 texts under 10,000 shapes (within svg_elements) would take a minute.
MAX_OVER_CHECKS = 2_000_000
Box = tuple[float, float, float, float]  # left, top, right, bottom, in the figure's units


def _font_size(colours: dict[str, str]) -> float:
    """A text's font size in its own units, as a browser computes it (_computed_font_size, down the groups around
    it); read from its own font-size where nothing computed one (a <use>'s copy), else the default."""
    if COMPUTED_FONT_SIZE in colours:
        return float(colours[COMPUTED_FONT_SIZE])
    found = _lengths(colours.get("font-size", ""), DEFAULT_FONT_SIZE, DEFAULT_FONT_SIZE)
    return found[0] if found and len(found) == 1 else DEFAULT_FONT_SIZE


# CSS's absolute size keywords, in CSS pixels (a browser's medium is 16), and its relative ones, by how much they
# change the size around them.
SIZE_KEYWORDS = {"xx-small": 9, "x-small": 10, "small": 13, "medium": 16, "large": 18, "x-large": 24, "xx-large": 32,
                 "xxx-large": 48}
SIZE_STEPS = {"smaller": 1 / 1.2, "larger": 1.2}


def _computed_font_size(value: str, around: float) -> float | None:
    """A font-size as a browser computes it, where the groups around it computed `around`: a keyword, a step from
    `around`, a length (em and % of `around`); None where it is none of these (rem, vw: what the check cannot
    compute as a browser does)."""
    value = value.strip().lower()
    if value in SIZE_KEYWORDS:
        return float(SIZE_KEYWORDS[value])
    if value in SIZE_STEPS:
        return around * SIZE_STEPS[value]
    found = _lengths(value, around, around)
    return found[0] if found and len(found) == 1 and found[0] >= 0 else None


def _text_box(frame: _Frame, x: float, y: float, words: str, size: float, anchor: str) -> Box:
    """Where a run of text may draw, in the figure's units: each character as wide as NARROW_WIDTH or a whole size,
    from its position as its anchor says, through the transforms around it."""
    edges = _along(words, size, anchor)
    return _bounds([frame.point(x + u, y - v * size) for u in (edges[0], edges[-1]) for v in GLYPH_BAND])


# Where a character's body is looked at for what lies below it: (a share of its width from its middle, a share of
# its size above its baseline): its middle (half-way up a lower-case letter) first, either side of it, low and high.
SPOTS = ((0.0, CELL_HEIGHT), (-0.25, CELL_HEIGHT), (0.25, CELL_HEIGHT), (0.0, 0.1), (0.0, 0.55))


def _spots(frame: _Frame, x: float, y: float, words: str, size: float, anchor: str
           ) -> list[list[tuple[float, float]]]:
    """Each character's SPOTS, in the figure's units."""
    edges = _along(words, size, anchor)
    return [[frame.point(x + (one + other) / 2 + across * (other - one), y - up * size) for across, up in SPOTS]
            for one, other in zip(edges, edges[1:])]


def _kind(ch: str) -> str:
    """What a character is as far as its width goes: one that draws nothing of its own (a joiner, a combining mark,
    a variation selector), a space, East Asian wide, or narrow."""
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return "zero"
    if ch == " ":
        return "space"
    return "wide" if unicodedata.east_asian_width(ch) in "WF" else "narrow"


# Each kind's width in font sizes: the least and the most a reader's font may draw it (a figure's text is drawn in
# the page's font, which is the reader's system's), and what the checks take it as (a narrow one NARROW_WIDTH).
WIDTHS = {"zero": (0.0, 0.0, 0.0), "space": (0.15, 0.3, 0.4), "wide": (0.8, 1.0, 1.05),
          "narrow": (0.15, NARROW_WIDTH, 1.05)}


def _width(ch: str) -> float:
    """A character's width in font sizes, as the checks take it (WIDTHS)."""
    return WIDTHS[_kind(ch)][1]


def _zero_width(ch: str) -> bool:
    return _kind(ch) == "zero"


def _widths(words: str) -> tuple[float, float]:
    """The least and the most a run of characters may measure, in font sizes (WIDTHS)."""
    kinds = [_kind(ch) for ch in words]
    return sum(WIDTHS[kind][0] for kind in kinds), sum(WIDTHS[kind][2] for kind in kinds)


def _along(words: str, size: float, anchor: str) -> list[float]:
    """Where each character of a run begins and the last ends, along the baseline from the run's position."""
    edges = [0.0]
    for ch in words:
        edges.append(edges[-1] + _width(ch) * size)
    shift = {"middle": -edges[-1] / 2, "end": -edges[-1]}.get(anchor, 0.0)
    return [edge + shift for edge in edges]


def _bounds(points: list[tuple[float, float]]) -> Box:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


@dataclass
class _Ground:
    """A filled shape, a stroke, or an image, as text drawn over it sees it: where it paints, and its colour (None:
    what the check cannot read as one colour, a paint server's; an image's is its pixels')."""

    outlines: list[list[tuple[float, float]]]
    bounds: Box
    fill: Paint | None  # its fill's or its stroke's paint (_paint)
    said: str  # the shape and its fill, for a message
    rule: str = "nonzero"  # a fill's fill-rule
    reach: float = 0.0  # a stroke's: how far from its outlines it paints (a fill's is 0: inside them)
    spike: float = 1.0  # a stroke's: how much farther its corners reach (a mitre, a square cap)
    picture: _Picture | None = None  # an <image>'s pixels, read where a text stands


@dataclass
class _Over:
    """What a figure draws, in order, as far as text is concerned: where each run of text drawn so far may draw
    (its box, its font size in the figure's units, its words), the filled shapes drawn so far (what a later text
    is seen against), and the elements by id (what a <use> copies)."""

    ids: dict[str, Element]
    texts: list[tuple[Box, float, str]] = field(default_factory=list)
    grounds: list[_Ground] = field(default_factory=list)
    read: dict = field(default_factory=dict)  # each shape's outlines in its own units (_outlines)
    glyphs: dict = field(default_factory=dict)  # where each character drawn so far stands, by bucket (_overlaid)
    seen: list = field(default_factory=list)  # each character as drawn: its middle, its baseline's way, size
    runs: list = field(default_factory=list)  # each run as drawn: its anchor, way, size, words, and lengths (_readings)
    checks: int = 0  # of a shape against a text, or of a character against a filled shape, so far (MAX_OVER_CHECKS)

    def text(self, name: str, frame: _Frame, at: tuple[float, float], words: str, size: float, anchor: str,
             fill: str, opacity: float) -> list[str]:
        """A run of text placed: kept for the shapes drawn after it, refused where a character stands on one drawn
        before it (_overlaid), and each character seen against what lies below it at a few spots of its body: the
        page (3:1 in both schemes, _contrast's rule), or the shapes filled before it laid over the page and an
        image's pixels (2:1: text on a shape of its own colour is unseen, as text painted over is)."""
        if not words.strip():  # white space between a text's <tspan>s (matplotlib's mathtext) draws nothing
            return []
        spots = _spots(frame, *at, words, size, anchor)
        cells = [around[0] for around in spots]  # each character's middle (SPOTS' first)
        (x0, y0), (x1, y1) = frame.point(*at), frame.point(at[0] + 1, at[1])
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        way = ((x1 - x0) / length, (y1 - y0) / length)
        self.seen += [(cell, way, size * frame.scale, ch)
                      for ch, cell in zip(words, cells) if not ch.isspace() and not _zero_width(ch)]
        least, most = _widths(words)
        self.runs.append(((x0, y0), way, size * frame.scale, words, {"middle": 0.5, "end": 1.0}.get(anchor, 0.0),
                          (least * size * frame.scale, (_along(words, size, "start")[-1]) * frame.scale,
                           most * size * frame.scale)))
        kept = [(ch, cell, around) for ch, cell, around in zip(words, cells, spots)
                if not ch.isspace() and not _zero_width(ch)]
        hiding = COVERING_STROKE * size * frame.scale  # a stroke as wide hides this text's glyphs (thinner: a line)
        self.texts.append((_text_box(frame, *at, words, size, anchor), size * frame.scale, words,
                           [spot for _, _, around in kept for spot in around], hiding))
        overlaid = self._overlaid(name, frame, words, size, cells)
        if overlaid:
            return overlaid
        colour = _paint(fill or "black", opacity)  # `opacity`: its fill-opacity, its own and its groups'
        if not colour:  # none, a paint server's, or faint: what _hides_text refuses
            return []
        self.checks += len(kept) * len(SPOTS) * len(self.grounds)
        if self.checks > MAX_OVER_CHECKS:
            return [f"it draws more text over more shapes than the check of what text is seen against compares "
                    f"({MAX_OVER_CHECKS:,} pairs): draw fewer of them"]
        on_page = False
        for _, _, around in kept:
            for spot in around:
                seen, below = self._backdrop(spot, hiding)
                if not below:
                    on_page = True
                    continue
                if seen is None:
                    return [f"its <{name}> holding {words.strip()[:MAX_LABEL]!r} is drawn on {below[-1].said}, which "
                            "the check cannot read as one colour, so it cannot tell whether a reader sees it: draw "
                            "the text where the fill is a plain colour, or nothing (a hatched bar: label it above)"]
                for scheme, backdrop in seen.items():
                    ratio = contrast(_over(_resolved(colour, scheme), backdrop), backdrop)
                    if ratio < MIN_CONTRAST_ON_FILL:
                        drawn_in = ("the page's text colour (a figure's black)" if colour[0] == "currentColor"
                                    else fill or "black")
                        return [f"its <{name}> holding {words.strip()[:MAX_LABEL]!r} is drawn in {drawn_in} on "
                                f"{below[-1].said}, at {ratio:.2f}:1 on the {scheme} scheme (at least "
                                f"{MIN_CONTRAST_ON_FILL:g}:1 is needed on a fill): a reader may not see it, so it could "
                                "split the text a reader sees; "
                                + ("black text is drawn in the page's text colour, which is light on the dark "
                                   "scheme: give it a colour of its own (#222222 is drawn as it is), or draw no fill "
                                   "behind it" if colour[0] == "currentColor" else
                                   "choose a colour that stands out from the fill")]
        problems: list[str] = []
        if on_page and colour[1] < 1:  # on the page, a faint text of the page's own colour is faint too
            for scheme, page in BACKGROUNDS.items():
                ratio = contrast(_over(_resolved(colour, scheme), page), page)
                if ratio < MIN_CONTRAST:
                    return [f"<{name}> draws its text in {fill or 'black'} at opacity {colour[1]:.2g} (its own, its "
                            f"fill's and its groups', multiplied), at {ratio:.2f}:1 on the {scheme} scheme (at least "
                            f"{MIN_CONTRAST:g}:1 is needed on both): draw it opaque"]
        if on_page:
            _contrast(fill, "fill", name, problems)
        return problems

    def _backdrop(self, spot: tuple[float, float], hiding: float) -> tuple[dict | None, list[_Ground]]:
        """What a reader sees below a spot of text, in each scheme: the page, and over it each shape drawn so far
        that paints there (a stroke only if as wide as `hiding`); None where one of them cannot be read (a paint
        server). Also those shapes, bottom first."""
        below = [ground for ground in self.grounds
                 if (not ground.reach or 2 * ground.reach >= hiding) and _within(spot, ground)]
        if any(ground.fill is None and ground.picture is None for ground in below):
            return None, [ground for ground in below if ground.fill is None and ground.picture is None]
        seen = {}
        for scheme, page in BACKGROUNDS.items():
            backdrop = page
            for ground in below:
                backdrop = _over(ground.picture.colour(spot) if ground.picture else _resolved(ground.fill, scheme),
                                 backdrop)
            seen[scheme] = backdrop
        return seen, below

    def _overlaid(self, name: str, frame: _Frame, words: str, size: float, cells: list[tuple[float, float]]
                  ) -> list[str]:
        """Characters drawn where a character drawn before them stands, as a problem: a reader sees one glyph (a 丨
        laid on a stroke of 出, 出 on 出) where the check reads both, so the words a reader sees could be a stamp's.
        Two characters share a place when the middle of one lies within the other's body: as wide as the narrowest
        glyph it could be (GLYPH_SHARE of its size), as high as its size. (matplotlib draws a text with a path
        effect as outlines, not twice as text.)"""
        scale = size * frame.scale
        bucket = frame.size / GLYPH_BUCKETS if frame.size else 1.0
        for ch, (x, y) in zip(words, cells):
            if ch.isspace() or _zero_width(ch):
                continue
            half = (GLYPH_SHARE[_width(ch) == 1.0] * scale / 2, scale / 2)
            spans = [range(max(-1, int((centre - reach) // bucket)),
                           min(GLYPH_BUCKETS, int((centre + reach) // bucket)) + 1)
                     for centre, reach in ((x, half[0]), (y, half[1]))]  # the buckets its body lies in
            keys = [(i, j) for i in spans[0] for j in spans[1]]
            for key in keys:
                for other_x, other_y, other_half, other_ch, other_words in self.glyphs.get(key, ()):
                    self.checks += 1
                    apart = (abs(x - other_x), abs(y - other_y))
                    if any(apart[0] < body[0] and apart[1] < body[1] for body in (half, other_half)):
                        return [f"its <{name}> holding {words.strip()[:MAX_LABEL]!r} is drawn over the text "
                                f"{other_words.strip()[:MAX_LABEL]!r} ({ch!r} where {other_ch!r} stands): a reader "
                                "sees one glyph where the check reads two, so it could split the text a reader sees; "
                                "move one of them"]
            if self.checks > MAX_OVER_CHECKS:
                return [f"it draws more text over more text than the check of where characters stand compares "
                        f"({MAX_OVER_CHECKS:,} pairs): draw less of it"]
            for key in keys:
                self.glyphs.setdefault(key, []).append((x, y, half, ch, words))
        return []

    def painted(self, element: Element, name: str, attributes: dict[str, str], colours: dict[str, str],
                frame: _Frame, copied: str, opacity: float) -> list[str]:
        """A shape drawn over text drawn before it, as a problem: what it covers is not seen, so a glyph could be
        slipped into a stamp's words for the guard and painted over for the reader. A shape paints where its fill
        is not none (nor fainter than MIN_OPACITY), and its stroke where it is wide, as far as its mitred corners
        reach; a <use> as what it copies, a group's shapes each, with the groups' styles, transforms and opacity
        between. A filled or stroked shape is kept as a ground for the text drawn after it. `opacity`: the groups'
        around it, and its own."""
        if self.texts:
            self.checks += len(self.texts)
        if self.checks > MAX_OVER_CHECKS:
            return [f"it draws more shapes over more text than the check of what covers text compares "
                    f"({MAX_OVER_CHECKS:,} pairs): draw fewer of them, or draw the text last"]
        own = {**colours, **attributes}
        if name == "use":
            target = self.ids.get(copied)
            width, height = frame.box[2], frame.box[3]
            offset = (_length(element, "x", _font_size(own), width), _length(element, "y", _font_size(own), height))
            frame = frame.within([("translate", (1.0, 0.0, 0.0, 1.0, *offset))])
            inherited = {key: value for key, value in own.items() if key in INHERITED}
            shapes = [] if target is None else list(_copied(target, inherited, frame, opacity))
        else:
            shapes = [(element, own, frame, opacity)]
        for shape, own, within, faded in shapes:
            kind = _name(shape.tag)
            fill, stroke = _ground_fill(kind, own, faded), _ground_stroke(own, within, faded)
            if not self.texts and fill is False and stroke is None:  # nothing to cover, nothing to be seen on
                continue
            outlines = _outlines(shape, kind, within, _font_size(own), self.read)
            points = [point for line in outlines for point in line]
            covered = self._covered(fill, stroke, own, outlines) if points else None
            if covered:
                return [f"its <{name}> is drawn over the text {covered.strip()[:MAX_LABEL]!r}: a reader does not see "
                        "what it covers, so it could split the text a reader sees (a text's extent is taken at "
                        f"{NARROW_WIDTH} of its size a character: if the shape only passes close by, draw the text "
                        "after it, in matplotlib with a higher zorder)"]
            if fill is not False and points:
                picture = _picture(shape, within, _font_size(own)) if kind == "image" else None
                self.grounds.append(_Ground(outlines, _bounds(points), fill, "an <image>" if kind == "image" else
                                            f"a <{name}> filled {own.get('fill') or 'black'}",
                                            rule=own.get("fill-rule", "nonzero").strip(), picture=picture))
            if stroke is not None and points:  # painted after its fill
                paint, width = stroke
                left, top, right, bottom = _bounds(points)
                spike = max(_spike(own), math.sqrt(2) if own.get("stroke-linecap", "").strip() == "square" else 1.0)
                reach = width / 2 * spike
                self.grounds.append(_Ground(outlines, (left - reach, top - reach, right + reach, bottom + reach),
                                            paint, f"a <{name}> stroked {own.get('stroke')} {width:.3g} wide",
                                            reach=width / 2, spike=spike))
        return []

    def _covered(self, fill, stroke: tuple | None, own: dict[str, str], outlines: list[list[tuple[float, float]]]
                 ) -> str | None:
        """The words of the first text the shape paints over, or None. A fill or a stroke as wide as COVERING_STROKE
        of a text's size paints over what it meets of the text's extent; a thinner one (a fraction's bar, a tick)
        shows as a line, and covers the text only where, near a character, its colour does not stand out from what
        lies below it (a bar of the page's colour laid on 一 erases it; one that is seen draws a stroke there)."""
        width, spike = (stroke[1] if stroke else 0.0), _spike(own)
        bounds = _bounds([point for line in outlines for point in line])
        thickness = min(bounds[2] - bounds[0], bounds[3] - bounds[1])
        for box, text_size, words, spots, hiding in self.texts:
            wide = COVERING_STROKE * text_size
            filled_over = (fill is None or fill is not False and fill[1] >= MIN_OPACITY) and \
                _paths_meet(outlines, box, 0.0, True)
            stroked_over = stroke is not None and (stroke[0] is None or stroke[0][1] >= MIN_OPACITY) and \
                _paths_meet(outlines, box, width / 2 * spike, False)
            if filled_over and (thickness >= wide or self._erases(fill, outlines, 0.0, "nonzero", text_size, spots,
                                                                  hiding)) \
                    or stroked_over and (width >= wide or self._erases(stroke[0], outlines, width / 2 * spike, None,
                                                                       text_size, spots, hiding)):
                return words
        return None

    def _erases(self, colour: Paint | None, outlines: list[list[tuple[float, float]]], reach: float,
                rule: str | None, text_size: float, spots: list[tuple[float, float]], hiding: float) -> bool:
        """A thin shape of this colour (None: one the check cannot read), passing within COVER_NEAR of the text's
        size of one of its spots (where a glyph's strokes lie), does not stand out from what lies below that spot
        in one of the schemes: laid on a thin glyph (一, l), it could erase it."""
        near = [spot for spot in spots if _meets_point(spot, outlines, reach + COVER_NEAR * text_size, rule)]
        self.checks += len(spots) + len(near) * (len(self.grounds) + 1)
        for spot in near:
            seen, _ = self._backdrop(spot, hiding)
            if colour is None or seen is None:
                return True
            if any(contrast(_over(_resolved(colour, scheme), backdrop), backdrop) < MIN_CONTRAST_ON_FILL
                   for scheme, backdrop in seen.items()):
                return True
        return False


MAX_PICTURE_PIXELS = 16_000_000  # an image's pixels the check decodes to read what text stands on (64 MB as RGBA)


@dataclass(frozen=True)
class _Picture:
    """An <image>'s pixels and where they are drawn: `place` (x, y, width, height in the element's units, as its
    preserveAspectRatio lays them in its box), `shown` (its box, which cuts what a `slice` lays past it), and
    `inverse`, from the figure's units to the element's."""

    pixels: object  # a PIL image, RGBA
    place: tuple[float, float, float, float]
    shown: tuple[float, float, float, float]
    inverse: tuple[float, ...]

    def colour(self, spot: tuple[float, float]) -> tuple[float, float, float, float]:
        """The pixel drawn at a spot of the figure (transparent where the image draws nothing)."""
        a, b, c, d, e, f = self.inverse
        x, y = a * spot[0] + c * spot[1] + e, b * spot[0] + d * spot[1] + f
        if not all(left <= x < left + width and top <= y < top + height
                   for left, top, width, height in (self.place, self.shown)):
            return (0.0, 0.0, 0.0, 0.0)
        left, top, width, height = self.place
        columns, rows = self.pixels.size
        pixel = self.pixels.getpixel((min(columns - 1, max(0, int((x - left) / width * columns))),
                                      min(rows - 1, max(0, int((y - top) / height * rows)))))
        return tuple(channel / 255 for channel in pixel)


def _picture(element: Element, frame: _Frame, size: float) -> _Picture | None:
    """An <image>'s pixels, where its picture can be read (a PNG or JPEG of at most MAX_PICTURE_PIXELS), else None
    (text on it is refused: what it shows cannot be told)."""
    import base64
    import binascii
    import io

    from PIL import Image, UnidentifiedImageError

    found = PICTURE_RE.match(element.get(XLINK_HREF) or element.get("href") or "")
    a, b, c, d, e, f = frame.ctm
    determinant = a * d - b * c
    if not found or not determinant:
        return None
    try:
        with Image.open(io.BytesIO(base64.b64decode("".join(found[0].split(",", 1)[1].split())))) as opened:
            if opened.size[0] * opened.size[1] > MAX_PICTURE_PIXELS or 0 in opened.size:
                return None
            pixels = opened.convert("RGBA")
    except (binascii.Error, OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    box = tuple(_length(element, key, size, extent) for key, extent in
                (("x", frame.box[2]), ("y", frame.box[3]), ("width", frame.box[2]), ("height", frame.box[3])))
    inverse = (d / determinant, -b / determinant, -c / determinant, a / determinant,
               (c * f - d * e) / determinant, (b * e - a * f) / determinant)
    return _Picture(pixels, _laid(box, pixels.size, element.get("preserveAspectRatio", "")), box, inverse)


def _laid(box: tuple[float, float, float, float], pixels: tuple[int, int], setting: str
          ) -> tuple[float, float, float, float]:
    """Where an image's picture is laid in its box, as preserveAspectRatio says (xMidYMid meet by default; `none`
    stretches it; `slice` fills the box, cut by it)."""
    words = setting.split()
    align = words[0] if words else "xMidYMid"
    x, y, width, height = box
    if align == "none" or not pixels[0] or not pixels[1]:
        return box
    scale = (max if words[1:] == ["slice"] else min)(width / pixels[0], height / pixels[1])
    drawn_width, drawn_height = pixels[0] * scale, pixels[1] * scale
    share = {"Min": 0.0, "Mid": 0.5, "Max": 1.0}
    across, down = share.get(align[1:4], 0.5), share.get(align[5:8], 0.5)
    return (x + (width - drawn_width) * across, y + (height - drawn_height) * down, drawn_width, drawn_height)


def _spike(own: dict[str, str]) -> float:
    """How much farther than half its width a stroke's corners may reach: its miter limit where it joins by mitres."""
    joins = own.get("stroke-linejoin", "miter").strip().lower() in ("miter", "miter-clip", "arcs")
    return max(1.0, _number(own.get("stroke-miterlimit", "")) or 4.0) if joins else 1.0


def _copied(target: Element, inherited: dict[str, str], frame: _Frame, opacity: float):
    """The shapes a <use> draws of what it copies: each (shape, its properties as drawn there, its frame, its
    opacity), with the styles, transforms and opacity of the groups between the copy and the shape, as a browser
    draws the copy (what the copy holds that is itself a <use> is refused: _references)."""
    written = {**{key: value for key, value in target.attrib.items() if key != "style"},
               **_declared(target.get("style", ""))}
    own = {**inherited, **written}
    frame = frame.within(_transform(target.get("transform", "")))
    opacity *= _fraction(written.get("opacity", "1"))
    if _name(target.tag) in SHAPES - {"use"}:
        yield target, own, frame, opacity
    for part in target:
        if isinstance(part.tag, str):
            yield from _copied(part, {key: value for key, value in own.items() if key in INHERITED}, frame, opacity)


Paint = tuple  # ("currentColor" or (r, g, b), alpha): a colour as a shape or a text paints it


def _paint(value: str, opacity: float) -> Paint | None | bool:
    """A fill or a stroke as it paints: its colour and alpha (its own, times `opacity`), None where the check cannot
    read it as one colour (a paint server's url()), or False where it paints nothing (none, or too faint for even
    eight layers of it to be seen)."""
    value = (value or "black").strip()
    if value.lower() in ("none", "transparent"):
        return False
    colour = _colour(value)
    if colour is None:
        return None
    alpha = opacity * (1.0 if colour == "currentColor" else colour.alpha)
    if alpha < MIN_OPACITY / 8:
        return False
    return ("currentColor" if colour == "currentColor" else tuple(colour[:3]), alpha)


def _ground_fill(kind: str, own: dict[str, str], opacity: float) -> Paint | None | bool:
    """What a shape fills, as text drawn on it (or under it) sees it (_paint; an image's is None: its pixels are
    read), or False where it fills nothing (none, a line). `opacity`: the groups' around it, and its own."""
    if kind == "line":
        return False
    if kind == "image":
        return None if opacity >= MIN_OPACITY / 8 else False
    return _paint(own.get("fill") or "black", opacity * _fraction(own.get("fill-opacity", "1")))


@functools.lru_cache(maxsize=1024)
def _colour(value: str):
    """A colour as tinycss2 reads it: "currentColor", an RGBA, or None."""
    return tinycss2.color3.parse_color(value)


def _ground_stroke(own: dict[str, str], frame: _Frame, opacity: float) -> tuple[Paint | None, float] | None:
    """What a shape strokes, as text drawn on it sees it: (its paint, _paint's, its width in the figure's units),
    or None where it strokes nothing."""
    paint = _paint(own.get("stroke") or "none", opacity * _fraction(own.get("stroke-opacity", "1")))
    width = (_lengths(own.get("stroke-width", "1"), _font_size(own), frame.size) or [1.0])[0] * frame.scale
    return None if paint is False or width <= 0 else (paint, width)


def _within(point: tuple[float, float], ground: _Ground) -> bool:
    """The point lies where the ground paints: inside its outlines, by its fill rule, or, for a stroke, within its
    reach of one (and of a corner, as far as a mitre or a square cap reaches)."""
    left, top, right, bottom = ground.bounds
    if not (left <= point[0] <= right and top <= point[1] <= bottom):
        return False
    if ground.reach:
        return _meets_point(point, ground.outlines, ground.reach, None) or any(
            math.dist(point, corner) <= ground.reach * ground.spike for points in ground.outlines for corner in points)
    return _meets_point(point, ground.outlines, 0.0, ground.rule)


def _meets_point(point: tuple[float, float], outlines: list[list[tuple[float, float]]], reach: float,
                 rule: str | None) -> bool:
    """The point lies within `reach` of an outline's line, or, if a fill `rule` is given (nonzero, evenodd), inside
    the outlines (each subpath taken as closed) as that rule fills them."""
    if reach and any(_distance(point, one, other) <= reach for points in outlines for one, other in zip(points, points[1:])):
        return True
    if rule is None:
        return False
    winding = 0  # of the outlines around the point: a crossing upwards counts 1, downwards -1
    x, y = point
    for points in outlines:
        for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
            left_of = (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0)
            if y0 <= y < y1 and left_of > 0:
                winding += 1
            elif y1 <= y < y0 and left_of < 0:
                winding -= 1
    return winding % 2 == 1 if rule == "evenodd" else winding != 0


def _distance(point: tuple[float, float], one: tuple[float, float], other: tuple[float, float]) -> float:
    """From a point to the segment between two others."""
    along = (other[0] - one[0], other[1] - one[1])
    length = along[0] ** 2 + along[1] ** 2
    share = 0.0 if not length else max(0.0, min(1.0, ((point[0] - one[0]) * along[0] + (point[1] - one[1]) * along[1])
                                                 / length))
    return math.dist(point, (one[0] + share * along[0], one[1] + share * along[1]))


# The page's text colour (Material's --md-default-fg-color, the colour of a figure's currentColor), with its alpha.
PAGE_TEXT = {"light": ((0.0, 0.0, 0.0), 0.87), "dark": (colorsys.hls_to_rgb(232 / 360, 0.90, 0.15), 0.82)}


def _resolved(paint: Paint, scheme: str) -> tuple[float, float, float, float]:
    """A paint as the scheme shows it, (r, g, b, alpha): currentColor is the page's text colour."""
    colour, alpha = paint
    if colour == "currentColor":
        return (*PAGE_TEXT[scheme][0], PAGE_TEXT[scheme][1] * alpha)
    return (*colour, alpha)


def _over(colour: tuple[float, float, float, float], below: tuple[float, float, float]) -> tuple[float, float, float]:
    """A colour with its alpha laid over another."""
    return tuple(colour[3] * one + (1 - colour[3]) * other for one, other in zip(colour[:3], below))


def _paths_meet(outlines: list[list[tuple[float, float]]], box: Box, reach: float, filled: bool) -> bool:
    """An outline (its area, if `filled`, else its line) meets the box grown by `reach` on every side."""
    near = [points for points in outlines if len(points) > 1 and _overlap(_bounds(points), box, reach)]
    if not near:  # most shapes of a figure lie clear of every text: no need of matplotlib's geometry (1 s to load)
        return False
    from matplotlib.path import Path as Outline  # here: only a shape near a text needs it
    from matplotlib.transforms import Bbox

    grown = Bbox.from_extents(box[0] - reach, box[1] - reach, box[2] + reach, box[3] + reach)
    return any(Outline(points, closed=False).intersects_bbox(grown, filled=filled) for points in near)


def _overlap(one: Box, other: Box, reach: float) -> bool:
    """The boxes share an area, `one` grown by `reach` on every side."""
    return (one[0] - reach < other[2] and other[0] < one[2] + reach and one[1] - reach < other[3]
            and other[1] < one[3] + reach)


def _outlines(element: Element, kind: str, frame: _Frame, size: float, read: dict
              ) -> list[list[tuple[float, float]]]:
    """Where a shape draws, as lines of points in the figure's units. A path a browser draws up to an error in it
    is taken as covering the whole figure, as what comes before the error may. `read`: each element's outlines in
    its own units, read once (a scatter plot's <use>s copy one marker a thousand times)."""
    key = (id(element), kind, size, frame.box)
    if key not in read:
        read[key] = _own_outlines(element, kind, frame.box, size)
    local = read[key]
    if local is None:
        left, top, box_width, box_height = frame.box
        return [[(left, top), (left + box_width, top), (left + box_width, top + box_height),
                 (left, top + box_height), (left, top)]]
    return [[frame.point(x, y) for x, y in points] for points in local]


def _length(element: Element, key: str, size: float, extent: float) -> float:
    """A length attribute of a shape, in its own units: 0 where it has none a browser reads (a list, "300,", is
    none: a browser takes 0, as for a missing one)."""
    value = element.get(key, "0")
    found = _lengths(value, size, extent) if "," not in value else None
    return found[0] if found and len(found) == 1 else 0.0


def _own_outlines(element: Element, kind: str, box: tuple[float, float, float, float], size: float
                  ) -> list[list[tuple[float, float]]] | None:
    """Where a shape draws, as lines of points in its own units (svgelements reads a path's and a polygon's
    geometry; a curve is read at CURVE_POINTS points); None for a path with an error in it."""
    width, height = box[2], box[3]

    def length(key: str, extent: float) -> float:
        return _length(element, key, size, extent)

    if kind in ("rect", "image"):
        x, y, w, h = length("x", width), length("y", height), length("width", width), length("height", height)
        rx, ry = (length("rx", width), length("ry", height)) if kind == "rect" else (0.0, 0.0)
        rx, ry = min(w / 2, rx or ry), min(h / 2, ry or rx)  # one of them set: both (SVG's auto)
        if rx > 0 and ry > 0:  # its corners rounded: a quarter of an ellipse each
            local = [[(cx + rx * math.cos(t), cy + ry * math.sin(t))
                      for cx, cy, first in ((x + w - rx, y + ry, -math.pi / 2), (x + w - rx, y + h - ry, 0.0),
                                            (x + rx, y + h - ry, math.pi / 2), (x + rx, y + ry, math.pi))
                      for t in (first + n * math.pi / 2 / CURVE_POINTS for n in range(CURVE_POINTS + 1))]]
            local[0].append(local[0][0])
        else:
            local = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]]
    elif kind in ("circle", "ellipse"):
        cx, cy = length("cx", width), length("cy", height)
        rx = length("r", math.hypot(width, height) / math.sqrt(2)) if kind == "circle" else length("rx", width)
        ry = rx if kind == "circle" else length("ry", height)  # (a circle's r in % is of the box's mean side)
        local = [[(cx + rx * math.cos(t * math.pi / 8), cy + ry * math.sin(t * math.pi / 8)) for t in range(17)]]
    elif kind == "line":
        local = [[(length("x1", width), length("y1", height)), (length("x2", width), length("y2", height))]]
    else:
        try:
            outline = svgelements.Path(element.get("d", "")) if kind == "path" else \
                svgelements.Polygon(element.get("points", "")) if kind == "polygon" else \
                svgelements.Polyline(element.get("points", ""))
            local = _points(outline.segments() if kind == "path" else svgelements.Path(outline).segments())
        except (ValueError, IndexError, TypeError, ZeroDivisionError, AttributeError):
            return None
    return local


def _points(segments) -> list[list[tuple[float, float]]]:
    """A path's segments as lines of points, one a subpath; a curve or an arc read at CURVE_POINTS points."""
    found: list[list[tuple[float, float]]] = []
    for segment in segments:
        if isinstance(segment, svgelements.Move) or not found:
            found.append([])
        if isinstance(segment, (svgelements.Move, svgelements.Line, svgelements.Close)):
            if segment.end is not None:
                found[-1].append((segment.end.x, segment.end.y))
        else:
            found[-1] += [(point.x, point.y) for point in (segment.point(n / CURVE_POINTS)
                                                           for n in range(1, CURVE_POINTS + 1))]
    return found


def _declared(style: str) -> dict[str, str]:
    """A cleaned style attribute's declarations (`fill: #fff; opacity: 1`), by property."""
    return {item.lower_name: tinycss2.serialize(item.value).strip()
            for item in tinycss2.parse_blocks_contents(style, skip_comments=True, skip_whitespace=True)
            if item.type == "declaration"}


def _hides_text(colours: dict[str, str], attributes: dict[str, str], text: str, frame: _Frame) -> str | None:
    """Why a text element's own characters are not seen: a size a reader cannot read, no fill (or a paint server's,
    which may be empty), or squeezed to nothing (where it is drawn: _positions)."""
    size, box = colours.get("font-size"), frame.size
    if size is not None and _font_size(colours) < max(1, MIN_TEXT_SHARE * box):
        computed = _font_size(colours)
        written = _lengths(size, DEFAULT_FONT_SIZE, DEFAULT_FONT_SIZE)
        return f"is drawn at font size {size}" + ("" if written == [computed] else
                                                   f" ({computed:.2g} as the groups around it make it)")
    fill = colours.get("fill", "")
    colour = tinycss2.color3.parse_color(fill) if fill else None
    if fill.strip().lower() in ("none", "transparent") or colour is not None and colour != "currentColor" \
            and colour.alpha < MIN_OPACITY:
        return f"is drawn with fill {fill}"
    if "url(" in fill:
        return f"is filled with {fill}, not a colour"
    if fill and colour is None:  # what the check cannot read (#RRGGBBAA), a browser may draw all but transparent
        return f"is filled with {fill}, which the figure's check cannot read as a colour"
    length = attributes.get("textLength")
    font_size = _number(size or "") or DEFAULT_FONT_SIZE
    if length is not None and (_number(length) or 0) < len(text) * MIN_GLYPH_SHARE * font_size:
        return f"is squeezed to a length of {length}"
    return None


def _references(root: Element, prefix: str) -> list[str]:
    """Each id once, each reference to an id the figure has; and a <use> may copy only what holds no <use>: copies
    of copies multiply (25 levels of two make 2^25 copies of 2 KB, which stop a browser)."""
    problems, ids = [], {}
    for element in root.iter():
        if "id" in element.attrib:
            if element.get("id") in ids:
                problems.append(f"the id {element.get('id').removeprefix(prefix)[:60]!r} is given twice")
            ids[element.get("id")] = element
    for element in root.iter():
        copied = element.get("href", "")  # an <image>'s picture is a data: address, no reference
        targets = [copied if copied.startswith("#") else ""] + \
            re.findall(r"url\(#([^)]*)\)", " ".join(element.attrib.values()))
        for target in filter(None, (t.removeprefix("#") for t in targets)):
            said = target.removeprefix(prefix)[:60]
            if target not in ids:
                problems.append(f"<{element.tag}> refers to #{said}, which the figure does not hold")
            elif element.tag == "use" and any(part.tag == "use" for part in ids[target].iter()):
                problems.append(f"<use> copies #{said}, which holds a <use> itself: copies of copies multiply")
            elif element.tag == "use" and any(part.tag in ("text", "tspan") for part in ids[target].iter()):
                # a reader reads the copy where it is drawn, which the figure's text as read does not hold
                problems.append(f"<use> copies #{said}, which holds text: draw the text again where it goes")
    return problems


class _PastBudget(Exception):
    pass


def _drawn_within(root: Element, budgets: Budgets) -> list[str]:
    """What a browser draws of the figure, within the budgets: every element, each reference (a <use>, a pattern,
    mask, clip or marker a paint or a clip names) counted as the elements it copies, through at most
    `svg_reference_depth` references of references. Patterns that fill with patterns multiply as <use> does:
    nine levels of ten make 10^9 copies, which stop a reader's browser."""
    ids = {element.get("id"): element for element in root.iter() if "id" in element.attrib}

    def targets(element: Element) -> list[Element]:
        named = [element.get("href", "")] + re.findall(r"url\(#([^)]*)\)", " ".join(element.attrib.values()))
        return [ids[name.removeprefix("#")] for name in named if name.removeprefix("#") in ids]

    weights: dict[tuple[int, int], int] = {}

    def weight(element: Element, depth: int) -> int:
        if depth > budgets.svg_reference_depth:
            raise _PastBudget(f"its references reach through more than {budgets.svg_reference_depth} levels "
                              f"(<{element.tag}> is one), past {budgets.phrase('svg_reference_depth')}")
        key = (id(element), depth)
        if key not in weights:
            total = 0
            for part in element.iter():
                total += 1 + sum(weight(target, depth + 1) for target in targets(part))
                if total > budgets.svg_elements:
                    raise _PastBudget(f"it draws more than {budgets.svg_elements} elements, each reference counted "
                                      f"as what it copies, past {budgets.phrase('svg_elements')}")
            weights[key] = total
        return weights[key]

    try:
        weight(root, 0)
    except _PastBudget as past:
        return [str(past)]
    return []


def _read_text(root: Element, placed: list[tuple[float, float, str]], seen: list, runs: list) -> list[str]:
    """The figure's text as a reader may read it: in the order it is written, in the order it is drawn (top to
    bottom, left to right, by where each run of words is drawn: its position through the transforms around it,
    glyph by glyph where the lists place them), and as it is seen (_seen_readings: each character where it stands,
    and each run from where it starts, in lines along each way the figure's text runs, either way), so words placed
    out of order, in one <text> or in several, cannot spell a card's face. A right-to-left letter, which reorders
    the characters around it where it is drawn, is refused."""
    in_order = "".join((element.text or "") + (element.tail or "" if element.tag == "tspan" else "")
                       for element in root.iter() if element.tag in ("text", "tspan"))
    as_placed = "".join(text for _, _, text in sorted(placed, key=lambda run: (run[0], run[1])))
    backwards = next((ch for ch in in_order if unicodedata.bidirectional(ch) in ("R", "AL", "AN")), None)
    if backwards:
        return [f"its text holds {backwards!r} (U+{ord(backwards):04X}), a right-to-left letter, which reorders the "
                "characters around it where it is drawn: a figure's text runs left to right"]
    ways = {round(math.degrees(math.atan2(uy, ux))) % 180 for _, (ux, uy), _, _ in seen}
    if len(ways) > MAX_READING_WAYS:
        return [f"its text runs {len(ways)} ways (in whole degrees), more than the {MAX_READING_WAYS} it is read along: "
                "turn fewer of its labels"]
    readings = [in_order, as_placed, *_seen_readings(seen, runs)]
    for text in readings:
        if shown_text_problems(text):
            return shown_text_problems(text)
    # However a drawing hides a glyph from a reader, the words around it read as they would without it: a face
    # with hidden characters among its own is refused whatever the checks above made of its layout.
    for text in readings:
        face = card_face_among(text)
        if face:
            return [f"its text {text.strip()[:MAX_LABEL]!r} holds {face!r} with other characters among its own: "
                    "where a drawing hides those, a reader reads a card's face; write it otherwise"]
    return []


MAX_READING_WAYS = 36  # the ways (whole degrees) a figure's text may run: it is read along each of them
LINE_SHARE = 0.5  # of a character's size: characters nearer than this across a way are on one line along it


def _seen_readings(seen: list, runs: list) -> list[str]:
    """The figure's characters read as a reader sees them: along each way its text runs (across and down too),
    in lines (within LINE_SHARE of the larger of a line's first and their own size, across that way: a jitter of a
    thousandth, or a small character between, puts nothing on another line), in order along it: each character
    where the check places it, and each run whole from where it starts (a run's first character stands at its
    anchor, however wide the reader's font draws the rest; one anchored at its middle or end starts as far back as
    it may be short or long, WIDTH_RANGE). Each reading also backwards (a label turned to run upwards reads from
    its end)."""
    ways = {0: (1.0, 0.0), 90: (0.0, 1.0)}
    for _, (ux, uy), _, _ in seen:
        angle = round(math.degrees(math.atan2(uy, ux))) % 180
        ways.setdefault(angle, (math.cos(math.radians(angle)), math.sin(math.radians(angle))))
    readings = []
    for ux, uy in ways.values():
        characters = [(-uy * x + ux * y, ux * x + uy * y, size, ch) for (x, y), _, size, ch in seen]
        readings.append("".join(ch for line in _lines(characters) for _, ch in sorted(line)))
        for length in range(3):  # the least, the check's own and the most each run may measure
            starts = [(-uy * x + ux * y, ux * x + uy * y - shift * lengths[length], size, words)
                      for (x, y), _, size, words, shift, lengths in runs]
            readings.append("".join(words for line in _lines(starts) for _, words in sorted(line)))
    return readings + [reading[::-1] for reading in readings]


def _lines(placed: list[tuple[float, float, float, str]]) -> list[list[tuple[float, str]]]:
    """Characters or runs (across, along, size, text) in lines across a way: each within LINE_SHARE of the larger
    of its line's first and its own size."""
    lines, first, first_size = [], 0.0, 0.0
    for across, along, size, text in sorted(placed):
        if not lines or across - first > LINE_SHARE * max(size, first_size):
            lines.append([])
            first, first_size = across, size
        lines[-1].append((along, text))
    return lines


def shown_text_problems(text: str) -> list[str]:
    """Why text a figure shows cannot be shown in a verified card: it reads as the card's face or a marker, or
    reads in another order than it is written."""
    if names_marker(text) or card_face(text) or BIDI_RE.search(text):
        return [f"its text {text.strip()[:MAX_LABEL]!r} would read as a card's face, a block marker or reordered text"]
    return []


def _attributes(element: Element, name: str, prefix: str, problems: list[str]) -> dict[str, str]:
    """Check and rewrite the element's attributes; its style's declarations (cleaned) by property."""
    declarations = {}
    for key, value in list(element.attrib.items()):
        del element.attrib[key]
        if key == XLINK_HREF:
            key = "href"
        if key.lower().startswith("on") or key not in ATTRIBUTES:
            problems.append(f"<{name}> has the attribute {_name(key)!r}, which a figure may not")
        elif key == "href":
            if TARGET_RE.match(value):
                element.set("href", f"#{prefix}{value[1:]}")
            elif name == "image" and PICTURE_RE.match(value):
                element.set("href", value)
            else:
                problems.append(f"<{name}> refers to {value[:60]!r}: a figure refers only to its own parts")
        elif key == "id":
            if not TARGET_RE.match("#" + value):
                problems.append(f"<{name}> has the id {value[:60]!r}: an id is letters, digits and _ . : -")
            element.set("id", prefix + value)
        elif key == "style":
            declarations = _style(value, name, prefix, problems)
            if declarations:
                element.set("style", "; ".join(f"{k}: {v}" for k, v in declarations.items()))
        else:
            element.set(key, _value(value, key, name, prefix, problems))
    return declarations


def _style(text: str, name: str, prefix: str, problems: list[str]) -> dict[str, str]:
    declarations = {}
    for item in tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True):
        if item.type != "declaration" or item.lower_name not in PROPERTIES:
            problems.append(f"<{name}> has the style {tinycss2.serialize([item]).strip()[:60]!r}, which a figure "
                            "may not")
        elif item.lower_name != "font-family":  # text takes the page's fonts
            declarations[item.lower_name] = _value(tinycss2.serialize(item.value).strip(), item.lower_name, name,
                                                   prefix, problems)
    return declarations


def _value(text: str, key: str, name: str, prefix: str, problems: list[str]) -> str:
    """A presentation value: a reference only to the figure's own part (`url(#id)`), black as the page's text."""
    for token in tinycss2.parse_component_value_list(text):
        if token.type == "url" or token.type == "function" and token.lower_name == "url":
            target = token.value if token.type == "url" else tinycss2.serialize(token.arguments).strip(" '\"")
            if not TARGET_RE.match(target):
                problems.append(f"<{name}> refers to {target[:60]!r}: a figure refers only to its own parts, by id")
                return ""
            return f"url(#{prefix}{target[1:]})"
        if token.type == "function" and token.lower_name not in FUNCTIONS:
            problems.append(f"<{name}> has {key} {text[:60]!r}, which a figure may not")
    if key in COLOURED and tinycss2.color3.parse_color(text) == (0, 0, 0, 1):
        return "currentColor"
    return text


def _contrast(value: str, key: str, name: str, problems: list[str]) -> None:
    """A stroke or a text's colour on the page must be the page's text colour or stand out from both schemes'
    backgrounds."""
    colour = tinycss2.color3.parse_color(value) if value else None  # None: no colour (none, or what it cannot read)
    if colour is None or colour == "currentColor" or colour.alpha == 0:
        return
    ratios = {scheme: contrast(colour[:3], background) for scheme, background in BACKGROUNDS.items()}
    low = {scheme: ratio for scheme, ratio in ratios.items() if ratio < MIN_CONTRAST}
    if low:
        said = ", ".join(f"{ratio:.2f}:1 on the {scheme} scheme" for scheme, ratio in low.items())
        problems.append(f"<{name}> draws its {'text' if key == 'fill' else 'stroke'} in {value}, at {said} "
                        f"(at least {MIN_CONTRAST:g}:1 is needed on both): choose a colour between dark and light, "
                        "or black, which the page draws in its text colour")


def contrast(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    """WCAG 2's contrast ratio of two sRGB colours (channels 0..1)."""
    def luminance(rgb):
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _size(root: Element, problems: list[str]) -> None:
    """A figure scales with the column (the style sheet): its viewBox says its shape, its width and height (in
    CSS pixels) its largest size."""
    width, height = (LENGTH_RE.match(root.get(key, "")) for key in ("width", "height"))
    for key, length in (("width", width), ("height", height)):
        if key in root.attrib and not length:
            problems.append(f"its <svg> has the {key} {root.get(key)[:40]!r}, which is no length in pt or px")
            return
    box = root.get("viewBox", "").replace(",", " ").split()
    if len(box) != 4 and not (width and height):
        problems.append("it has neither a viewBox nor a width and height in pt or px")
        return
    if len(box) != 4:
        root.set("viewBox", f"0 0 {width[1]} {height[1]}")
    for key, length in (("width", width), ("height", height)):
        if length:
            pixels = float(length[1]) * (4 / 3 if length[2] == "pt" else 1)
            root.set(key, f"{pixels:g}")
    try:
        shape = [float(n) for n in box[2:]] if len(box) == 4 else [float(width[1]), float(height[1])]
    except ValueError:
        problems.append(f"its viewBox {root.get('viewBox')[:60]!r} is not four numbers")
        return
    if not (shape[0] > 0 and shape[1] > 0 and shape[1] <= MAX_TALL * shape[0]):
        problems.append(f"its shape is {shape[0]:g} by {shape[1]:g}: a figure is at most {MAX_TALL} times as tall as "
                        "it is wide (a phone shows it a screen at a time)")


def _name(tag: str) -> str:
    if tag == XML_SPACE:
        return "xml:space"
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else "comment"


# What a figure on a page may hold, for the page guard (which reads the page as a browser does: names in lower
# case): what clean_svg keeps, and what site.graphs draws (links to the site's own pages, arrow heads, tips).
SHOWN_ELEMENTS = {name.lower() for name in ELEMENTS} | {"a", "marker", "title"}
SHOWN_ATTRIBUTES = {_name(name).lower() for name in ATTRIBUTES} | {
    "class", "role", "aria-label", "marker-end", "refx", "refy", "markerwidth", "markerheight", "orient", "xml:space"}
SCHEME_RE = re.compile(r"^\s*([a-z][a-z0-9+.-]*:|//|\\)", re.I)
UNSAFE_VALUE_RE = re.compile(rf"url\((?!#{ID}\))|@|expression|\\", re.I)  # a reference out, a rule, an escape


def shown_svg_problems(elements: list[tuple[str, dict[str, str]]], text: str) -> list[str]:
    """Why a figure as a page holds it (each element's tag and attributes, as a browser reads them, the outer
    <svg> first; and its text) is not one the build drew or cleaned: the page guard's check, which trusts
    neither."""
    problems = shown_text_problems(text)
    if elements and {"transform", "style"} & set(elements[0][1]):
        problems.append("a figure's <svg> has a transform or a style")
    for tag, attributes in elements:
        if tag.lower() not in SHOWN_ELEMENTS:
            problems.append(f"a figure holds <{tag}>")
        for key, value in attributes.items():
            key, value = key.lower(), value or ""
            if key not in SHOWN_ATTRIBUTES or key.startswith("on"):
                problems.append(f"a figure's <{tag}> has the attribute {key!r}")
            elif key == "href" and not (value.startswith("#") or tag == "image" and PICTURE_RE.match(value)
                                        or tag == "a" and not SCHEME_RE.match(re.sub(r"[\x00-\x20]", "", value))):
                problems.append(f"a figure's <{tag}> refers to {value[:60]!r}")
            elif key != "href" and (UNSAFE_VALUE_RE.search(value) or key == "style" and not _plain_style(value)):
                problems.append(f"a figure's <{tag}> has {key}={value[:60]!r}")
            elif key == "class" and not all(c.startswith("proof-graph") for c in value.split()):
                problems.append(f"a figure's <{tag}> has the class {value[:40]!r}")
    return problems


def _plain_style(text: str) -> bool:
    """Whether a style attribute is only declarations of the drawing properties a figure may set."""
    items = tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True)
    return all(item.type == "declaration" and item.lower_name in PROPERTIES and not item.important for item in items)
