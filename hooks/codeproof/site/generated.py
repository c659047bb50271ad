"""The pages and files a build adds to the site beside the author's, as plain values: each experiment script
(its bytes, and a page that shows it), the experiments' archive, and the quoted package at the pin (its raw
files, a page per Python file, the package map). The hook turns each `Generated` into a file of MkDocs; a
generated path that an author's file already takes is a problem, and the author's file is left out."""

from __future__ import annotations

from dataclasses import dataclass, field

from codeproof.common.structure import ParsedPost, Problem
from codeproof.experiments import resources
from codeproof.experiments.matrix import MatrixError, matrix_problem, read_lock
from codeproof.experiments.resources import Archive, Resource
from codeproof.quotes.lock import SourceError
from codeproof.series.model import Entry, SeriesModel, category_anchors, posts_using, series_bar
from codeproof.site import addresses, records, sourcepages
from codeproof.site.sourcepages import QuotedRange

SOURCE_MAP_TITLE = "源码地图"


@dataclass(frozen=True)
class Generated:
    """A file the build adds: its path under docs/ (src_uri), its content, and whether MkDocs lists it in the
    navigation (a page reached from another is not)."""

    src_uri: str
    content: bytes | str
    in_nav: bool = True


@dataclass
class GeneratedSite:
    files: list[Generated] = field(default_factory=list)
    script_pages: dict[str, dict] = field(default_factory=dict)  # src_uri -> what its template shows
    scripts: dict[str, str] = field(default_factory=dict)  # each published script's path -> its text
    source_pages: dict[str, str] = field(default_factory=dict)  # src_uri -> the upstream path it shows
    archive: Archive | None = None
    sources: sourcepages.SourceSite | None = None  # the package's files at the pin and their cross-references
    problems: list[Problem] = field(default_factory=list)

    def page_title(self, src_uri: str) -> str | None:
        """The title of a page this build generated, or None for the author's pages."""
        if src_uri in self.source_pages:
            return self.source_pages[src_uri]
        if src_uri == addresses.SOURCE_MAP_SRC:
            return SOURCE_MAP_TITLE
        if src_uri in self.script_pages:
            return self.script_pages[src_uri]["name"]
        return None

    def page_description(self, src_uri: str, baseline) -> str | None:
        """What a generated page says of itself in <meta> and to search engines (the site's description would be
        every such page's, alike), or None for the author's pages."""
        pinned = f"{baseline.repo} {baseline.version}（commit {baseline.commit[:7]}）"
        if src_uri in self.source_pages:
            return f"{self.source_pages[src_uri]}：{pinned}的源码全文，带行号与交叉引用，并注明本系列哪些文章引用了哪几行。"
        if src_uri == addresses.SOURCE_MAP_SRC:
            return f"{pinned}的源码地图：每个文件、本系列引用了其中多少，以及文件里的定义。"
        if src_uri in self.script_pages:
            return (f"实验脚本 {self.script_pages[src_uri]['path']}：本系列文章引用它，构建时在沙箱中运行它并核对"
                    "文章记录的输出。")
        return None


ROBOTS = "robots.txt"


