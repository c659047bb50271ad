"""The site as a host without MkDocs' events builds it (Zensical has no `on_files`, `on_nav` or `on_post_build`):
a staging folder of pages, written before the host builds, and its configuration.

`stage_build` drives the engine's build (`codeproof.build.SiteBuild`, as the MkDocs hook drives it): the author's
pages read and proved, and the pages and files the build adds planned. `write_stage` writes the staging folder
(`.codeproof-stage/docs/`, beside mkdocs.yml, emptied each time): every file of docs/ as it is (a page only if the
build read it: one written meanwhile waits for the next build), a post with the
description the build gave it in its front matter, and every file the build adds (the experiments' scripts and
archive, the matrix's locks, the package's raw files and a page per Python file, the package map, a page per
script, robots.txt). A page the build adds is the engine's HTML (build.generated_page) around its Markdown.
`write_config` writes `.codeproof-stage.yml`: mkdocs.yml's settings with the staging folder as docs_dir, the posts
in the navigation (adapter/navigation.py's rule), the cards loaded once, and no MkDocs hook.

The staging folder is written by the build for the build: nothing in it is read as evidence (the cards prove the
author's own files, and a page whose text differs from the file is proved as it is)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from markupsafe import escape

from codeproof.adapter import feeds
from codeproof.build import SiteBuild
from codeproof.cards import links_from, relative_url
from codeproof.common.filesystem import write_atomically
from codeproof.engine import Engine
from codeproof.series.config import SiteConfig, load_site, read_settings
from codeproof.site import addresses, generated

STAGE = ".codeproof-stage"  # beside mkdocs.yml: the folder the host builds from (its docs/), and its configuration
CONFIG = f"{STAGE}.yml"
CARDS = "codeproof.cards"


def page_url(src_uri: str) -> str:
    """A page's URL as MkDocs and Zensical make it (directory URLs): posts/p.md -> posts/p/, a/index.md -> a/."""
    stem = src_uri[: -len(".md")]
    return "" if stem == "index" else stem[: -len("index")] if stem.endswith("/index") else stem + "/"


def stage_build(config_file: Path, log) -> tuple[SiteConfig, SiteBuild]:
    """The engine's build of the site, its pages read and planned and its posts proved, as the MkDocs hook's
    on_files leaves it. A page that cannot be read is a problem of the build (`build.problems`)."""
    site = load_site(config_file)
    build = SiteBuild(Engine(site.series))
    pages = [(path, path.relative_to(site.docs_dir).as_posix()) for path in sorted(site.docs_dir.rglob("*.md"))]
    _, unreadable = build.read_posts([(path, src_uri, page_url(src_uri)) for path, src_uri in pages])
    build.problems += unreadable
    authors = {src_uri: path for path, src_uri in pages}
    build.add_files(config_file.name, authors.get, log, read_settings(config_file).get("site_url"))
    src_of = {url: src_uri for src_uri, url in build.urls.items()}
    build.prove_posts(lambda url, page: relative_url(url, links_from(src_of[page])))
    return site, build


def write_stage(site: SiteConfig, build: SiteBuild, meta: dict[str, dict]) -> Path:
    """The staging folder's docs/, written anew (see the module's docstring); `meta` is what the build said of each
    page it rendered (a post's description, once it has rendered). Returns the folder."""
    stage = site.series.root / STAGE
    shutil.rmtree(stage, ignore_errors=True)
    docs = stage / "docs"
    for path in sorted(p for p in site.docs_dir.rglob("*") if p.is_file()):
        src_uri = path.relative_to(site.docs_dir).as_posix()
        if path.suffix == ".md" and src_uri not in build.parsed:  # a page written since the build read docs/
            continue
        parsed, front = build.parsed.get(src_uri), build.front.get(src_uri)
        if parsed is None or not front:  # not a page, or a page without front matter: as it is
            _write(docs / src_uri, path.read_bytes())
            continue
        said = {"description": (meta.get(src_uri) or {}).get("description")} if src_uri in build.proved else {}
        values = {**{key: value for key, value in said.items() if value}, **front}  # the author's description first
        body = "\n".join(parsed.lines)  # the text the engine proved, as MkDocs hands it over after the front matter
        _write(docs / src_uri, f"---\n{_front_matter(values)}---\n{body}".encode())
    for file in build.site.files:
        page = build.generated_page(file.src_uri, lambda url, src=file.src_uri: relative_url(url, links_from(src)))
        if page is None:
            _write(docs / file.src_uri, file.content if isinstance(file.content, bytes) else file.content.encode())
            continue
        front = {"title": str(build.site.page_title(file.src_uri)),
                 "description": build.site.page_description(file.src_uri, build.engine.series.baseline)}
        if file.src_uri not in build.site.script_pages:  # search leaves the package's code out, as under MkDocs
            front["search"] = {"exclude": True}
        head, tail = page
        text = f"---\n{_front_matter(front)}---\n\n{head}\n\n{file.content}\n\n{tail}\n"
        _write(docs / file.src_uri, text.encode())
    return docs


