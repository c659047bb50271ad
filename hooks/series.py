"""MkDocs hook of the series: translates MkDocs events into calls of the codeproof engine.

Everything else lives in hooks/codeproof/, which also runs as `python -m hooks.codeproof`.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel

from codeproof import overview, render, resources, series_nav
from codeproof.blocks import front_matter, parse_post, split_front_matter
from codeproof.config import SeriesConfigError, series_from_extra
from codeproof.engine import Engine, experiment_page
from codeproof.problems import report

log = get_plugin_logger(__name__)


class _Build:
    """What one build knows. MkDocs keeps this module across `serve` rebuilds, so on_config renews it."""

    serving = False

    def __init__(self, engine: Engine | None = None):
        self.engine = engine
        self.problems = []
        self.warnings = []
        self.archive = None
        self.posts: list[overview.PostInfo] = []  # the published posts, from their front matter


build = _Build()


def on_startup(command, dirty):
    _Build.serving = command == "serve"


def on_config(config):
    global build
    root = Path(config.config_file_path).resolve().parent
    try:
        series = series_from_extra(config.extra.get("series"), root)
    except SeriesConfigError as error:
        raise PluginError(str(error)) from None
    build = _Build(Engine(series))
    return config


def on_files(files, config):
    engine = build.engine
    root = engine.series.root
    posts = []
    for file in files.documentation_pages():
        raw = Path(file.abs_src_path).read_text(encoding="utf-8")
        first_line, body = split_front_matter(raw)
        posts.append(parse_post(_post_path(file, root), body, first_line))
        info = overview.post_info(front_matter(raw), file.src_uri, file.url)
        build.posts += [info] if info else []
    engine.start_experiments(posts)  # they run while pages render
    for script in resources.experiment_scripts(root):
        rel = script.relative_to(root).as_posix()
        files.append(File.generated(config, rel, abs_src_path=str(script)))
        page = resources.script_page(rel, script.read_text(encoding="utf-8"))
        files.append(File.generated(config, rel[:-3] + ".md", content=page, inclusion=InclusionLevel.NOT_IN_NAV))
    build.archive = resources.build_archive(root, engine.series.name)
    files.append(File.generated(config, resources.ARCHIVE_URL, content=build.archive.data))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.generated_by:  # our own script pages hold no blocks
        return markdown
    engine = build.engine
    root = engine.series.root
    raw = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    # MkDocs gives the text after the front matter (and the blank lines after it): count what it took.
    first_line = raw[: len(raw) - len(markdown)].count("\n") + 1 if raw.endswith(markdown) else 1
    parsed = parse_post(_post_path(page.file, root), markdown, first_line)
    lines = parsed.lines
    replacements = []  # (start, end, markdown), applied bottom-up so indexes stay valid
    for problem in parsed.problems:
        index = problem.line - parsed.first_line
        replacements.append((index, index + 1, lines[index] + "\n" + render.problem_box([problem])))
    for block in parsed.blocks:
        checked = engine.check(block)
        build.problems += [checked.problem] if checked.problem else []
        build.warnings += [checked.warning] if checked.warning else []
        if checked.problem:
            shown = render.problem_box([checked.problem])
        else:
            shown = engine.render(checked, lambda url: _relative(url, page.url))
        replacements.append((block.start, block.end, shown))
    build.problems += parsed.problems
    for start, end, text in sorted(replacements, reverse=True):
        lines[start:end] = [text]
    markdown = "\n".join(lines)
    page.meta.setdefault("description", overview.first_paragraph(markdown))  # for <meta> and the feed
    return _fill_overview(markdown) if page.is_homepage else markdown


def _fill_overview(markdown):
    """The overview's facts come from configuration: replace its markers with them."""
    series = build.engine.series
    # The overview is docs/index.md, so a file's src path is already a link from it that MkDocs validates.
    filled = {
        "<!-- series-baseline -->": overview.baseline(series),
        "<!-- experiment-environment -->": overview.environment_table(resources.experiment_requirements(series.root)),
        "<!-- experiment-archive -->": resources.archive_summary(build.archive, resources.ARCHIVE_URL),
        "<!-- series-posts -->": overview.posts_table(series, build.posts),
    }
    for marker, text in filled.items():
        markdown = markdown.replace(marker, text)
    return markdown


def on_page_context(context, page, config, nav):
    number = page.meta.get("series")
    if number is None:
        return context
    published = {post.number: (post.title, post.url) for post in build.posts}
    previous, following = series_nav.neighbours(number, published, build.engine.series.announced)
    baseline = build.engine.series.baseline
    context["series"] = {
        "previous": previous,
        "next": following,
        "link": lambda url: _relative(url, page.url),
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


def on_serve(server, config, builder):
    root = build.engine.series.root
    server.watch(str(root / "experiments"))
    server.watch(str(build.engine.series.lock_file))
    return server


def _post_path(file, root: Path) -> str:
    return Path(file.abs_src_path).resolve().relative_to(root).as_posix()


def _relative(url: str, page_url: str) -> str:
    """A site URL (relative to the site root; '' is the home page) as a link from the page at page_url."""
    rel = posixpath.relpath(url or ".", posixpath.dirname(page_url) or ".")
    return rel + "/" if (not url or url.endswith("/")) and not rel.endswith("/") else rel
