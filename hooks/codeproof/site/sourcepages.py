"""The source pages: every file of the quoted package at the pin, on the site, cross-referenced, with the
posts that quote each range; and the map of the package.

The code is lexed by Pygments (the classes its HTML formatter gives, so the theme colours it as the cards);
each line is an element with the id L<n>, each quoted range starts with an element with the id L<a>-L<b>, so
the addresses cards link to work without script. A name whose definition is in the package links to it.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup
from pygments.lexers import PythonLexer
from pygments.token import STANDARD_TYPES

from codeproof.common.pagetree import Tree
from codeproof.series.config import Series, in_ci
from codeproof.site.namelinks import NAME_CLASSES, NameLinks, link_names
from codeproof.site.render import sealed_cards
from codeproof.site.addresses import SOURCE_ROOT, source_raw_src
from codeproof.common.signing import read_signed, secret_or_none, write_signed
from codeproof.quotes.sources import SourceStore
from codeproof.common.kinds.registry import CARD_CLASSES, BlockKind
from codeproof.common.structure import LONE_CR, Excerpt, FileRef, ParsedPost
from codeproof.site.xref import MODULE, Reference, XrefIndex, source_references


@dataclass(frozen=True)
class QuotedRange:
    """Lines of an upstream file that a post quotes, and where: the post's label, URL and section."""

    path: str
    first: int
    last: int
    post: str  # 第十三篇
    url: str  # the post's site URL
    anchor: str  # the id of the section that quotes them ("" before any)
    section: str  # its title


@dataclass(frozen=True)
class MentionedAt:
    """A line of an upstream file that a post's words cite (a linked citation), and where: as QuotedRange."""

    path: str
    line: int
    post: str
    url: str
    anchor: str
    section: str


@dataclass(frozen=True)
class Note:
    """What a source page says beside a line: the posts that quote the range starting there, or that use the
    definition on it."""

    line: int
    text: str
    url: str  # the post's section, relative to the source page


MAP_URL = f"{SOURCE_ROOT}/"


RENDERING = 8  # of code_html: a change of its output changes this, so no page is taken from an older cache


def code_html(text: str, references: list[Reference], ranges: list[QuotedRange], notes: list[Note], link,
              plain: bool = False) -> Markup:
    """A whole file (a source page's, a script page's) as HTML lines, every text escaped, its `references` to the
    package linked. `link(path, line)` is the address of a line of a source page from this one. `plain`: the
    lines as text, not lexed (a file over the size the site highlights)."""
    links = NameLinks(references, link)
    if LONE_CR.search(text):  # Python (so the index) and Pygments break lines there; the file's lines do not
        links, text = NameLinks([], link), LONE_CR.sub("\u240d", text)  # shown as ␍, on its line
    starts: dict[int, set[str]] = {}
    for quoted in ranges:
        starts.setdefault(quoted.first, set()).add(f"L{quoted.first}-L{quoted.last}")
    quoted_lines = {n for quoted in ranges for n in range(quoted.first, quoted.last + 1)}
    notes_at: dict[int, list[Note]] = {}
    for note in notes:
        notes_at.setdefault(note.line, []).append(note)
    lines, current, line, column = [], [], 1, 0
    tokens = [(None, text if text.endswith("\n") else text + "\n")] if plain else \
        PythonLexer(stripnl=False, ensurenl=True).get_tokens(text)
    for kind, value in tokens:
        css = _css_class(kind)
        for n, piece in enumerate(value.split("\n")):
            if n:  # a line ends here
                lines.append(_spans(current))
                current, line, column = [], line + 1, 0
            if not piece:
                continue
            linked = css in NAME_CLASSES and links.link(piece, line, column)
            current.append((LINKED, linked) if linked else ("" if css in UNCOLOURED else css, _text(piece)))
            column += len(piece)
    if current:
        lines.append(_spans(current))
    out = []
    for number, body in enumerate(lines, 1):
        anchors = "".join(f'<span id="{anchor}"></span>' for anchor in sorted(starts.get(number, ())))
        said = "".join(f'<a class="series-src__note" href="{_attribute(note.url)}">{_text(note.text)}</a>'
                       for note in notes_at.get(number, ()))
        css = ' class="series-src__quoted"' if number in quoted_lines else ""  # a line is any span a chunk holds
        out.append(f'<span{css} id="L{number}" data-n="{number}">{anchors}{body}\n{said}</span>')
    return Markup("".join(f'<span class="series-src__chunk">{"".join(out[at:at + CHUNK])}</span>'
                          for at in range(0, len(out), CHUNK)))


