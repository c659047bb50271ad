"""MkDocs hook of the series: translates MkDocs events into calls of the codeproof engine.

Everything else lives in hooks/codeproof/, which also runs as `python -m codeproof`.
"""

from __future__ import annotations

import logging
from html import escape
from pathlib import Path
from urllib.parse import quote, urljoin

from markupsafe import Markup
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.utils import clean_directory, get_relative_url

from codeproof.series import frontmatter
from codeproof.site import guard
from codeproof.site import overview
from codeproof.experiments import resources
from codeproof.site import sourcepages
from codeproof.series.blocks import parse_post, read_post
from codeproof.series.config import series_from_extra
from codeproof.common.errors import CodeproofError
from codeproof.engine import Engine
from codeproof.common.filesystem import shown_path
from codeproof.series.prose import first_paragraph
from codeproof.series.model import category_anchors, posts_using, read_series, series_bar
from codeproof.quotes.sources import SourceError
from codeproof.common.structure import Problem, QuotedRange, SeriesModel, report
from codeproof.site.tables import TableCells

log = get_plugin_logger(__name__)
TEMPLATES = Path(__file__).parent / "templates"  # the theme templates of the pages the hook generates
SCRIPT_TEMPLATE = "series-script.html"
SOURCE_TEMPLATE = "series-source.html"


class _Build:
    """What one build knows. MkDocs keeps this module across `serve` rebuilds, so on_config renews it."""

    def __init__(self, engine: Engine | None = None, site_dir: str | None = None, serving: bool = False):
        self.engine = engine
        self.site_dir = site_dir
        self.serving = serving  # `mkdocs serve` shows problems in the pages; a build fails on them
        self.problems = []
        self.warnings = []
        self.archive = None
        self.series = SeriesModel(())  # built in on_files from the posts' front matter
        self.parsed = {}  # src_uri -> ParsedPost, parsed once in on_files
        self.script_pages = {}  # src_uri of a generated script page -> what its template shows (see on_files)
        self.nav_posts = set()  # src_uri of the posts on_nav places
        self.outputs = {}  # script -> its output, verified by a post's [OUTPUT] block (for its page)
        self.sources = None  # the quoted package's files at the pin and their cross-references (on_files)
        self.source_pages = {}  # src_uri of a generated source page -> the upstream path it shows
        self.quoted = []  # QuotedRange of every verified REAL SOURCE card at the baseline, with its post's section
        self.category_index = None  # the overview's URL, when it lists the categories (<!-- series-categories -->)
        self.proved = {}  # src_uri -> (ParsedPost, ProvedPage), for the rendered-page guard

    def stop(self) -> None:
        """Free what the build holds: experiment runs still going are stopped."""
        if self.engine:  # None when the configuration itself failed
            self.engine.runner.cancel()


build = _Build()
mkdocs_command = "build"  # of this process: MkDocs calls on_startup once, before the first on_config


def on_startup(command, dirty):
    global mkdocs_command
    mkdocs_command = command


PREVIEW_IMAGE = "assets/og.png"  # what a shared link shows (overrides/assets/), also the feeds' image


@event_priority(100)  # before the feed's and search's on_config, which read the settings filled in here
def on_config(config):
    global build
    try:
        engine = Engine(series_from_extra(config.extra.get("series"), Path(config.config_file_path)))
        build = _Build(engine, config.site_dir, serving=mkdocs_command == "serve")
    except CodeproofError as error:  # mkdocs.yml cannot configure the series; a lock file that is not a lock
        raise PluginError(error.shown(where=None)) from None
    unfit = guard.docs_problems(Path(config.docs_dir), build.engine.series.root)
    if unfit:  # MkDocs walks docs/ next, following links (a loop never ends) and copying what they lead to
        raise PluginError(report(unfit))
    if str(TEMPLATES) not in config.theme.dirs:  # last: the site's overrides/ and the theme come first
        config.theme.dirs.append(str(TEMPLATES))
    config.markdown_extensions.append(TableCells())  # tables that read on a phone
    feeds = config.plugins.get("rss")
    if feeds is not None and not feeds.config.image:  # it would print <url>None</url>
        feeds.config.image = urljoin(config.site_url or "", PREVIEW_IMAGE)
    # jieba, with which Material's search cuts Chinese, tells of loading its dictionary on every build (at
    # DEBUG, on stderr); its warnings still show.
    logging.getLogger("jieba").setLevel(logging.WARNING)
    search = config.plugins.get("material/search")
    if search is not None and search.config.jieba_dict_user:  # Material reads it from the working folder
        search.config.jieba_dict_user = str(Path(config.config_file_path).parent / search.config.jieba_dict_user)
    return config


