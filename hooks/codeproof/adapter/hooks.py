"""MkDocs' events as calls of the generator-neutral build (codeproof.build), MkDocs' objects as plain values, and
problems back as MkDocs' PluginError. One `SeriesHooks` serves one hook module (hooks/series.py): MkDocs keeps that
module across `serve` rebuilds, so on_config renews the build it holds."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import quote

import click
import jinja2
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.utils import clean_directory, get_relative_url

from codeproof.adapter import feeds, navigation, search
from codeproof.build import SiteBuild
from codeproof.common.errors import CodeproofError
from codeproof.common.structure import report
from codeproof.common.usercache import output_folder_problem
from codeproof.engine import Engine
from codeproof.series.config import series_from_extra
from codeproof.site import addresses, generated, guard, published
from codeproof.site.tables import TableCells

THEME = Path(__file__).parent / "theme"  # the theme templates of the pages the build adds
MATRIX_ENV = "CODEPROOF_MATRIX"  # "1": a build runs the experiments in the series' matrix too (./dev.sh build --matrix)


class CompiledTemplates(jinja2.BytecodeCache):
    """The theme's templates, compiled, for the process's next builds. MkDocs makes a new Jinja environment for each
    build, which compiled Material's templates again (half a second a build, each `serve` rebuild). Kept by the
    template's name and file, its source's checksum and what else changes the compiled code, so an edited template
    (an override) is compiled anew; in memory only, never on disk."""

    def __init__(self):
        self._code: dict[tuple, object] = {}

    @staticmethod
    def _key(bucket: jinja2.bccache.Bucket) -> tuple:
        env = bucket.environment
        return (bucket.key, bucket.checksum, tuple(sorted(env.extensions)), env.autoescape, env.finalize,
                env.block_start_string, env.variable_start_string, env.comment_start_string, env.line_statement_prefix,
                env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        bucket.code = self._code.get(self._key(bucket))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[self._key(bucket)] = bucket.code


COMPILED_TEMPLATES = CompiledTemplates()  # one a process: hooks/series.py is loaded anew with each configuration


class SeriesHooks:
    def __init__(self, name: str):
        self.log = get_plugin_logger(name)  # its messages are prefixed with the hook module's name
        self.build: SiteBuild | None = None  # renewed by on_config
        self.nav_posts: set[str] = set()  # src_uri of the posts on_nav places
        self.site_dir: str | None = None  # where this build writes, once the configuration is sound
        self.mkdocs_command = "build"  # of this process: MkDocs calls on_startup once, before the first on_config
        self.dirty = False
        self.livereload = False  # serve rebuilds on a change (and so can build the source pages after the first page)
        self.serving = False  # on_serve came: the first build is over and the server is about to answer
        self.source_pages_deferred = False  # this build left the source pages to the next (serve's first build)

    def on_startup(self, command, dirty):
        self.mkdocs_command, self.dirty = command, dirty
        # Known only from MkDocs' command line (`--no-livereload`); a serve started otherwise is taken as without.
        context = click.get_current_context(silent=True)
        self.livereload = command == "serve" and context is not None and context.params.get("livereload") is True

    @event_priority(100)  # before the feed's and search's on_config, which read the settings filled in here
    def on_config(self, config):
        self.build, self.nav_posts, self.site_dir = None, set(), None
        try:
            # serve never runs the matrix: each edit would wait for every environment's runs.
            matrix = (Path(config.config_file_path).name
                      if self.mkdocs_command != "serve" and os.environ.get(MATRIX_ENV) == "1" else None)
            self.build = build = SiteBuild(Engine(series_from_extra(config.extra.get("series"),
                                                                    Path(config.config_file_path))), matrix)
        except CodeproofError as error:  # mkdocs.yml cannot configure the series; a lock file that is not a lock
            raise PluginError(error.shown(where=None)) from None
        unsafe = output_folder_problem(Path(config.site_dir), build.engine.series.root)
        if unsafe:
            raise PluginError(f"{unsafe[0]}\n  hint: {unsafe[1]}")
        self.site_dir = config.site_dir
        # A first build downloads the pinned release archive meanwhile: MkDocs and its plugins configure themselves
        # (Material's search loads its Chinese dictionary, a second) before the build reads a file of it.
        build.engine.store.prefetch()
        unfit = guard.docs_problems(Path(config.docs_dir), build.engine.series.root)
        if unfit:  # MkDocs walks docs/ next, following links (a loop never ends) and copying what they lead to
            raise PluginError(report(unfit))
        if str(THEME) not in config.theme.dirs:  # last: the site's overrides/ and the theme come first
            config.theme.dirs.append(str(THEME))
        config.markdown_extensions.append(TableCells())  # tables that read on a phone
        feed_plugin = config.plugins.get("rss")
        if feed_plugin is not None and not feed_plugin.config.image:
            feed_plugin.config.image = feeds.feed_image(config.site_url)
        if feed_plugin is not None:  # its HTTP cache is tool state: in the user's cache, never in the repository
            feed_plugin.config.cache_dir = str(build.engine.series.cache_dir / "plugins" / "rss")
        logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's Chinese search: no DEBUG chatter per build
        search_plugin = config.plugins.get("material/search")
        if search_plugin is not None and search_plugin.config.jieba_dict_user:  # Material reads it from the working folder
            search_plugin.config.jieba_dict_user = str(Path(config.config_file_path).parent
                                                       / search_plugin.config.jieba_dict_user)
        return config

    def on_env(self, env, config, files):
        env.bytecode_cache = COMPILED_TEMPLATES
        return env

    def on_files(self, files, config):
        build = self.build
        notes, unreadable = build.read_posts([(Path(f.abs_src_path), f.src_uri, f.url) for f in files.documentation_pages()])
        for note in notes:
            self.log.info(note)
        if unreadable:  # MkDocs would stop on it with less to say: stop here, saying where
            raise PluginError(report(unreadable))
        for entry in build.series.posts:  # on_nav places them, so mkdocs.yml need not list them (drafts stay out)
            file = files.get_file_from_path(entry.src_uri)
            if file.inclusion.is_in_nav():
                file.inclusion = InclusionLevel.NOT_IN_NAV
                self.nav_posts.add(entry.src_uri)

        def authors(src_uri):
            file = files.get_file_from_path(src_uri)
            return file and Path(file.abs_src_path)

        for src_uri in build.add_files(Path(config.config_file_path).name, authors, self.log.info, config.site_url):
            files.remove(files.get_file_from_path(src_uri))
        search_plugin = config.plugins.get("material/search")
        theme_files = [file.src_uri for file in files if file.src_dir in config.theme.dirs]
        for src_uri in search.unfetched_theme_files(theme_files, (search_plugin and search_plugin.config.lang) or []):
            files.remove(files.get_file_from_path(src_uri))
        # serve's first build leaves the package's source pages (most of its pages, none of them the author's) to a
        # rebuild on_serve asks for at once: the author's pages are served first, as soon as plain MkDocs would.
        self.source_pages_deferred = self.livereload and not self.serving and bool(build.site.source_pages)
        build.prove_posts(relative_link)  # before the files are listed: the runs' records are written from the proofs
        for file in build.site.files:
            if self.source_pages_deferred and file.src_uri in build.site.source_pages:
                continue
            inclusion = InclusionLevel.UNDEFINED if file.in_nav else InclusionLevel.NOT_IN_NAV
            files.append(File.generated(config, file.src_uri, content=file.content, inclusion=inclusion))
        if self.dirty:  # MkDocs rebuilds only pages whose Markdown is newer than what it wrote: a post whose script,
            # lock or configuration changed would keep its old stamp. The pages a proof reaches are always rebuilt.
            for src_uri in [entry.src_uri for entry in build.series.posts] + ["index.md"]:
                file = files.get_file_from_path(src_uri)
                if file is not None and os.path.isfile(file.abs_dest_path):
                    os.remove(file.abs_dest_path)
        return files

    def on_page_markdown(self, markdown, page, config, files):
        return self.build.page_markdown(page.file.src_uri, markdown, page.meta, page.url, page.is_homepage,
                                   lambda url: relative_link(url, page.url))

    def on_page_content(self, html, page, config, files):
        written = self.build.page_content(page.file.src_uri, html, page.url, lambda url: relative_link(url, page.url))
        self.build.problems += self.build.toc_problems(page.file.src_uri, [item.title for item in _toc(page.toc)])
        return written

    def on_nav(self, nav, config, files):
        build = self.build
        entries = [entry for entry in build.series.posts if entry.src_uri in self.nav_posts]
        posts = [files.get_file_from_path(entry.src_uri).page for entry in entries]
        source_map = files.get_file_from_path(addresses.SOURCE_MAP_SRC) if build.site.sources is not None else None
        nav.pages = navigation.arrange(nav.items, posts, [entry.label for entry in entries], source_map and source_map.page,
                                       generated.SOURCE_MAP_TITLE)  # the map: the readers' way into the source pages
        build.check_nav_titles([item.title for item in navigation.walk(nav.items) if item.title and item not in posts],
                               Path(config.config_file_path))
        return nav

    def on_page_context(self, context, page, config, nav):
        context.update(self.build.page_context(page.file.src_uri, page.meta, lambda url: relative_link(url, page.url)))
        return context

    def on_post_build(self, config):  # after the search and feed plugins' (hooks come after plugins): their files are written
        build = self.build
        build.engine.runner.finish()
        site_dir = Path(config.site_dir)
        # The search index and the feeds, which their plugins write from the pages: read as the guard reads a page
        # (when the pages passed: a page that failed would show again here, through its words). Serve's first build
        # leaves them to the next, which begins as the server answers: serve only reports them, in its log.
        if not build.problems and not self.source_pages_deferred:
            build.problems += build.route_problems("the search index", search.page_entries(site_dir / search.INDEX,
                                                                                         site_dir))
            build.problems += build.route_problems("a feed", feeds.feed_items(site_dir))
            build.problems += published.output_problems(  # every host's check of its folder
                site_dir, build.rendered, tuple(map(addresses.source_page_url, build.site.source_pages.values())))
        search.complete_search_index(site_dir / search.INDEX, build.site.sources)
        feeds.complete_json_feeds(site_dir)
        for warning in build.warnings:
            self.log.warning(str(warning))  # a strict build stops on these
        if build.problems and self.mkdocs_command != "serve":
            raise PluginError(report(build.problems))
        if build.problems:
            self.log.error(report(build.problems))  # serve keeps going: the pages show each problem in place

    def on_build_error(self, error):
        """A failed build publishes nothing: the pages already written may hold what failed verification."""
        self.on_shutdown()
        if self.mkdocs_command != "serve" and self.site_dir:
            clean_directory(self.site_dir)
            self.log.info(f"emptied {self.site_dir}: the build failed, so nothing in it is verified")

    def on_shutdown(self):
        if self.build is not None:  # None when the configuration itself failed: experiment runs still going are stopped
            self.build.engine.runner.cancel()

    def on_serve(self, server, config, builder):
        self.serving = True
        server.watch(str(self.build.engine.series.root / "experiments"))
        server.watch(str(self.build.engine.series.lock_file))
        if self.source_pages_deferred:
            self.log.info(f"source pages ({len(self.build.site.source_pages)}): in the next build, which begins "
                          "as the server answers")
            rebuild_soon(server, builder)
        return server


def rebuild_soon(server, builder) -> None:
    """Have MkDocs' server build the site again once it answers, as a change of a watched file does (MkDocs 1.6's
    LiveReloadServer, whose version requirements.txt pins). Should that ever change, build again here, before
    the server answers: the first page comes later, but no page is ever missing."""
    try:
        with server._rebuild_cond:
            server._want_rebuild = True
            server._rebuild_cond.notify_all()
    except AttributeError:
        builder()


def relative_link(url: str, page_url: str) -> str:
    """A site URL as a link from the page at `page_url`: relative and percent-encoded (an upstream file's name may
    hold #, ?, % or a space). A fragment is added after."""
    return quote(get_relative_url(url, page_url))


def _toc(items):
    """Every entry of a page's table of contents, its subsections' too."""
    for item in items:
        yield item
        yield from _toc(item.children)