# Classes the theme gives the code's own colour (Material: .n is --md-code-fg-color), and whitespace: shown as
# plain text. With runs of one class in one span (`),` not `)` `,`), a long file's page has half the elements.
# Lines in chunks that the browser lays out only near the screen (series.css: content-visibility): a phone
# lays out a 1,000-line file's page as fast as a short one's. Anchors and find-in-page reach every line.
CHUNK = 50
UNCOLOURED = frozenset({"n", "w"})
LINKED = None  # a linked name's piece: its own element, never joined with another


def _spans(pieces: list[tuple[str | None, str]]) -> str:
    """A line's HTML from its (class, HTML) pieces: neighbours of one class in one span, plain text bare."""
    runs: list[list] = []
    for css, body in pieces:
        if runs and css is not LINKED and runs[-1][0] == css:
            runs[-1][1] += body
        else:
            runs.append([css, body])
    return "".join(f'<span class="{css}">{body}</span>' if css else body for css, body in runs)


def _text(text: str) -> str:
    return html.escape(text, quote=False)


def _attribute(value: str) -> str:
    return html.escape(value, quote=True)


def _css_class(kind) -> str:
    if kind is None:  # plain text
        return ""
    while kind not in STANDARD_TYPES:
        kind = kind.parent
    return STANDARD_TYPES[kind]


def used_definitions(index: XrefIndex, ranges: list[QuotedRange]) -> dict[tuple[str, int], list[QuotedRange]]:
    """(file, line) of each definition the quotes use -> the quotes that use it: a definition's page lists
    where the series' quotes use it."""
    used: dict[tuple[str, int], list[QuotedRange]] = {}
    for quoted in ranges:
        for reference in index.references.get(quoted.path, []):
            if quoted.first <= reference.line <= quoted.last and reference.target_line != MODULE:
                places = used.setdefault((reference.path, reference.target_line), [])
                if quoted not in places:
                    places.append(quoted)
    return used



@dataclass(frozen=True)
class SourceSite:
    """The files published as source pages (path -> bytes, verified) and their cross-references."""

    files: dict[str, bytes]
    index: XrefIndex
    max_lines: int = 20_000  # over this, a file's page is plain text (Series.source_page_max_lines)
    scripts: dict[str, list[Reference]] = field(default_factory=dict)  # an experiment script -> its names of the package
    _used: dict = field(default_factory=dict, compare=False, repr=False)  # quotes -> used_definitions of them
    _uses: dict = field(default_factory=dict, compare=False, repr=False)  # what uses() gives, once made
    _tips: dict = field(default_factory=dict, compare=False, repr=False)  # what tips() gives, once made

    def uses(self) -> dict[tuple[str, int], list[tuple[str, int, int]]]:
        """(file, line) of each definition -> where the package uses it: (file, first line, how many times) for
        each file that does, worked out once for the build."""
        if not self._uses:
            found: dict[tuple[str, int], dict[str, list[int]]] = {}
            for path, references in sorted(self.index.references.items()):
                for reference in references:
                    at = found.setdefault((reference.path, reference.target_line), {}).setdefault(path, [])
                    at.append(reference.line)
            self._uses.update({target: [(path, min(lines), len(lines)) for path, lines in files.items()]
                               for target, files in found.items()})
        return self._uses

    def tips(self) -> dict[tuple[str, int], str]:
        """(file, line) of each definition the index links to -> its tip, worked out once for the build."""
        if not self._tips:
            self._tips.update({(r.path, r.target_line): r.tip for refs in self.index.references.values() for r in refs})
        return self._tips

    def used_definitions(self, quoted: list[QuotedRange]) -> dict[tuple[str, int], list[QuotedRange]]:
        """used_definitions of the build's quotes, worked out once for all the source pages of the build."""
        key = tuple(quoted)
        if key not in self._used:
            self._used[key] = used_definitions(self.index, quoted)
        return self._used[key]


def source_site(store: SourceStore, series: Series, posts: Iterable[ParsedPost], log,
                scripts: dict[str, bytes] | None = None) -> SourceSite:
    """Every file of the folders the posts quote at the baseline (autograd/ for autograd/core.py), from the
    pinned archive or git, each locked file proven against the lock; their cross-references, and those of the
    experiment `scripts` (path -> bytes) to them. SourceError when they cannot be had."""
    files = package_files(store, series, posts)
    indexed = {path: data for path, data in files.items() if not too_long(data, series.source_page_max_lines)}
    index, script_references = source_references(indexed, scripts or {}, series.cache_dir, log)
    return SourceSite(files, index, series.source_page_max_lines, script_references)


def package_files(store: SourceStore, series: Series, posts: Iterable[ParsedPost]) -> dict[str, bytes]:
    """Every file of the folders the posts quote at the baseline (autograd/ for autograd/core.py), each locked
    file proven against the lock (SourceStore.tree). SourceError when they cannot be had."""
    folders = sorted({block.fields["File"].split("/", 1)[0] for post in posts for block in post.blocks
                      if block.kind.upstream and "/" in block.fields.get("File", "")
                      and block.follows_baseline})
    files: dict[str, bytes] = {}
    for folder in folders:
        files.update(store.tree(series.baseline.repo, series.baseline.commit, folder))
    return files