def on_files(files, config):
    engine = build.engine
    root = engine.series.root
    pages = []
    for file in files.documentation_pages():
        parsed, front = read_post(Path(file.abs_src_path), shown_path(file.abs_src_path, root))
        build.parsed[file.src_uri] = parsed
        pages.append((front, parsed, file.src_uri, file.url))
    build.series, problems, notes = read_series(pages, engine.series.announced)
    build.problems += problems
    for note in notes:
        log.info(note)
    for entry in build.series.posts:  # on_nav places them, so mkdocs.yml need not list them (drafts stay out)
        file = files.get_file_from_path(entry.src_uri)
        if file.inclusion.is_in_nav():
            file.inclusion = InclusionLevel.NOT_IN_NAV
            build.nav_posts.add(entry.src_uri)
    unreadable = [p for parsed in build.parsed.values() if parsed.unreadable for p in parsed.problems]
    if unreadable:  # MkDocs would stop on it with less to say: stop here, saying where
        raise PluginError(report(unreadable))
    engine.start_experiments(build.parsed.values())  # they run while pages render
    # experiments/ is read once per build; a link or a file that cannot be published is a problem, published nowhere.
    published, problems = engine.runner.published()
    build.problems += problems
    generated = []
    for resource in (r for r in published if r.is_script):
        generated.append(File.generated(config, resource.path, content=resource.data))  # the bytes read, not the path
        src = resources.script_page_src(resource.path)
        name = resource.path.rsplit("/", 1)[-1]
        build.script_pages[src] = {"path": resource.path, "name": name, "command": resources.script_command(resource.path),
                                   "posts": [(post.label, post.url) for post in
                                             posts_using(build.series, build.parsed, resource.path)]}
        page = resources.script_page(resource.data.decode("utf-8"))
        generated.append(File.generated(config, src, content=page, inclusion=InclusionLevel.NOT_IN_NAV))
    build.archive = resources.build_archive(root, engine.series.name, published)
    generated.append(File.generated(config, resources.ARCHIVE_URL, content=build.archive.data))
    try:  # the quoted package at the pin, a page per file (the map in the nav, the files reached from it)
        if engine.series.source_pages:
            build.sources = sourcepages.source_site(engine.store, engine.series, build.parsed.values(), log.info)
    except SourceError as error:
        build.problems.append(Problem(Path(config.config_file_path).name, 1, f"the source pages: {error}", hint=error.hint))
    if build.sources is not None:
        for path, data in sorted(build.sources.files.items()):
            generated.append(File.generated(config, resources.source_raw_src(path), content=data))
            if path.endswith(".py"):
                build.source_pages[resources.source_page_src(path)] = path
                generated.append(File.generated(config, resources.source_page_src(path), content="",
                                                inclusion=InclusionLevel.NOT_IN_NAV))
        generated.append(File.generated(config, resources.SOURCE_MAP_SRC, content="", inclusion=InclusionLevel.NOT_IN_NAV))
    for file in generated:
        taken = files.get_file_from_path(file.src_uri)
        if taken is not None:  # the author's file would be replaced without a word
            what = f"the page of {build.script_pages[file.src_uri]['path']}" if file.src_uri in build.script_pages else "it"
            build.problems.append(Problem(shown_path(taken.abs_src_path, root), 1, f"the build publishes {what} at "
                                          f"{file.src_uri}, which this file would take", hint="rename or move it"))
            files.remove(taken)
        files.append(file)
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri in build.source_pages or page.file.src_uri == resources.SOURCE_MAP_SRC:
        # The template writes these pages from values; search leaves them out, so code never drowns the posts.
        title = build.source_pages.get(page.file.src_uri, "源码地图")
        page.meta.update(title=Markup.escape(title), template=SOURCE_TEMPLATE, search={"exclude": True})
        return markdown
    if page.file.src_uri in build.script_pages:  # a page we generated: its values, no blocks
        # Escaped now: the search index takes the title before on_page_context, and Material shows it as HTML.
        page.meta.update(title=Markup.escape(build.script_pages[page.file.src_uri]["name"]), template=SCRIPT_TEMPLATE)
        return markdown
    parsed = build.parsed.get(page.file.src_uri)
    if parsed is None:  # a page another plugin added
        return markdown
    for key in set(page.meta) - set(frontmatter.KEYS):  # reported in on_files; never rendered
        del page.meta[key]
    if parsed.lines != markdown.split("\n"):  # another plugin changed the text: parse what we got
        parsed = parse_post(parsed.post, markdown, 1)
    proved = build.engine.prove_page(parsed, lambda url: _href(url, page))
    build.problems += proved.problems
    build.warnings += proved.warnings
    build.outputs.update(proved.outputs)
    build.proved[page.file.src_uri] = (parsed, proved)
    # For <meta> and the feed. Unsealed, a page that did not change reads as last build's (first_paragraph keeps it).
    page.meta.setdefault("description", first_paragraph(guard.unseal(proved.markdown, build.engine.seal)))
    if page.is_homepage:
        build.category_index = page.url if overview.CATEGORIES in proved.markdown else None
        experiments = {script["path"]: posts_using(build.series, build.parsed, script["path"])
                       for script in build.script_pages.values()}
        return overview.fill(proved.markdown, build.engine.series, build.series, build.archive, experiments)
    return proved.markdown


