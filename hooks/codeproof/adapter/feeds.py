"""The feeds the feed plugin writes: each item, to read as the guard reads a page (`feed_items`); and what the
JSON feeds say of each post beyond what the plugin writes: a post has no image or author of
its own in its front matter, so each item takes the feed's (the series' preview image and author), as a reader's
feed app shows them; the RSS feeds carry them at the channel."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from defusedxml import ElementTree

from codeproof.common.filesystem import write_atomically

PREVIEW_IMAGE = "assets/og.png"  # what a shared link shows (overrides/assets/), also the feeds' image
JSON_FEEDS = ("feed_json_created.json", "feed_json_updated.json")  # the feed plugin's names (mkdocs-rss-plugin)


RSS_FEEDS = ("feed_rss_created.xml", "feed_rss_updated.xml")


def feed_items(site_dir: Path) -> list[tuple[str, str]]:
    """Each item of each feed the build wrote: (its page's address in the site, its title and description as HTML,
    as a feed reader shows them)."""
    items = []
    for name in RSS_FEEDS:
        path = site_dir / name
        if path.is_file():
            for item in ElementTree.fromstring(path.read_bytes()).iter("item"):
                shown = "".join(f"<p>{escape(item.findtext(key) or '')}</p>" if key == "title" else
                                item.findtext(key) or "" for key in ("title", "description"))
                items.append((_address(item.findtext("link") or "", site_dir), shown))
    for name in JSON_FEEDS:
        path = site_dir / name
        if path.is_file():
            for item in json.loads(path.read_text(encoding="utf-8")).get("items", []):
                shown = f"<p>{escape(str(item.get('title', '')))}</p>" + "".join(
                    str(item.get(key) or "") for key in ("content_html", "summary"))
                items.append((_address(str(item.get("url", "")), site_dir), shown))
    return items


def _address(link: str, site_dir: Path) -> str:
    """A feed's link as the page's address in the site (posts/x/), whatever host the site's URL names."""
    path = urlsplit(link).path
    for depth in range(path.count("/") + 1):
        tail = path.split("/", depth)[-1]
        if (site_dir / tail / "index.html").is_file() or (site_dir / tail).is_file():
            return tail
    return path


def feed_image(site_url: str | None) -> str:
    """The feeds' image where the feed plugin's settings name none (it would print <url>None</url>), under
    either host: the series' preview image."""
    return urljoin(site_url or "", PREVIEW_IMAGE)


def complete_json_feed(feed: dict) -> dict:
    """The feed with each item's missing image and authors taken from the feed's icon and authors."""
    for item in feed.get("items", []):
        if not item.get("image") and feed.get("icon"):
            item["image"] = feed["icon"]
        if not item.get("authors") and feed.get("authors"):
            item["authors"] = list(feed["authors"])
    return feed


def complete_json_feeds(site_dir: Path) -> None:
    """complete_json_feed on each JSON feed the build wrote, each written whole or not at all."""
    for name in JSON_FEEDS:
        path = site_dir / name
        if path.is_file():
            feed = complete_json_feed(json.loads(path.read_text(encoding="utf-8")))
            write_atomically(path, json.dumps(feed, ensure_ascii=False).encode("utf-8"))