def too_long(data: bytes, max_lines: int) -> bool:
    """Whether a file's page is plain text: neither Pygments nor jedi is given more than `max_lines` lines."""
    return data.count(b"\n") > max_lines


def link_post_cards(tree: Tree, seal: str, quoted: list[tuple[FileRef, Excerpt]], site: SourceSite, baseline,
                    page_url: str, link) -> None:
    """The names in a rendered post's REAL SOURCE cards (its tree, still sealed) linked to their definitions,
    where the card quotes a published file. `quoted` is the page's verified cards in order; `link(path, line)`
    addresses a line of a source page from the post, at `page_url`."""
    for card, (ref, excerpt) in zip(sealed_cards(tree, BlockKind.SOURCE.css, seal), quoted):
        code = card.css_first("pre")
        if code is not None and baseline.holds(ref) and ref.path in site.files:
            # CI keeps no card from an earlier build of the process: its key names the files, not what the index holds.
            links = NameLinks(site.index.references.get(ref.path, []), link,
                              key=None if in_ci() else (site.index.key, ref.path, page_url))
            if links:
                link_names(code, site.files[ref.path].decode("utf-8", "replace"), excerpt.first, links)


def link_experiment_cards(tree: Tree, seal: str, tried: list[tuple[str, Excerpt]], site: SourceSite,
                          scripts: dict[str, str], link) -> None:
    """The package's names in a rendered post's EXPERIMENT cards (its tree, still sealed) linked to their
    definitions. `tried` is the page's verified cards in order; `scripts` the scripts' texts by path."""
    for card, (path, excerpt) in zip(sealed_cards(tree, BlockKind.EXPERIMENT.css, seal), tried):
        code = card.css_first("pre")
        links = NameLinks(site.scripts.get(path, []), link)
        if code is not None and path in scripts and links:
            link_names(code, scripts[path], excerpt.first, links)


def script_code(path: str, text: str, site: SourceSite | None, tried: list[QuotedRange], link, page_link) -> Markup:
    """A script page's code: its lines as a source page's are (code_html), each range an EXPERIMENT card quotes
    (`tried`) marked with its post beside it and an anchor (#L<a>-L<b>, where the card leads), its names of the
    package linked where the series publishes the package's source pages."""
    ranges = [q for q in tried if q.path == path]
    notes = list(dict.fromkeys(Note(q.first, _label(q), _section_url(q, page_link)) for q in ranges))
    return code_html(text, site.scripts.get(path, []) if site is not None else [], ranges, notes, link)


def _label(q: QuotedRange | MentionedAt) -> str:
    """A post's range as a page beside the code names it: the post and its section."""
    return f"{q.post} · {q.section}" if q.section else q.post


def _section_url(q: QuotedRange | MentionedAt, page_link) -> str:
    """The address of the post's section that quotes or cites `q`."""
    return page_link(q.url) + (f"#{q.anchor}" if q.anchor else "")


def card_sections(tree: Tree, kind: BlockKind) -> list[tuple[str, str]]:
    """(heading id, heading text) of the section (h2 or h3) of each card of `kind` in a rendered post, in order;
    a heading's permalink (¶) is no part of its title."""
    current, cards = ("", ""), []
    for node in tree.css(f"h2, h3, div.{CARD_CLASSES[kind]}"):  # in document order
        if node.tag == "div":
            cards.append(current)
        elif node.attributes.get("id"):
            current = (node.attributes["id"], node.text(deep=True).strip().rstrip("¶").strip())
    return cards


