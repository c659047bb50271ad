"""What the JSON feeds say of each post beyond what the feed plugin writes: a post has no image or author of
its own in its front matter, so each item takes the feed's (the series' preview image and author), as a reader's
feed app shows them; the RSS feeds carry them at the channel."""

from __future__ import annotations

import json
from pathlib import Path

from codeproof.common.filesystem import write_atomically

JSON_FEEDS = ("feed_json_created.json", "feed_json_updated.json")  # the feed plugin's names (mkdocs-rss-plugin)


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