def generated_site(engine, model: SeriesModel, parsed: dict[str, ParsedPost], published: list[Resource],
                   config_name: str, log, site_url: str | None = None) -> GeneratedSite:
    """What the build adds for `published` (the experiments folder as read once) and, where the series has
    source pages, for the package the posts quote. A package that cannot be had is a problem at mkdocs.yml."""
    site = GeneratedSite()
    if site_url:  # where crawlers find the pages: the sitemap MkDocs writes
        site.files.append(Generated(ROBOTS, f"User-agent: *\nAllow: /\n\nSitemap: {site_url.rstrip('/')}/sitemap.xml\n"))
    for resource in (r for r in published if r.is_script):
        site.files.append(Generated(resource.path, resource.data))  # the bytes read, not the path
        site.scripts[resource.path] = resource.data.decode("utf-8", "replace")
        src = addresses.script_page_src(resource.path)
        site.script_pages[src] = {
            "path": resource.path, "name": resource.path.rsplit("/", 1)[-1],
            "command": addresses.script_command(resource.path),
            "posts": [(post.label, post.url) for post in posts_using(model, parsed, resource.path)]}
        site.files.append(Generated(src, "", in_nav=False))  # the engine's HTML: build.generated_page
    site.archive = resources.build_archive(engine.series.root, engine.series.name, published)
    site.files.append(Generated(resources.ARCHIVE_URL, site.archive.data))
    site.files.append(Generated(records.RECORDS_URL, b""))  # the runs' records: written once the posts are proved
    for environment in engine.series.matrix.environments:  # each lock beside the archive, for readers to install
        url = addresses.matrix_lock_url(environment.lock.name)
        try:  # the bytes read and checked are those published: pins with their hashes, as mkdocs.yml records them
            lock = read_lock(environment)
        except MatrixError as error:
            site.problems.append(matrix_problem(error, engine.series.root, config_name, environment.line))
            continue
        if any(file.src_uri == url for file in site.files):
            site.problems.append(Problem(config_name, environment.line, f"matrix environment {environment.name}: its "
                                         f"lock's name {environment.lock.name} is another environment's too",
                                         hint="give each environment's lock a name of its own"))
            continue
        site.files.append(Generated(url, lock.data))
    if engine.series.source_pages:  # the quoted package at the pin, a page per file (the map in the nav)
        try:
            scripts = {r.path: r.data for r in published if r.is_script}
            site.sources = sourcepages.source_site(engine.store, engine.series, parsed.values(), log, scripts)
        except SourceError as error:
            site.problems.append(Problem(config_name, 1, f"the source pages: {error}", hint=error.hint))
    if site.sources is not None:
        for path, data in sorted(site.sources.files.items()):
            site.files.append(Generated(addresses.source_raw_src(path), data))
            if path.endswith(".py"):
                site.source_pages[addresses.source_page_src(path)] = path
                site.files.append(Generated(addresses.source_page_src(path), "", in_nav=False))
        site.files.append(Generated(addresses.SOURCE_MAP_SRC, "", in_nav=False))
    return site


def taken(site: GeneratedSite, authors: dict[str, str]) -> list[str]:
    """The src_uris of the author's files (`authors`: src_uri -> the file, as reports show it) that a generated
    file would replace: each is a problem of the site, and is left out of the build."""
    found = []
    for file in site.files:
        if file.src_uri in authors:
            script = site.script_pages.get(file.src_uri)
            what = f"the page of {script['path']}" if script else "it"
            site.problems.append(Problem(authors[file.src_uri], 1, f"the build publishes {what} at "
                                         f"{file.src_uri}, which this file would take", hint="rename or move it"))
            found.append(file.src_uri)
    return found


def quoted_ranges(entry: Entry, quoted, sections: list[tuple[str, str]], baseline, sources) -> list[QuotedRange]:
    """Where the source pages say a post quotes their lines: each verified REAL SOURCE card of a published file
    at the baseline, with the section (id, title) it stands in."""
    return [QuotedRange(ref.path, excerpt.first, excerpt.last, entry.name, entry.url, anchor, title)
            for (ref, excerpt), (anchor, title) in zip(quoted, sections)
            if baseline.holds(ref) and ref.path in sources.files]


def post_header(model: SeriesModel, entry: Entry, baseline, category_index: str | None, link) -> dict:
    """What a post's header and series bar show (overrides/partials/): its neighbours, reading time, its
    categories (linked to the overview's list where it has one), the baseline. `link` addresses a site URL from
    the post."""
    anchors = category_anchors(model)
    return {
        **series_bar(model, entry),
        "minutes": entry.minutes,
        "categories": [(category, category_index is not None and link(category_index) + "#" + anchors[category])
                       for category in entry.categories],
        "link": link,
        "baseline": baseline,
        "baseline_url": f"https://github.com/{baseline.repo}/tree/{baseline.commit}",
    }
