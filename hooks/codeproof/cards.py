"""The series' blocks as a Python-Markdown extension any host loads by name, with its configuration only:

    markdown_extensions:
      - codeproof.cards:
          config_file: mkdocs.yml

Python-Markdown calls `makeExtension(**config)`; a host may make a Markdown instance per page (Zensical does, and
a new extension with it), so what lasts a build lives here, in `_BUILDS`, not in the extension: one `Engine` per
site and per state of what its proofs read (the configuration, sources.lock.json, every file of experiments/).
That engine reads every page once and starts every experiment the pages need, with their `Graph:` calls, before
the first page renders; a change of anything it read makes the next page's engine a new one.

The contract with the host (ARCHITECTURE.md, "The cards as an extension"):
- The page at hand comes from the host (`page_at_hand`): the extension's own `post:` (and `url:`, `first_line:`)
  where a caller renders one page, else Zensical's rendering context. A host that says neither is refused.
- The extension proves the page's blocks before Markdown reads the text (a preprocessor ahead of Markdown's own),
  and reads the HTML Markdown made of it as the MkDocs build's guard does (a postprocessor after every other): the
  cards it rendered and no other, no card face, marker or seal outside them.
- A problem raises `CardsError` with every problem of the page (`file:line: what`, `hint:`): the host's build
  stops. `CODEPROOF_SHOW_PROBLEMS=1` (a preview server's) shows them on the page in place of what failed instead.
- The seal never leaves: the HTML the host gets holds none.
- What the extension cannot see (the page's template, its meta, the output folder) is the host build's to check.
- A host that drives the whole site's build itself (Zensical's adapter, which stages the pages MkDocs' events would
  add: `codeproof.adapter.stage`) hands it in as a `Hosting` (`HOSTED`): every page then renders through that
  build, as MkDocs' hook renders it, and its problems are that build's to report once every page has rendered.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import posixpath
import threading
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import quote, unquote

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from codeproof.build import SiteBuild
from codeproof.common.errors import CodeproofError
from codeproof.common.kinds.figure import traced_call
from codeproof.common.structure import ParsedPost, Problem, report
from codeproof.engine import Engine, ProvedPage
from codeproof.series.blocks import parse_post, read_post
from codeproof.series.config import SeriesConfigError, load_site
from codeproof.series.frontmatter import front_matter_problems
from codeproof.site import guard

# Above Python-Markdown's whitespace normalising (30), which expands tabs: a quote is proved as written.
PRIORITY = 40
GUARD_PRIORITY = -1000  # after every other postprocessor (raw HTML is put back at 30): the HTML as the host gets it
TREE_DONE_PRIORITY = -1000  # after every other treeprocessor: the table of contents' among them
SHOW_PROBLEMS_ENV = "CODEPROOF_SHOW_PROBLEMS"  # "1": problems shown on the page, as a preview server wants
CONTEXT_PREPROCESSOR = "rendering_context"  # Zensical's: holds the page it renders (its path under docs/, its URL)


class CardsError(CodeproofError):
    """The page the extension rendered holds problems: every one, as `file:line: what` with its hint."""

    exit_code = 1


@dataclass(frozen=True)
class PageAtHand:
    """The page a host renders: its file as problems name it (docs/posts/x.md), the folder of the site its links
    are written from (the page's URL, posts/x/, as MkDocs links; the file's folder, posts/, where the host rewrites
    links as relative to the Markdown file, as Zensical does), and the file line of the text's first line (the
    host passes the text without its front matter)."""

    post: str
    url: str
    links_from: str
    first_line: int
    file_problems: tuple[Problem, ...] = ()  # its file's own, where there is one: bytes that are no UTF-8, front matter


def read_page_file(path: Path, post: str) -> tuple[int, tuple[Problem, ...]]:
    """A page's file read once: the file line of its text's first line, and the file's own problems."""
    parsed, front = read_post(path, post)
    problems = [p for p in parsed.problems if parsed.unreadable]
    return parsed.first_line, tuple(problems + front.problems
                                    + ([] if front.unreadable else front_matter_problems(front, post)))


# In this process, since its host last emptied it: each failure said (a host may wrap what the extension raised in
# an error of its own, Zensical does: the adapter says these instead).
FAILURES: list[str] = []


@dataclass
class Hosting:
    """A site whose host drives its build (`build`): each page the host renders goes through it, as the MkDocs
    hook's pages do; `meta` is what the build said of each page it rendered (title, description), by src_uri."""

    build: SiteBuild
    meta: dict[str, dict] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