def on_page_content(html, page, config, files):
    if page.file.src_uri not in build.proved:  # a page we generated: no blocks
        return html
    parsed, proved = build.proved[page.file.src_uri]
    seal = build.engine.seal
    found = guard.check_page(html, parsed.post, parsed.lines, parsed.first_line, proved.cards, seal, proved.accounted)
    build.problems += found
    if found:  # serve shows the problems instead of the page; a build fails on them
        return f'<div class="proof-error"><pre>{escape(report(found))}</pre></div>'
    entry = build.series.post_at(page.file.src_uri)
    if entry and build.sources is not None:  # where the source pages say this post quotes their lines
        baseline = build.engine.series.baseline
        for (ref, excerpt), (anchor, title) in zip(proved.quoted, sourcepages.card_sections(html)):
            if (ref.repo, ref.commit) == (baseline.repo, baseline.commit) and ref.path in build.sources.files:
                build.quoted.append(QuotedRange(ref.path, excerpt.first, excerpt.last, entry.name, entry.url, anchor,
                                                title))
    if build.sources is not None:  # after the guard: the links are the engine's, from the index
        html = sourcepages.link_post_cards(html, seal, proved.quoted, build.sources, build.engine.series.baseline,
                                           page.url, lambda path, line: _source_line(path, line, page))
    return guard.unseal(html, seal)


def on_nav(nav, config, files):
    """The series' posts in number order, titled from the series model, where the first of them stands in
    mkdocs.yml's nav (after the first page if none does); so prev/next follow the series too."""
    posts = []
    for entry in (post for post in build.series.posts if post.src_uri in build.nav_posts):
        page = files.get_file_from_path(entry.src_uri).page
        page.title = entry.label
        posts.append(page)
    place, index = _remove(nav.items, set(map(id, posts))) or (nav.items, min(1, len(nav.items)))
    place[index:index] = posts
    for page in posts:
        page.parent = next((item for item in _walk(nav.items) if getattr(item, "children", None) is place), None)
    source_map = files.get_file_from_path(resources.SOURCE_MAP_SRC)
    if build.sources is not None and source_map is not None and source_map.page is not None:
        source_map.page.title = "源码地图"  # the readers' way into the source pages: before any section (作者)
        nav.items.insert(next((n for n, item in enumerate(nav.items) if item.is_section), len(nav.items)), source_map.page)
    nav.pages = [item for item in _walk(nav.items) if item.is_page]
    _series_order(nav.pages, posts)
    # The theme prints navigation titles as HTML on every page, outside any page's content. (The posts' titles
    # are their front matter's, checked with it.)
    titles = [item.title for item in _walk(nav.items) if item.title and item not in posts]
    mkdocs_yml = Path(config.config_file_path)
    build.problems += guard.check_titles(titles, mkdocs_yml.name, mkdocs_yml.read_text(encoding="utf-8").split("\n"))
    return nav