def _front_matter(values: dict) -> str:
    """A staged page's front matter as YAML, its text escaped as HTML: Zensical's templates print a page's title
    and description into the page and its attributes as they are (a script named `<img onerror=…>.py`, a `"` in a
    description), as MkDocs' templates would, which is why the MkDocs adapter escapes them for its templates too."""
    return yaml.safe_dump(_escaped(values), allow_unicode=True, sort_keys=False)


def _escaped(value):
    if isinstance(value, str):
        return str(escape(value))
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data)


def write_config(config_file: Path, build: SiteBuild, site_dir: Path | None = None) -> Path:
    """`.codeproof-stage.yml`: mkdocs.yml's YAML, its tags kept as written (`!ENV`, toc's slugify), with the
    staging folder as docs_dir, the posts and the package map in the navigation, the cards loaded (reading the
    series' settings from mkdocs.yml), the feeds' image where the feed plugin names none (as the MkDocs adapter
    sets it), and no MkDocs hook; `site_dir` as the output folder if given (a preview's)."""
    root = yaml.compose(config_file.read_text(encoding="utf-8"))
    settings = {key.value: (key, value) for key, value in root.value}
    extensions = settings.get("markdown_extensions", (None, None))[1]
    listed = [item.value if item.id == "scalar" else item.value[0][0].value for item in extensions.value] \
        if extensions is not None else []
    cards = yaml.compose(yaml.safe_dump([{CARDS: {"config_file": config_file.name}}]))
    nav = navigation_of(settings.get("nav", (None, None))[1], build)
    replaced = {
        "docs_dir": yaml.compose(json.dumps(f"{STAGE}/docs")),
        "nav": yaml.compose(yaml.safe_dump(nav, allow_unicode=True)),
        "markdown_extensions": extensions if CARDS in listed else
        yaml.SequenceNode("tag:yaml.org,2002:seq", (extensions.value if extensions is not None else []) + cards.value),
    }
    plugins = settings.get("plugins", (None, None))[1]
    if plugins is not None and plugins.id == "sequence":
        replaced["plugins"] = _with_feed_image(plugins, feeds.feed_image(read_settings(config_file).get("site_url")))
    if site_dir is not None:
        replaced["site_dir"] = yaml.compose(json.dumps(str(site_dir)))
    root.value = [(key, value) for key, value in root.value if key.value not in replaced and key.value != "hooks"]
    root.value += [(yaml.ScalarNode("tag:yaml.org,2002:str", key), value) for key, value in replaced.items()]
    path = config_file.parent / CONFIG
    write_atomically(path, (f"# Written by the Zensical adapter from {config_file.name}: not to edit, not to commit.\n"
                            + yaml.serialize(root, allow_unicode=True)).encode())
    return path


def _with_feed_image(plugins: yaml.SequenceNode, image: str) -> yaml.SequenceNode:
    """mkdocs.yml's list of plugins with `image` among the feed plugin's options where they have none."""
    def text(value: str) -> yaml.ScalarNode:
        return yaml.ScalarNode("tag:yaml.org,2002:str", value)

    items = []
    for item in plugins.value:
        named = item.value[0] if item.id == "mapping" and len(item.value) == 1 else (item, None)
        if named[0].id == "scalar" and named[0].value == "rss":
            options = named[1] if named[1] is not None and named[1].id == "mapping" else \
                yaml.MappingNode("tag:yaml.org,2002:map", [])
            if not any(key.value == "image" for key, _ in options.value):
                options.value.append((text("image"), text(image)))
            item = yaml.MappingNode("tag:yaml.org,2002:map", [(text("rss"), options)])
        items.append(item)
    return yaml.SequenceNode("tag:yaml.org,2002:seq", items)


def navigation_of(nav_node, build: SiteBuild) -> list:
    """mkdocs.yml's nav with the posts in series order where the first of them stands (after the first item if
    none does) and the package map before the first section: the rule adapter/navigation.py applies to MkDocs'
    navigation. Without a nav, the overview, then the posts."""
    nav = yaml.safe_load(yaml.serialize(nav_node)) if nav_node is not None else ["index.md"]
    posts = [{entry.label: entry.src_uri} for entry in build.series.posts]
    srcs = {entry.src_uri for entry in build.series.posts}

    def named(item):  # a page's file, or a section's items
        return next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else item

    def is_post(item) -> bool:
        return isinstance(named(item), str) and named(item) in srcs

    place = next((n for n, item in enumerate(nav) if is_post(item)), None)
    nav = [item for item in nav if not is_post(item)]
    at = place if place is not None else min(1, len(nav))
    nav[at:at] = posts
    if build.site.sources is not None:
        section = next((n for n, item in enumerate(nav) if isinstance(named(item), list)), len(nav))
        nav.insert(section, {generated.SOURCE_MAP_TITLE: addresses.SOURCE_MAP_SRC})
    return nav