HOSTED: dict[Path, Hosting] = {}  # by the resolved config_file: the sites whose host drives the build


@dataclass
class _Build:
    """One engine for a site while what its proofs read stays as it was."""

    inputs: str
    engine: Engine
    docs_dir: Path
    root: Path
    traced: frozenset  # (script, call) of every `Graph:` its pages asked for: its runs trace these and no other
    lock: threading.Lock = field(default_factory=threading.Lock)


_BUILDS: dict[Path, _Build] = {}
_BUILDS_LOCK = threading.Lock()


def build_for(config_file: Path, page: ParsedPost | None = None) -> _Build:
    """The site's build for the state of its inputs now, whose runs trace every graph the `page` at hand asks for:
    the one held while both hold, else a new one (the old one's runs are cancelled), which has read every page
    and started their experiments (a page edited under a preview server may ask for a graph no run traces yet)."""
    config_file = config_file.resolve()
    inputs = inputs_digest(config_file)
    at_hand = [page] if page is not None and not page.unreadable else []
    with _BUILDS_LOCK:
        held = _BUILDS.get(config_file)
        if held is not None and held.inputs == inputs and graphs_traced(at_hand) <= held.traced:
            return held
        if held is not None:
            held.engine.runner.cancel()
        try:
            site = load_site(config_file)
        except SeriesConfigError as error:
            raise CardsError(error.shown(where=None)) from None
        engine = Engine(site.series)
        root = site.series.root
        pages = [read_post(path, shown(path, root))[0] for path in sorted(site.docs_dir.rglob("*.md"))]
        readable = [page for page in pages if not page.unreadable] + at_hand
        engine.start_experiments(readable)
        _BUILDS[config_file] = build = _Build(inputs, engine, site.docs_dir, root, graphs_traced(readable))
        return build


def graphs_traced(pages: list[ParsedPost]) -> frozenset:
    """(script, call) of each `Graph:` the pages' blocks ask for."""
    return frozenset((block.fields["File"], traced_call(block.fields)) for page in pages for block in page.blocks
                     if block.kind.runs and "Graph" in block.fields)


@atexit.register
def _finish() -> None:
    """The host's process ends: so do the runs its builds started (their folders removed)."""
    for build in list(_BUILDS.values()):
        build.engine.runner.finish()


def inputs_digest(config_file: Path) -> str:
    """What a site's proofs read besides the page: its configuration, its lock of the quoted files (whose bytes
    the user's cache keeps by their hashes) and every file of experiments/ (the scripts and what they import)."""
    root = config_file.parent
    digest = hashlib.sha256()
    config = config_file.read_bytes() if config_file.is_file() else b""
    for path in [config_file, _lock_file(config_file, config),
                 *sorted(p for p in (root / "experiments").rglob("*") if p.is_file() and not p.is_symlink())]:
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"absent")
    return digest.hexdigest()


@functools.lru_cache(maxsize=16)
def _lock_file(config_file: Path, config: bytes) -> Path:
    """The series' lock file as the configuration `config` names it (extra.series.lock_file), else the default
    one: a configuration that cannot be read is build_for's to report."""
    try:
        return load_site(config_file).series.lock_file
    except CodeproofError:
        return config_file.parent / "sources.lock.json"