def page_values(path: str, site: SourceSite, quoted: list[QuotedRange], baseline, link, page_link,
                cache_dir: Path, mentioned: list[MentionedAt] = ()) -> dict:
    """What templates/source_page.html shows of one file. `link(path, line)` addresses a line of a source page,
    `page_link(url)` a page of the site, both from this page. The code's HTML is kept under the cache, named
    by everything it is made from (CI reads no cache). `mentioned`: the lines the posts' words cite."""
    text = site.files[path].decode("utf-8", "replace")
    ranges = [q for q in quoted if q.path == path]
    plain = too_long(site.files[path], site.max_lines)

    def section(q: QuotedRange | MentionedAt) -> str:
        return _section_url(q, page_link)

    notes = [Note(q.first, _label(q), section(q)) for q in ranges]
    for (where, line), users in site.used_definitions(quoted).items():
        if where == path:
            notes += [Note(line, f"被引用于 {q.post} · {q.section}" if q.section else f"被引用于 {q.post}", section(q))
                      for q in users if not (q.path == path and q.first <= line <= q.last)]
    quoting = site.used_definitions(quoted)
    outline = [{"name": d.name, "first": d.first,
                "uses": [(f"{where}:{line}" if where != path else f"L{line}", link(where, line), count)
                         for where, line, count in site.uses().get((path, d.first), [])],
                "posts": list(dict.fromkeys((_label(q), section(q)) for q in quoting.get((path, d.first), [])
                                            + [q for q in ranges if q.first <= d.first <= q.last])),
                "mentions": list(dict.fromkeys((_label(m), section(m)) for m in mentioned
                                               if m.path == path and d.first <= m.line <= d.last))}
               for d in site.index.definitions.get(path, [])]
    return {
        "path": path, "commit": baseline.commit, "repo": baseline.repo, "version": baseline.version,
        "outline": outline,
        "github": f"https://github.com/{baseline.repo}/blob/{baseline.commit}/{path}",
        "raw": page_link(source_raw_src(path)), "map": page_link(MAP_URL),
        "ranges": [(q, f"#L{q.first}-L{q.last}", section(q)) for q in sorted(ranges, key=lambda q: q.first)],
        "code": _cached_code(path, text, site.index, ranges, list(dict.fromkeys(notes)), link, cache_dir, plain),
        "plain": plain and {"lines": text.count("\n"), "max": site.max_lines},
    }


def _cached_code(path, text, index, ranges, notes, link, cache_dir: Path, plain: bool = False) -> Markup:
    # The index by its key (the files it was made from), not its 3,000 references again for each page.
    made_of = [RENDERING, path, plain, hashlib.sha256(text.encode("utf-8")).hexdigest(), index.key,
               link(path, None),  # from the page to itself: how the site addresses pages, so where every link leads
               [_fields(q) for q in ranges], [_fields(n) for n in notes]]
    key = hashlib.sha256(json.dumps(made_of, ensure_ascii=False).encode("utf-8")).hexdigest()
    kept = cache_dir / "sourcepages" / f"{key}.html"
    if not in_ci() and (cache_dir, key) in _CODES:
        return _CODES[cache_dir, key]
    secret = secret_or_none()
    data = None if in_ci() else read_signed(kept, secret)  # signed: HTML edited in the cache is made again
    if data is not None:
        try:
            return _keep((cache_dir, key), Markup(data.decode("utf-8")))
        except UnicodeDecodeError:
            pass  # a damaged cache is made again
    code = _keep((cache_dir, key), code_html(text, index.references.get(path, []), ranges, notes, link, plain))
    write_signed(kept, secret, str(code).encode("utf-8"))
    return code


_CODES: dict[tuple[Path, str], Markup] = {}  # what the cache folder keeps, kept in the process too (serve builds again)
KEPT_CODES = 256  # pages' code: a serve session's every edit of a heading makes some anew


def _keep(key: tuple[Path, str], code: Markup) -> Markup:
    if len(_CODES) >= KEPT_CODES:
        _CODES.clear()
    _CODES[key] = code
    return code


def _fields(value) -> tuple:
    """A flat dataclass's fields, as astuple gives them without its deep copy."""
    return tuple(value.__dict__.values())


def citation_tip(target, site: SourceSite | None, tree, baseline) -> str:
    """What hovering a citation in a post's words shows: as a name in a card shows (the definition's line and
    its docstring's first line, from the cross-reference index), else the cited line as written, or the file."""
    if not target.first:
        return f"{target.path} · {baseline.repo}@{baseline.commit[:7]}"
    if site is not None and not target.script:
        tip = site.tips().get((target.path, target.first))
        if tip:
            return tip
    text = tree.text_or_none(target.path)
    lines = text.split("\n") if text is not None else []
    shown = lines[target.first - 1].strip() if target.first <= len(lines) else ""
    return f"{target.path}:{target.first}  {shown}".rstrip()


def map_values(site: SourceSite, quoted: list[QuotedRange], baseline, link) -> dict:
    """The map: each file with its lines, the share the series quotes, and its top-level symbols (quoted
    ones marked). `link(path, None)` addresses a file's page from the map (its lines are #L<n> there)."""
    files = []
    for path in sorted(p for p in site.files if p.endswith(".py")):
        text = site.files[path].decode("utf-8", "replace")
        total = max(1, text.count("\n"))
        lines = {n for q in quoted if q.path == path for n in range(q.first, q.last + 1)}
        url = link(path, None)
        symbols = [(d.name, f"{url}#L{d.first}", any(d.first <= n <= d.last for n in lines))
                   for d in site.index.definitions.get(path, [])]
        files.append({"path": path, "url": url, "lines": total, "quoted": len(lines),
                      "share": round(100 * len(lines) / total), "symbols": symbols})
    return {"files": files, "repo": baseline.repo, "commit": baseline.commit, "version": baseline.version}
