"""Figures from runs: what a run may leave in its figure folder, and an SVG made into an inert image for a page.

A figure is evidence by its bytes, as an output is: `Digest:` is the SHA-256 of what the script wrote. A script
writes SVG into the folder the build gives it (`CODEPROOF_FIGURES`; sandbox.run_env); the build reads back regular
files only (`collect_figures`), and `clean_svg` makes one an image a page shows as
`<img src="data:image/svg+xml;base64,…">`. A browser draws such an image in isolation: no script in it runs, it
requests nothing, none of its text is the page's text (innerText, search, feeds, meta), and the page's fonts,
colours and styles do not reach it; as a `data:` address it is no file of the site that could be opened as a
document there. So nothing a script draws becomes page text, markup, style, script or a request, and what a
figure shows (glyphs, pixels, a picture of a card) is vouched for by reviewing its script, as SECURITY.md says.

What `clean_svg` still does, each for what an `<img>` alone does not guard:
- an allow-list of drawing elements and attributes, references only to the figure's own parts and pictures only
  as embedded PNG or JPEG: the published image stays a drawing in any viewer a reader opens it in ("open image in
  new tab" of a file would run its script on the site's origin; a `data:` address and the allow-list both
  prevent it);
- budgets that protect a reader's browser however the figure is shown: its size (figure_kib), its elements with
  each reference counted as what it copies (svg_elements), references of references (svg_reference_depth);
- its shape: at most MAX_TALL times as tall as wide, so that a phone shows it a screen at a time.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element, tostring

import tinycss2
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from codeproof.common.markers import BIDI_RE, card_face, names_marker
from codeproof.common.structure import Budgets

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
DROPPED = {"metadata", "title", "desc", "style"}  # data and names an image does not need, and a style sheet
ELEMENTS = {"svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
            "clipPath", "mask", "pattern", "marker", "use", "linearGradient", "radialGradient", "stop", "image",
            "symbol"}
ATTRIBUTES = {"id", "style", "transform", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx",
              "fy", "width", "height", "points", "viewBox", "preserveAspectRatio", "version", "fill", "stroke",
              "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
              "stroke-miterlimit", "stroke-opacity", "fill-opacity", "fill-rule", "clip-rule", "opacity",
              "clip-path", "mask", "font-size", "font-weight", "font-style", "font-family", "text-anchor",
              "dominant-baseline", "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform",
              "spreadMethod", "patternUnits", "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits",
              "maskContentUnits", "markerWidth", "markerHeight", "markerUnits", "refX", "refY", "orient",
              "marker-start", "marker-mid", "marker-end", "dx", "dy", "rotate", "textLength", "lengthAdjust", "href",
              XML_SPACE}
PROPERTIES = {"fill", "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray",
              "stroke-dashoffset", "stroke-miterlimit", "stroke-opacity", "fill-opacity", "fill-rule", "clip-rule",
              "opacity", "clip-path", "mask", "font", "font-size", "font-weight", "font-style", "font-family",
              "text-anchor", "dominant-baseline", "stop-color", "stop-opacity", "marker-start", "marker-mid",
              "marker-end", "color", "paint-order"}
FUNCTIONS = {"rgb", "rgba", "hsl", "hsla", "matrix", "translate", "scale", "rotate", "skewx", "skewy"}  # and url()
PICTURE_RE = re.compile(r"^data:image/(png|jpeg);base64,[A-Za-z0-9+/=\s]*$")  # pixels: nothing they could run
ID = r"[A-Za-z0-9_.:-]{1,200}"  # what an id may be, and so what a reference may name
TARGET_RE = re.compile(rf"^#{ID}$")
LENGTH_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(pt|px)?\s*$")
MAX_TALL = 3  # height to width: a taller figure would push the page away on a phone
MAX_DEPTH = 64  # elements within elements: matplotlib nests about 8 deep; past this, no drawing but a trap
IMAGE_PREFIX = "data:image/svg+xml;base64,"  # how a figure reaches a page (and what the page guard expects)
# matplotlib's settings for a run (runner writes them into its MPLCONFIGDIR). Glyphs are drawn as paths, with a
# CJK font after matplotlib's own where the machine has one (Debian's fonts-noto-cjk), so a figure's words look
# the same on every reader's screen, Chinese labels included, and its digest covers what is seen; ids are the
# same from run to run; the figure is drawn on white, as on paper, and shown so in both schemes (the image keeps
# its own colours: a recoloured dark variant would have to understand what it draws). A script may change any.
MATPLOTLIBRC = """\
figure.figsize: 4.5, 3
font.size: 11
font.family: DejaVu Sans, Noto Sans CJK SC
axes.unicode_minus: True
savefig.bbox: tight
savefig.pad_inches: 0.1
svg.fonttype: path
svg.hashsalt: codeproof
figure.facecolor: white
savefig.facecolor: white
axes.facecolor: white
"""


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
                data = os.read(descriptor, budgets.figure_kib * 1024 + 1)
            except OSError:
                faults[name] = "it cannot be read"
                continue
            finally:
                os.close(descriptor)
            if len(data) > budgets.figure_kib * 1024:
                faults[name] = f"it is larger than {budgets.figure_kib} KiB, past {budgets.phrase('figure_kib')}"
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


@dataclass(frozen=True)
class CleanFigure:
    """A figure as a page shows it: an image (`src`, a data: address) of `width` by `height` CSS pixels at most;
    or why it cannot be shown."""

    src: str
    width: int
    height: int
    problems: tuple[str, ...]  # when any, src is ""


def clean_svg(text: str, budgets: Budgets = Budgets()) -> CleanFigure:
    """The SVG a script wrote, kept to what an image of a page may hold, as a data: address."""
    try:
        root = fromstring(text)
    except (ParseError, DefusedXmlException, ValueError) as error:
        return CleanFigure("", 0, 0, (f"it is not well-formed XML without entities ({error})",))
    if root.tag != f"{{{SVG_NS}}}svg":
        return CleanFigure("", 0, 0, (f"its root element is {_name(root.tag)}, not an svg of the SVG namespace",))
    problems: list[str] = []
    _clean(root, problems, 0)
    if not problems:  # a tree of drawing elements only: each reference to its own part, what a browser draws within
        problems += _references(root) or _drawn_within(root, budgets)
    size = _size(root, problems)
    if problems:
        return CleanFigure("", 0, 0, tuple(dict.fromkeys(problems)))
    root.set("xmlns", SVG_NS)  # an image is a document of its own: its root names its namespace
    data = tostring(root, encoding="unicode").encode("utf-8")
    return CleanFigure(IMAGE_PREFIX + base64.b64encode(data).decode("ascii"), *size, ())


def _clean(element: Element, problems: list[str], depth: int) -> None:
    """Keep the element and what it holds to the allow-list, in place, and say what cannot be kept."""
    name = _name(element.tag)
    if not element.tag.startswith(f"{{{SVG_NS}}}") or name not in ELEMENTS:
        problems.append(f"it holds <{name}>, which a figure may not (only drawing elements)")
        return
    if depth > MAX_DEPTH:
        problems.append(f"its elements are nested deeper than {MAX_DEPTH}")
        return
    element.tag = name  # the default namespace, written once on the root
    _attributes(element, name, problems)
    for child in list(element):
        if not isinstance(child.tag, str) or _name(child.tag) in DROPPED:  # comments, metadata, style sheets
            element.remove(child)
        else:
            _clean(child, problems, depth + 1)


def _attributes(element: Element, name: str, problems: list[str]) -> None:
    """Keep the element's attributes to the allow-list; a reference only to the figure's own part (`#id`), or an
    embedded picture; a style only the drawing properties."""
    for key, value in list(element.attrib.items()):
        del element.attrib[key]
        if key == XLINK_HREF:
            key = "href"
        if key.lower().startswith("on") or key not in ATTRIBUTES:
            problems.append(f"<{name}> has the attribute {_name(key)!r}, which a figure may not")
        elif key == "href":
            if TARGET_RE.match(value) or name == "image" and PICTURE_RE.match(value):
                element.set("href", value)
            else:
                problems.append(f"<{name}> refers to {value[:60]!r}: a figure refers only to its own parts")
        elif key == "id" and not TARGET_RE.match("#" + value):
            problems.append(f"<{name}> has the id {value[:60]!r}: an id is letters, digits and _ . : -")
        elif key == "style":
            element.set("style", _style(value, name, problems))
        else:
            element.set(key, _value(value, key, name, problems))


def _style(text: str, name: str, problems: list[str]) -> str:
    kept = []
    for item in tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True):
        if item.type != "declaration" or item.lower_name not in PROPERTIES or item.important:
            problems.append(f"<{name}> has the style {tinycss2.serialize([item]).strip()[:60]!r}, which a figure "
                            "may not")
        else:
            kept.append(f"{item.lower_name}: {_value(tinycss2.serialize(item.value).strip(), item.lower_name, name, problems)}")
    return "; ".join(kept)


def _value(text: str, key: str, name: str, problems: list[str]) -> str:
    """A presentation value: a reference only to the figure's own part (`url(#id)`), no other function but a
    colour's or a transform's, no at-rule or escape."""
    if "@" in text or "\\" in text:
        problems.append(f"<{name}> has {key} {text[:60]!r}, which a figure may not")
    for token in tinycss2.parse_component_value_list(text):
        if token.type == "url" or token.type == "function" and token.lower_name == "url":
            target = token.value if token.type == "url" else tinycss2.serialize(token.arguments).strip(" '\"")
            if not TARGET_RE.match(target):
                problems.append(f"<{name}> refers to {target[:60]!r}: a figure refers only to its own parts, by id")
        elif token.type == "function" and token.lower_name not in FUNCTIONS:
            problems.append(f"<{name}> has {key} {text[:60]!r}, which a figure may not")
    return text


def _targets(element: Element) -> list[str]:
    """The ids an element refers to: its href (a <use>'s), and each url(#id) of its attributes."""
    copied = element.get("href", "")
    return [name for name in [copied[1:] if copied.startswith("#") else "",
                              *re.findall(r"url\(#([^)]*)\)", " ".join(element.attrib.values()))] if name]


def _references(root: Element) -> list[str]:
    """Each id once, each reference to an id the figure has."""
    problems, ids = [], set()
    for element in root.iter():
        if "id" in element.attrib:
            if element.get("id") in ids:
                problems.append(f"the id {element.get('id')[:60]!r} is given twice")
            ids.add(element.get("id"))
    for element in root.iter():
        problems += [f"<{element.tag}> refers to #{target[:60]}, which the figure does not hold"
                     for target in _targets(element) if target not in ids]
    return problems


class _PastBudget(Exception):
    pass


def _drawn_within(root: Element, budgets: Budgets) -> list[str]:
    """What a browser draws of the figure, within the budgets: every element, each reference (a <use>, a pattern,
    mask, clip or marker a paint or a clip names) counted as the elements it copies, through at most
    `svg_reference_depth` references of references. Copies of copies multiply: nine levels of ten patterns make
    10^9 copies, which stop a reader's browser."""
    ids = {element.get("id"): element for element in root.iter() if "id" in element.attrib}
    weights: dict[tuple[int, int], int] = {}

    def weight(element: Element, depth: int) -> int:
        if depth > budgets.svg_reference_depth:
            raise _PastBudget(f"its references reach through more than {budgets.svg_reference_depth} levels "
                              f"(<{element.tag}> is one), past {budgets.phrase('svg_reference_depth')}")
        key = (id(element), depth)
        if key not in weights:
            total = 0
            for part in element.iter():
                total += 1 + sum(weight(ids[target], depth + 1) for target in _targets(part))
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


def _size(root: Element, problems: list[str]) -> tuple[int, int]:
    """The figure's size in CSS pixels (its width and height, else its viewBox's), which the page gives its image
    so that nothing moves as it loads; its shape at most MAX_TALL times as tall as wide."""
    lengths = [LENGTH_RE.match(root.get(key, "")) for key in ("width", "height")]
    box = root.get("viewBox", "").replace(",", " ").split()
    try:
        if all(lengths):
            size = [float(m[1]) * (4 / 3 if m[2] == "pt" else 1) for m in lengths]
        elif len(box) == 4 and not any(root.get(key) for key in ("width", "height")):
            size = [float(n) for n in box[2:]]
        else:
            problems.append("it has neither a width and height in pt or px nor a viewBox alone")
            return 0, 0
    except ValueError:
        problems.append(f"its viewBox {root.get('viewBox')[:60]!r} is not four numbers")
        return 0, 0
    if not (size[0] >= 1 and size[1] >= 1 and size[1] <= MAX_TALL * size[0]):
        problems.append(f"its shape is {size[0]:g} by {size[1]:g}: a figure is at most {MAX_TALL} times as tall as "
                        "it is wide (a phone shows it a screen at a time)")
        return 0, 0
    return round(size[0]), round(size[1])


def _name(tag: str) -> str:
    if tag == XML_SPACE:
        return "xml:space"
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else "comment"


# --- what a drawing card holds, as the page guard reads it ------------------------------------------------------

MAX_LABEL = 200  # characters of a graph's text quoted in a problem
# What the traced graph (site.graphs), drawn inline, may hold: drawing elements, links to the site's own pages,
# arrow heads and tips; read as a browser reads it (names in lower case).
SHOWN_ELEMENTS = {name.lower() for name in ELEMENTS} | {"a", "title"}
SHOWN_ATTRIBUTES = {_name(name).lower() for name in ATTRIBUTES} | {"class", "role", "aria-label", "xml:space"}
SCHEME_RE = re.compile(r"^\s*([a-z][a-z0-9+.-]*:|//|\\)", re.I)
UNSAFE_VALUE_RE = re.compile(rf"url\((?!#{ID}\))|@|expression|\\", re.I)  # a reference out, a rule, an escape


def shown_text_problems(text: str) -> list[str]:
    """Why text a drawing shows cannot be shown in a verified card: it reads as the card's face or a marker, or
    reads in another order than it is written."""
    if names_marker(text) or card_face(text) or BIDI_RE.search(text):
        return [f"its text {text.strip()[:MAX_LABEL]!r} would read as a card's face, a block marker or reordered text"]
    return []


def shown_drawing_problems(images: list[str], elements: list[tuple[str, dict[str, str]]], text: str) -> list[str]:
    """Why a drawing card as a page holds it is not one the build drew: each of its images (their src) must be a
    figure as clean_svg makes it, and its inline drawing (each element's tag and attributes, the outer <svg>
    first, and its text: the traced graph) the graph's elements only. The page guard's check, which trusts
    neither."""
    problems = [f"a figure's image is {src[:40]!r}, not an SVG image the build made" for src in images
                if not src.startswith(IMAGE_PREFIX)]
    problems += shown_text_problems(text)
    if elements and {"transform", "style"} & set(elements[0][1]):
        problems.append("a figure's <svg> has a transform or a style")
    for tag, attributes in elements:
        if tag.lower() not in SHOWN_ELEMENTS:
            problems.append(f"a figure holds <{tag}>")
        for key, value in attributes.items():
            key, value = key.lower(), value or ""
            if key not in SHOWN_ATTRIBUTES or key.startswith("on"):
                problems.append(f"a figure's <{tag}> has the attribute {key!r}")
            elif key == "href" and not (value.startswith("#") or tag == "a" and not SCHEME_RE.match(
                    re.sub(r"[\x00-\x20]", "", value))):
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