def shown(path: Path, root: Path) -> str:
    """A file as problems name it: relative to the site's root."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def page_at_hand(md: Markdown, options: dict, build: _Build) -> PageAtHand:
    """The page the host renders now, as it says it: the extension's own `post:` option (a caller that renders
    one page; a file there is read too), else Zensical's rendering context (its page's path under docs/ and URL).
    CardsError otherwise."""
    context = _context(md, options)
    if options["post"]:
        path = build.root / options["post"]
        inside = path.resolve().is_relative_to(build.root.resolve())  # a name, never a way to read another file
        if not (inside and path.is_file() and not path.is_symlink()):
            return PageAtHand(options["post"], options["url"], options["url"], int(options["first_line"]) or 1)
        first_line, problems = read_page_file(path, options["post"])
        return PageAtHand(options["post"], options["url"], options["url"], int(options["first_line"]) or first_line,
                          problems)
    page = getattr(context, "page", None)
    if page is None or not isinstance(getattr(page, "path", None), str):
        raise CardsError("codeproof.cards: the host did not say which page it renders",
                         hint="give the extension `post:` (the page's file, `url:` and `first_line:`), or "
                              "render with a host that tells its extensions the page (Zensical)")
    post = shown(build.docs_dir / page.path, build.root)
    first_line, problems = read_page_file(build.docs_dir / page.path, post)
    return PageAtHand(post, str(page.url or ""), posixpath.dirname(page.path) + "/", first_line, problems)


def _context(md: Markdown, options: dict):
    """The host's rendering context (Zensical's), or None; CardsError where the extension's settings also name a
    page (`post:`): every page would be proved as that one post."""
    context = md.preprocessors[CONTEXT_PREPROCESSOR] if CONTEXT_PREPROCESSOR in md.preprocessors else None
    if options["post"] and context is not None:
        raise CardsError(f"codeproof.cards: `post: {options['post']}` is for a caller that renders one page, but the "
                         "host says which page it renders", hint="remove `post:` (and `url:`, `first_line:`) from "
                                                                 "the extension's settings")
    return context


def relative_url(url: str, page_url: str) -> str:
    """A site URL as a link from the page at `page_url` (both relative to the site's root, as hosts write them):
    relative and percent-encoded, as the MkDocs build links."""
    base = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url) + "/"
    link = posixpath.relpath(url or ".", base.rstrip("/") or ".")
    return quote(link + "/" if url.endswith("/") and not link.endswith("/") else link)


class CardsExtension(Extension):
    """Cards for the page a host renders; `proved` is what it proved (the host's tests read it)."""

    def __init__(self, **kwargs):
        self.config = {
            "config_file": ["mkdocs.yml", "the site's mkdocs.yml (the series' settings), from the working folder"],
            "post": ["", "the page's file as problems name it, where the host renders one page and says which"],
            "url": ["", "the page's URL in the site, with `post:`"],
            "first_line": [0, "the file line of the text's first line, with `post:` (0: after the file's front matter)"],
        }
        unknown = sorted(set(kwargs) - set(self.config))
        if unknown:  # Python-Markdown would stop on a KeyError, with a traceback
            error = CardsError(f"codeproof.cards: no setting {', '.join(map(repr, unknown))}",
                               hint=f"its settings are {', '.join(self.config)}")
            FAILURES.append(error.shown())
            raise error
        super().__init__(**kwargs)
        self.proved: ProvedPage | None = None
        self.parsed: ParsedPost | None = None
        self.build: _Build | None = None
        self.page: PageAtHand | None = None
        self.hosting: Hosting | None = None  # the site's, when its host drives the build
        # Python-Markdown's treeprocessors run the postprocessors on fragments too (the table of contents, on each
        # heading's HTML): the guard reads the page once the tree is done, when the postprocessors run on it whole.
        self.tree_done = False

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_Cards(md, self), "codeproof_cards", PRIORITY)
        md.treeprocessors.register(_TreeDone(md, self), "codeproof_tree_done", TREE_DONE_PRIORITY)
        md.postprocessors.register(_Guard(md, self), "codeproof_guard", GUARD_PRIORITY)


class _Cards(Preprocessor):
    def __init__(self, md: Markdown, cards: CardsExtension):
        super().__init__(md)
        self.cards = cards

    def run(self, lines: list[str]) -> list[str]:
        cards = self.cards
        cards.hosting = HOSTED.get(Path(cards.getConfig("config_file")).resolve())
        if cards.hosting is not None:
            return _hosted_markdown(self.md, cards, lines)
        try:
            cards.build = build = build_for(Path(cards.getConfig("config_file")))
            page = page_at_hand(self.md, cards.getConfigs(), build)
        except CardsError as error:
            FAILURES.append(error.shown(where="error"))
            raise
        parsed = parse_post(page.post, "\n".join(lines), page.first_line)
        parsed.problems += [p for p in page.file_problems if p not in parsed.problems]
        if not graphs_traced([parsed]) <= build.traced:
            cards.build = build = build_for(Path(cards.getConfig("config_file")), parsed)
        with build.lock:  # a host may render pages in threads; the engine's caches are the build's
            cards.proved = build.engine.prove_page(parsed, lambda url: relative_url(url, page.links_from))
        cards.parsed, cards.page, cards.tree_done = parsed, page, False
        return cards.proved.markdown.split("\n")


class _TreeDone(Treeprocessor):
    def __init__(self, md: Markdown, cards: CardsExtension):
        super().__init__(md)
        self.cards = cards

    def run(self, root) -> None:
        self.cards.tree_done = True


class _Guard(Postprocessor):
    def __init__(self, md: Markdown, cards: CardsExtension):
        super().__init__(md)
        self.cards = cards

    def run(self, text: str) -> str:
        cards = self.cards
        if not cards.tree_done:  # a fragment (a heading's title): the page and its table of contents are read below
            return text
        if cards.hosting is not None:
            return _hosted_content(self.md, cards, text)
        seal = cards.build.engine.seal
        parsed, proved = cards.parsed, cards.proved
        found = guard.check_page(text, parsed.post, parsed.lines, parsed.first_line, proved.cards, seal,
                                 proved.accounted)
        found += guard.toc_problems(list(_toc_titles(getattr(self.md, "toc_tokens", []))), parsed,
                                    (parsed.post, parsed.first_line))
        problems: list[Problem] = proved.problems + found
        if problems and os.environ.get(SHOW_PROBLEMS_ENV) != "1":
            FAILURES.append(report(problems))
            raise CardsError(FAILURES[-1])
        if found:  # the page itself is refused: its problems instead of it
            return guard.unseal(f'<div class="proof-error"><pre>{escape(report(found))}</pre></div>', seal)
        return guard.unseal(text, seal)


def _hosted_page(md: Markdown, options: dict) -> tuple[str, str, str]:
    """(src_uri, URL, the folder links are written from) of the page a driving host renders: Zensical's rendering
    context (its path under the staged docs/, as MkDocs' src_uri; links relative to the Markdown file's folder)."""
    page = getattr(_context(md, options), "page", None)
    if page is None or not isinstance(getattr(page, "path", None), str):
        raise CardsError("codeproof.cards: the host did not say which page it renders",
                         hint="build the site with `python -m codeproof.adapter.zensical build`")
    return page.path, unquote(str(page.url or "")), links_from(page.path)  # Zensical's URL is percent-encoded


def links_from(src_uri: str) -> str:
    """The folder a page's links are written from under Zensical, which rewrites them as relative to the page's
    Markdown file (posts/p.md: posts/)."""
    return posixpath.dirname(src_uri) + "/"


def _hosted_markdown(md: Markdown, cards: CardsExtension, lines: list[str]) -> list[str]:
    """A page's Markdown as the driving host's build renders it (SiteBuild.page_markdown): a post proved."""
    try:
        src_uri, url, links_from = _hosted_page(md, cards.getConfigs())
    except CardsError as error:
        FAILURES.append(error.shown(where="error"))
        raise
    hosting = cards.hosting
    if src_uri not in hosting.build.parsed and hosting.build.site.page_title(src_uri) is None:
        error = CardsError(f"codeproof.cards: the host renders {src_uri}, a page its build neither read nor added",
                           hint="build again: the staging folder is written anew each build")
        FAILURES.append(error.shown(where="error"))
        raise error
    meta = hosting.meta.setdefault(src_uri, dict(hosting.build.front.get(src_uri, {})))
    with hosting.lock:  # a host may render pages in threads; the build's records are one
        markdown = hosting.build.page_markdown(src_uri, "\n".join(lines), meta, url, src_uri == "index.md",
                                               lambda target: relative_url(target, links_from))
    cards.page, cards.tree_done = PageAtHand(src_uri, url, links_from, 1), False
    return markdown.split("\n")


def _hosted_content(md: Markdown, cards: CardsExtension, html: str) -> str:
    """A page's HTML as the driving host's build writes it (SiteBuild.page_content): read by the page guard, its
    citations and names linked; its table of contents read as a route; a post's header and navigation around it.
    Problems are the build's to report."""
    build, page = cards.hosting.build, cards.page
    href = functools.partial(relative_url, page_url=page.links_from)
    with cards.hosting.lock:
        written = build.page_content(page.post, html, page.url, href)
        build.problems += build.toc_problems(page.post, list(_toc_titles(getattr(md, "toc_tokens", []))))
        around = build.post_page(page.post, href)  # the header and navigation, which MkDocs' theme places
    return f"{around[0]}{written}{around[1]}" if around is not None else written


def _toc_titles(tokens: list[dict]):
    """Each title of a table of contents (Python-Markdown's toc_tokens), as HTML, its subsections' too."""
    for token in tokens:
        yield token.get("data-toc-label") or token.get("html") or escape(token.get("name", ""))
        yield from _toc_titles(token.get("children", []))


def makeExtension(**kwargs) -> CardsExtension:  # noqa: N802 (Python-Markdown's name)
    return CardsExtension(**kwargs)
