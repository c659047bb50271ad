"""The series in the site's navigation: its posts in number order where the first of them stands in mkdocs.yml's
nav (after the first page if none does), the package map before any section, and Material's footer
(上一页/下一页) in the readers' one order. It works on any tree of items that have `children` (sections),
`is_page` and `is_section`, `title`, `parent`, `previous_page` and `next_page`: MkDocs' navigation."""

from __future__ import annotations


def arrange(items: list, posts: list, titles: list[str], source_map=None, map_title: str = "") -> list:
    """The navigation `items` with the series' `posts` (pages, in series order, given their `titles`) in place
    and the package map (a page, or None) titled `map_title` before the sections; returns its pages, in order,
    with the footer's neighbours set."""
    for page, title in zip(posts, titles):
        page.title = title
    place_posts(items, posts)
    if source_map is not None:
        source_map.title = map_title
        place_before_sections(items, source_map)
    pages = [item for item in walk(items) if item.is_page]
    series_order(pages, posts)
    return pages


def place_posts(items: list, posts: list) -> None:
    """Put `posts` (pages, in series order) where the first of them stood in `items`, or after the first item."""
    place, index = _remove(items, set(map(id, posts))) or (items, min(1, len(items)))
    place[index:index] = posts
    for page in posts:
        page.parent = next((item for item in walk(items) if getattr(item, "children", None) is place), None)


def place_before_sections(items: list, page) -> None:
    """Put `page` in the top level, before the first section (作者)."""
    items.insert(next((n for n, item in enumerate(items) if item.is_section), len(items)), page)


def series_order(pages: list, posts: list) -> None:
    """Material's footer (上一页/下一页) in the readers' one order: the overview leads to the first post, each
    post to the published ones around it, as the series bar does; other pages (the authoring guide) are out
    of that flow."""
    for page in pages:
        page.previous_page = page.next_page = None
    if pages and posts and pages[0].is_homepage:
        pages[0].next_page = posts[0]
    for previous, page, following in zip([None, *posts], posts, [*posts[1:], None]):
        page.previous_page, page.next_page = previous, following


def walk(items) -> list:
    """Navigation items, nested ones included."""
    found = []
    for item in items:
        found += [item] + walk(getattr(item, "children", None) or [])
    return found


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
