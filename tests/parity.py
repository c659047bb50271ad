"""Two builds of one site compared page by page, as readers reach them (issue 55): MkDocs' and Zensical's. Each
page's cards (their words), each link a card or a citation holds (the file and line it reaches), every page the
build adds (a source page, the package map, a script's page: its words and its lines' anchors), and every file it
adds beside them (the experiments' archive, the scripts, the package's raw files), byte for byte; a post's
header and the series' navigation, with their links; what the search index holds of the package, and what the
feeds say of each post."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from defusedxml import ElementTree
from selectolax.lexbor import LexborHTMLParser

from codeproof.adapter import feeds, search
from codeproof.common import pagetree

ADDED = ("source", "experiments", "downloads", "robots.txt")  # what the build adds to a site: folders, and a file
RECORDS = "downloads/runs.json"  # the runs' records: each build's own runs, compared by the stamps each lists


def stamps_recorded(site: Path) -> dict:
    """Each script's records, as the stamps each lists (the runs themselves differ from build to build)."""
    scripts = json.loads((site / RECORDS).read_text(encoding="utf-8"))["scripts"]
    return {script: [run["stamps"] for run in runs] for script, runs in scripts.items()}


def page(site: Path, url: str) -> LexborHTMLParser:
    return LexborHTMLParser((site / url / "index.html").read_text(encoding="utf-8"))


def reached(url: str, href: str) -> str:
    """Where a link on the page at `url` leads, as a path in the site with its fragment: `source/pkg/mod.py/#L9`."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return href
    path = posixpath.normpath(posixpath.join(url, unquote(parts.path)))
    path = ("" if path == "." else path + ("/" if parts.path.endswith("/") else ""))
    return path + (f"#{parts.fragment}" if parts.fragment else "")


def run_said_alike(words: str) -> str:
    """A card's words with what its stamp says of one run left out: how long it took, and whether it came from the
    cache (two builds, one after the other: the second takes the first's run). So its stamp's link leads to a record
    of another anchor (a record names its run), which is compared without it; and the script pages' words are."""
    return re.sub(r"运行[0-9.]+s", "运行", words).replace("缓存，", "")


def shown(site: Path, url: str) -> dict:
    """What a page shows that both hosts must show alike."""
    tree = page(site, url)
    article = tree.css_first("article")
    held = pagetree.cards(tree)
    return {
        "cards": [run_said_alike(pagetree.card_words(card)) for card in held],
        "card links": [re.sub(r"#run-[0-9a-f]{12}$", "#run-", reached(url, a.attributes.get("href") or ""))
                       for card in held for a in card.css("a[href]")],
        "citations": [reached(url, a.attributes.get("href") or "") for a in tree.css("a.series-cite")],
        "line anchors": [node.attributes.get("id") for node in tree.css(".series-src [id^=L]")],
        "post header": ["".join(node.text().split()) for node in tree.css(".series-meta, .series-baseline, .series-nav")],
        "post header links": [reached(url, a.attributes.get("href") or "")
                              for a in tree.css(".series-meta a, .series-baseline a, .series-nav a")],
        "stamps of a record": ["".join(item.text().split()) for item in tree.css(".series-run__stamps li")],
        "words": words_but_records(article) if article is not None and not held else None,
    }


def words_but_records(article) -> str:
    """An article's words without the runs' records (each build's own run, or the cache's: its time and anchor)."""
    for record in article.css(".series-run"):
        record.decompose()
    return "".join(article.text().split())


def pages(site: Path) -> list[str]:
    """The URL of every page of a built site (folders with an index.html), but the tags' and the 404 page."""
    folders = [path.parent.relative_to(site).as_posix() for path in site.rglob("index.html") if "tags" not in path.parts]
    return sorted("" if folder == "." else folder + "/" for folder in folders)


def package_in_search(site: Path) -> list[tuple]:
    """The search index's entries of the package's pages, whichever host's index the site holds: (location,
    title, text), in order."""
    for name, key in ((search.INDEX, "docs"), (search.ZENSICAL_INDEX, "items")):
        if (site / name).is_file():
            entries = json.loads((site / name).read_text(encoding="utf-8"))[key]
            return [(e["location"], e["title"], e["text"]) for e in entries if e["location"].startswith("source/")]
    return []


RSS_SAID = ("title", "link", "description", "pubDate", "guid")
JSON_SAID = ("title", "url", "content_html", "image", "authors", "tags")


def feeds_say(site: Path) -> dict:
    """What each feed says of the series and of each post (what a feed reader shows): a JSON feed's items as
    JSON_SAID, an RSS feed's channel image and items as RSS_SAID with their categories."""
    said = {}
    for name in feeds.JSON_FEEDS:
        items = json.loads((site / name).read_text(encoding="utf-8"))["items"] if (site / name).is_file() else []
        said[name] = [{key: item.get(key) for key in JSON_SAID} for item in items]
    for name in feeds.RSS_FEEDS:
        channel = ElementTree.fromstring((site / name).read_bytes()).find("channel") if (site / name).is_file() else None
        said[name] = None if channel is None else {
            "image": channel.findtext("image/url"),
            "items": [{**{key: item.findtext(key) for key in RSS_SAID},
                       "categories": [c.text for c in item.findall("category")]} for item in channel.iter("item")]}
    return said


def differences(mkdocs_site: Path, zensical_site: Path, urls: list[str]) -> list[str]:
    """How the pages at `urls` and the files the build adds differ between the two builds ([] for none)."""
    found = []
    for url in urls:
        if not (zensical_site / url / "index.html").is_file():
            found.append(f"{url or '/'}: no page under Zensical")
            continue
        mkdocs, zensical = shown(mkdocs_site, url), shown(zensical_site, url)
        found += [f"{url or '/'}: {what} differ: {mkdocs[what]!r} against {zensical[what]!r}"
                  for what in mkdocs if mkdocs[what] != zensical[what]]
    for what, reading in (("the search index's entries of the package", package_in_search),
                          ("the feeds", feeds_say)):
        said = [reading(site) for site in (mkdocs_site, zensical_site)]
        if said[0] != said[1]:
            found.append(f"{what} differ: {said[0]!r} against {said[1]!r}")
    stamps = [stamps_recorded(site) for site in (mkdocs_site, zensical_site)]
    if stamps[0] != stamps[1]:
        found.append(f"{RECORDS}: the stamps its records list differ: {stamps[0]!r} against {stamps[1]!r}")
    for added in map(mkdocs_site.joinpath, ADDED):
        for file in sorted(p for p in ([added] if added.is_file() else added.rglob("*"))
                           if p.is_file() and p.name != "index.html" and p != mkdocs_site / RECORDS):
            twin = zensical_site / file.relative_to(mkdocs_site)
            if not twin.is_file() or twin.read_bytes() != file.read_bytes():
                found.append(f"{file.relative_to(mkdocs_site)}: {'differs' if twin.is_file() else 'missing'} under Zensical")
    return found