def on_page_context(context, page, config, nav):
    _escape_meta(page.meta)
    if build.sources is not None and (page.file.src_uri in build.source_pages or page.file.src_uri == resources.SOURCE_MAP_SRC):
        def line(path, number):  # posts render before generated pages: build.quoted is whole here
            return _source_line(path, number, page)
        baseline = build.engine.series.baseline
        path = build.source_pages.get(page.file.src_uri)
        context["source"] = (sourcepages.page_values(path, build.sources, build.quoted, baseline, line,
                                                     lambda url: _href(url, page),
                                                     build.engine.series.cache_dir) if path else None)
        context["source_map"] = None if path else sourcepages.map_values(build.sources, build.quoted, baseline, line)
        return context
    script = build.script_pages.get(page.file.src_uri)
    if script:
        context["script"] = {**script, "download": _href(script["path"], page),
                             "posts": [(label, _href(url, page)) for label, url in script["posts"]],
                             "output": build.outputs.get(script["path"])}  # posts render before generated pages
        return context
    this = build.series.post_at(page.file.src_uri)
    if this is None:  # not a series post (or one whose front matter is a problem already reported)
        return context
    baseline = build.engine.series.baseline
    anchors = category_anchors(build.series)
    context["series"] = {
        **series_bar(build.series, this),
        "minutes": this.minutes,
        "categories": [(category, build.category_index is not None
                        and _href(build.category_index, page) + "#" + anchors[category])
                       for category in this.categories],
        "link": lambda url: _href(url, page),
        "baseline": baseline,
        "baseline_url": f"https://github.com/{baseline.repo}/tree/{baseline.commit}",
    }
    return context


def on_post_build(config):
    build.engine.runner.finish()
    for warning in build.warnings:
        log.warning(str(warning))  # a strict build stops on these
    if build.problems:
        text = report(build.problems)
        if not build.serving:
            raise PluginError(text)
        log.error(text)  # serve keeps going: the pages show each problem in place


def on_build_error(error):
    """A failed build publishes nothing: the pages already written may hold what failed verification."""
    build.stop()
    if not build.serving and build.site_dir:
        clean_directory(build.site_dir)
        log.info(f"emptied {build.site_dir}: the build failed, so nothing in it is verified")


def on_shutdown():
    build.stop()


def on_serve(server, config, builder):
    root = build.engine.series.root
    server.watch(str(root / "experiments"))
    server.watch(str(build.engine.series.lock_file))
    return server


def _href(url: str, page) -> str:
    """A site URL as a link from a page: relative and percent-encoded, since an upstream file's name may hold
    #, ?, % or a space. (A fragment is added after.)"""
    return quote(get_relative_url(url, page.url))


def _source_line(path: str, number: int | None, page) -> str:
    """The address of a line of a source page (its top without a number) from a page."""
    return _href(resources.source_page_url(path), page) + (f"#L{number}" if number else "")


def _series_order(pages: list, posts: list) -> None:
    """Material's footer (上一页/下一页) in the readers' one order: the overview leads to the first post, each
    post to the published ones around it, as the series bar does; other pages (the authoring guide) are out
    of that flow."""
    for page in pages:
        page.previous_page = page.next_page = None
    if pages and posts and pages[0].is_homepage:
        pages[0].next_page = posts[0]
    for previous, page, following in zip([None, *posts], posts, [*posts[1:], None]):
        page.previous_page, page.next_page = previous, following


def _remove(items: list, ids: set[int]) -> tuple[list, int] | None:
    """Take the items with these ids out of `items` and the sections in it; return the list and the index
    where the first of them stood, if one did."""
    first = None
    for index in reversed(range(len(items))):
        if id(items[index]) in ids:
            del items[index]
            first = (items, index)
        elif getattr(items[index], "children", None):
            first = _remove(items[index].children, ids) or first
    return first


def _walk(items) -> list:
    """Navigation items, nested ones included."""
    found = []
    for item in items:
        found += [item] + _walk(getattr(item, "children", None) or [])
    return found


def _escape_meta(meta: dict) -> None:
    """Front matter that the theme writes into HTML and attributes unescaped (MkDocs' template
    environment does not autoescape) is escaped here, once. The feed has read it already."""
    for key in ("title", "description"):
        if isinstance(meta.get(key), str):
            meta[key] = Markup.escape(meta[key])
    if isinstance(meta.get("categories"), list):
        meta["categories"] = [Markup.escape(str(category)) for category in meta["categories"]]
